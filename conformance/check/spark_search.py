"""Checker.run's breadth-first search on Spark (``autoswitch check --master URL``), level by level, with the same
counts (distinct, generated, depth) and the same shortest counterexample.

- Every state carries a *key*: its initial state's index in Checker.initial, then its position in its parent's
  successors (Checker.expand) at each level, as digits in base ``len(actions) + 1``. Keys order each level as
  Checker.run processes it, and a key spells the path from the initial state: the shortest trace is rebuilt by
  expanding states along it, with no parent pointers kept.
- The first levels, while the frontier holds at most ``head`` states, run in one Spark task as Checker.run does
  them. Then each level is one Spark job over ``partitions`` partitions, state ``fp`` owned by partition
  ``fp % partitions``, each partition one record: the owner's visited fingerprints and frontier (states as
  compact pickles, :func:`encode`). The job expands every partition's frontier (duplicates within the partition
  and successors the partition itself has visited are dropped there), shuffles the successors to their owners
  and unions them with the owners' records (co-partitioned: no shuffle of the visited sets); each owner keeps,
  per fingerprint it has not visited, the successor with the smallest key (the one Checker.run meets first),
  checks it (Checker.check_state) and adds it to its frontier. Each level's result is persisted and locally
  checkpointed, so lineage does not grow.
- A violation in a level: the one with the smallest position (key) is the one Checker.run reports, and the
  counts at it are those of the states and transitions before that position (recounted then, once).
- Fingerprints are computed on executors only (the driver runs no model code); they are the same in every process
  (fingerprint.py).
- Liveness needs the reachable graph in one process: refused (InputError).
"""

from __future__ import annotations

import io
import pickle
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from operator import attrgetter, itemgetter
from typing import Any

import attrs
from attrs import frozen

from autoswitch.conformance.check.checker import Checker, CheckResult, Progress, Start, Violation
from autoswitch.conformance.errors import InputError
from autoswitch.conformance.simulation.spark import check_master, spark_context
from autoswitch.reference import state as state_module

HEAD = 2_000  # levels whose frontier holds at most this many states run in one task (a Spark job per level costs more)
PROPERTY = "action property"
STATE, CANDIDATE, GENERATED, BROKEN = "S", "c", "g", "b"  # the kinds of records a level's partitions hold


# --- compact states ---------------------------------------------------------------------------------

def _reducer(cls: type) -> Callable[[Any], tuple[type, tuple[Any, ...]]]:
    get = attrgetter(*(f.name for f in attrs.fields(cls)))
    if len(attrs.fields(cls)) == 1:
        return lambda o: (cls, (get(o),))
    return lambda o: (cls, get(o))


# the state's attrs classes pickled as their constructor's arguments (less than half the bytes and time of attrs'
# own __getstate__, which pickles field names too)
_TABLE = {cls: _reducer(cls) for cls in vars(state_module).values()
          if isinstance(cls, type) and attrs.has(cls) and all(f.init for f in attrs.fields(cls))}


def encode(s: Any) -> bytes:
    """A state as bytes (pickle.loads reads them back)."""
    f = io.BytesIO()
    p = pickle.Pickler(f, pickle.HIGHEST_PROTOCOL)
    p.dispatch_table = _TABLE  # type: ignore[assignment]
    p.dump(s)
    return f.getvalue()


# --- the checker on executors ---------------------------------------------------------------------

_CHECKERS: dict[str, Checker] = {}  # per executor process: the Checker of each Shipped it was given


@frozen
class Shipped:
    """A Checker sent to executors as the arguments that build it (Checker.__reduce__), built once per executor
    process and kept there: its caches (fingerprints, answers past the constraint) serve every task."""

    token: str
    args: tuple[Any, ...]

    @classmethod
    def of(cls, checker: Checker) -> Shipped:
        return cls(uuid.uuid4().hex, tuple(checker.__reduce__()[1]))

    def get(self) -> Checker:
        if self.token not in _CHECKERS:
            _CHECKERS.clear()
            _CHECKERS[self.token] = Checker(*self.args)
        return _CHECKERS[self.token]


# --- keys: a state's position in Checker.run's order, and its path -----------------------------------

def _radix(checker: Checker) -> int:
    """More than the successors any state has (its position among them is a digit in this base)."""
    return len(checker.actions.all) + 1


