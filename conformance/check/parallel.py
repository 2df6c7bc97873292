"""The breadth-first search of Checker.run split over worker processes (``autoswitch check --workers N``), with a
fingerprint store that spills to disk (``--memory``) and a checkpoint to resume from (``--checkpoint``): store.py.

Each worker owns the states whose fingerprint is ``fp % N``: it keeps their fingerprints (with their parents') and
the frontier among them. The search goes level by level, the driver (this process) starting each level and waiting
for every worker to finish it:

1. each worker expands its frontier states with Checker.expand, in the order Checker.run takes them, and sends each
   owner the fingerprints of the successors it owns (with their parent's, and their place in Checker.run's order:
   ``rank * M + i`` for the i-th successor of the state of rank ``rank``, M = one more than the actions of Next);
2. each owner keeps the fingerprints it has not seen, each from its first place in that order, and asks the worker
   that generated it there for the state itself (so only new states are pickled, not every successor);
3. each owner checks its new states with Checker.check_state; they make its frontier of the next level, by place.

A level is complete when every worker has done it: the counts (distinct, generated, depth) are Checker.run's. A
violation found in a level (a broken transition in step 1, a new state breaking an invariant in step 3) is the one
Checker.run reports, the first by place: the driver rebuilds its chain by asking the owners for the parents and the
trace with Checker.counterexample, and the counts at the violation are Checker.run's there too.

Liveness (Checker.goals) needs the reachable graph in one process: with ``--workers`` alone such a configuration runs
in this process (Checker.run) with a note on stderr; with ``--checkpoint`` or ``--memory`` it is refused (InputError).

The fingerprints agree across processes (fingerprint.py). A checkpoint records the fingerprints of the initial states
and is refused by a process that computes others (another Python build or another encoding of the states).
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing as mp
import queue
import signal
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any

from autoswitch import reference
from autoswitch.conformance import explore
from autoswitch.conformance.check import checker as checker_module
from autoswitch.conformance.check.checker import Checker, CheckResult, Progress, Start
from autoswitch.conformance.check.codec import CodecError, decode, encode
from autoswitch.conformance.check.how import How
from autoswitch.conformance.check.store import (
    FORMAT,
    Checkpoint,
    FingerprintStore,
    append_log,
    code_identity,
    prefix_hash,
    read_log,
)
from autoswitch.conformance.errors import InputError
from autoswitch.reference import System

Event = tuple[int, str, str, int, int | None]  # (place, property, kind, fingerprint, successor's for a broken transition)


class Worker:
    """One worker process: the states it owns (``fp % n == index``), its frontier and its store."""

    def __init__(self, index: int, n: int, checker: Checker, store: FingerprintStore, inboxes: list[Any]):
        self.index, self.n, self.checker, self.store, self.inboxes = index, n, checker, store, inboxes
        self.stride = len(checker.actions.all) + 1
        self.frontier: list[tuple[int, System, int]] = []  # (place, state, fingerprint), by place
        self.unsaved: list[tuple[int, int | None]] = []  # store entries not yet in the checkpoint's log
        self.log_digest = hashlib.sha256()  # the running SHA-256 of the checkpoint's log (store.append_log)
        self.pending: dict[tuple[str, int], Any] = {}  # messages of a later step, by (step, sender)
        self.places: list[int] = []  # the level's successors' places (counts at a violation)
        self.new: dict[int, int] = {}  # the level's new fingerprints -> their place

    def owner(self, fp: int) -> int:
        return fp % self.n

    def _send_all(self, tag: str, parts: list[Any]) -> Any:
        """Send ``parts[o]`` to each other worker o; this worker's own part is returned."""
        for o, part in enumerate(parts):
            if o != self.index:
                self.inboxes[o].put((tag, self.index, part))
        return parts[self.index]

    def _receive_all(self, tag: str) -> dict[int, Any]:
        """The ``tag`` message of every other worker, by sender."""
        got: dict[int, Any] = {}
        for sender in range(self.n):
            if sender != self.index and (tag, sender) in self.pending:
                got[sender] = self.pending.pop((tag, sender))
        while len(got) < self.n - 1:
            t, sender, part = self.inboxes[self.index].get()
            if t == tag:
                got[sender] = part
            else:
                self.pending[(t, sender)] = part
        return got

    def level(self) -> tuple[int, int, Event | None]:
        """Expand the frontier (steps 1-3 above): (successors generated, new states: the next frontier's size, the
        first violation by place or None)."""
        checker, stride = self.checker, self.stride
        generated: list[dict[int, tuple[int, int, System]]] = [{} for _ in range(self.n)]  # per owner: fp -> first
        places: list[int] = []
        event: Event | None = None
        for place, s, fp in self.frontier:
            expansion = checker.expand(s, fp)
            successors = expansion.successors
            broken = expansion.broken
            for i, (_, w, wfp) in enumerate(successors):
                places.append(place * stride + i)
                if broken is not None and i == len(successors) - 1 and broken[1] == "action property":
                    break
                first = generated[wfp % self.n]
                if wfp not in first:
                    first[wfp] = (place * stride + i, fp, w)
            if broken is not None:
                name, kind, wfp = broken
                at = place * stride + (len(successors) - 1 if kind == "action property" else len(successors))
                event = (at, name, kind, fp, wfp)
                break  # Checker.run stops here: no later place matters
        self.places = places
        # 2. the owners keep the fingerprints they have not seen, each from its first place
        mine = self._send_all("seen", [[(wfp, at, fp) for wfp, (at, fp, _) in part.items()] for part in generated])
        offers = self._receive_all("seen")
        offers[self.index] = mine
        best: dict[int, tuple[int, int, int]] = {}  # fp -> (place, parent, sender)
        for sender, part in offers.items():
            for wfp, at, fp in part:
                if wfp not in best or at < best[wfp][0]:
                    best[wfp] = (at, fp, sender)
        known = self.store.known(best)
        wanted: list[list[int]] = [[] for _ in range(self.n)]
        for wfp, (_, _, sender) in best.items():
            if wfp not in known:
                wanted[sender].append(wfp)
        asked = self._send_all("want", wanted)
        requests = self._receive_all("want")
        requests[self.index] = asked
        states = [[(wfp, generated[o][wfp][2]) for wfp in requests[o]] for o in range(self.n)]
        own = self._send_all("states", states)
        arrived = self._receive_all("states")
        arrived[self.index] = own
        # 3. check the new states, in place order
        new = sorted((best[wfp][0], w, wfp) for part in arrived.values() for wfp, w in part)
        entries = [(wfp, best[wfp][1]) for _, _, wfp in new]
        self.store.add(entries)
        self.unsaved += entries
        self.new = {wfp: at for at, _, wfp in new}
        for at, w, wfp in new:
            if event is not None and at >= event[0]:
                break
            if (name := checker.check_state(w)) is not None:
                event = (at, name, "invariant", wfp, None)
                break
        self.frontier = new
        return len(places), len(new), event

    def upto(self, at: int, wfp: int | None) -> tuple[int, int, bool]:
        """Checker.run's counts at the violation of place ``at``: this worker's successors and new states up to it, and
        whether it owns ``wfp`` (the successor of a broken transition) and had seen it before."""
        generated = sum(1 for p in self.places if p <= at)
        new = sum(1 for p in self.new.values() if p <= at)
        seen = False
        if wfp is not None and self.owner(wfp) == self.index:
            seen = self.new[wfp] < at if wfp in self.new else bool(self.store.known([wfp]))
        return generated, new, seen

    def store_parent(self, fp: int) -> int | None:
        return self.store.parent(fp)

    def save(self, checkpoint: Checkpoint, depth: int) -> dict[str, Any]:
        """Write the frontier at ``depth`` (JSON, codec.py) and append the new store entries to the log: what meta.json
        records of the two (lengths, counts, digests)."""
        frontier = json.dumps([[place, encode(s), fp] for place, s, fp in self.frontier]).encode()
        checkpoint.frontier(self.index, depth).write_bytes(frontier)
        length = append_log(checkpoint.log(self.index), self.unsaved, self.log_digest)
        self.unsaved = []
        return {"log": length, "logDigest": self.log_digest.hexdigest(), "frontier": len(self.frontier),
                "frontierDigest": hashlib.sha256(frontier).hexdigest()}

    def resume(self, checkpoint: Checkpoint, depth: int, record: dict[str, Any]) -> InputError | None:
        """Read this worker's log and frontier back (Checkpoint.load checked their digests); a content that is not what
        a search writes is an InputError naming the file, returned to the driver."""
        try:
            log = checkpoint.log(self.index)
            for entries in read_log(log, record["log"]):
                self.store.add(entries)
            self.log_digest = prefix_hash(log, record["log"]) if log.exists() else hashlib.sha256()
            path = checkpoint.frontier(self.index, depth)
            rows = json.loads(path.read_bytes())
            if not isinstance(rows, list) or len(rows) != record["frontier"]:
                raise InputError(f"{path}: not the {record['frontier']} states meta.json records")
            frontier = []
            for row in rows:
                if not (isinstance(row, list) and len(row) == 3 and type(row[0]) is int and type(row[2]) is int):
                    raise InputError(f"{path}: an entry is not [place, state, fingerprint]")
                state = decode(row[1])
                if not isinstance(state, System):
                    raise InputError(f"{path}: an entry's state is not a state of the model")
                frontier.append((row[0], state, row[2]))
        except InputError as e:
            return e
        except (ValueError, CodecError) as e:
            return InputError(f"{checkpoint.frontier(self.index, depth)}: not a checkpoint's frontier ({e})")
        self.frontier = frontier
        return None


