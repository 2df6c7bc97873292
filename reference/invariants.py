"""The properties of MODEL.md §6 (spec/Properties.tla, property for property), as predicates over the
model's variables by their TLA+ names (the projection that traces carry). One predicate serves the
reference, the implementation and any trace. Differs from the spec: a predicate applies only when the
variables it reads are present, so that partial observation traces are checked on what they show.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from attrs import frozen

from . import epoch_file
from .designs import master_processes
from .state import DOWN, ELECT_MASTER_MAX_RETRY_COUNT, NO_ID, NO_MASTER

Vars = Mapping[str, Any]

CONTROLLER_VARS = ("replicas", "nextBrokerId", "masterId", "masterEpoch", "syncStateSet", "syncStateSetEpoch", "alive",
                   "electTriesLeft")
PROCESS_VARS = ("metaFile", "tempFile", "regState", "addr", "role", "localMasterEpoch", "localSyncStateSetEpoch")
DATA_VARS = ("log", "flushed", "epochFile", "confirmOffset", "localMasterId", "localSyncStateSet", "haState", "acks",
             "pendingAlter", "nextMsg", "acked", "seen")
DESIGN_VARS = ("brokerRole", "term")  # the designs RIP-44 replaced (designs.py)
NETWORK_VARS = ("partitions", "late")
SYSTEM_VARS = CONTROLLER_VARS + PROCESS_VARS + ("clock", "masterHistory") + DATA_VARS + NETWORK_VARS + DESIGN_VARS

REG_STATES = {"DOWN", "INITIAL", "TEMP_DONE", "APPLY_FAILED", "ID_APPLIED", "META_WRITTEN", "META_DONE", "REGISTERED"}
ROLES = {"NONE", "MASTER", "SLAVE"}


@frozen
class StateInvariant:
    name: str
    reads: tuple[str, ...]
    holds: Callable[[Vars], bool]


@frozen
class ActionProperty:
    name: str
    reads: tuple[str, ...]
    holds: Callable[[Vars, Vars], bool]


def _is_nat(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and x >= 0


def _type_ok(v: Vars) -> bool:
    """TypeOK (spec/Properties.tla) over the controller variables, and the registration variables where present; the data
    path's variables are not type-checked here."""
    ok = (
        all(_is_nat(b) and b >= 1 and isinstance(r["addr"], str) and isinstance(r["checkCode"], str) for b, r in v["replicas"].items())
        and _is_nat(v["nextBrokerId"]) and v["nextBrokerId"] >= 1
        and (v["masterId"] == NO_MASTER or v["masterId"] >= 1)
        and _is_nat(v["masterEpoch"]) and _is_nat(v["syncStateSetEpoch"])
        and all(_is_nat(b) and b >= 1 for b in v["syncStateSet"])
        and all(_is_nat(b) and all(_is_nat(e[k]) for k in ("epoch", "maxOffset", "priority")) for b, e in v["alive"].items())
        and _is_nat(v["electTriesLeft"]) and v["electTriesLeft"] <= ELECT_MASTER_MAX_RETRY_COUNT
    )
    if ok and "regState" in v:
        ok = (
            all(_is_nat(i) for i in v["metaFile"].values())
            and all(_is_nat(t["brokerId"]) and isinstance(t["checkCode"], str) for t in v["tempFile"].values())
            and all(r in REG_STATES for r in v["regState"].values())
            and all(r in ROLES for r in v["role"].values())
            and all(_is_nat(e) for e in v["localMasterEpoch"].values())
            and all(_is_nat(e) for e in v["localSyncStateSetEpoch"].values())
        )
    return ok


def _unique_broker_ids(v: Vars) -> bool:
    """UniqueBrokerIds (spec/Properties.tla)."""
    ids = [i for i in v["metaFile"].values() if i != NO_ID]
    return len(ids) == len(set(ids))


def _at_most_one_master_per_epoch(v: Vars) -> bool:
    """AtMostOneMasterPerEpoch (spec/Properties.tla)."""
    seen: dict[int, str] = {}
    for epoch, p in v["masterHistory"]:
        if seen.setdefault(epoch, p) != p:
            return False
    return True


def _epoch_files_well_formed(v: Vars) -> bool:
    """EpochFileWellFormed (spec/Properties.tla)."""
    return all(epoch_file.well_formed(tuple(v["epochFile"][p]), len(log)) for p, log in v["log"].items())


def _log_matching(v: Vars) -> bool:
    """LogMatching (spec/Properties.tla)."""
    logs = list(v["log"].values())
    where: dict[int, int] = {}
    for log in logs:
        for offset, (msg, _) in enumerate(log):
            if where.setdefault(msg, offset) != offset:
                return False
    for i, a in enumerate(logs):
        for b in logs[i + 1:]:
            shared = [o for o in range(min(len(a), len(b))) if a[o] == b[o]]
            if shared and a[: shared[-1]] != b[: shared[-1]]:
                return False
    return True