def _chain(checker: Checker, starts: list[tuple[Start, int]], key: int, length: int) -> list[int]:
    """The fingerprints along the path ``key`` spells, from its initial state (``length`` states)."""
    radix, digits = _radix(checker), []
    for _ in range(length - 1):
        key, p = divmod(key, radix)
        digits.append(p)
    start, fp = starts[key]
    s, chain = start.state, [fp]
    for p in reversed(digits):
        _, s, fp = checker.expand(s, fp).successors[p]
        chain.append(fp)
    return chain


def _counterexample(shipped: Shipped, name: str, kind: str, key: int, length: int, last: int | None) -> Violation:
    """Checker.counterexample along the path ``key`` spells (``length`` states), then to ``last`` if given."""
    checker = shipped.get()
    starts = checker.initial()
    chain = _chain(checker, starts, key, length) + ([] if last is None else [last])
    return checker.counterexample(name, kind, chain, {fp: start for start, fp in starts})


# --- the first levels, in one task --------------------------------------------------------------------

@frozen
class Head:
    """What the first levels found: visited fingerprints, the frontier as (fp, key, encoded state), the counts, and
    the violation if one stopped the search there."""

    visited: list[int]
    frontier: list[tuple[int, int, bytes]]
    generated: int
    depth: int
    violation: Violation | None


def head(shipped: Shipped, limit: int) -> Head:
    """Checker.run's loop while the frontier holds at most ``limit`` states (it ends there, or at a violation)."""
    checker = shipped.get()
    radix, starts = _radix(checker), checker.initial()
    visited: set[int] = set()
    frontier: list[tuple[Any, int, int]] = []
    generated, depth = 0, 1

    def found(name: str, kind: str, key: int, length: int, last: int | None = None) -> Head:
        return Head(list(visited), [], generated, length + (last is not None),
                    _counterexample(shipped, name, kind, key, length, last))

    for i, (start, fp) in enumerate(starts):
        visited.add(fp)
        frontier.append((start.state, fp, i))
        if (name := checker.check_state(start.state)) is not None:
            return found(name, "invariant", i, 1)
    while frontier and len(frontier) <= limit:
        level = []
        for s, fp, key in frontier:
            x = checker.expand(s, fp)
            n = len(x.successors)
            for p, (_, w, wfp) in enumerate(x.successors):
                generated += 1
                if x.broken is not None and p == n - 1 and x.broken[1] == PROPERTY:
                    break
                if wfp in visited:
                    continue
                visited.add(wfp)
                if (name := checker.check_state(w)) is not None:
                    return found(name, "invariant", key * radix + p, depth + 1)
                level.append((w, wfp, key * radix + p))
            if x.broken is not None:
                name, kind, wfp = x.broken
                visited.add(wfp)
                return found(name, kind, key, depth, wfp)
        frontier = level
        depth += bool(level)
    return Head(list(visited), [(fp, key, encode(s)) for s, fp, key in frontier], generated, depth, None)


# --- one level on Spark: the partitions' functions -----------------------------------------------------

def _route(k: int) -> int:
    """The partitioner's function: records are keyed by their partition's index already."""
    return k


def _seed(index: int, records: Iterable[tuple[int, tuple[Any, ...]]]) -> Iterator[tuple[int, tuple[Any, ...]]]:
    """A partition's record from the head's fingerprints (("v", fp)) and frontier (("f", fp, key, state))."""
    visited, frontier = set(), []
    for _, rec in records:
        visited.add(rec[1])
        if rec[0] == "f":
            frontier.append(rec[1:])
    yield index, (STATE, visited, frontier, None)