def _serve(worker: Worker, commands: Any, results: Any) -> None:
    """A worker process: run the driver's commands until it says stop. Ctrl-C is the driver's to handle."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        while True:
            command, *args = commands.get()
            if command == "stop":
                break
            handler: Callable[..., Any] = getattr(worker, command)
            results.put((worker.index, handler(*args)))
    except BaseException:  # reported to the driver, which stops the search
        results.put((worker.index, RuntimeError(f"worker {worker.index} failed:\n{traceback.format_exc()}")))
    finally:
        worker.store.close()


class Pool:
    """The worker processes (forked: they share this process's checker) and their queues."""

    def __init__(self, n: int, make: Callable[[int, list[Any]], Worker]):
        context = mp.get_context("fork")
        inboxes = [context.Queue() for _ in range(n)]
        self.commands = [context.Queue() for _ in range(n)]
        self.results = context.Queue()
        self.processes = [context.Process(target=_serve, args=(make(i, inboxes), self.commands[i], self.results), daemon=True)
                          for i in range(n)]
        for p in self.processes:
            p.start()

    def ask(self, command: str, *args: Any, only: int | None = None) -> list[Any]:
        """Send ``command`` to every worker (or only one) and wait for the answers, by worker."""
        targets = range(len(self.processes)) if only is None else [only]
        for i in targets:
            self.commands[i].put((command, *args))
        answers: dict[int, Any] = {}
        while len(answers) < len(targets):
            try:
                index, answer = self.results.get(timeout=1.0)
            except queue.Empty:
                dead = [i for i, p in enumerate(self.processes) if not p.is_alive()]
                if dead:
                    raise RuntimeError(f"worker {dead[0]} exited (code {self.processes[dead[0]].exitcode})") from None
                continue
            if isinstance(answer, BaseException):
                raise answer
            answers[index] = answer
        return [answers[i] for i in targets]

    def close(self) -> None:
        for c, p in zip(self.commands, self.processes, strict=True):
            if p.is_alive():
                c.put(("stop",))
        for p in self.processes:
            p.join(timeout=5)
            if p.is_alive():
                p.terminate()
                p.join()


def identity(checker: Checker, workers: int, initial: list[tuple[Start, int]]) -> dict[str, Any]:
    """What a checkpoint must have been saved by to be resumed: the configuration (name, text), what is checked, the
    code that fingerprints the states, the number of workers (the partition) and the initial states' fingerprints."""
    spec = checker.spec
    source = spec.source.read_text() + "\0" + (spec.source.parent / f"{spec.module}.tla").read_text()
    return {"format": FORMAT, "config": spec.name, "source": hashlib.sha256(source.encode()).hexdigest(),
            "properties": [i.name for i in checker.invariants] + [p.name for p in checker.properties],
            "symmetry": bool(checker.renamings), "code": code_identity([reference, explore, checker_module]),
            "workers": workers, "initial": [fp for _, fp in initial]}


def parallel_search(checker: Checker, how: How, on_progress: Callable[[Progress], None] | None = None,
                    every: float = 2.0) -> CheckResult:
    """Checker.run's search over ``how.workers`` processes, with ``how.memory`` fingerprints in memory at most (the rest
    on disk) and, with ``how.checkpoint``, a checkpoint saved after each level and resumed from."""
    if checker.goals:
        if how.checkpoint is not None or how.memory is not None:
            raise InputError(f"{checker.spec.name}: liveness properties are checked on the reachable graph in one process: "
                             "--checkpoint and --memory are for safety configurations")
        print(f"{checker.spec.name}: liveness properties need the reachable graph in one process: checked by one "
              f"process, not {how.workers} workers", file=sys.stderr)
        return checker.run(on_progress, every)
    n = how.workers
    started = time.monotonic()
    initial = checker.initial()
    starts = {fp: start for start, fp in initial}
    for start, fp in initial:  # Checker.run checks the initial states in this order first
        if (name := checker.check_state(start.state)) is not None:
            v = checker.counterexample(name, "invariant", [fp], starts)
            return CheckResult(checker.spec.name, len(starts), 0, 1, time.monotonic() - started, bool(checker.renamings),
                               v, checker.spec.liveness)
    ident = identity(checker, n, initial)
    checkpoint = None
    saved = None
    if how.checkpoint is not None:
        how.checkpoint.mkdir(parents=True, exist_ok=True)
        checkpoint = Checkpoint(how.checkpoint)
        saved = checkpoint.load(ident)
        if saved is None:
            checkpoint.clear_uncommitted()
    limit = None if how.memory is None else max(1, how.memory // n)
    spill = how.checkpoint

    def make(i: int, inboxes: list[Any]) -> Worker:
        worker = Worker(i, n, checker, FingerprintStore(limit, spill), inboxes)
        if saved is None:
            worker.frontier = [(place, start.state, fp) for place, (start, fp) in enumerate(initial) if fp % n == i]
            worker.unsaved = [(fp, None) for _, _, fp in worker.frontier]
            worker.store.add(worker.unsaved)
        return worker

    depth, distinct, generated = 1, len(initial), 0
    pool = Pool(n, make)
    try:
        if saved is not None:
            assert checkpoint is not None
            depth, distinct, generated = saved["depth"], saved["distinct"], saved["generated"]
            for i in range(n):
                pool.ask("resume", checkpoint, depth, saved["logs"][i], only=i)  # raises the InputError a worker returns
            if on_progress:
                on_progress(Progress(depth, distinct, generated, saved["queue"], time.monotonic() - started,
                                     f"resumed at depth {depth}"))
        queue_size = saved["queue"] if saved is not None else len(initial)
        last = time.monotonic()
        while queue_size:
            answers = pool.ask("level")
            events = [a[2] for a in answers if a[2] is not None]
            if events:
                return _violation(checker, pool, n, min(events), starts, depth, distinct, generated, started)
            generated += sum(a[0] for a in answers)
            distinct += sum(a[1] for a in answers)
            queue_size = sum(a[1] for a in answers)
            depth += bool(queue_size)
            if checkpoint is not None:
                logs = pool.ask("save", checkpoint, depth)
                checkpoint.save(ident, {"depth": depth, "distinct": distinct, "generated": generated, "queue": queue_size,
                                        "logs": logs, "done": not queue_size})
            if on_progress and time.monotonic() - last >= every:
                last = time.monotonic()
                on_progress(Progress(depth, distinct, generated, queue_size, last - started))
    except KeyboardInterrupt:
        if checkpoint is not None:
            print(f"{checker.spec.name}: interrupted; {checkpoint.folder} holds the search at depth {depth}: the same "
                  "command resumes it", file=sys.stderr)
        raise
    finally:
        pool.close()
    return CheckResult(checker.spec.name, distinct, generated, depth, time.monotonic() - started, bool(checker.renamings),
                       None, checker.spec.liveness)


def _violation(checker: Checker, pool: Pool, n: int, event: Event, starts: dict[int, Start], depth: int, distinct: int,
               generated: int, started: float) -> CheckResult:
    """The result at the first violation of a level, as Checker.run reports it: the chain rebuilt from the owners'
    parent pointers, the counts up to the violation's place."""
    at, name, kind, fp, wfp = event
    counts = pool.ask("upto", at, wfp)
    generated += sum(c[0] for c in counts)
    distinct += sum(c[1] for c in counts)
    if wfp is not None and not any(c[2] for c in counts):
        distinct += 1  # Checker.run records the broken transition's successor (parent.setdefault)
    chain = [fp]
    while (up := _parent(pool, chain[-1], n)) is not None:
        chain.append(up)
    chain.reverse()
    if wfp is not None:
        chain.append(wfp)
    violation = checker.counterexample(name, kind, chain, starts)
    return CheckResult(checker.spec.name, distinct, generated, len(chain), time.monotonic() - started,
                       bool(checker.renamings), violation, checker.spec.liveness)


def _parent(pool: Pool, fp: int, n: int) -> int | None:
    (parent,) = pool.ask("store_parent", fp, only=fp % n)
    return parent

