"""Crash points of the file backend (issue 10, deliverable 4): every committed walk is run by the implementation
on a simulated file system (``simfs.py``) behind the seam ``autoswitch.impl.fs.FileSystem``, and at every
write-like operation of a step (create, append, truncate, fsync, replace, unlink, directory fsync) the
broker whose disk it touches is interrupted:

- **kill**: it stops before the operation, with everything written so far visible (the page cache survives);
- **power cut**: only what was fsynced survives (file contents as of their last fsync, directory entries as of
  their directory's last fsync), and torn variants keep part of the bytes the last appended file grew by;
- **error**: the operation raises OSError (a re-run of the walk up to it); the broker then crashes.

The broker is then restarted from what is left of its disk (``BrokerProcess`` recovers on open), and its
durable state (log, epoch file, confirmOffset, identity files) must be the reference model's after a Crash of
that broker taken just before or just after the interrupted step (the step is atomic in the model). Before the
step's first operation on that disk it must be the state before; once the step's last operation is done it
must be the state after, power cut or not (what the model calls durable is durable). Restarting a second time
from the recovered disk, after another power cut, must give the same state (recovery's own writes are durable).

Findings (the model's steps are atomic, the disk's are not): four in-between states are recoverable, and
allowed here because they are safe (:func:`mid_step`):

- the confirmOffset checkpoint lags: it is a file of its own, written last in a step, so a step cut after its
  log or epoch file writes recovers with the confirmOffset from before the step (clamped to the log end). It
  shows no message the broker did not show before: a step that writes the log either appends (the prefix
  below the old confirmOffset is unchanged) or truncates (and recovery clamps to the new end). RocketMQ's
  checkpoint file lags the same way;
- the epoch file is ahead of the log (``rocketmq``): a slave's Transfer files the master's epoch entry before it
  appends the message and its handshake cuts the log before the epoch file, as AutoSwitchHAClient does, and
  recovery keeps the epoch file whole, as RocketMQ's does (spec/README.md, refinement 38), so an entry may start
  at or past the recovered log end; the model reaches the same kind of state when a crash loses an epoch's
  unflushed messages, and the next handshake or changeToMaster cuts the entry;
- a master re-entering an epoch (changeToMaster with the file's last epoch) removes the epoch's entry and files it
  again in two writes of the epoch file, as RocketMQ's truncateSuffixByEpoch and appendEntry each flush the
  checkpoint; cut between them, the file lacks the entry, possibly with messages in the log. The model's step is
  atomic and does not reach that state (RocketMQ's slave with an empty epoch file and a non-empty log skips the
  truncation; not explored here);
- a Flush of several records cut by a power cut keeps a prefix of them (a torn multi-record write): the log
  between the flushed prefix and the log end that the model's Flush makes durable at once. Unflushed
  messages are promised nothing, and recovery keeps a prefix of the log, as RocketMQ's does.

A WipeDisk is atomic: it writes a marker first (``impl.broker.WIPE_MARKER``) and a store opened with the marker
finishes the wipe, so a wipe cut short recovers to the disk before it or after it (issue 40: deleting the identity
file first had left a new broker holding the old log). The generated walks include wipes of non-empty logs.

Before the fix this test failed: the commit log's file was created without a directory fsync (a power cut
after a completed step lost it), and a torn record stopped the broker from restarting; the two
``test_the_harness_finds_a_broken_backend`` cases put that code back and check that it is found.

The CI run takes every committed walk and 8 generated data-path walks with kill and power cut at every
write, and the error at every write of one walk in four; ``AUTOSWITCH_CRASH_POINTS=full`` injects the error
at every write of every walk and adds 80 longer generated walks.
"""

from __future__ import annotations

import copy
import os
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest
from simfs import Op, SimFileSystem

