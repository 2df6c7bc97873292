"""The merge of a log's nodes (conformance/logs/merge.py): by clock when every event has one, else by timestamp; each
node's file order kept; the skew window admits the other order, equal clocks likewise."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from autoswitch.conformance.logs.events import LogError, read_log
from autoswitch.conformance.logs.merge import CLOCK, TS, largest_gap, merge

META = {"meta": {"processes": {"p1": "10.0.0.1:30911", "p2": "10.0.0.2:30911"}}}


def log(tmp: Path, *events: dict) -> Path:
    path = tmp / "log.ndjson"
    path.write_text("".join(json.dumps(e) + "\n" for e in (META, *events)))
    return path


def seen(node: str, **times: int) -> dict:
    return {"node": node, **times, "observe": {"role": "NONE"}}


def test_by_timestamp_with_the_skew_window(tmp_path: Path) -> None:
    path = log(tmp_path, seen("p1", ts=10), seen("p1", ts=30), seen("p2", ts=12), seen("p2", ts=40))
    merged = merge(read_log(path))
    assert merged.key == TS and [(e.node, e.ts) for e in merged.events] == [("p1", 10), ("p2", 12), ("p1", 30), ("p2", 40)]
    assert [e.index for e in merged.events] == [0, 1, 2, 3]
    assert merged.nodes == ("p1", "p2") and merged.by_node == ((0, 2), (1, 3))
    assert merged.eligible((0, 0)) == [0]  # p2's ts 12 must follow p1's ts 10
    assert merge(read_log(path), skew=2).eligible((0, 0)) == [0, 1]  # within 2 ms: either order
    assert merge(read_log(path), skew=1).eligible((0, 0)) == [0]
    assert merged.eligible((1, 0)) == [1] and merged.first_unconsumed((1, 0)) == 1
    assert merged.first_unconsumed((2, 2)) == 4


def test_by_clock_when_every_event_has_one_and_equal_clocks_in_either_order(tmp_path: Path) -> None:
    path = log(tmp_path, seen("p1", clock=1, ts=50), seen("p1", clock=2, ts=51), seen("p2", clock=2, ts=1))
    merged = merge(read_log(path), skew=1000)
    assert merged.key == CLOCK and merged.window == 0
    assert [(e.node, e.clock) for e in merged.events] == [("p1", 1), ("p1", 2), ("p2", 2)]
    assert merged.eligible((0, 0)) == [0]
    assert merged.eligible((1, 0)) == [0, 1]


def test_a_node_keeps_its_order_at_equal_times(tmp_path: Path) -> None:
    path = log(tmp_path, seen("p1", ts=5), {"node": "p1", "ts": 5, "observe": {"role": "MASTER"}})
    merged = merge(read_log(path))
    assert [e.line for e in merged.events] == [2, 3] and merged.eligible((0,)) == [0]


def test_without_clocks_every_event_needs_a_timestamp(tmp_path: Path) -> None:
    path = log(tmp_path, seen("p1", clock=1), seen("p2", ts=3))
    with pytest.raises(LogError) as caught:
        merge(read_log(path))
    assert (caught.value.line, caught.value.field) == (2, "ts") and "line 3 has none" not in str(caught.value)
    assert f"{path}:3 has none" in str(caught.value)


def test_events_of_one_node_sharing_a_clock_are_one_step(tmp_path: Path) -> None:
    """Between two events of one node with the same clock (one step's lines: the request, then what it changed) the
    search takes no unobserved step; another node's event may still come between them."""
    path = log(tmp_path, seen("p1", clock=1), seen("p1", clock=1), seen("p2", clock=1), seen("p2", clock=2), seen("p1", clock=3))
    merged = merge(read_log(path))
    assert merged.one_step == (frozenset({1}), frozenset())
    assert merged.in_step((1, 0)) and merged.in_step((1, 1)) and not merged.in_step((2, 1)) and not merged.in_step((0, 0))
    by_ts = log(tmp_path, seen("p1", ts=1), seen("p1", ts=1))
    assert merge(read_log(by_ts)).one_step == (frozenset(),)  # equal timestamps say nothing of steps


def test_the_largest_gap_of_clocks_that_count_steps() -> None:
    assert largest_gap([]) == 0  # no event: no step unobserved before one
    assert largest_gap([1, 1, 2]) == 1  # step 1 itself, where its event only observes
    assert largest_gap([3, 5, 5, 12]) == 7  # steps 6 .. 12 before the event at 12
