"""The z3 encoding against the reference: concrete states (walks, committed traces, sampled models) stepped
by both, every disagreement named."""



from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from typing import Any

import z3
from attrs import frozen

from autoswitch.conformance.engines import Config
from autoswitch.conformance.engines.reference import ReferenceEngine
from autoswitch.conformance.simulation.generate import controller_request, random_walk
from autoswitch.conformance.trace.itf import TraceError, load_trace
from autoswitch.conformance.trace.replay import validate_walk
from autoswitch.conformance.trace.vocabulary import DISABLED
from autoswitch.conformance.z3.controller_encoding import (
    CODES,
    CONTROLLER_TAGS,
    IND_INV,
    TRANSITIONS,
    Ctl,
    Int,
    Names,
    Request,
    Step,
    _pairs,
    controller_from_model,
    controller_values,
    fits,
    holds_all,
    request_from_model,
    request_values,
    smallest_n,
    symbolic_controller,
    symbolic_request,
)
from autoswitch.reference.cluster import is_spec_step
from autoswitch.reference.precondition import NotEnabled
from autoswitch.reference.state import (
    Controller,
    Options,
    System,
)
from autoswitch.reference.step import step as reference_step

# ---- agreement with the reference -------------------------------------------------------------------

@frozen
class Encoded:
    """The symbolic pre-state, request and step of one (tag, id range, unclean) combination."""

    pre: Ctl
    request: Request
    step: Step


_CACHE: dict[tuple[str, int, bool], Encoded] = {}


def encoded(tag: str, n: int, unclean: bool) -> Encoded:
    key = (tag, n, unclean)
    if key not in _CACHE:
        pre = symbolic_controller("v", n)
        r, _ = symbolic_request(tag, n)
        _CACHE[key] = Encoded(pre, r, TRANSITIONS[tag](pre, r, unclean))
    return _CACHE[key]


def z3_step(c: Controller, action: Mapping[str, Any], unclean: bool, n: int) -> tuple[Controller, str] | None:
    """The encoding's post-state and response code for a concrete example; None when not enabled."""
    names = Names.of(c, action)
    e = encoded(action["tag"], n, unclean)
    solver = z3.Solver()
    solver.add(*_pairs(e.pre.fields(), controller_values(c, n, names)), *_pairs(e.request, request_values(action, n, names)))
    assert solver.check() == z3.sat
    model = solver.model()
    if not z3.is_true(model.eval(e.step.enabled, model_completion=True)):
        return None
    return controller_from_model(model, e.step.post, names), CODES[model.eval(e.step.code, model_completion=True).as_long()]


def reference_result(c: Controller, action: Mapping[str, Any], unclean: bool) -> tuple[Controller, str] | None:
    """The reference's post-state and code for a controller request; None when not enabled."""
    try:
        s, outcome = reference_step(System(controller=c), action, Options(enable_elect_unclean_master=unclean))
    except NotEnabled:
        return None
    return s.controller, outcome["code"]


def disagreement(c: Controller, action: Mapping[str, Any], unclean: bool, n: int) -> str | None:
    """None if the encoding and the reference agree on this example, else a description."""
    want, got = reference_result(c, action, unclean), z3_step(c, action, unclean, n)
    if want == got:
        return None
    return f"{action} on {c} (unclean={unclean}): reference {want}, z3 {got}"


def sample_models(tag: str, n: int, unclean: bool, count: int) -> list[tuple[Controller, dict[str, Any]]]:
    """Up to ``count`` distinct (state, request) pairs z3 picks among IndInv states with small values."""
    e = encoded(tag, n, unclean)
    _, domain = symbolic_request(tag, n)
    solver = z3.Solver()
    solver.set("random_seed", 1)
    small = [z3.And(x >= -1, x <= 3) for x in _ints(e.pre.fields()) + _ints(e.request)]
    solver.add(holds_all(IND_INV, e.pre), *domain, *small)
    out = []
    while len(out) < count and solver.check() == z3.sat:
        model = solver.model()
        names = Names()
        out.append((controller_from_model(model, e.pre, names), request_from_model(model, tag, e.request, names)))
        terms = _terms(e.pre.fields()) + _terms(e.request)
        solver.add(z3.Or([t != model.eval(t, model_completion=True) for t in terms]))
    return out


def _terms(x: Any) -> list[Any]:
    if isinstance(x, dict):
        return [t for v in x.values() for t in _terms(v)]
    return [x]


def _ints(x: Any) -> list[Int]:
    return [t for t in _terms(x) if z3.is_int(t)]


def walk_states(walks: int, length: int, seed: int, processes: int = 3) -> list[Controller]:
    """The controller states of seeded random walks over the reference (conformance/simulation/generate.py), walk k
    drawn with seed ``seed + k``."""
    config = Config({f"p{i}": f"10.0.0.{i}:30911" for i in range(1, processes + 1)})
    states = []
    for k in range(walks):
        engine = ReferenceEngine(config)
        states.append(engine.state.controller)
        for action in random_walk(config, seed + k, length):
            engine.step(action)
            states.append(engine.state.controller)
    return states


def trace_steps(paths: Iterable[str]) -> list[tuple[Controller, Mapping[str, Any] | None]]:
    """Every state of the given walk traces as the reference reaches it: (controller before the step,
    the step's action if it is a controller request of the spec, else None), and the last state with None.
    Traces of another ``#meta.kind`` (one step from a given state) and refused (DISABLED) steps are left out."""
    steps: list[tuple[Controller, Mapping[str, Any] | None]] = []
    for path in paths:
        trace = load_trace(path)
        if trace.meta.get("kind") is not None:
            continue
        config, _ = validate_walk(trace)  # the trace's header and actions as replay reads them (TraceError)
        engine = ReferenceEngine(config)
        for i, state in enumerate(trace.states[1:], 1):
            if state.get("outcome") == {"code": DISABLED}:
                continue  # refused: no step
            action = state["action"]
            request = action["tag"] in CONTROLLER_TAGS and is_spec_step(engine.cluster, action)
            steps.append((engine.state.controller, action if request else None))
            try:
                engine.step(action)
            except NotEnabled as e:
                raise TraceError(path, i, "action", f"{action['tag']} is not enabled here ({e}); replay the trace to see why") from None
        steps.append((engine.state.controller, None))
    return steps


def random_requests(rng: random.Random, top_id: int, count: int) -> list[dict[str, Any]]:
    """Arbitrary controller requests over small domains (generate.controller_request), CleanBrokerData too."""
    return [controller_request(rng, top_id, clean=0.1) for _ in range(count)]


def agreement(examples: Iterable[tuple[Controller, Mapping[str, Any]]], at_least: int = 3) -> tuple[int, list[str]]:
    """Run each example under both unclean settings on the encoding (ids 1..max(at_least, ids used))
    and on the reference: (examples compared, disagreements). Examples outside the encoded domain
    (a negative id in a heartbeat, say) are not compared."""
    compared, problems = 0, []
    for c, action in examples:
        n = smallest_n(c, action, at_least)
        if not fits(c, action, n):
            continue
        for unclean in (False, True):
            compared += 1
            problem = disagreement(c, action, unclean, n)
            if problem:
                problems.append(problem)
    return compared, problems