from autoswitch.conformance.engines import Config, config_from_meta, make_engine
from autoswitch.conformance.engines.impl import DEFAULT_CONFIG, impl_config
from autoswitch.conformance.simulation.generate import DESIGN_RESTART, random_walk
from autoswitch.conformance.trace.itf import load_trace
from autoswitch.impl import commit_log
from autoswitch.impl.broker import BrokerProcess, CheckCodeClock
from autoswitch.impl.client import ControllerClient
from autoswitch.impl.ha import BrokerSet
from autoswitch.impl.metadata import load_meta, load_temp
from autoswitch.impl.storage import FileStorage
from autoswitch.reference import Options
from autoswitch.reference.broker import recovered_epoch_file
from autoswitch.reference.designs import design_of
from autoswitch.reference.precondition import NotEnabled
from autoswitch.reference.state import CONTROLLER
from autoswitch.reference.truncation import POLICIES

ROOT = Path(__file__).resolve().parents[2]
DISKS = "/disks"  # the storage root on the simulated file system
FULL = os.environ.get("AUTOSWITCH_CRASH_POINTS") == "full"
ERROR_SAMPLE = 4  # the CI run injects the error at every write of one walk in ERROR_SAMPLE
CI_GENERATED, FULL_GENERATED = (8, 60), (80, 150)  # generated data-path walks: (count, length)

Durable = tuple[Any, ...]  # (log, epoch file, confirmOffset, metaFile, tempFile)


@attrs.frozen
class Walk:
    """Actions from Init: a committed trace's, or a generated data-path walk's."""

    name: str
    config: Config
    actions: tuple[dict[str, Any], ...]


def committed_walks() -> list[Walk]:
    """The committed walks (traces from Init; the component and truncation-step kinds run no broker disk)."""
    found = []
    for path in sorted((ROOT / "traces").rglob("*.itf.json")):
        trace = load_trace(path)
        if trace.meta.get("kind") is None:
            config, _, problem = config_from_meta(trace.meta)
            assert isinstance(config, Config), problem
            found.append(Walk(str(path.relative_to(ROOT)), config, tuple(s["action"] for s in trace.states[1:])))
    return found


def generated_walks(count: int, length: int) -> list[Walk]:
    """Seeded data-path walks (``autoswitch simulate``'s generator) over each truncation policy, half of them
    with asynchronous flush."""
    processes = {f"p{i}": f"10.0.0.{i}:30911" for i in (1, 2, 3)}
    walks = []
    for seed in range(count):
        options = Options(policy=POLICIES[seed % len(POLICIES)], async_flush=seed % 2 == 1)
        config = Config(processes, options)
        actions = random_walk(config, seed, length, data=True)
        walks.append(Walk(f"generated walk {seed} ({options.policy}, async flush {options.async_flush})", config,
                          tuple(actions + wipe_of_a_log(config, actions))))
    return walks


