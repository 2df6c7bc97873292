"""Exploring the model, as stateright's ``Model::actions`` and its strategies: the action records of the
spec's ``Next`` for a configuration's domains, read from the action table (reference/actions.py), and the
one checked step that the simulation's walks and the tests' generators take on both engines.

The explicit-state checker (checker.py) tries every action ``NextActions`` gives for a state; the
simulation's drawer (campaign.py) and the generators (generate.py, the tests) draw tags from the table and
a value for each parameter by its kind, with weights, over wider domains than Next's (stale ids, fresh
addresses, raw requests).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Protocol

from attrs import frozen

from autoswitch.reference.actions import (
    ACTIONS,
    ADDR,
    BROKER_ID,
    BROKER_IDS,
    DATA,
    FLAG,
    LOST,
    PEER,
    PROCESS_GROUP,
    REQUEST,
    TRIGGER,
    WRITE_TAGS,
    ActionDef,
    Kind,
)
from autoswitch.reference.broker import GUARDS
from autoswitch.reference.faults import LATE_REQUESTS
from autoswitch.reference.invariants import broken_properties
from autoswitch.reference.precondition import NotEnabled
from autoswitch.reference.state import System

VIOLATION, DIVERGENCE = "violation", "divergence"
NEXT_TRIGGERS = ("admin",)  # EnvNext elects only as the admin: ElectMaster("admin", id)


class Domains(Protocol):
    """What the actions of Next range over (a SpecConfig is one): processes, each process's addresses,
    broker ids, and the spec's switches (AnySetAlter, DataPath, AllowCleanBrokerData)."""

    @property
    def processes(self) -> tuple[str, ...]: ...

    @property
    def addrs(self) -> Mapping[str, tuple[str, ...]]: ...

    @property
    def broker_ids(self) -> tuple[int, ...]: ...

    def switch(self, name: str) -> bool: ...

    def bound(self, name: str) -> int: ...

    @property
    def faults(self) -> frozenset[str]: ...

    @property
    def design(self) -> str: ...


def _subsets(ids: Sequence[int]) -> list[frozenset[int]]:
    """SUBSET ids, smallest first."""
    return [frozenset(c) for r in range(len(ids) + 1) for c in itertools.combinations(ids, r)]


def _values(kind: Kind, domains: Domains, process: str | None) -> Sequence[Any]:
    if kind == ADDR and process is not None:
        return domains.addrs[process]
    if kind == BROKER_ID:
        return domains.broker_ids
    if kind == BROKER_IDS:
        return _subsets(domains.broker_ids)
    if kind in (LOST, FLAG):
        return (False, True)
    if kind == TRIGGER:
        return NEXT_TRIGGERS
    if kind == PEER:
        return tuple(q for q in domains.processes if q != process)
    if kind == REQUEST:
        return LATE_REQUESTS
    raise ValueError(f"no domain of {kind.domain!r} in Next")


def _records(entry: ActionDef, domains: Domains, process: str | None = None) -> Iterator[dict[str, Any]]:
    names = [n for n in entry.params if n != "process"]
    head = {"tag": entry.tag, **({"process": process} if process is not None else {})}
    for combo in itertools.product(*(_values(entry.params[n], domains, process) for n in names)):
        yield {**head, **dict(zip(names, combo, strict=True))}


def admits(domains: Domains, entry: ActionDef) -> bool:
    """Whether Next for ``domains`` has ``entry``'s actions (next_actions): an action of Next of the configuration's
    design, its switch TRUE if it has one, its fault named by Faults if it is one."""
    return entry.in_next and domains.design in entry.designs and (entry.switch is None or domains.switch(entry.switch)) \
        and (entry.fault is None or entry.fault in domains.faults)


def next_actions(domains: Domains) -> list[dict[str, Any]]:
    """Every action record of AutoSwitch's Next for ``domains``: for each process its ProcessNext actions,
    then its DataNext ones, then EnvNext, each in the table's (the spec's) order, except that a process's
    actions without a choice of parameters come first in each group (the order the checker has always
    tried them in: its shortest counterexamples stay the same). A switched action is there when its
    switch is TRUE, a fault's action (ActionDef.fault) when the configuration's Faults names it; only the actions of
    the configuration's design (ActionDef.designs)."""
    entries = [a for a in ACTIONS.values() if admits(domains, a)]
    out: list[dict[str, Any]] = []
    for p in domains.processes:
        for group in (PROCESS_GROUP, DATA):
            mine = sorted((a for a in entries if a.group == group), key=lambda a: len(a.params) > 1)
            for entry in mine:
                out += _records(entry, domains, p)
    for entry in entries:
        if "process" not in entry.params:
            out += _records(entry, domains)
    return out


