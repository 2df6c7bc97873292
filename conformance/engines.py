"""The two executable models behind one small interface - ``step(action) -> outcome`` and
``variables()`` - built from a trace's ``#meta`` (its processes and options)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import attrs
from attrs import frozen

from autoswitch.reference import Options, initial_system
from autoswitch.reference.state import POLICIES
from autoswitch.reference import step as reference_step
from autoswitch.reference.variables import variables as reference_variables

KINDS = ("reference", "impl")


class Engine(Protocol):
    def step(self, action: Mapping[str, Any]) -> Mapping[str, Any]: ...

    def variables(self) -> dict[str, Any]: ...


# #meta.options names (MODEL.md, camelCase) -> Options fields; #meta.policy is the truncation policy
OPTION_FIELDS = {
    "enableElectUncleanMaster": "enable_elect_unclean_master",
    "allAckInSyncStateSet": "all_ack_in_sync_state_set",
    "minInSyncReplicas": "min_in_sync_replicas",
    "inSyncReplicas": "in_sync_replicas",
    "asyncFlush": "async_flush",
    "asyncLearners": "async_learners",
    "unionAckFix": "union_ack_fix",
    "confirmFreezeFix": "confirm_freeze_fix",
    "confirmShortcutFix": "confirm_shortcut_fix",
    "confirmZeroAckFix": "confirm_zero_ack_fix",
}


@frozen
class Config:
    """What a trace's ``#meta`` fixes before the first step: the processes and the model options."""

    processes: Mapping[str, str]  # process name -> first address
    options: Options = Options()

    def to_meta(self) -> dict[str, Any]:
        values = attrs.asdict(self.options)
        return {
            "processes": dict(self.processes),
            "policy": self.options.policy,
            "options": {name: sorted(values[f]) if name == "asyncLearners" else values[f] for name, f in OPTION_FIELDS.items()},
        }


def config_from_meta(meta: Mapping[str, Any]) -> tuple[Config | None, str, str]:
    """The config a trace's ``#meta`` describes, or ``(None, field, problem)``. Absent options keep
    their defaults (the safe settings)."""
    processes = meta.get("processes", {})
    if not isinstance(processes, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in processes.items()):
        return None, "#meta.processes", "must map process names to address strings"
    options = meta.get("options", {})
    if not isinstance(options, dict):
        return None, "#meta.options", "must be an object"
    unknown = set(options) - set(OPTION_FIELDS)
    if unknown:
        return None, "#meta.options", f"unknown option(s) {sorted(unknown)}; known: {', '.join(OPTION_FIELDS)}"
    defaults = attrs.asdict(Options())
    values: dict[str, Any] = {}
    for name, value in options.items():
        field = OPTION_FIELDS[name]
        if name == "asyncLearners":
            if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
                return None, f"#meta.options.{name}", "must be a list of process names"
            value = frozenset(value)
        elif type(value) is not type(defaults[field]):
            return None, f"#meta.options.{name}", f"must be a {type(defaults[field]).__name__}"
        values[field] = value
    policy = meta.get("policy", "rocketmq")
    if policy not in POLICIES:
        return None, "#meta.policy", f"must be one of {', '.join(POLICIES)}"
    return Config(processes, Options(policy=policy, **values)), "", ""


class ReferenceEngine:
    """The reference model behind the engine interface (it keeps the current immutable state)."""

    def __init__(self, config: Config):
        self.options = config.options
        self.state = initial_system(dict(config.processes))

    def step(self, action: Mapping[str, Any]) -> Mapping[str, Any]:
        self.state, outcome = reference_step(self.state, action, self.options)
        return outcome

    def variables(self) -> dict[str, Any]:
        return reference_variables(self.state)


def make_engine(kind: str, config: Config, **impl_kwargs: Any) -> Engine:
    """A fresh engine of ``kind`` ("reference" or "impl") in the Init state of ``config``."""
    if kind == "reference":
        return ReferenceEngine(config)
    if kind == "impl":
        from autoswitch.impl.engine import ImplSystem

        return ImplSystem(config.processes, **attrs.asdict(config.options), **impl_kwargs)
    raise ValueError(f"unknown engine {kind!r}; expected one of {KINDS}")


def trace_states(config: Config, actions: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The full-state trace of enabled ``actions`` on the reference: Init, then each action, its outcome
    and every variable after it."""
    ref = make_engine("reference", config)
    states: list[dict[str, Any]] = [{"action": {"tag": "Init"}, "outcome": {"code": "OK"}, **ref.variables()}]
    for action in actions:
        outcome = ref.step(action)
        states.append({"action": dict(action), "outcome": dict(outcome), **ref.variables()})
    return states
