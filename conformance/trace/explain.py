"""``autoswitch explain``: replay one trace on the reference model and print it step by step - the
action, the answer, what changed - marking where an invariant first fails. The way to read a
counterexample."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from autoswitch.conformance.engines import make_engine
from autoswitch.conformance.trace.itf import TraceError, load_trace, printable
from autoswitch.conformance.trace.replay import show, validate_walk
from autoswitch.conformance.trace.vocabulary import DISABLED, same
from autoswitch.reference.designs import design_of
from autoswitch.reference.invariants import violated_action_properties, violated_invariants
from autoswitch.reference.precondition import NotEnabled
from autoswitch.reference.state import CONTROLLER, DLEDGER

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


def explain(path: str) -> Iterator[str]:
    """Lines describing the trace at ``path`` as the reference model runs it, each :func:`printable`.
    The trace is validated as replay validates a walk before the first line; a step the model does not
    enable, where the trace does not say DISABLED, raises ``TraceError`` there: the trace is not a run of
    the model (``autoswitch replay`` reports it as a divergence)."""
    for line in _explain(path):
        yield printable(line)


def _explain(path: str) -> Iterator[str]:
    trace = load_trace(path)
    if "kind" in trace.meta:
        raise TraceError(path, None, "#meta.kind", f"a {show(trace.meta['kind'])} trace is not a walk "
                         f"from Init: `autoswitch replay {path}` checks it")
    config, _ = validate_walk(trace)
    yield f"{path}: {trace.meta.get('description', '')}"
    yield f"policy {config.options.policy}; options {config.to_meta()['options']}"
    engine = make_engine("reference", config)
    before, shown = engine.variables(), engine.observed()
    if (line := _design_line(before)) is not None:
        yield line
    failed = False
    for i, state in enumerate(trace.states[1:], start=1):
        action = state["action"]
        params = ", ".join(f"{k}={show(v)}" for k, v in action.items() if k != "tag")
        try:
            outcome = engine.step(action)
        except NotEnabled as e:
            if not same(state.get("outcome"), {"code": DISABLED}):
                raise TraceError(path, i, "action", f"{action['tag']}({params}) is not enabled here: {e}; the trace is not a run "
                                 f"of the model (`autoswitch replay {path}` shows where it diverges)") from None
            yield f"{i:3d} {action['tag']}({params}) -> not enabled ({DISABLED}, as the trace says): {e}"
            continue
        answer = ", ".join(f"{k}={show(v)}" for k, v in outcome.items() if k != "code")
        yield f"{i:3d} {action['tag']}({params}) -> {outcome['code']}" + (f" {answer}" if answer else "")
        after, showing = engine.variables(), engine.observed()
        for change in _changes(shown, showing):  # every set's controller and the trace-only variables too
            yield f"      {change}"
        broken = violated_invariants(after) + violated_action_properties(before, after)
        if broken and not failed:
            failed = True
            yield f"  !!! {', '.join(broken)} fails here (state {i})"
        before, shown = after, showing
    if not failed:
        yield "every invariant holds on every state"