def _messages(v: Vars, broker_id: int) -> frozenset[int] | None:
    """The messages in the log of the process holding ``broker_id``, or None if none holds it."""
    p = next((p for p, i in v["metaFile"].items() if i == broker_id and i != NO_ID), None)
    return None if p is None else frozenset(msg for msg, _ in v["log"][p])


def _masters(v: Vars) -> list[frozenset[int]]:
    """The messages of each process of MasterProcs (designs.master_processes)."""
    return [frozenset(msg for msg, _ in v["log"][p]) for p in master_processes(v)]


def _no_acked_message_lost(v: Vars) -> bool:
    """NoAckedMessageLost (spec/Properties.tla): in controller mode the syncStateSet's members hold them too."""
    members = [msgs for b in v["syncStateSet"] if (msgs := _messages(v, b)) is not None]
    return all(v["acked"] <= msgs for msgs in members + _masters(v))


def _no_phantom_read(v: Vars) -> bool:
    """NoPhantomRead (spec/Properties.tla)."""
    return all(v["seen"] <= msgs for msgs in _masters(v))


STATE_INVARIANTS = (
    StateInvariant("TypeOK", CONTROLLER_VARS, _type_ok),
    StateInvariant("MasterInSyncStateSet", ("masterId", "syncStateSet"), lambda v: v["masterId"] == NO_MASTER or v["masterId"] in v["syncStateSet"]),
    StateInvariant("SyncStateSetRegistered", ("syncStateSet", "replicas"), lambda v: all(b in v["replicas"] for b in v["syncStateSet"])),
    StateInvariant("UniqueBrokerIds", ("metaFile",), _unique_broker_ids),
    StateInvariant("AtMostOneMasterPerEpoch", ("masterHistory",), _at_most_one_master_per_epoch),
    StateInvariant("EpochFileWellFormed", ("epochFile", "log"), _epoch_files_well_formed),
    StateInvariant("LogMatching", ("log",), _log_matching),
    StateInvariant("NoAckedMessageLost", ("acked", "log", "metaFile", "syncStateSet", "masterId"), _no_acked_message_lost),
    StateInvariant("NoPhantomRead", ("seen", "log", "metaFile", "masterId"), _no_phantom_read),
    StateInvariant("ConfirmOffsetBound", ("confirmOffset", "log"),
                   lambda v: all(c <= len(v["log"][p]) for p, c in v["confirmOffset"].items())),
)


def _epochs_monotonic(v: Vars, w: Vars) -> bool:
    """EpochsMonotonicStep (spec/Properties.tla); the local epochs only where the trace carries them."""
    set_removed = v["replicas"] and not w["replicas"]
    if not set_removed and (w["masterEpoch"] < v["masterEpoch"] or w["syncStateSetEpoch"] < v["syncStateSetEpoch"]):
        return False
    if "localMasterEpoch" in v and "localMasterEpoch" in w:
        for p, e in v["localMasterEpoch"].items():
            if w["regState"][p] == DOWN:
                continue
            if w["localMasterEpoch"][p] < e or w["localSyncStateSetEpoch"][p] < v["localSyncStateSetEpoch"][p]:
                return False
    return True


def _broker_id_stable(v: Vars, w: Vars) -> bool:
    """BrokerIdStableStep (spec/Properties.tla): a process keeps its id, unless its disk was wiped (WipeDisk: no id,
    and DOWN; a trace without ``regState`` cannot show that)."""
    down = w.get("regState", {})
    return all(i == NO_ID or w["metaFile"][p] == i or (w["metaFile"][p] == NO_ID and down.get(p) == DOWN)
               for p, i in v["metaFile"].items())


ACTION_PROPERTIES = (
    ActionProperty("EpochsMonotonic", ("replicas", "masterEpoch", "syncStateSetEpoch"), _epochs_monotonic),
    ActionProperty("BrokerIdStable", ("metaFile",), _broker_id_stable),
)


def applicable(reads: tuple[str, ...], *views: Vars) -> bool:
    return all(name in view for view in views for name in reads)


def violated_invariants(v: Vars) -> list[str]:
    """Names of the state invariants that fail in ``v`` (those whose variables ``v`` carries)."""
    return [inv.name for inv in STATE_INVARIANTS if applicable(inv.reads, v) and not inv.holds(v)]


def violated_action_properties(v: Vars, w: Vars) -> list[str]:
    """Names of the action properties that fail on the step ``v -> w``."""
    return [prop.name for prop in ACTION_PROPERTIES if applicable(prop.reads, v, w) and not prop.holds(v, w)]


def broken_properties(before: Vars | None, after: Vars) -> list[str]:
    """The state invariants failing in ``after``, then the action properties failing on the step
    ``before -> after`` (none when ``before`` is None: the initial state). A trace's first violation is
    the first name of the first state where this is not empty."""
    return violated_invariants(after) + (violated_action_properties(before, after) if before is not None else [])
