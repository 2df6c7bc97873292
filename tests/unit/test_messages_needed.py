"""The facts the search's pruning rests on (search.messages_needed, _Problem.hopeless): a step changes ``nextMsg`` by at
most one, and what a process's ``log``, ``epochFile`` and ``confirmOffset`` show needs no more messages than were
written. Checked on every state of every committed trace the reference replays from Init and of the campaign's sampled
walks, with a count of the states that showed a message, so that the check is not vacuous."""

from __future__ import annotations

from typing import Any

from committed import replayed

from autoswitch.conformance.engines import trace_states
from autoswitch.conformance.logs.bench import SAFETY, sampled_walks
from autoswitch.conformance.logs.events import Event
from autoswitch.conformance.logs.search import BROKER_HEARTBEAT, messages_needed
from autoswitch.conformance.simulation.campaign import grid


def _observing(**observe: Any) -> Event:
    return Event("p1.ndjson", 2, "p1", None, 1, None, (), observe)


def test_each_source_of_a_need() -> None:
    assert messages_needed(_observing(role="MASTER")) == 0
    assert messages_needed(_observing(log=[(1, 1), (4, 2)])) == 5
    assert messages_needed(_observing(epochFile=[(1, 0), (2, 7)])) == 8
    assert messages_needed(_observing(confirmOffset=3)) == 4
    assert messages_needed(_observing(nextMsg=6, log=[(2, 1)])) == 6
    # a heartbeat's maxOffset is a broker's log end, unless the log has the controller-level request, which takes any
    alive = {1: {"epoch": 1, "maxOffset": 9, "priority": 0}}
    assert messages_needed(_observing(alive=alive), brokers_beat=True) == 10
    assert messages_needed(_observing(alive=alive)) == 0


def _check(states: list[dict[str, Any]], where: str) -> int:
    """Assert the facts on one behaviour's states (``alive`` too where every heartbeat is a broker's); the count of
    (state, process or controller) pairs showing a message."""
    shown = 0
    beat = not any(state["action"]["tag"] == BROKER_HEARTBEAT for state in states)
    for i, state in enumerate(states):
        if i:
            assert state["nextMsg"] - states[i - 1]["nextMsg"] in (0, 1), f"{where}: step {i} ({state['action']})"
        need = messages_needed(_observing(alive=state["alive"]), beat)
        assert need <= state["nextMsg"], f"{where}: state {i}, alive needs {need}, nextMsg {state['nextMsg']}"
        shown += need > 1
        for p in state["log"]:
            need = messages_needed(_observing(log=state["log"][p], epochFile=state["epochFile"][p],
                                              confirmOffset=state["confirmOffset"][p]))
            assert need <= state["nextMsg"], f"{where}: state {i}, process {p} needs {need}, nextMsg {state['nextMsg']}"
            shown += need > 1
    return shown


def test_on_every_committed_trace() -> None:
    checked = shown = 0
    for name, states in replayed(trace_states):
        shown += _check(states, name)
        checked += 1
    assert checked >= 50 and shown >= 100, (checked, shown)


def test_on_the_sampled_walks() -> None:
    """Walk 0 of each safety configuration, where it passes (one fails its control and is not sampled)."""
    shown = {}
    for name, walk, actions in sampled_walks(SAFETY, 1, 60, 1):
        shown[name] = _check(trace_states(grid()[name].config, actions), f"{name} walk {walk}")
    assert len(shown) >= len(SAFETY) - 1 and all(shown.values()), shown
