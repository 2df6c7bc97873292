"""The trace vocabulary beyond the action table (autoswitch/reference/actions.py): the trace-only
variables a state may carry, the DISABLED outcome, and the check of an action record against the
table, so that replay reports a bad field by name before anything runs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from autoswitch.conformance.engines import show_name
from autoswitch.reference.actions import ACTIONS, BOOL, INT, STR, TRIGGERS


def is_int(value: Any) -> bool:
    """An integer of a trace: a Python int that is not a bool (ITF keeps ``true`` and ``1`` apart)."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_nat(value: Any) -> bool:
    """An epoch or an offset: an integer >= 0."""
    return is_int(value) and value >= 0


def is_pairs(value: Any) -> bool:
    """A list of <<int, int>>: a log's <<msg, epoch>> entries or an epoch file's <<epoch, startOffset>>."""
    return isinstance(value, list) and all(isinstance(p, tuple) and len(p) == 2 and all(map(is_int, p)) for p in value)


DISABLED = "DISABLED"  # a walk state's outcome code: the model must refuse the action (NotEnabled), nothing changes
# Trace-only variables (spec/README.md, "Trace kinds"): observable by both engines, not spec variables.
TRACE_VARS: dict[str, str] = {
    "controllerLeader": "bool",
    "metaFileContent": "process -> str",
    "tempFileContent": "process -> str",
    "brokerConfig": "process -> str",
}


def _type_ok(type_: str, value: Any) -> bool:
    if type_ == INT:
        return is_int(value)
    if type_ == STR:
        return isinstance(value, str)
    if type_ == BOOL:
        return isinstance(value, bool)
    return isinstance(value, frozenset) and all(_type_ok(INT, v) for v in value)


def action_problem(action: Any) -> tuple[str, str] | None:
    """``(field, message)`` for the first thing wrong with an action record, or None if it is well formed."""
    if not isinstance(action, Mapping):
        return "action", "must be a record"
    tag = action.get("tag")
    if not isinstance(tag, str) or tag not in ACTIONS:
        return "action.tag", f"unknown action {show_name(tag)}; known: {', '.join(ACTIONS)}"
    params, optional = ACTIONS[tag].params, ACTIONS[tag].optional
    for name, kind in params.items():
        if name not in action:
            return f"action.{name}", f"{tag} needs parameter {name!r} ({kind.type})"
        if not _type_ok(kind.type, action[name]):
            hint = "; ITF has no null: a BrokerHeartbeat writes a null brokerId as -1" if action[name] is None else ""
            return f"action.{name}", f"expected {kind.type}, got {action[name]!r}{hint}"
    for name in action:
        if name != "tag" and name not in params and name not in optional:
            return f"action.{name}", f"{tag} has no parameter {name!r}"
        if name in optional and not _type_ok(optional[name].type, action[name]):
            return f"action.{name}", f"expected {optional[name].type}, got {action[name]!r}"
    if tag == "BrokerHeartbeat" and action["brokerId"] < -1:
        return "action.brokerId", f"a broker id, or -1 for a null brokerId; got {action['brokerId']}"
    if tag == "ElectMaster" and action["trigger"] not in TRIGGERS:
        return "action.trigger", f"expected one of {TRIGGERS}, got {action['trigger']!r}"
    return None


class StrictBool:
    """A bool that is not an int: Python's ``True == 1`` must not let a trace's ``TRUE`` pass for ``1``."""

    __slots__ = ("value",)

    def __init__(self, value: bool):
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, StrictBool) and other.value == self.value

    def __hash__(self) -> int:
        return hash((StrictBool, self.value))

    def __repr__(self) -> str:
        return repr(self.value)


def strict(value: Any) -> Any:
    """``value`` with every bool a :class:`StrictBool`, for comparing a trace's values with an engine's."""
    if isinstance(value, bool):
        return StrictBool(value)
    if isinstance(value, Mapping):
        return {strict(k): strict(v) for k, v in value.items()}
    if isinstance(value, frozenset | set):
        return frozenset(strict(v) for v in value)
    if isinstance(value, list):
        return [strict(v) for v in value]
    if isinstance(value, tuple):
        return tuple(strict(v) for v in value)
    return value


def same(trace_value: Any, engine_value: Any) -> bool:
    """Equal, with bools and ints apart (a trace's ``1`` never equals ``TRUE``)."""
    return strict(trace_value) == strict(engine_value)