class NextActions:
    """The actions of Next in a state (stateright's ``Model::actions``): ``next_actions`` computed once,
    less the writes (WRITE_TAGS) once ``nextMsg`` passes MaxMsgs (DataNext: ``nextMsg <= MaxMsgs /\\ Write(p)``).
    ``candidates`` leaves out, as well, the process actions whose guard (reference/broker.py, GUARDS) rules them out."""

    def __init__(self, domains: Domains):
        self.all = next_actions(domains)
        self.without_write = [a for a in self.all if a["tag"] not in WRITE_TAGS]
        self.max_msgs = domains.bound("MaxMsgs")
        self._processes = tuple(domains.processes)
        self._guards = [(a.get("process"), GUARDS.get(a["tag"])) for a in self.all]
        self._candidates: dict[tuple[Any, ...], list[int]] = {}

    def __call__(self, s: System) -> list[dict[str, Any]]:
        return self.all if s.next_msg <= self.max_msgs else self.without_write

    def candidates(self, s: System) -> list[int]:
        """The indices in ``all`` of the actions of Next in ``s`` that may be enabled there, in Next's order: those of
        ``self(s)`` whose process passes their guard. A guard reads the process's registration state and role only,
        so the answer is kept for each combination of those and of ``nextMsg <= MaxMsgs``."""
        procs = s.procs
        view = (s.next_msg <= self.max_msgs, *((x.reg_state, x.role) if (x := procs.get(p)) is not None else None
                                               for p in self._processes))
        found = self._candidates.get(view)
        if found is None:
            allowed = {id(a) for a in self(s)}
            found = self._candidates[view] = [
                i for i, (a, (p, guard)) in enumerate(zip(self.all, self._guards, strict=True))
                if id(a) in allowed and (guard is None or (p in procs and guard.admits(procs[p])))]
        return found


# --- one checked step ------------------------------------------------------------------------------

@frozen
class Failure:
    """How a walk failed: ``kind`` violation or divergence, ``name`` the invariant (or the diverging
    field), ``step`` the state index (1 = after the first action)."""

    kind: str
    name: str
    step: int
    detail: str = ""


def _divergence(ref: Any, impl: Any) -> str:
    """The first variable (and key) where the implementation's variables differ from the reference's."""
    for name, want in ref.items():
        got = impl.get(name)
        if got != want:
            if isinstance(want, dict) and isinstance(got, dict):
                key = next(k for k in sorted(set(want) | set(got), key=repr) if want.get(k) != got.get(k))
                return f"{name}[{key!r}]"
            return name
    return "variables"


def check_step(ref: Any, impl: Any | None, action: Mapping[str, Any], step: int, before: Mapping[str, Any] | None,
               tolerated: dict[str, int]) -> tuple[Failure | None, dict[str, Any] | None]:
    """Apply ``action`` to both engines. Returns (failure, variables after); (None, None) when the action
    is disabled on both (nothing happened). The invariants and action properties are checked from
    ``before`` (None: not checked); a broken property already in ``tolerated`` is not a failure: its
    first state index is recorded there instead."""
    try:
        expected = ref.step(action)
    except NotEnabled:
        if impl is not None:
            try:
                impl.step(action)
            except NotEnabled:
                return None, None
            refused = f"{action['tag']}: the implementation took an action the reference refuses"
            return Failure(DIVERGENCE, "enabled", step, refused), None
        return None, None
    after = ref.variables()
    if impl is not None:
        try:
            got = impl.step(action)
        except NotEnabled as e:
            return Failure(DIVERGENCE, "enabled", step, f"{action['tag']}: the implementation refuses it: {e}"), after
        if got != expected:
            return Failure(DIVERGENCE, "outcome", step, f"{action['tag']}: {dict(got)} != {dict(expected)}"), after
        impl_vars = impl.variables()
        if impl_vars != after:
            return Failure(DIVERGENCE, _divergence(after, impl_vars), step, f"after {action['tag']}"), after
    for name in broken_properties(before, after) if before is not None else ():
        if name not in tolerated:
            return Failure(VIOLATION, name, step, f"after {action['tag']}"), after
        if tolerated[name] < 0:
            tolerated[name] = step
    return None, after
