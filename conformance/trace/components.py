"""Component trace kinds (spec/README.md "Trace kinds"): traces that drive one piece of RocketMQ rather
than the whole system from Init.

- ``epoch-file``: operations on one EpochFileCache (ROCKETMQ.md §8.1). Reference:
  ``reference/epoch_cache.py``; impl: ``impl/epoch_file.py`` on BOTH storage backends (in memory, and
  real files in a temporary directory), a ``reload`` reading the file back.
- ``handshake``: one slave handshake under a truncation policy (§8.2), from given epoch files and LEOs,
  computed by each engine's own truncation function (:func:`handshake`).
- ``retention``: a master's commit log of files of ``#meta.fileSize`` messages and its epoch file;
  deleting files (and trimming the epoch file's prefix), and where a new slave starts copying (§8.3).
  Reference: ``reference/retention.py``; impl: ``impl/retention.py``.

Each kind is validated field by field before anything runs; a bad field raises ``TraceError`` with the
state index and the field's name.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Mapping
from typing import Any

from autoswitch.conformance.engines import Config, make_engine, real_version
from autoswitch.conformance.errors import NotAsked
from autoswitch.conformance.trace.itf import Trace, TraceError
from autoswitch.conformance.trace.result import ABSENT, DIVERGENCE, PASS, Result, show, show_field
from autoswitch.conformance.trace.validate import MAX_FILES
from autoswitch.conformance.trace.vocabulary import is_int, is_nat, is_pairs, same
from autoswitch.reference import Options, epoch_file, retention
from autoswitch.reference import epoch_cache as ref_cache
from autoswitch.reference.codes import NO_CONSISTENT_POINT
from autoswitch.reference.truncation import POLICIES

EPOCH_FILE = "epoch-file"
HANDSHAKE = "handshake"
RETENTION = "retention"

# ---- shared field checks ---------------------------------------------------------------------------

ENTRY_FIELDS = ("epoch", "startOffset", "endOffset")  # naturals: RocketMQ's checkpoint line epoch-startOffset has no sign


def _entry_problem(value: Any) -> str | None:
    if not isinstance(value, Mapping) or set(value) != set(ENTRY_FIELDS):
        return f"an entry is a record with exactly {', '.join(ENTRY_FIELDS)}, got {show(value)}"
    if not all(is_nat(value[k]) for k in ENTRY_FIELDS):
        return f"an entry's fields are ints >= 0, got {show(value)}"
    return None


def _entries_problem(value: Any, as_cache: bool) -> str | None:
    """A list of entry records; ``as_cache``: one a cache can hold (epochs and starts strictly
    increasing, each entry but the last ending where the next starts, the last ending at or after its start)."""
    if not isinstance(value, list):
        return f"must be a list of entry records, got {show(value)}"
    for e in value:
        problem = _entry_problem(e)
        if problem:
            return problem
    if as_cache:
        for a, b in zip(value, value[1:], strict=False):
            if not (a["epoch"] < b["epoch"] and a["startOffset"] < b["startOffset"] and a["endOffset"] == b["startOffset"]):
                return f"not a cache: {show(a)} then {show(b)} (epochs and starts increase, an entry ends where the next starts)"
        if value and value[-1]["endOffset"] < value[-1]["startOffset"]:
            return f"not a cache: the last entry ends before it starts, {show(value[-1])}"
    return None


def _pairs_problem(value: Any) -> str | None:
    if not is_pairs(value):
        return f"must be a list of <<epoch, startOffset>> tuples, got {show(value)}"
    return None


def _check_vars(trace: Trace, index: int, state: Mapping[str, Any], allowed: tuple[str, ...]) -> None:
    for name in state:
        if name not in allowed:
            raise TraceError(trace.path, index, name, f"not a field of a {trace.meta['kind']} trace; known: {', '.join(allowed)}")


def _check_tag(trace: Trace, index: int, state: Mapping[str, Any], tags: Mapping[str, Any]) -> Mapping[str, Any]:
    action = state.get("action")
    if not isinstance(action, Mapping):
        raise TraceError(trace.path, index, "action", "every state needs an action record")
    tag = action.get("tag")
    wanted = ("Init",) if index == 0 else tuple(tags)
    if tag not in wanted:
        raise TraceError(trace.path, index, "action.tag", f"expected one of {', '.join(wanted)}, got {tag!r}")
    return action


def _diverge(trace: Trace, engine: str, index: int, field: str, want: Any, got: Any, message: str) -> Result:
    return Result(trace.path, engine, DIVERGENCE, len(trace.states), index, index, field, show_field(want), show_field(got), message)


# ---- epoch-file ------------------------------------------------------------------------------------

BOOL, INT, ENTRY = "bool", "int", "entry"  # what an operation returns (None: nothing)
OTHER = "other"  # a parameter: another cache, as entry records

# operation -> (parameters, what it returns); EpochFileCache's method names, ``reload`` = initCacheFromFile
EPOCH_FILE_OPS: dict[str, tuple[dict[str, str], str | None]] = {
    "appendEntry": ({"epoch": INT, "startOffset": INT}, BOOL),
    "truncateSuffixByEpoch": ({"epoch": INT}, None),
    "truncateSuffixByOffset": ({"offset": INT}, None),
    "truncatePrefixByOffset": ({"offset": INT}, None),
    "setLastEpochEntryEndOffset": ({"offset": INT}, None),
    "findConsistentPoint": ({OTHER: OTHER}, INT),
    "findEpochEntryByOffset": ({"offset": INT}, ENTRY),
    "nextEntry": ({"epoch": INT}, ENTRY),
    "getEntry": ({"epoch": INT}, ENTRY),
    "firstEntry": ({}, ENTRY),
    "lastEntry": ({}, ENTRY),
    "lastEpoch": ({}, INT),
    "reload": ({}, None),
}
EPOCH_FILE_FIELDS = ("action", "outcome", "entries", "file")


def _validate_epoch_file(trace: Trace) -> None:
    for i, state in enumerate(trace.states):
        _check_vars(trace, i, state, EPOCH_FILE_FIELDS)
        action = _check_tag(trace, i, state, EPOCH_FILE_OPS)
        params, returns = EPOCH_FILE_OPS.get(action["tag"], ({}, None))
        for name in action:
            if name != "tag" and name not in params:
                raise TraceError(trace.path, i, f"action.{name}", f"{action['tag']} has no parameter {name!r}")
        for name, kind in params.items():
            if name not in action:
                raise TraceError(trace.path, i, f"action.{name}", f"{action['tag']} needs parameter {name!r} ({kind})")
            problem = _entries_problem(action[name], as_cache=True) if kind == OTHER else (
                None if is_nat(action[name]) else f"expected an int >= 0, got {show(action[name])}")
            if problem:
                raise TraceError(trace.path, i, f"action.{name}", problem)
        _validate_answer(trace, i, state.get("outcome", {}), returns)
        if "entries" in state:
            problem = _entries_problem(state["entries"], as_cache=False)
            if problem:
                raise TraceError(trace.path, i, "entries", problem)
        if "file" in state and not (isinstance(state["file"], list) and all(isinstance(x, str) for x in state["file"])):
            raise TraceError(trace.path, i, "file", "must be a list of the file's lines (strings)")


def _validate_answer(trace: Trace, i: int, outcome: Any, returns: str | None) -> None:
    """``returns`` for a bool or an int; ``found`` and, when it is TRUE, ``entry`` for an entry (Java's
    null is ``found: FALSE``); nothing for an operation that returns nothing."""
    if not isinstance(outcome, Mapping):
        raise TraceError(trace.path, i, "outcome", "must be a record")
    allowed = {BOOL: {"returns"}, INT: {"returns"}, ENTRY: {"found", "entry"}, None: set()}[returns]
    for key in outcome:
        if key not in allowed:
            raise TraceError(trace.path, i, f"outcome.{key}", f"this operation's outcome has only {sorted(allowed) or 'no fields'}")
    if "returns" in outcome and not (isinstance(outcome["returns"], bool) if returns == BOOL else is_int(outcome["returns"])):
        raise TraceError(trace.path, i, "outcome.returns", f"expected {returns}, got {show(outcome['returns'])}")
    if returns == ENTRY and outcome:
        if not isinstance(outcome.get("found"), bool):
            raise TraceError(trace.path, i, "outcome.found", "an entry answer needs 'found' (a bool)")
        if outcome["found"] != ("entry" in outcome):
            raise TraceError(trace.path, i, "outcome.entry", "present exactly when 'found' is TRUE")
        problem = _entry_problem(outcome["entry"]) if outcome["found"] else None
        if problem:
            raise TraceError(trace.path, i, "outcome.entry", problem)


def _record(entry: tuple[int, int, int] | None) -> dict[str, Any]:
    if entry is None:
        return {"found": False}
    return {"found": True, "entry": dict(zip(ENTRY_FIELDS, entry, strict=True))}


class ReferenceCache:
    """reference/epoch_cache.py behind the operation names."""

    def __init__(self) -> None:
        self.entries: ref_cache.Entries = ()

    def run(self, tag: str, a: Mapping[str, Any]) -> Any:
        c = ref_cache
        updates: dict[str, Callable[[], ref_cache.Entries]] = {
            "truncateSuffixByEpoch": lambda: c.truncate_suffix_by_epoch(self.entries, a["epoch"]),
            "truncateSuffixByOffset": lambda: c.truncate_suffix_by_offset(self.entries, a["offset"]),
            "truncatePrefixByOffset": lambda: c.truncate_prefix_by_offset(self.entries, a["offset"]),
            "setLastEpochEntryEndOffset": lambda: c.set_last_end_offset(self.entries, a["offset"]),
            "reload": lambda: c.reload(self.entries),
        }
        if tag in updates:
            self.entries = updates[tag]()
            return None
        if tag == "appendEntry":
            self.entries, ok = c.append(self.entries, a["epoch"], a["startOffset"])
            return ok
        if tag == "findConsistentPoint":
            return c.find_consistent_point(self.entries, tuple(ref_cache.Entry(*(e[k] for k in ENTRY_FIELDS)) for e in a[OTHER]))
        if tag == "lastEpoch":
            return c.last_epoch(self.entries)
        found = {
            "findEpochEntryByOffset": lambda: c.find_by_offset(self.entries, a["offset"]),
            "nextEntry": lambda: c.next_entry(self.entries, a["epoch"]),
            "getEntry": lambda: c.get_entry(self.entries, a["epoch"]),
            "firstEntry": lambda: c.first_entry(self.entries),
            "lastEntry": lambda: c.last_entry(self.entries),
        }[tag]()
        return None if found is None else (found.epoch, found.start, found.end)

    def view(self) -> dict[str, Any]:
        return {"entries": [dict(zip(ENTRY_FIELDS, (e.epoch, e.start, e.end), strict=True)) for e in self.entries],
                "file": list(ref_cache.file_lines(self.entries))}


class ImplCache:
    """impl/epoch_file.py on a storage backend; ``reload`` loads a new object from what is on disk."""

    def __init__(self, storage: Any) -> None:
        from autoswitch.impl.epoch_file import EpochFile

        self.storage, self.new = storage, EpochFile
        self.cache = EpochFile(storage)

    def run(self, tag: str, a: Mapping[str, Any]) -> Any:
        f = self.cache
        if tag == "reload":
            self.cache = self.new.load(self.storage)
            return None
        if tag == "findConsistentPoint":
            other = self.new()
            for e in a[OTHER]:
                other.append(e["epoch"], e["startOffset"])
            if a[OTHER]:
                other.set_last_end_offset(a[OTHER][-1]["endOffset"])
            return f.consistent_point(other)
        if tag == "lastEpoch":
            last = f.last_entry()
            return -1 if last is None else last[0]
        calls: dict[str, Callable[[], Any]] = {
            "appendEntry": lambda: f.append(a["epoch"], a["startOffset"]),
            "truncateSuffixByEpoch": lambda: f.truncate_suffix_by_epoch(a["epoch"]),
            "truncateSuffixByOffset": lambda: f.truncate_suffix_by_offset(a["offset"]),
            "truncatePrefixByOffset": lambda: f.truncate_prefix_by_offset(a["offset"]),
            "setLastEpochEntryEndOffset": lambda: f.set_last_end_offset(a["offset"]),
            "findEpochEntryByOffset": lambda: f.find_by_offset(a["offset"]),
            "nextEntry": lambda: f.next_entry(a["epoch"]),
            "getEntry": lambda: f.get_entry(a["epoch"]),
            "firstEntry": f.first_entry,
            "lastEntry": f.last_entry,
        }
        return calls[tag]()

    def view(self) -> dict[str, Any]:
        from autoswitch.impl.epoch_file import EPOCH_FILE

        text = self.storage.read(EPOCH_FILE) or ""
        return {"entries": [dict(zip(ENTRY_FIELDS, e, strict=True)) for e in self.cache.cache_entries()],
                "file": text.splitlines()}


def _answer(returns: str | None, value: Any) -> dict[str, Any]:
    if returns == ENTRY:
        return _record(value)
    return {} if returns is None else {"returns": value}


def _run_epoch_file(trace: Trace, engine_name: str, cache: Any, backend: str) -> Result | None:
    note = f" ({backend})" if backend else ""
    for i, state in enumerate(trace.states):
        action = state["action"]
        if i > 0:
            returns = EPOCH_FILE_OPS[action["tag"]][1]
            got = _answer(returns, cache.run(action["tag"], action))
            for key, want in state.get("outcome", {}).items():
                if not same(want, got.get(key, ABSENT)):
                    return _diverge(trace, engine_name, i, f"outcome.{key}", want, got.get(key, ABSENT), f"{action['tag']} answered differently{note}")
        view = cache.view()
        for name in ("entries", "file"):
            if name in state and not same(state[name], view[name]):
                return _diverge(trace, engine_name, i, name, state[name], view[name], f"{name} differ after {action['tag']}{note}")
    return None


def replay_epoch_file(trace: Trace, engine_name: str) -> Result:
    """An epoch-file trace: state 0 is ``Init`` (an empty cache), each later state one operation with
    its parameters, its expected answer in ``outcome`` and optionally ``entries`` (in memory, with
    endOffsets) and ``file`` (the checkpoint file's lines) after it. The impl runs on both backends."""
    _validate_epoch_file(trace)
    n = len(trace.states)
    if engine_name == "reference":
        failure = _run_epoch_file(trace, engine_name, ReferenceCache(), "")
    elif engine_name == "impl":
        from autoswitch.impl.storage import FileStorage, MemoryStorage

        failure = _run_epoch_file(trace, engine_name, ImplCache(MemoryStorage()), "MemoryStorage")
        if failure is None:
            with tempfile.TemporaryDirectory(prefix="autoswitch-epoch-file-") as root:
                failure = _run_epoch_file(trace, engine_name, ImplCache(FileStorage(root)), "FileStorage")
    else:
        version = real_version(engine_name)
        if version is None:
            raise ValueError(f"unknown engine {engine_name!r}")
        from autoswitch.conformance.rocketmq.engine import RealEpochCache

        failure = _run_epoch_file(trace, engine_name, RealEpochCache(version), f"RocketMQ {version}")
    return failure or Result(trace.path, engine_name, PASS, n, n)


# ---- handshake -------------------------------------------------------------------------------------


def handshake(engine_name: str, policy: str, inputs: Mapping[str, Any], v21: bool = False) -> tuple[dict[str, Any], dict[str, Any]]:
    """A slave's Handshake from the handshake trace kind's inputs, run by the engine's own truncation
    (``truncation_point`` of each engine) under ``policy``; ``v21``: the Kafka 2.1.0 cache rules (option
    kafkaLeaderEpochOnElection). Returns the outcome and the slave's epoch file, LEO and confirmOffset after it."""
    options = Options(policy=policy, kafka_leader_epoch_on_election=v21)
    return make_engine(engine_name, Config({}, options)).truncation_point(inputs)


HANDSHAKE_INPUTS = ("masterEpochs", "masterLeo", "slaveEpochs", "slaveLeo", "slaveConfirmOffset")
HANDSHAKE_FIELDS = ("action", "outcome", "slaveEpochs", "slaveLeo", "slaveConfirmOffset")


def _validate_handshake(trace: Trace) -> str:
    policy = trace.meta.get("policy")
    if policy not in POLICIES:
        raise TraceError(trace.path, None, "#meta.policy", f"must be one of {', '.join(POLICIES)}")
    if len(trace.states) != 2:
        raise TraceError(trace.path, None, "states", f"a {HANDSHAKE} trace has two states, the inputs and the Handshake; got {len(trace.states)}")
    pre, after = trace.states
    _check_vars(trace, 0, pre, ("action", "outcome") + HANDSHAKE_INPUTS)
    _check_tag(trace, 0, pre, {})
    for name in HANDSHAKE_INPUTS:
        if name not in pre:
            raise TraceError(trace.path, 0, name, f"the inputs are {', '.join(HANDSHAKE_INPUTS)}")
        problem = _pairs_problem(pre[name]) if name.endswith("Epochs") else (
            None if is_nat(pre[name]) else f"expected an offset (int >= 0), got {show(pre[name])}")
        if problem:
            raise TraceError(trace.path, 0, name, problem)
    for side in ("master", "slave"):
        if not epoch_file.well_formed(tuple(pre[f"{side}Epochs"]), pre[f"{side}Leo"]):
            raise TraceError(trace.path, 0, f"{side}Epochs", "not EpochFileWellFormed: epochs and starts increase, the last start is at most the LEO")
    if pre["slaveConfirmOffset"] > pre["slaveLeo"]:
        raise TraceError(trace.path, 0, "slaveConfirmOffset", "above the slave's LEO (ConfirmOffsetBound)")
    _check_vars(trace, 1, after, HANDSHAKE_FIELDS)
    if after.get("action") != {"tag": "Handshake"}:
        raise TraceError(trace.path, 1, "action", "must be {tag: 'Handshake'}")
    outcome = after.get("outcome")
    if not isinstance(outcome, Mapping) or outcome.get("code") not in ("OK", NO_CONSISTENT_POINT) or not is_int(outcome.get("truncateOffset")):
        raise TraceError(trace.path, 1, "outcome", f"needs 'code' ('OK' or {NO_CONSISTENT_POINT!r}) and 'truncateOffset' (an int)")
    return policy


def replay_handshake(trace: Trace, engine_name: str) -> Result:
    """A handshake trace: state 0 gives both sides' epoch files (``<<epoch, startOffset>>`` lists) and
    LEOs and the slave's confirmOffset; state 1 is the Handshake with the expected ``code`` and
    ``truncateOffset`` (-1 with NO_CONSISTENT_POINT) and optionally the slave's epoch file, LEO and
    confirmOffset after it. Safe and unsafe outcomes alike: nothing here judges the point."""
    policy = _validate_handshake(trace)
    pre, after = trace.states
    got, post = handshake(engine_name, policy, {name: pre[name] for name in HANDSHAKE_INPUTS})
    for key, want in after["outcome"].items():
        if not same(want, got.get(key, ABSENT)):
            return _diverge(trace, engine_name, 1, f"outcome.{key}", want, got.get(key, ABSENT), f"{policy} answered differently")
    for name, value in post.items():
        if name in after and not same(after[name], value):
            return _diverge(trace, engine_name, 1, name, after[name], value, f"{name} differs after the Handshake")
    return Result(trace.path, engine_name, PASS, 2, 2)


# ---- retention -------------------------------------------------------------------------------------

RETENTION_OPS = {"DeleteFilesBelow": {"offset": INT}, "StartTransfer": {"syncFromLastFile": BOOL}}
RETENTION_FIELDS = ("action", "outcome", "leo", "epochs", "files", "minOffset", "entries")
TRANSFER_CODES = ("OK", retention.NO_DATA, retention.NO_EPOCH)
JAVA_INT_MAX = 2**31 - 1


def _validate_retention(trace: Trace) -> int:
    size = trace.meta.get("fileSize")
    if not is_int(size) or not 0 < size <= JAVA_INT_MAX:
        raise TraceError(trace.path, None, "#meta.fileSize", f"messages per commit log file: an int in 1..{JAVA_INT_MAX} "
                         f"(mappedFileSizeCommitLog is a Java int), got {show(size)}")
    for i, state in enumerate(trace.states):
        _check_vars(trace, i, state, RETENTION_FIELDS if i == 0 else RETENTION_FIELDS[:2] + RETENTION_FIELDS[4:])
        action = _check_tag(trace, i, state, RETENTION_OPS)
        params = RETENTION_OPS.get(action["tag"], {})
        if set(action) - {"tag"} != set(params):
            raise TraceError(trace.path, i, "action", f"{action['tag']} takes exactly {', '.join(params) or 'no parameters'}")
        for name, kind in params.items():
            if not (isinstance(action[name], bool) if kind == BOOL else is_int(action[name])):
                raise TraceError(trace.path, i, f"action.{name}", f"expected {kind}, got {show(action[name])}")
        outcome = state.get("outcome", {})
        if not isinstance(outcome, Mapping):
            raise TraceError(trace.path, i, "outcome", "must be a record")
        allowed = {"code", "fromOffset", "entry"} if action["tag"] == "StartTransfer" else set()
        for key in outcome:
            if key not in allowed:
                raise TraceError(trace.path, i, f"outcome.{key}", f"this action's outcome has only {sorted(allowed) or 'no fields'}")
        if "code" in outcome and outcome["code"] not in TRANSFER_CODES:
            raise TraceError(trace.path, i, "outcome.code", f"one of {', '.join(TRANSFER_CODES)}")
        if "fromOffset" in outcome and not is_int(outcome["fromOffset"]):
            raise TraceError(trace.path, i, "outcome.fromOffset", "an offset (int)")
        if "entry" in outcome and (outcome.get("code") != "OK" or _entry_problem(outcome["entry"])):
            raise TraceError(trace.path, i, "outcome.entry", "an entry record, given only with code 'OK'")
    pre = trace.states[0]
    if not is_int(pre.get("leo")) or pre["leo"] < 0:
        raise TraceError(trace.path, 0, "leo", "the master's max offset: an int >= 0")
    if -(-pre["leo"] // size) > MAX_FILES:
        raise TraceError(trace.path, 0, "leo", f"{pre['leo']} messages in files of {size} make more than {MAX_FILES} files")
    problem = _pairs_problem(pre.get("epochs"))
    if problem or not epoch_file.well_formed(tuple(pre["epochs"]), pre["leo"]):
        raise TraceError(trace.path, 0, "epochs", problem or "not EpochFileWellFormed against the LEO")
    return size


class ReferenceRetention:
    def __init__(self, leo: int, pairs: list, size: int) -> None:
        self.leo, self.size = leo, size
        self.starts, self.cache = retention.files(leo, size), ref_cache.init_entries(tuple(map(tuple, pairs)))

    def delete(self, offset: int) -> None:
        self.starts, self.cache = retention.retain(self.starts, self.cache, offset, self.size)

    def start(self, from_last_file: bool) -> tuple[str, int, tuple[int, int, int] | None]:
        code, start, entry = retention.transfer_start(self.starts, self.leo, self.cache, from_last_file, self.size)
        return code, start, None if entry is None else (entry.epoch, entry.start, entry.end)

    def view(self) -> dict[str, Any]:
        return {"files": list(self.starts), "minOffset": retention.min_offset(self.starts),
                "entries": [dict(zip(ENTRY_FIELDS, (e.epoch, e.start, e.end), strict=True)) for e in self.cache]}


class ImplRetention:
    def __init__(self, leo: int, pairs: list, size: int) -> None:
        from autoswitch.impl.epoch_file import EpochFile
        from autoswitch.impl.retention import FileQueue

        self.queue, self.cache = FileQueue(leo, size), EpochFile()
        for epoch, start in pairs:
            self.cache.append(epoch, start)

    def delete(self, offset: int) -> None:
        self.queue.delete_files_below(offset, self.cache)

    def start(self, from_last_file: bool) -> tuple[str, int, tuple[int, int, int] | None]:
        return self.queue.transfer_start(self.cache, from_last_file)

    def view(self) -> dict[str, Any]:
        return {"files": self.queue.starts(), "minOffset": self.queue.min_offset(),
                "entries": [dict(zip(ENTRY_FIELDS, e, strict=True)) for e in self.cache.cache_entries()]}


def replay_retention(trace: Trace, engine_name: str) -> Result:
    """A retention trace: state 0 gives the master's ``leo`` and ``epochs`` (``<<epoch, startOffset>>``,
    loaded as a cache: the last entry ends at MAX); each later state is ``DeleteFilesBelow(offset)`` or
    ``StartTransfer(syncFromLastFile)`` (a slave asking from offset 0) with the expected ``code``,
    ``fromOffset`` and ``entry``; any state may state ``files`` (start offsets), ``minOffset`` and ``entries``."""
    size = _validate_retention(trace)
    pre = trace.states[0]
    engines = {"reference": ReferenceRetention, "impl": ImplRetention}
    if real_version(engine_name) is not None:
        raise NotAsked("retention drives commit-log files and the transfer start, which the rocketmq engine does not "
                       "run (no DefaultMessageStore in the harness yet)")
    if engine_name not in engines:
        raise ValueError(f"unknown engine {engine_name!r}")
    log = engines[engine_name](pre["leo"], pre["epochs"], size)
    for i, state in enumerate(trace.states):
        action = state["action"]
        if action["tag"] == "DeleteFilesBelow":
            log.delete(action["offset"])
        elif action["tag"] == "StartTransfer":
            code, start, entry = log.start(action["syncFromLastFile"])
            got = {"code": code, "fromOffset": start, **({"entry": dict(zip(ENTRY_FIELDS, entry, strict=True))} if entry else {})}
            for key, want in state.get("outcome", {}).items():
                if not same(want, got.get(key, ABSENT)):
                    return _diverge(trace, engine_name, i, f"outcome.{key}", want, got.get(key, ABSENT), "the transfer starts elsewhere")
        view = log.view()
        for name in ("files", "minOffset", "entries"):
            if name in state and not same(state[name], view[name]):
                return _diverge(trace, engine_name, i, name, state[name], view[name], f"{name} differ after {action['tag']}")
    n = len(trace.states)
    return Result(trace.path, engine_name, PASS, n, n)


KINDS: dict[str, Callable[[Trace, str], Result]] = {EPOCH_FILE: replay_epoch_file, HANDSHAKE: replay_handshake, RETENTION: replay_retention}
