"""The two executable models behind one small interface - ``step(action) -> outcome`` and
``variables()`` - built from a trace's ``#meta`` (its processes and options)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import attrs
from attrs import frozen

from autoswitch.reference import Options, cluster
from autoswitch.reference.truncation import POLICIES

KINDS = ("reference", "impl")


class Engine(Protocol):
    def step(self, action: Mapping[str, Any]) -> Mapping[str, Any]: ...

    def variables(self) -> dict[str, Any]: ...

    def observed(self) -> dict[str, Any]: ...

    def other_sets(self) -> dict[str, dict[str, Any]]: ...

    def truncation_point(self, pre: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]: ...


def camel(name: str) -> str:
    """``enable_elect_unclean_master`` -> ``enableElectUncleanMaster``: an option's name in a trace's ``#meta``
    (MODEL.md); the spec's constant is the same name capitalised (:func:`spec_constant`)."""
    head, *rest = name.split("_")
    return head + "".join(word.capitalize() for word in rest)


def spec_constant(option: str) -> str:
    """``enableElectUncleanMaster`` -> ``EnableElectUncleanMaster``: the spec's CONSTANT of a ``#meta`` option."""
    return option[0].upper() + option[1:]


# #meta.options names (MODEL.md, camelCase) -> Options fields, every field but the policy (#meta.policy); an option
# whose default is a set is a list in #meta
OPTION_FIELDS = {camel(f.name): f.name for f in attrs.fields(Options) if f.name != "policy"}
SET_OPTIONS = frozenset(name for name, f in OPTION_FIELDS.items() if isinstance(getattr(Options(), f), frozenset))


@frozen
class Config:
    """What a trace's ``#meta`` fixes before the first step: the processes and the model options."""

    processes: Mapping[str, str]  # process name -> first address
    options: Options = Options()
    broker_sets: Mapping[str, str] | None = None  # #meta.brokerSets: brokerName -> clusterName (None: one set)

    def to_meta(self) -> dict[str, Any]:
        values = attrs.asdict(self.options)
        return {
            "processes": dict(self.processes),
            "policy": self.options.policy,
            "options": {name: sorted(values[f]) if name in SET_OPTIONS else values[f] for name, f in OPTION_FIELDS.items()},
            **({"brokerSets": dict(self.broker_sets)} if self.broker_sets is not None else {}),
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
        if name in SET_OPTIONS:
            if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
                return None, f"#meta.options.{name}", "must be a list of process names"
            value = frozenset(value)
        elif type(value) is not type(defaults[field]):
            return None, f"#meta.options.{name}", f"must be a {type(defaults[field]).__name__}"
        values[field] = value
    policy = meta.get("policy", "rocketmq")
    if policy not in POLICIES:
        return None, "#meta.policy", f"must be one of {', '.join(POLICIES)}"
    problem = broker_sets_problem(meta)
    if problem:
        return None, "#meta.brokerSets", problem
    return Config(processes, Options(policy=policy, **values), meta.get("brokerSets")), "", ""


def broker_sets_problem(meta: Mapping[str, Any]) -> str | None:
    """What is wrong with ``#meta.brokerSets`` (absent: one broker set, fine)."""
    sets = meta.get("brokerSets")
    if sets is None:
        return None
    if not isinstance(sets, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in sets.items()):
        return "must map brokerNames to clusterNames"
    if sets.get(cluster.DEFAULT_BROKER) != cluster.DEFAULT_CLUSTER:
        return f"must hold the default set {cluster.DEFAULT_BROKER!r}: {cluster.DEFAULT_CLUSTER!r}"
    return None


def make_engine(kind: str, config: Config, **impl_kwargs: Any) -> Engine:
    """A fresh engine of ``kind`` ("reference" or "impl") in the Init state of ``config``."""
    if kind == "reference":
        from autoswitch.conformance.engines.reference import ReferenceEngine

        return ReferenceEngine(config)
    if kind == "impl":
        from autoswitch.conformance.engines.impl import ImplSystem

        return ImplSystem(config.processes, config.options, broker_sets=config.broker_sets, **impl_kwargs)
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
