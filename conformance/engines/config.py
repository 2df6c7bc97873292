"""What a trace's ``#meta`` fixes before the first step - the processes, the model options, the broker sets - read
strictly (:func:`config_from_meta`), and the names of the options (MODEL.md's camelCase in ``#meta``, the spec's
CONSTANT names). The engines (the package) are built from a :class:`Config`; this module imports none of them, so the
engines, the trace readers and the spec-configuration reader share it without a cycle."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs
from attrs import frozen

from autoswitch.conformance.trace.validate import MAX_PROCESSES, NAME
from autoswitch.reference import Options, cluster
from autoswitch.reference.state import DESIGNS
from autoswitch.reference.truncation import POLICIES


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
# every int option's range (a new int option needs a row: the import fails without one)
OPTION_RANGES = {"minInSyncReplicas": (1, MAX_PROCESSES), "inSyncReplicas": (1, MAX_PROCESSES), "haMaxGap": (1, 16)}
_INT_OPTIONS = {name for name, f in OPTION_FIELDS.items() if type(getattr(Options(), f)) is int}
if _INT_OPTIONS != set(OPTION_RANGES):
    raise ImportError(f"OPTION_RANGES must give the range of exactly the int options {sorted(_INT_OPTIONS)}")
# every string option's values (a new string option needs a row, likewise)
OPTION_CHOICES = {"design": DESIGNS}
_STR_OPTIONS = {name for name, f in OPTION_FIELDS.items() if type(getattr(Options(), f)) is str}
if _STR_OPTIONS != set(OPTION_CHOICES):
    raise ImportError(f"OPTION_CHOICES must give the values of exactly the string options {sorted(_STR_OPTIONS)}")
MAX_ADDRESS = 256  # characters of an address


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


def _name_problem(name: Any, what: str) -> str | None:
    if not isinstance(name, str) or not NAME.fullmatch(name):
        return f"a {what} name is 1 to 32 of A-Z a-z 0-9 _ - (it may name a folder); got {show_name(name)}"
    return None


def show_name(name: Any) -> str:
    """A name from a trace for a message: its repr, cut, with control characters escaped by repr."""
    text = repr(name)
    return text if len(text) <= 40 else text[:37] + "..."


def processes_problem(processes: Any) -> str | None:
    """What is wrong with ``#meta.processes`` (process name -> first address), or None."""
    if not isinstance(processes, dict):
        return "must map process names to address strings"
    if len(processes) > MAX_PROCESSES:
        return f"{len(processes)} processes: a trace declares at most {MAX_PROCESSES}"
    for name, addr in processes.items():
        problem = _name_problem(name, "process")
        if problem:
            return problem
        if not isinstance(addr, str) or len(addr) > MAX_ADDRESS:
            return f"the address of {name!r} is a string of at most {MAX_ADDRESS} characters; got {show_name(addr)}"
    return None


def options_from_meta(meta: Mapping[str, Any], processes: Mapping[str, str]) -> tuple[Options | None, str, str]:
    """The ``Options`` of ``#meta.policy`` and ``#meta.options``, or ``(None, field, problem)``. Absent options
    keep their defaults (the safe settings); bool options are bools, int options within
    :data:`OPTION_RANGES`, string options one of :data:`OPTION_CHOICES`, set options lists of distinct names of declared processes."""
    options = meta.get("options", {})
    if not isinstance(options, dict):
        return None, "#meta.options", "must be an object"
    unknown = set(options) - set(OPTION_FIELDS)
    if unknown:
        return None, "#meta.options", f"unknown option(s) {sorted(map(show_name, unknown))}; known: {', '.join(OPTION_FIELDS)}"
    defaults = attrs.asdict(Options())
    values: dict[str, Any] = {}
    for name, value in options.items():
        field, where = OPTION_FIELDS[name], f"#meta.options.{name}"
        if name in SET_OPTIONS:
            if not isinstance(value, list) or not all(isinstance(x, str) for x in value) or len(set(value)) != len(value):
                return None, where, "must be a list of distinct process names"
            strangers = [x for x in value if x not in processes]
            if strangers:
                return None, where, f"{show_name(strangers[0])} is not a process of #meta.processes"
            value = frozenset(value)
        elif type(value) is not type(defaults[field]):
            return None, where, f"must be a {type(defaults[field]).__name__}, got {show_name(value)}"
        elif name in OPTION_RANGES and not OPTION_RANGES[name][0] <= value <= OPTION_RANGES[name][1]:
            low, high = OPTION_RANGES[name]
            return None, where, f"must be in {low}..{high}, got {value}"
        elif name in OPTION_CHOICES and value not in OPTION_CHOICES[name]:
            return None, where, f"must be one of {', '.join(OPTION_CHOICES[name])}, got {show_name(value)}"
        values[field] = value
    policy = meta.get("policy", "rocketmq")
    if policy not in POLICIES:
        return None, "#meta.policy", f"must be one of {', '.join(POLICIES)}"
    return Options(policy=policy, **values), "", ""


def config_from_meta(meta: Mapping[str, Any]) -> tuple[Config | None, str, str]:
    """The config a trace's ``#meta`` describes, or ``(None, field, problem)``."""
    processes = meta.get("processes", {})
    problem = processes_problem(processes)
    if problem:
        return None, "#meta.processes", problem
    options, field, problem = options_from_meta(meta, processes)
    if options is None:
        return None, field, problem
    problem = broker_sets_problem(meta)
    if problem:
        return None, "#meta.brokerSets", problem
    return Config(processes, options, meta.get("brokerSets")), "", ""


def broker_sets_problem(meta: Mapping[str, Any]) -> str | None:
    """What is wrong with ``#meta.brokerSets`` (absent: one broker set, fine)."""
    sets = meta.get("brokerSets")
    if sets is None:
        return None
    if not isinstance(sets, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in sets.items()):
        return "must map brokerNames to clusterNames"
    if len(sets) > MAX_PROCESSES:
        return f"{len(sets)} broker sets: a trace declares at most {MAX_PROCESSES}"
    for broker, cluster_name in sets.items():
        problem = _name_problem(broker, "broker") or _name_problem(cluster_name, "cluster")
        if problem:
            return problem
    if sets.get(cluster.DEFAULT_BROKER) != cluster.DEFAULT_CLUSTER:
        return f"must hold the default set {cluster.DEFAULT_BROKER!r}: {cluster.DEFAULT_CLUSTER!r}"
    return None
