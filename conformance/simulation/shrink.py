"""Shrinking a failing walk to a minimal action list that still fails the same way (delta debugging).

A candidate is a sub-list of the actions; it is re-run from Init, actions that have become disabled are
skipped, and it is kept only if it fails with the same kind and name (the same invariant, or a
divergence on the same field), cut at that failure. Faults are dropped first, one at a time; then chunks
of halving size, down to single actions; rounds repeat until nothing more can be dropped. Everything
is deterministic: the same walk always shrinks to the same trace.

A liveness walk shrinks the same way: the candidates are sub-lists of its faulty prefix, each re-run with its fair
suffix computed afresh (campaign.rerun with ``live``), kept if the same liveness property is stuck at the end.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from autoswitch.conformance.engines import Config
from autoswitch.conformance.explore import DIVERGENCE, Failure
from autoswitch.conformance.simulation.campaign import FAULTS, Run, rerun

MAX_RERUNS = 3000  # a bound on the work for one walk; the result is still a failing trace if reached


class NotReproduced(ValueError):
    """The walk did not fail the same way when re-run (on the real code: its timing)."""


def _is_fault(action: Mapping[str, Any]) -> bool:
    return action["tag"] in FAULTS or bool(action.get("lost"))


def shrink(config: Config, actions: Sequence[Mapping[str, Any]], failure: Failure, tolerate: Sequence[str] = (),
           live: bool = False, control: str | None = None, against: str = "impl") -> Run:
    """The smallest failing run found from ``actions`` (which fail with ``failure``); ``live``: ``actions`` is a
    liveness walk's prefix (``control`` as for campaign.rerun), and the run returned has its fair suffix; ``against``:
    the engine a divergence was found on."""
    with_impl = failure.kind == DIVERGENCE  # a violation is the reference's alone: re-run only it
    budget = [MAX_RERUNS]

    def fails(candidate: list[dict[str, Any]]) -> Run | None:
        budget[0] -= 1
        run = rerun(config, candidate, tolerate, with_impl, live, control, against)
        same = run.failure is not None and (run.failure.kind, run.failure.name) == (failure.kind, failure.name)
        return run if same else None

    best = fails([dict(a) for a in actions])
    if best is None:
        raise NotReproduced(f"the walk does not fail with {failure.kind} {failure.name} when re-run")
    changed = True
    while changed and budget[0] > 0:
        changed = False
        for i in reversed([i for i, a in enumerate(best.prefix) if _is_fault(a)]):
            if i < len(best.prefix) and budget[0] > 0 and (run := fails(best.prefix[:i] + best.prefix[i + 1:])):
                best, changed = run, True
        size = len(best.prefix) // 2
        while size >= 1 and budget[0] > 0:
            start = 0
            while start < len(best.prefix) and budget[0] > 0:
                run = fails(best.prefix[:start] + best.prefix[start + size:])
                if run is not None and len(run.actions) < len(best.actions):
                    best, changed = run, True
                else:
                    start += size
            size //= 2
    return best