def wipe_of_a_log(config: Config, actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A crash, a wipe and a restart of the process holding the longest log at the end of ``actions`` (none: [])."""
    ref = make_engine("reference", config)
    for action in actions:
        ref.step(action)
    v = ref.variables()
    process = max(sorted(config.processes), key=lambda p: len(v["log"][p]))
    if not v["log"][process]:
        return []
    crash = [] if v["regState"][process] == "DOWN" else [{"tag": "Crash", "process": process}]
    return [*crash, {"tag": "WipeDisk", "process": process},
            {"tag": "Restart", "process": process, "addr": config.processes[process]}]


def model_durable(engine: Any, process: str) -> Durable:
    """The reference's durable state of ``process`` after a Crash of it (its state when it is DOWN already), and for a
    broker of the designs RIP-44 replaced, once restarted (a 4.x master answers every write it holds on start)."""
    engine = copy.copy(engine)  # the reference's states are immutable
    if engine.variables()["regState"][process] != "DOWN":
        engine.step({"tag": "Crash", "process": process})
    design = design_of(engine.variables())
    if design != CONTROLLER:  # opened on its disk, it starts by its broker.conf (BrokerProcess._start)
        engine.step({"tag": DESIGN_RESTART[design], "process": process})
    v = engine.variables()
    temp = v["tempFile"][process]
    return (tuple(map(tuple, v["log"][process])), tuple(map(tuple, v["epochFile"][process])), v["confirmOffset"][process],
            v["metaFile"][process], (temp["brokerId"], temp["checkCode"]))


def durable_on_open(image: SimFileSystem, process: str, options: Options) -> Durable:
    """A broker of ``process`` opened on ``image`` (recovery on open, by the walk's policy): its durable state."""
    storage = FileStorage(f"{DISKS}/{process}", image)
    broker = BrokerProcess(process, DEFAULT_CONFIG, storage, "addr", ControllerClient(None),  # type: ignore[arg-type]
                           CheckCodeClock(), lambda *_: None, BrokerSet(impl_config(options).ha))
    meta, temp = load_meta(storage), load_temp(storage)
    return (tuple(broker.commit_log.entries), tuple(broker.epoch_file.entries()), broker.confirm_offset,
            0 if meta is None else meta.broker_id, (0, "") if temp is None else (temp.broker_id, temp.register_check_code))


def process_of(op: Op) -> str:
    return op.path[len(DISKS) + 1 :].split("/", 1)[0]


@attrs.frozen
class Finding:
    walk: str  # its name
    step: int
    tag: str
    process: str
    point: str
    fault: str
    got: Durable
    allowed: tuple[Durable, ...]

    def __str__(self) -> str:
        return (f"{self.walk} state {self.step} ({self.tag}), {self.process} {self.point}, "
                f"{self.fault}: recovered {self.got}, the model allows {' or '.join(map(str, self.allowed))}")


@attrs.define
class Tally:
    """Write points (operations of a step) interrupted, and disk images restarted from."""

    walks: int = 0
    writes: int = 0
    errors: int = 0
    images: int = 0
    in_between: Counter[str] = attrs.Factory(Counter)  # images recovered to a documented in-between state
    findings: list[Finding] = attrs.Factory(list)


def _engines(walk: Walk) -> tuple[Any, Any, SimFileSystem]:
    fs = SimFileSystem()
    impl = make_engine("impl", walk.config, storage="file", root=DISKS, fs=fs)
    return impl, make_engine("reference", walk.config), fs


def _step(engine: Any, action: dict[str, Any]) -> None:
    try:
        engine.step(action)
    except NotEnabled:
        pass


IN_BETWEEN = ("lagging confirmOffset", "epoch file ahead of the log", "epoch file ahead of the log",
              "epoch entry removed, not yet filed again", "partial flush")


def mid_step(tag: str, before: Durable, after: Durable, options: Options) -> tuple[Durable, ...]:
    """What a disk interrupted in the middle of a step may recover to: the state before or after it, and the
    in-between states of the module docstring's findings, in the order of ``IN_BETWEEN``:

    - the confirmOffset checkpoint lags: the step's other files are written, its checkpoint is not yet (the
      state after with confirmOffset = the one before, clamped to the log end);
    - the epoch file is ahead of the log: a slave's Transfer files the master's entry before it appends the
      message, a handshake cuts the log before the file, and recovery keeps the file whole (``rocketmq``): the
      log of one side of the step with the epoch file of the other;
    - a re-entered epoch's entry is removed and not yet filed again: changeToMaster's truncateSuffixByEpoch and
      appendEntry write the file twice (the epoch file the two sides share as a prefix);
    - a Flush cut by a power cut keeps a prefix of the records it wrote (the state after, cut to that prefix).
    """
    log, epochs, confirm = after[:3]
    lagging = (log, epochs, min(before[2], len(log)), *after[3:])
    ahead = tuple((lg, recovered_epoch_file(ef, len(lg), options), min(before[2], len(lg)), *after[3:])
                  for lg, ef in ((before[0], epochs), (log, before[1])))
    common = next(k for k in range(min(len(epochs), len(before[1])), -1, -1) if epochs[:k] == before[1][:k])
    refiled = (log, epochs[:common], min(before[2], len(log)), *after[3:])
    partial = tuple((log[:k], recovered_epoch_file(epochs, k, options), min(confirm, k), *after[3:])
                    for k in range(len(before[0]) + 1, len(log))) if tag == "Flush" else ()
    return (before, after, lagging, *ahead, refiled, *partial)


def check_images(tally: Tally, walk: Walk, step: int, tag: str, process: str, point: str,
                 images: Iterator[tuple[str, SimFileSystem]], allowed: tuple[Durable, ...]) -> None:
    """Restart ``process`` from each image; its durable state must be one of ``allowed``, and again after a
    power cut of the recovered disk."""
    for fault, image in images:
        tally.images += 1
        got = restarted(image, process, walk.config.options)
        if got in allowed:
            kind = min(allowed.index(got), len(IN_BETWEEN) + 1)
            if kind > 1:
                tally.in_between[IN_BETWEEN[kind - 2]] += 1
            again = restarted(next(image.power_cuts(f"{DISKS}/{process}"))[1], process, walk.config.options)
            if again == got:
                continue
            fault, got = f"{fault}, then a power cut after recovery", again
        tally.findings.append(Finding(walk.name, step, tag, process, point, fault, got, allowed))


def restarted(image: SimFileSystem, process: str, options: Options) -> Durable | str:
    """:func:`durable_on_open`, or why the broker does not start."""
    try:
        return durable_on_open(image, process, options)
    except Exception as e:  # noqa: BLE001 - a broker that does not restart is a finding
        return f"no restart: {e!r}"


def kill_and_power_cut(walk: Walk, tally: Tally) -> list[tuple[int, int]]:
    """Run ``walk`` once, interrupting (kill, power cut) at each write; return (op index, state) of each write."""
    impl, ref, fs = _engines(walk)
    captured: list[tuple[Op, list[tuple[str, SimFileSystem]]]] = []

    def images(process: str) -> list[tuple[str, SimFileSystem]]:
        return [("kill", fs.killed()), *fs.power_cuts(f"{DISKS}/{process}")]

    fs.hook = lambda op: captured.append((op, images(process_of(op))))
    writes: list[tuple[int, int]] = []
    for i, action in enumerate(walk.actions, 1):
        captured.clear()
        before = copy.copy(ref)
        _step(impl, action)
        _step(ref, action)
        fs.hook, hook = None, fs.hook
        seen: dict[str, tuple[tuple[Durable, ...], tuple[Durable, ...]]] = {}
        for op, shots in captured:
            p = process_of(op)
            if p not in seen:
                b, a = model_durable(before, p), model_durable(ref, p)
                seen[p] = (b,), mid_step(action["tag"], b, a, walk.config.options)
                allowed = seen[p][0]
            else:
                allowed = seen[p][1]
            check_images(tally, walk, i, action["tag"], p, f"before op {op.index} ({op.kind} {op.path})", iter(shots), allowed)
            writes.append((op.index, i))
        for p, (_, between) in seen.items():
            check_images(tally, walk, i, action["tag"], p, "after the step", iter(images(p)), between[1:2])
        fs.hook = hook
    tally.walks += 1
    tally.writes += len(writes)
    return writes


def error_at(walk: Walk, index: int, upto: int, tally: Tally) -> None:
    """Re-run ``walk`` with write ``index`` (in state ``upto``) failing with OSError; the broker it hits then
    crashes (its disk as the error left it) and restarts."""
    impl, ref, fs = _engines(walk)
    ops: list[Op] = []

    def fail(op: Op) -> None:
        ops.append(op)
        if op.index == index:
            raise OSError(5, "injected I/O error", op.path)

    fs.hook = fail
    for i, action in enumerate(walk.actions[:upto], 1):
        before = copy.copy(ref)
        ops.clear()
        try:
            _step(impl, action)
        except OSError:
            at = next(k for k, op in enumerate(ops) if op.index == index)
            hit = ops[at]
            assert i == upto, (walk.name, i, hit)
            p = process_of(hit)
            _step(ref, action)
            b = model_durable(before, p)
            allowed = (b,) if all(process_of(op) != p for op in ops[:at]) else mid_step(action["tag"], b, model_durable(ref, p), walk.config.options)
            tally.errors += 1
            check_images(tally, walk, i, action["tag"], p, f"op {index} failing ({hit.kind} {hit.path})",
                         iter([("OSError, then a crash", fs.killed())]), allowed)
            return
        _step(ref, action)
    raise AssertionError(f"{walk.name}: write {index} was not reached by state {upto}")


def run(selected: list[Walk], errors: Callable[[int], bool]) -> Tally:
    tally = Tally()
    for k, walk in enumerate(selected):
        writes = kill_and_power_cut(walk, tally)
        if errors(k):
            for index, step in writes:
                error_at(walk, index, step, tally)
    return tally


def test_every_write_point_recovers_to_the_model() -> None:
    started = time.perf_counter()
    selected = committed_walks() + generated_walks(*(FULL_GENERATED if FULL else CI_GENERATED))
    tally = run(selected, (lambda k: True) if FULL else (lambda k: k % ERROR_SAMPLE == 0))
    took = time.perf_counter() - started
    print(f"\ncrash points: {tally.walks} walks, {tally.writes} write points (kill + power cut), "
          f"{tally.errors} injected errors, {tally.images} disk images restarted, {took:.1f}s; "
          f"in-between states: {dict(tally.in_between)}")
    assert tally.walks == len(selected) and tally.writes > 1000
    assert sum(a["tag"] == "WipeDisk" for w in selected for a in w.actions) >= 4  # wipes of non-empty logs among them
    assert not tally.findings, "\n".join(map(str, tally.findings[:10])) + f"\n({len(tally.findings)} findings)"


# ---- the harness fails on the faults it is meant to find -----------------------------------------------------

SOME_WALKS = ["traces/code/writes-and-reads.itf.json", "traces/controller/C14-write-counts-local-set.itf.json"]


def _flush_without_directory_fsync(self: Any) -> None:
    """FileCommitLog.flush before issue 10: the new file's directory entry is never fsynced."""
    entries, start = self.entries, self.flushed
    if start < len(entries):
        if not self._fs.exists(self._path):
            self._fs.create(self._path)
        self._fs.append(self._path, b"".join(map(commit_log.encode_record, entries[start:])))
        self._fs.fsync(self._path)
    self.flushed = len(entries)


def _recover_refusing_a_bad_tail(self: Any) -> None:
    """Recovery before issue 10: a record that does not parse stops the broker."""
    data = self._fs.read(self._path) or b""
    entries = commit_log.decode_records(data)
    if len(entries) * commit_log.RECORD_SIZE != len(data):
        raise RuntimeError("commitlog: cannot parse the tail")
    self.entries, self.flushed = entries, len(entries)


@pytest.mark.parametrize(("method", "broken", "says"), [
    ("flush", _flush_without_directory_fsync, "power cut"),
    ("recover", _recover_refusing_a_bad_tail, "torn write"),
])
def test_the_harness_finds_a_broken_backend(method: str, broken: Callable[..., None], says: str,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The missing directory fsync of the commit log and a recovery that refuses a torn tail (both the code
    before issue 10) are found."""
    monkeypatch.setattr(commit_log.FileCommitLog, method, broken)
    tally = Tally()
    for walk in committed_walks():
        if walk.name in SOME_WALKS:
            kill_and_power_cut(walk, tally)
    assert tally.findings and all(says in f.fault for f in tally.findings), tally.findings[:3]
