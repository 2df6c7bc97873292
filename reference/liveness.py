"""Liveness (MODEL.md §8) and the fault budget (§9): spec/Liveness.tla, property for property.

- ``LIVENESS``: each property ``[]<>ok`` as the state predicate ``ok`` over the model's variables (the projection
  traces carry), per process where the property speaks of every broker. A behaviour violates the property when,
  from some point on, ``ok`` is false in every state: the checker looks for a fair cycle of such states, the
  simulator for a run that ends, after the faults stopped and a fair schedule, in such a state.
- ``FAIRNESS``: the healing steps, each weakly fair (WF) per action record (one per process, broker id or peer
  the action ranges over in Next), optionally only where ``guard`` holds. An instance is *enabled* in a state when
  the action has a successor there (even one past the state constraint, as TLC evaluates ENABLED); it is *taken*
  on an edge labelled with its record from a state where its guard holds.
- ``fault_kind``: which fault an action of Next is (None: not a fault). The faults of ``NEW_FAULTS`` are always
  charged to the budget (``faults < MaxFaults``); the older ones only when the configuration bounds every fault
  (``BoundAllFaults``, the liveness configurations): ``charged``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from attrs import frozen

from .designs import design_of, master_processes
from .state import CONTROLLER, DLEDGER, DOWN, MASTER, MASTER_SLAVE, NO_ID, NO_MASTER, REGISTERED, SLAVE

Vars = Mapping[str, Any]

# The faults that exist only with a budget (spec/AutoSwitch.tla, Faults and MaxFaults); the order of MODEL.md §9.
NEW_FAULTS = ("CrashTorn", "ControllerMetadataLoss", "PartitionLink", "SendLate", "WipeDisk")
# Faults that were in Next before the budget: unbounded unless BoundAllFaults. "LostResponse" is any action taken
# with lost = TRUE; "HeartbeatExpire" only of an id some up process holds (a dead one's expiry heals).
OLD_FAULTS = ("Crash", "LostResponse", "HeartbeatExpire", "ControllerFailover", "ElectMaster", "CleanBrokerData")
FAULT_KINDS = OLD_FAULTS + NEW_FAULTS


def _holder_up(v: Vars, broker_id: int) -> bool:
    return any(i == broker_id and v["regState"][p] != DOWN for p, i in v["metaFile"].items())


def fault_kind(v: Vars, action: Mapping[str, Any]) -> str | None:
    """FaultKind (spec/AutoSwitch.tla): the fault ``action`` is when taken in ``v``, or None for a healing or
    ordinary step."""
    tag = action["tag"]
    if tag in NEW_FAULTS or tag in ("Crash", "ControllerFailover", "ElectMaster", "CleanBrokerData"):
        return tag
    if tag == "HeartbeatExpire":
        return tag if _holder_up(v, action["brokerId"]) else None
    if action.get("lost") is True:
        return "LostResponse"
    return None


def charged(kind: str | None, bound_all: bool) -> bool:
    """Charged (spec/AutoSwitch.tla): whether a fault of ``kind`` costs one of the budget's MaxFaults."""
    return kind is not None and (kind in NEW_FAULTS or bound_all)


# --- the properties ---------------------------------------------------------------------------------------------

def _design_master_known(v: Vars, design: str) -> bool:
    """EventuallyMaster's ok in the designs RIP-44 replaced: no process runs, or 4.x: one runs as MASTER; DLedger: a
    leader of the highest term runs and every running member follows it in that term."""
    up = [p for p, r in v["regState"].items() if r == REGISTERED]
    masters = master_processes(v)
    if not up or design == MASTER_SLAVE:
        return not up or bool(masters)
    return any(all(v["term"][q] == v["term"][m] and v["localMasterId"][q] == v["metaFile"][m] for q in up) for m in masters)


def _master_known(v: Vars, _p: str | None) -> bool:
    """EventuallyMaster's ok: no REGISTERED process holds an id of the syncStateSet, or the controller has a master
    whose process is MASTER in the controller's master epoch and every REGISTERED process follows it in that epoch;
    in the designs RIP-44 replaced, _design_master_known."""
    if (design := design_of(v)) != CONTROLLER:
        return _design_master_known(v, design)
    procs = v["regState"]
    members_up = any(procs[p] == REGISTERED and v["metaFile"][p] in v["syncStateSet"] for p in procs)
    if not members_up:
        return True
    m, epoch = v["masterId"], v["masterEpoch"]
    if m == NO_MASTER:
        return False
    if not any(v["metaFile"][p] == m and v["role"][p] == MASTER and v["localMasterEpoch"][p] == epoch for p in procs):
        return False
    return all(v["localMasterId"][p] == m and v["localMasterEpoch"][p] == epoch for p in procs if procs[p] == REGISTERED)


def _registered(v: Vars, p: str | None) -> bool:
    """EventuallyRegistered's ok for process p: it is down or REGISTERED."""
    return v["regState"][p] in (DOWN, REGISTERED)


def master_of(v: Vars, p: str) -> str | None:
    """The REGISTERED process holding the id slave ``p`` follows, if it is MASTER."""
    want = v["localMasterId"][p]
    return next((q for q, i in v["metaFile"].items()
                 if want not in (NO_MASTER, NO_ID) and i == want and v["role"][q] == MASTER and v["regState"][q] == REGISTERED),
                None)


