"""The trace vocabulary beyond the action table (autoswitch/reference/actions.py): the trace-only
variables a state may carry, the DISABLED outcome, and the check of an action record against the
table, so that replay reports a bad field by name before anything runs."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from autoswitch.conformance.engines.config import show_name
from autoswitch.reference.actions import ACTIONS, BOOL, INT, PEER, PROCESS, STR, TRIGGERS
from autoswitch.reference.faults import LATE_REQUESTS


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
    if tag == "SendLate" and action["request"] not in LATE_REQUESTS:
        return "action.request", f"expected one of {LATE_REQUESTS}, got {action['request']!r}"
    return None


def process_params(tag: str) -> tuple[str, ...]:
    """The parameters of ``tag`` that name a process (``process``, ``peer``): each must be a declared one."""
    return tuple(n for n, k in ACTIONS[tag].params.items() if k in (PROCESS, PEER))


def _late_problem(p: str, request: Any) -> tuple[str, str] | None:
    where = f"late[{p!r}]"
    problem = action_problem(request)
    if problem is not None:
        return where + problem[0].removeprefix("action"), problem[1]
    tag = request["tag"]
    if tag not in LATE_REQUESTS:
        return f"{where}.tag", f"a late request is one of {', '.join(LATE_REQUESTS)}; got {tag!r}"
    extra = sorted(set(request) - {"tag", *ACTIONS[tag].params})
    if extra:
        return f"{where}.{extra[0]}", f"a late {tag} has exactly the parameters {', '.join(ACTIONS[tag].params)}"
    return None


def network_problem(name: str, value: Any, processes: Collection[str]) -> tuple[str, str] | None:
    """``(field, message)`` for a bad value of the network's variables (MODEL.md §9), or None: ``partitions`` a set
    of 2-sets of declared processes, ``late`` a function from declared processes to the record of a controller
    request SendLate computes (exactly that tag's parameters)."""
    if name == "partitions":
        if not isinstance(value, frozenset):
            return name, "must be a set of links, each a set of two processes"
        for link in sorted(value, key=repr):
            if not isinstance(link, frozenset) or len(link) != 2 or not all(isinstance(q, str) and q in processes for q in link):
                return name, f"a link is a set of two declared processes ({', '.join(sorted(processes)) or 'none'}); got {link!r}"
        return None
    if not isinstance(value, dict):
        return name, "must map processes to the record of a controller request"
    for p, request in value.items():
        if not isinstance(p, str) or p not in processes:
            return name, f"{p!r} is not a declared process; declared: {', '.join(sorted(processes)) or 'none'}"
        problem = _late_problem(p, request)
        if problem is not None:
            return problem
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
    """Equal, with bools and ints apart (a trace's ``1`` never equals ``TRUE``). Values that differ with bools and ints
    alike differ with them apart: those are told apart without :func:`strict`."""
    return trace_value == engine_value and strict(trace_value) == strict(engine_value)