def _expand(shipped: Shipped, partitions: int, index: int,
            records: Iterable[tuple[int, tuple[Any, ...]]]) -> Iterator[tuple[int, tuple[Any, ...]]]:
    """Expand a partition's frontier in key order: each successor not dropped here as (owner, ("c", fp, key,
    encoded state)); the transitions generated (("g", count)) and each transition that broke a property, at its
    position (("b", position, name, kind, fp, transitions of its parent counted at it, True): ``fp`` is the successor
    that broke it, after its parent in the trace)."""
    checker = shipped.get()
    radix = _radix(checker)
    ((_, (_, visited, frontier, _)),) = records
    seen: set[int] = set()
    generated = 0
    for fp, key, enc in sorted(frontier, key=itemgetter(1)):
        x = checker.expand(pickle.loads(enc), fp)
        successors = x.successors
        n = len(successors)
        generated += n
        if x.broken is not None:
            name, kind, bfp = x.broken
            yield index, (BROKEN, key * radix + (n - 1 if kind == PROPERTY else n), name, kind, bfp, n, True)
            if kind == PROPERTY:
                successors = successors[:-1]
        for p, (_, w, wfp) in enumerate(successors):
            owner = wfp % partitions
            if wfp in seen or (owner == index and wfp in visited):
                continue
            seen.add(wfp)
            yield owner, (CANDIDATE, wfp, key * radix + p, encode(w))
    yield index, (GENERATED, generated)


def _merge(shipped: Shipped, index: int, records: Iterable[tuple[int, tuple[Any, ...]]]) -> Iterator[tuple[int, tuple[Any, ...]]]:
    """An owner's new record: its visited set and its frontier of the states it had not visited (the smallest
    key of each), each checked; the summary (new states, generated, the first violation by position, broken
    transitions)."""
    checker = shipped.get()
    radix = _radix(checker)
    visited: set[int] = set()
    best: dict[int, tuple[int, bytes]] = {}
    generated, broken = 0, []
    for _, rec in records:
        if rec[0] == STATE:
            visited = rec[1]
        elif rec[0] == CANDIDATE:
            _, wfp, key, enc = rec
            if wfp not in best or key < best[wfp][0]:
                best[wfp] = (key, enc)
        elif rec[0] == GENERATED:
            generated += rec[1]
        else:
            broken.append(rec[1:])
    frontier = [(fp, key, enc) for fp, (key, enc) in best.items() if fp not in visited]
    first = None
    for fp, key, enc in frontier:
        if (first is None or key < first[0]) and (name := checker.check_state(pickle.loads(enc))) is not None:
            first = (key, name, "invariant", fp, key % radix + 1, False)
    visited.update(fp for fp, _, _ in frontier)
    yield index, (STATE, visited, frontier, (len(frontier), generated, first, broken))


def _before(position: int, fp: int, records: Iterable[tuple[int, tuple[Any, ...]]]) -> Iterator[tuple[int, bool]]:
    """In a level's new record: the states found before ``position``, and whether ``fp`` was visited before it."""
    ((_, (_, visited, frontier, _)),) = records
    new = {f: key for f, key, _ in frontier}
    yield sum(key < position for key in new.values()), fp in visited and (fp not in new or new[fp] < position)


def _generated_before(shipped: Shipped, parent: int, records: Iterable[tuple[int, tuple[Any, ...]]]) -> Iterator[int]:
    """The transitions the states before key ``parent`` in a level generate."""
    checker = shipped.get()
    ((_, (_, _, frontier, _)),) = records
    yield sum(len(checker.expand(pickle.loads(enc), fp).successors) for fp, key, enc in frontier if key < parent)


# --- the driver ---------------------------------------------------------------------------------------

def spark_search(checker: Checker, master: str, on_progress: Callable[[Progress], None] | None = None, every: float = 2.0,
                 *, head_limit: int = HEAD, partitions: int | None = None) -> CheckResult:
    """The breadth-first search on Spark ``master`` (check_master; ``none``: Checker.run in this process), over
    ``partitions`` partitions (default: Spark's default parallelism), the levels whose frontier holds at most
    ``head_limit`` states in one task. A master that cannot be reached, or a liveness configuration, is an InputError."""
    check_master(master)
    if master == "none":
        return checker.run(on_progress, every)
    if checker.goals:
        raise InputError(f"--master {master}: {checker.spec.name} has liveness properties ({', '.join(checker.spec.liveness)}); "
                         "they are checked on the reachable graph in one process: run it without --master")
    started = time.monotonic()
    with spark_context(master, app="autoswitch-check") as sc:
        return _Search(sc, checker, partitions or max(sc.defaultParallelism, 1), started, on_progress, every).run(head_limit)