def _in_sync(v: Vars, p: str | None) -> bool:
    """EventuallyInSync's ok for process p: it is not a REGISTERED slave of a REGISTERED master reachable over an
    unpartitioned link, or it is connected (TRANSFER) and its log equals the master's."""
    assert p is not None, "a per-process property"
    if v["regState"][p] != REGISTERED or v["role"][p] != SLAVE:
        return True
    m = master_of(v, p)
    if m is None or frozenset((p, m)) in v.get("partitions", frozenset()):
        return True
    return v["haState"][p] == "TRANSFER" and list(v["log"][p]) == list(v["log"][m])


def _answered(v: Vars, p: str | None) -> bool:
    """EventuallyAnswered's ok for process p: it is not a REGISTERED master, or its confirmOffset covers its log
    (every write it took is acknowledged; a write on a master that lost its role was refused or timed out). A DLedger
    leader answers the writes of its own term: an entry of an older term was its old leader's, whose requests
    failed when it lost the lead."""
    if not (v["regState"][p] == REGISTERED and v["role"][p] == MASTER):
        return True
    waiting = v["log"][p][v["confirmOffset"][p]:]
    return not waiting or (design_of(v) == DLEDGER and all(t < v["term"][p] for _, t in waiting))


@frozen
class Liveness:
    """``[]<>ok``, for every process when ``per_process`` (``ok(v, p)``), else once (``ok(v, None)``)."""

    name: str
    reads: tuple[str, ...]
    per_process: bool
    ok: Callable[[Vars, str | None], bool]


LIVENESS = (
    Liveness("EventuallyMaster", ("regState", "metaFile", "syncStateSet", "masterId", "masterEpoch", "role",
                                  "localMasterEpoch", "localMasterId"), False, _master_known),
    Liveness("EventuallyRegistered", ("regState",), True, _registered),
    Liveness("EventuallyInSync", ("regState", "role", "localMasterId", "metaFile", "haState", "log"), True, _in_sync),
    Liveness("EventuallyAnswered", ("regState", "role", "confirmOffset", "log"), True, _answered),
)
LIVENESS_BY_NAME = {p.name: p for p in LIVENESS}


# --- fairness ---------------------------------------------------------------------------------------------------

def _holder_down(v: Vars, action: Mapping[str, Any]) -> bool:
    return not _holder_up(v, action["brokerId"])


def _lagging(v: Vars, action: Mapping[str, Any]) -> bool:
    """Shrink's guard: the slave is not connected to the master or has not acked its whole log
    (maybeShrinkSyncStateSet's "not caught up" and "never connected")."""
    acks, b = v["acks"][action["process"]], action["brokerId"]
    return b not in acks or acks[b] < len(v["log"][action["process"]])


@frozen
class Fair:
    """WF of every record of ``tag`` in Next whose parameters include ``fixed``, where ``guard`` holds."""

    tag: str
    fixed: Mapping[str, Any] = {}
    guard: Callable[[Vars, Mapping[str, Any]], bool] | None = None


_NOT_LOST = {"lost": False}
FAIRNESS = (
    # registration and the registered broker's loops (ReplicasManager: startBasicService retried every 5 s, the
    # metadata sync every 5 s, heartbeats)
    Fair("LoadMetaFile"), Fair("LoadTempFile"), Fair("CreateTempFile"), Fair("SendApplyBrokerId", _NOT_LOST),
    Fair("AbandonTempFile"), Fair("WriteMetaFile"), Fair("DeleteTempFile"), Fair("SendRegister", _NOT_LOST),
    Fair("SendElectMaster", _NOT_LOST), Fair("SyncReplicaInfo"), Fair("SendHeartbeat"),
    # the data path's loops (HA client and connection, the syncStateSet check, the flush service)
    Fair("Handshake"), Fair("Transfer"), Fair("Ack"), Fair("Expand", _NOT_LOST), Fair("Shrink", _NOT_LOST, _lagging),
    Fair("AlterArrives"), Fair("Flush"),
    # the controller's loops: the re-elect scan, the expiry of a dead broker's heartbeat; the network heals
    Fair("ControllerElectScan"), Fair("HeartbeatExpire", {}, _holder_down), Fair("HealLink"),
    # 4.x: the HA client's connect, transfer and report loops, the slave timeout of a waiting write; DLedger: the
    # election timer and the leader's pushes (restarts and the operator's failover are not fair: a down process may
    # stay down, and 4.x has no automatic failover)
    Fair("MsConnect"), Fair("MsTransfer"), Fair("MsAck"), Fair("MsSlaveTimeout"), Fair("DlElect"), Fair("DlPush"),
)
FAIR_TAGS = frozenset(f.tag for f in FAIRNESS)


def fair_row(action: Mapping[str, Any]) -> Fair | None:
    """The FAIRNESS row ``action`` (a record of Next) is an instance of, its guard aside (the checker looks it up
    once per record of Next, then evaluates ``counts`` per state)."""
    return next((f for f in FAIRNESS if f.tag == action["tag"] and all(action.get(k) == x for k, x in f.fixed.items())), None)


def counts(row: Fair | None, v: Vars, action: Mapping[str, Any]) -> bool:
    """Whether a step of ``action`` from ``v`` is a step of its fairness instance (the row's guard holds in ``v``)."""
    return row is not None and (row.guard is None or row.guard(v, action))


def fairness_of(v: Vars, action: Mapping[str, Any]) -> Fair | None:
    """The fairness condition ``action`` (a record of Next) counts for when taken in ``v``, or None."""
    row = fair_row(action)
    return row if counts(row, v, action) else None
