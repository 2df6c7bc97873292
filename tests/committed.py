"""The committed traces whose steps the reference takes from Init, shared by the tests of the facts the log search's
pruning rests on (tests/unit/test_messages_needed.py, tests/unit/test_stable_facts.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from autoswitch.conformance.engines import Config, config_from_meta
from autoswitch.conformance.trace.itf import load_trace
from autoswitch.reference import NotEnabled

TRACES = Path(__file__).resolve().parents[1] / "traces"
T = TypeVar("T")


def replayed(replay: Callable[[Config, Sequence[Mapping[str, Any]]], T]) -> Iterator[tuple[str, T]]:
    """Each committed trace's name under traces/ and ``replay`` of its configuration and actions, for the traces with a
    configuration whose every step the replay takes (not a trace-only step, nor one the trace expects disabled)."""
    for path in sorted(TRACES.rglob("*.itf.json")):
        trace = load_trace(path)
        config, _, _ = config_from_meta(trace.meta)
        if config is None:
            continue
        try:
            result = replay(config, [s["action"] for s in trace.states[1:]])
        except (NotEnabled, KeyError, ValueError):
            continue
        yield str(path.relative_to(TRACES)), result