class _Search:
    """The driver's side: counts, the current level's record per partition, and the progress callback."""

    def __init__(self, sc: Any, checker: Checker, partitions: int, started: float,
                 on_progress: Callable[[Progress], None] | None, every: float):
        self.sc, self.checker, self.partitions, self.started = sc, checker, partitions, started
        self.on_progress, self.every, self.last = on_progress, every, started
        self.shipped = Shipped.of(checker)
        self.distinct = self.generated = 0
        self.depth = 1

    def task(self, fn: Callable[[], Any]) -> Any:
        """``fn()`` run in one Spark task (where fingerprints are computed)."""
        return self.sc.parallelize([0], 1).map(lambda _: fn()).collect()[0]

    def result(self, violation: Violation | None) -> CheckResult:
        return CheckResult(self.checker.spec.name, self.distinct, self.generated, self.depth, time.monotonic() - self.started,
                           bool(self.checker.renamings), violation, self.checker.spec.liveness)

    def progress(self, queue: int) -> None:
        if self.on_progress is not None and time.monotonic() - self.last >= self.every:
            self.last = time.monotonic()
            self.on_progress(Progress(self.depth, self.distinct, self.generated, queue, self.last - self.started))

    def run(self, head_limit: int) -> CheckResult:
        shipped, partitions = self.shipped, self.partitions
        first: Head = self.task(partial(head, shipped, head_limit))
        self.distinct, self.generated, self.depth = len(first.visited), first.generated, first.depth
        if first.violation is not None or not first.frontier:
            return self.result(first.violation)
        seeds = [(fp % partitions, ("v", fp)) for fp in first.visited] + [(fp % partitions, ("f", fp, key, enc))
                                                                        for fp, key, enc in first.frontier]
        level = self.keep(self.sc.parallelize(seeds, partitions).partitionBy(partitions, _route)
                          .mapPartitionsWithIndex(_seed, preservesPartitioning=True))
        queue = len(first.frontier)
        self.progress(queue)
        while queue:
            found = level.mapPartitionsWithIndex(partial(_expand, shipped, partitions)).partitionBy(partitions, _route)
            joined = level.union(found)
            if joined.getNumPartitions() != partitions:
                raise AssertionError(f"the visited sets and the successors are not co-partitioned ({joined.getNumPartitions()} partitions)")
            following = self.keep(joined.mapPartitionsWithIndex(partial(_merge, shipped), preservesPartitioning=True))
            summaries = following.map(lambda r: r[1][3]).collect()
            new, generated = sum(s[0] for s in summaries), sum(s[1] for s in summaries)
            events = [s[2] for s in summaries if s[2] is not None] + [b for s in summaries for b in s[3]]
            if events:
                violation = self.resolve(level, following, min(events, key=itemgetter(0)))
                return self.result(violation)
            level.unpersist()
            level, queue = following, new
            self.distinct += new
            self.generated += generated
            self.depth += bool(new)
            self.progress(queue)
        level.unpersist()
        return self.result(None)

    @staticmethod
    def keep(rdd: Any) -> Any:
        """Persist ``rdd`` and cut its lineage once computed (a local checkpoint)."""
        from pyspark import StorageLevel

        rdd.persist(StorageLevel.MEMORY_AND_DISK)
        rdd.localCheckpoint()
        return rdd

    def resolve(self, level: Any, following: Any, event: tuple[Any, ...]) -> Violation:
        """The counts at the first violation of a level (``event``: position, property, kind, fingerprint,
        transitions of its parent counted at it, whether the state ``fp`` comes after its parent's path rather than
        being the state at ``position``), and its counterexample."""
        shipped, radix = self.shipped, _radix(self.checker)
        position, name, kind, fp, at_parent, after_parent = event
        parent = position // radix
        before = following.mapPartitions(partial(_before, position, fp)).collect()
        self.distinct += sum(n for n, _ in before) + (not any(seen for _, seen in before))
        self.generated += sum(level.mapPartitions(partial(_generated_before, shipped, parent)).collect()) + at_parent
        if after_parent:
            violation = self.task(partial(_counterexample, shipped, name, kind, parent, self.depth, fp))
        else:
            violation = self.task(partial(_counterexample, shipped, name, kind, position, self.depth + 1, None))
        self.depth += 1
        level.unpersist()
        following.unpersist()
        return violation

