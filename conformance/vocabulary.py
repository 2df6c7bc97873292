"""The trace vocabulary: every action tag with its parameters and their kinds (MODEL.md §7 for the
controller-level tags, spec/README.md for the process-level ones), and the variables a state may carry.
Replay validates an action against this table before it runs, so a bad field is reported by name."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from autoswitch.reference.invariants import SYSTEM_VARS

INT, STR, BOOL, INT_SET = "int", "str", "bool", "set of int"

CONTROLLER_ACTIONS: dict[str, dict[str, str]] = {
    "GetNextBrokerId": {},
    "ApplyBrokerId": {"brokerId": INT, "checkCode": STR},
    "RegisterBrokerToController": {"brokerId": INT, "addr": STR},
    "ElectMaster": {"trigger": STR, "brokerId": INT},
    "AlterSyncStateSet": {"masterId": INT, "masterEpoch": INT, "newSyncStateSet": INT_SET, "syncStateSetEpoch": INT},
    "GetReplicaInfo": {},
    "BrokerHeartbeat": {"brokerId": INT, "epoch": INT, "maxOffset": INT, "priority": INT},
    "HeartbeatExpire": {"brokerId": INT},
    "ControllerFailover": {},
    "CleanBrokerData": {"brokerIds": INT_SET, "cleanLiving": BOOL},
    "ControllerElectScan": {},
}

PROCESS_ACTIONS: dict[str, dict[str, str]] = {
    "LoadMetaFile": {"process": STR},
    "LoadTempFile": {"process": STR},
    "CreateTempFile": {"process": STR},
    "SendApplyBrokerId": {"process": STR, "lost": BOOL},
    "AbandonTempFile": {"process": STR},
    "WriteMetaFile": {"process": STR},
    "DeleteTempFile": {"process": STR},
    "SendRegister": {"process": STR, "lost": BOOL},
    "SendElectMaster": {"process": STR, "lost": BOOL},
    "SyncReplicaInfo": {"process": STR},
    "SendHeartbeat": {"process": STR},
    "SendAlterSyncStateSet": {"process": STR, "newSyncStateSet": INT_SET, "lost": BOOL},
    "Crash": {"process": STR},
    "Restart": {"process": STR, "addr": STR},
}

DATA_ACTIONS: dict[str, dict[str, str]] = {
    "Write": {"process": STR},
    "Handshake": {"process": STR},
    "Transfer": {"process": STR},
    "Ack": {"process": STR},
    "Expand": {"process": STR, "brokerId": INT, "lost": BOOL},
    "Shrink": {"process": STR, "brokerId": INT, "lost": BOOL},
    "AlterArrives": {"process": STR},
    "Flush": {"process": STR},
    "Consume": {"process": STR},
}

ACTIONS = {"Init": {}, **CONTROLLER_ACTIONS, **PROCESS_ACTIONS, **DATA_ACTIONS}
# Trace-only actions (spec/README.md, "Trace kinds"): the controller node loses / regains DLedger
# leadership. Not spec actions, never drawn by walks.
LEADERSHIP_ACTIONS: dict[str, dict[str, str]] = {"ControllerLeaderLost": {}, "ControllerLeaderElected": {}}
TRACE_ACTIONS = {**ACTIONS, **LEADERSHIP_ACTIONS}
# Optional parameters (spec/README.md, "Trace kinds"): the broker set a request names (absent: the
# default set), the configuration a process restarts with (absent: the one it had).
SET_PARAMS = {"clusterName": STR, "brokerName": STR}
OPTIONAL: dict[str, dict[str, str]] = {
    **{tag: SET_PARAMS for tag in CONTROLLER_ACTIONS if tag != "ControllerFailover"},
    "Restart": SET_PARAMS,
}
TRIGGERS = ("broker", "controller", "admin")
DISABLED = "DISABLED"  # a walk state's outcome code: the model must refuse the action (NotEnabled), nothing changes
# Trace-only variables (spec/README.md, "Trace kinds"): observable by both engines, not spec variables.
TRACE_VARS: dict[str, str] = {
    "controllerLeader": "bool",
    "metaFileContent": "process -> str",
    "tempFileContent": "process -> str",
    "brokerConfig": "process -> str",
}
STATE_FIELDS = ("action", "outcome") + SYSTEM_VARS + tuple(TRACE_VARS)


def _kind_ok(kind: str, value: Any) -> bool:
    if kind == INT:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == STR:
        return isinstance(value, str)
    if kind == BOOL:
        return isinstance(value, bool)
    return isinstance(value, frozenset) and all(_kind_ok(INT, v) for v in value)


def action_problem(action: Any) -> tuple[str, str] | None:
    """``(field, message)`` for the first thing wrong with an action record, or None if it is well formed."""
    if not isinstance(action, Mapping):
        return "action", "must be a record"
    tag = action.get("tag")
    if tag not in TRACE_ACTIONS:
        return "action.tag", f"unknown action {tag!r}; known: {', '.join(TRACE_ACTIONS)}"
    params = TRACE_ACTIONS[tag]
    for name, kind in params.items():
        if name not in action:
            return f"action.{name}", f"{tag} needs parameter {name!r} ({kind})"
        if not _kind_ok(kind, action[name]):
            hint = "; ITF has no null: a BrokerHeartbeat writes a null brokerId as -1" if action[name] is None else ""
            return f"action.{name}", f"expected {kind}, got {action[name]!r}{hint}"
    optional = OPTIONAL.get(tag, {})
    for name in action:
        if name != "tag" and name not in params and name not in optional:
            return f"action.{name}", f"{tag} has no parameter {name!r}"
        if name in optional and not _kind_ok(optional[name], action[name]):
            return f"action.{name}", f"expected {optional[name]}, got {action[name]!r}"
    if tag == "BrokerHeartbeat" and action["brokerId"] < -1:
        return "action.brokerId", f"a broker id, or -1 for a null brokerId; got {action['brokerId']}"
    if tag == "ElectMaster" and action["trigger"] not in TRIGGERS:
        return "action.trigger", f"expected one of {TRIGGERS}, got {action['trigger']!r}"
    return None
