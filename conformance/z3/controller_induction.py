"""The inductive check of the controller invariants (z3/controller_encoding.py): one obligation per
property, request and unclean setting; IndInv on concrete states."""



from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import z3
from attrs import frozen

from autoswitch.conformance.z3.controller_encoding import (
    ACTION_PROPERTY,
    IND_INV,
    INVARIANTS,
    PROPERTIES,
    TRANSITIONS,
    Bool,
    Ctl,
    Names,
    Transition,
    _pairs,
    controller_from_model,
    controller_values,
    epochs_monotonic,
    holds_all,
    request_from_model,
    smallest_n,
    symbolic_controller,
    symbolic_request,
)
from autoswitch.reference.state import (
    Controller,
)

# ---- the checks -----------------------------------------------------------------------------------

@frozen
class Obligation:
    """One proof obligation: from every state satisfying ``assumed``, request ``tag`` keeps ``prop``.
    ``cti`` is a counterexample to induction: (pre-state, action record, post-state) as reference values."""

    prop: str
    assumed: str
    tag: str
    unclean: bool
    holds: bool
    cti: tuple[Controller, dict[str, Any], Controller] | None = None


def obligation(prop: str, assumed: Mapping[str, Callable[[Ctl], Bool]], assumed_name: str, tag: str, n: int, unclean: bool,
               transitions: Mapping[str, Transition] = TRANSITIONS) -> Obligation:
    """Prove ``assumed(v) ∧ enabled ∧ w = post ⇒ prop`` or return a counterexample to induction."""
    v = symbolic_controller("v", n)
    r, domain = symbolic_request(tag, n)
    s = transitions[tag](v, r, unclean)
    goal = epochs_monotonic(v, s.post) if prop == ACTION_PROPERTY else IND_INV[prop](s.post)
    solver = z3.Solver()
    solver.add(holds_all(assumed, v), *domain, s.enabled, z3.Not(goal))
    if solver.check() == z3.unsat:
        return Obligation(prop, assumed_name, tag, unclean, True)
    model, names = solver.model(), Names()
    cti = (controller_from_model(model, v, names), request_from_model(model, tag, r, names), controller_from_model(model, s.post, names))
    return Obligation(prop, assumed_name, tag, unclean, False, cti)


def check_induction(n: int = 3, transitions: Mapping[str, Transition] = TRANSITIONS) -> list[Obligation]:
    """Every property against every request, both unclean settings: each state predicate alone (P ⇒ P'),
    EpochsMonotonic under the MODEL.md invariants (Inv), and every property under IndInv."""
    results = []
    for unclean in (False, True):
        for tag in transitions:
            for prop in IND_INV:
                results.append(obligation(prop, {prop: IND_INV[prop]}, prop, tag, n, unclean, transitions))
            results.append(obligation(ACTION_PROPERTY, INVARIANTS, "Inv", tag, n, unclean, transitions))
            for prop in PROPERTIES:
                results.append(obligation(prop, IND_INV, "IndInv", tag, n, unclean, transitions))
    return results


_IND_INV_CACHE: dict[int, tuple[Ctl, dict[str, Bool]]] = {}


def failed_ind_inv(c: Controller, at_least: int = 3) -> list[str]:
    """The IndInv conjuncts that the encoding evaluates to false at the reference controller ``c``."""
    n = smallest_n(c, {"tag": "GetReplicaInfo"}, at_least)
    if n not in _IND_INV_CACHE:
        v = symbolic_controller("v", n)
        _IND_INV_CACHE[n] = v, {name: p(v) for name, p in IND_INV.items()}
    v, formulas = _IND_INV_CACHE[n]
    solver = z3.Solver()
    solver.add(*_pairs(v.fields(), controller_values(c, n, Names.of(c, {"tag": "GetReplicaInfo"}))))
    assert solver.check() == z3.sat
    model = solver.model()
    return [name for name, f in formulas.items() if not z3.is_true(model.eval(f, model_completion=True))]


