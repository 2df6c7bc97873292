"""Shrinking a failing walk to a minimal action list that still fails the same way (delta debugging).

A candidate is a sub-list of the actions; it is re-run from Init, actions that have become disabled are
skipped, and it is kept only if it fails with the same kind and name (the same invariant, or a
divergence on the same field), cut at that failure. Faults are dropped first, one at a time; then chunks
of halving size, down to single actions; rounds repeat until nothing more can be dropped. Everything
is deterministic: the same walk always shrinks to the same trace.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from autoswitch.conformance.engines import Config
from autoswitch.conformance.explore import DIVERGENCE, Failure
from autoswitch.conformance.simulation.campaign import FAULTS, Run, rerun

MAX_RERUNS = 3000  # a bound on the work for one walk; the result is still a failing trace if reached


def _is_fault(action: Mapping[str, Any]) -> bool:
    return action["tag"] in FAULTS or bool(action.get("lost"))


def shrink(config: Config, actions: Sequence[Mapping[str, Any]], failure: Failure, tolerate: Sequence[str] = ()) -> Run:
    """The smallest failing run found from ``actions`` (which fail with ``failure``)."""
    with_impl = failure.kind == DIVERGENCE  # a violation is the reference's alone: re-run only it
    budget = [MAX_RERUNS]

    def fails(candidate: list[dict[str, Any]]) -> Run | None:
        budget[0] -= 1
        run = rerun(config, candidate, tolerate, with_impl)
        same = run.failure is not None and (run.failure.kind, run.failure.name) == (failure.kind, failure.name)
        return run if same else None

    best = fails([dict(a) for a in actions])
    if best is None:
        raise ValueError(f"the walk does not fail with {failure.kind} {failure.name} when re-run")
    changed = True
    while changed and budget[0] > 0:
        changed = False
        for i in reversed([i for i, a in enumerate(best.actions) if _is_fault(a)]):
            if i < len(best.actions) and budget[0] > 0 and (run := fails(best.actions[:i] + best.actions[i + 1:])):
                best, changed = run, True
        size = len(best.actions) // 2
        while size >= 1 and budget[0] > 0:
            start = 0
            while start < len(best.actions) and budget[0] > 0:
                run = fails(best.actions[:start] + best.actions[start + size:])
                if run is not None and len(run.actions) < len(best.actions):
                    best, changed = run, True
                else:
                    start += size
            size //= 2
    return best
