"""``autoswitch explain``: replay one trace on the reference model and print it step by step - the
action, the answer, what changed - marking where an invariant first fails. The way to read a
counterexample. :func:`replay_walk` gives the model's full state at each step, also to the HTML explorer
(conformance/html/explorer.py)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from attrs import frozen

from autoswitch.conformance.engines import Config, make_engine
from autoswitch.conformance.trace.itf import Trace, TraceError, load_trace, printable
from autoswitch.conformance.trace.replay import AtEnd, Lasso, broken_in_other_sets, show, validate_walk
from autoswitch.conformance.trace.vocabulary import DISABLED, same
from autoswitch.reference.designs import design_of
from autoswitch.reference.invariants import broken_properties, violated_action_properties, violated_invariants
from autoswitch.reference.precondition import NotEnabled
from autoswitch.reference.state import CONTROLLER, DLEDGER

Expected = tuple[str, int] | Lasso | AtEnd | None  # what a walk expects (replay.validate_walk)
QUIET = ("clock", "alive", "nextMsg")  # bookkeeping that changes often and explains little


def _changes(before: dict[str, Any], after: dict[str, Any]) -> Iterator[str]:
    for name, value in after.items():
        if name in QUIET or before.get(name) == value:
            continue
        old = before.get(name)
        if isinstance(value, dict) and isinstance(old, dict):
            for key in sorted(set(value) | set(old), key=repr):
                if value.get(key) != old.get(key):
                    yield f"{name}[{key!r}] = {show(value.get(key))}"
        else:
            yield f"{name} = {show(value)}"


def _design_line(v: dict[str, Any]) -> str | None:
    """How InitDesign (spec/Designs.tla) set the processes up, in the designs RIP-44 replaced: each one's configured
    role (brokerRole) and id, and a DLedger member's term; None in controller mode (its Init is empty)."""
    design = design_of(v)
    if design == CONTROLLER:
        return None
    procs = ", ".join(f"{p} {v['brokerRole'][p]} id {v['metaFile'][p]}" + (f" term {v['term'][p]}" if design == DLEDGER else "")
                      for p in sorted(v["brokerRole"]))
    return f"design {design} (InitDesign): {procs}"


@frozen
class Step:
    """One state of a walk as the reference model runs it (:func:`replay_walk`): the trace's ``action``, the model's answer
    (None for Init; ``refused``: the NotEnabled message of a step the trace says is DISABLED), the model's full
    ``variables`` and ``observed`` view after it, the default set's other controllers (``sets``), and the properties
    that fail there (``broken``: state invariants and action properties, then those of each other set)."""

    index: int
    action: dict[str, Any]
    outcome: Mapping[str, Any] | None
    refused: str | None
    variables: dict[str, Any]
    observed: dict[str, Any]
    sets: dict[str, dict[str, Any]]
    broken: list[str]


def replay_walk(trace: Trace) -> tuple[Config, Expected, Iterator[Step]]:
    """Replay a walk from Init on the reference model, one :class:`Step` per state (state 0 is Init), with its config
    and what it expects (:func:`replay.validate_walk`). The trace is validated as replay validates a walk before the
    first step; a step the model does not enable, where the trace does not say DISABLED, raises ``TraceError`` there:
    the trace is not a run of the model."""
    if "kind" in trace.meta:
        raise TraceError(trace.path, None, "#meta.kind", f"a {show(trace.meta['kind'])} trace is not a walk "
                         f"from Init: `autoswitch replay {trace.path}` checks it")
    config, expected = validate_walk(trace)
    return config, expected, _steps(trace, config)


def _steps(trace: Trace, config: Config) -> Iterator[Step]:
    path = trace.path
    engine = make_engine("reference", config)
    before, sets_before = engine.variables(), engine.other_sets()
    yield Step(0, trace.states[0]["action"], None, None, before, engine.observed(), sets_before,
               broken_properties(None, before) + broken_in_other_sets(None, sets_before))
    for i, state in enumerate(trace.states[1:], start=1):
        action = state["action"]
        try:
            outcome, refused = engine.step(action), None
        except NotEnabled as e:
            if not same(state.get("outcome"), {"code": DISABLED}):
                params = ", ".join(f"{k}={show(v)}" for k, v in action.items() if k != "tag")
                raise TraceError(path, i, "action", f"{action['tag']}({params}) is not enabled here: {e}; the trace is not a run "
                                 f"of the model (`autoswitch replay {path}` shows where it diverges)") from None
            outcome, refused = {"code": DISABLED}, str(e)
        after, sets_after = engine.variables(), engine.other_sets()
        broken = broken_properties(before, after) + broken_in_other_sets(sets_before, sets_after)
        yield Step(i, action, outcome, refused, after, engine.observed(), sets_after, broken)
        before, sets_before = after, sets_after


def explain(path: str) -> Iterator[str]:
    """Lines describing the trace at ``path`` as the reference model runs it (:func:`replay_walk`), each :func:`printable`."""
    for line in _explain(path):
        yield printable(line)


def _explain(path: str) -> Iterator[str]:
    trace = load_trace(path)
    config, _, steps = replay_walk(trace)
    yield f"{path}: {trace.meta.get('description', '')}"
    yield f"policy {config.options.policy}; options {config.to_meta()['options']}"
    start = next(steps)
    if (line := _design_line(start.variables)) is not None:
        yield line
    failed, before, shown = False, start.variables, start.observed
    for step in steps:
        action = step.action
        params = ", ".join(f"{k}={show(v)}" for k, v in action.items() if k != "tag")
        if step.refused is not None:
            yield f"{step.index:3d} {action['tag']}({params}) -> not enabled ({DISABLED}, as the trace says): {step.refused}"
            continue
        outcome = step.outcome
        answer = ", ".join(f"{k}={show(v)}" for k, v in outcome.items() if k != "code")
        yield f"{step.index:3d} {action['tag']}({params}) -> {outcome['code']}" + (f" {answer}" if answer else "")
        for change in _changes(shown, step.observed):  # every set's controller and the trace-only variables too
            yield f"      {change}"
        broken = violated_invariants(step.variables) + violated_action_properties(before, step.variables)
        if broken and not failed:
            failed = True
            yield f"  !!! {', '.join(broken)} fails here (state {step.index})"
        before, shown = step.variables, step.observed
    if not failed:
        yield "every invariant holds on every state"
