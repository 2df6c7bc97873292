"""The fair suffix of a liveness walk and the liveness verdict at its end (reference/liveness.py, MODEL.md §8).

After its faulty prefix a liveness walk takes no fault and runs the healing steps of ``liveness.FAIRNESS`` under a
fair scheduler: at each step the enabled fair record least recently taken (ties: the table's order, then the
process, broker id or peer) whose step changes the state. A record that stays enabled is taken within one round of
the records (weak fairness within a bound); a record whose step leaves the state as it is, is not enabled in the
sense of ``WF_vars`` (``ENABLED <<A>>_vars``). The suffix stops at quiescence (no fair record changes the state: an
infinite fair behaviour may stutter there for ever) or after FAIR_BOUND steps.

At the end every liveness property must have ``ok`` true (every process for the per-process ones). A property false
at a quiescent end is false for ever in that fair behaviour; at the bound it counts only if it was false in every
state of the last FAIR_WINDOW steps (a property that comes and goes is not reported).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from attrs import frozen

from autoswitch.reference import NotEnabled, cluster
from autoswitch.reference.actions import ACTIONS
from autoswitch.reference.designs import design_of
from autoswitch.reference.liveness import FAIRNESS, LIVENESS, Fair, counts, fault_kind
from autoswitch.reference.state import NO_ID, Options

FAIR_BOUND = 200  # fair steps after the faults stop
FAIR_WINDOW = 100  # at the bound, a property must have been false this many steps to count


def is_fault(v: Mapping[str, Any], action: Mapping[str, Any]) -> bool:
    """A fault (liveness.fault_kind), or an action whose response is lost: what a fair suffix never takes."""
    return fault_kind(v, action) is not None or bool(action.get("lost"))


def _broker_ids(v: Mapping[str, Any]) -> list[int]:
    """The broker ids the state names: a process's meta file, the controller's alive map and syncStateSet, an ack."""
    ids = {i for i in v["metaFile"].values() if i != NO_ID} | set(v["alive"]) | set(v["syncStateSet"])
    ids |= {i for acks in v["acks"].values() for i in acks}
    return sorted(ids)


def _values(f: Fair, name: str, process: str | None, procs: Sequence[str], ids: Sequence[int]) -> Sequence[Any]:
    if name in f.fixed:
        return (f.fixed[name],)
    if name == "process":
        return procs
    if name == "peer":
        return [q for q in procs if q != process]
    if name == "brokerId":
        return ids
    raise ValueError(f"fairness of {f.tag}: no domain for its parameter {name!r}")


def fair_records(v: Mapping[str, Any]) -> Iterator[tuple[Fair, dict[str, Any]]]:
    """Every record of Next a fairness condition of FAIRNESS speaks of in state ``v`` (the tags of the action table
    in the Next of ``v``'s design only: a fair tag not in it is left out), with its condition, in the table's order."""
    procs = sorted(v["regState"])
    ids = _broker_ids(v)
    design = design_of(v)
    for f in FAIRNESS:
        entry = ACTIONS.get(f.tag)
        if entry is None or design not in entry.designs:
            continue
        names = list(entry.params)
        for process in procs if "process" in names else (None,):
            rows: list[dict[str, Any]] = [{"tag": f.tag, **({"process": process} if process else {})}]
            for name in (n for n in names if n != "process"):
                rows = [{**r, name: x} for r in rows for x in _values(f, name, process, procs, ids)]
            yield from ((f, r) for r in rows)


def _key(action: Mapping[str, Any]) -> tuple:
    return tuple(sorted(action.items()))


class FairScheduler:
    """The fair scheduler of a suffix: least recently taken first (module docstring)."""

    def __init__(self, options: Options):
        self.options = options
        self.taken: dict[tuple, int] = {}
        self.steps = 0

    def next(self, state: cluster.Cluster, v: Mapping[str, Any]) -> dict[str, Any] | None:
        """The record to take in ``state`` (its variables ``v``), or None: quiescence."""
        records = [(i, a) for i, (f, a) in enumerate(fair_records(v)) if counts(f, v, a)]
        records.sort(key=lambda r: (self.taken.get(_key(r[1]), -1), r[0]))
        for _, action in records:
            try:
                after, _ = cluster.step(state, action, self.options)
            except NotEnabled:
                continue
            if after != state:
                self.taken[_key(action)] = self.steps
                self.steps += 1
                return action
        return None


@frozen
class Stuck:
    """A liveness property false at the end of a fair suffix: for ``process`` (None: the property is not per process)."""

    name: str
    process: str | None


def stuck(v: Mapping[str, Any]) -> list[Stuck]:
    """The liveness properties whose ``ok`` is false in ``v``, in LIVENESS's order (per process: sorted)."""
    out = []
    for prop in LIVENESS:
        for p in sorted(v["regState"]) if prop.per_process else (None,):
            if not prop.ok(v, p):
                out.append(Stuck(prop.name, p))
    return out
