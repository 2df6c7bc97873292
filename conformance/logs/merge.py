"""A log's per-node events merged into one candidate order, and the orders it admits (spec/README.md, "Event logs").

Each node's events keep their file order. Across nodes the key is the logical ``clock`` when every event of the log
has one, else the timestamp ``ts`` (then every event needs one). Event ``a`` must come before event ``b`` of another
node when ``key(a) + window < key(b)``: the window is 0 for clocks (equal clocks may occur in either order) and
``--skew`` milliseconds for timestamps. The admitted orders are exactly the linear extensions of that relation with
the per-node orders; the search (search.py) explores them by consuming, at each point, any node's next event that no
other node's next event must precede.
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs
from attrs import frozen

from autoswitch.conformance.logs.events import Event, Log, LogError

CLOCK, TS = "clock", "ts"


@frozen
class Merged:
    """The events in the candidate order (``events[i].index == i``), the key ordering them, the skew window, and each
    node's events as indices into ``events`` (nodes in a fixed order: ``nodes``)."""

    events: tuple[Event, ...]
    key: str
    window: int
    nodes: tuple[str, ...]
    by_node: tuple[tuple[int, ...], ...]
    # per node, the counts c of its events consumed at which its c-th and (c+1)-th share a clock (ordered by clock only)
    one_step: tuple[frozenset[int], ...] = ()

    def in_step(self, consumed: tuple[int, ...]) -> bool:
        """Whether some node is within one step: the last of its events consumed and its next share a clock (one step's
        events, with no other step between them)."""
        return any(c in split for c, split in zip(consumed, self.one_step, strict=False))

    def value(self, i: int) -> int:
        value = getattr(self.events[i], self.key)
        assert value is not None
        return value

    def precedes(self, a: int, b: int) -> bool:
        """Whether event ``a`` must come before event ``b`` of another node."""
        return self.value(a) + self.window < self.value(b)

    def eligible(self, consumed: tuple[int, ...]) -> list[int]:
        """The indices of ``nodes`` whose next event may come next after ``consumed`` events of each node."""
        heads = [(k, ids[c]) for k, (ids, c) in enumerate(zip(self.by_node, consumed, strict=True)) if c < len(ids)]
        return [k for k, e in heads if not any(j != k and self.precedes(f, e) for j, f in heads)]

    def next_event(self, k: int, consumed: tuple[int, ...]) -> Event | None:
        """The next event of node ``nodes[k]`` after ``consumed`` events of each node (None when it has none left)."""
        ids, c = self.by_node[k], consumed[k]
        return self.events[ids[c]] if c < len(ids) else None

    def first_unconsumed(self, consumed: tuple[int, ...]) -> int:
        """The smallest index in the candidate order of an event not yet consumed (len(events) when none is left)."""
        return min((ids[c] for ids, c in zip(self.by_node, consumed, strict=True) if c < len(ids)), default=len(self.events))


def largest_gap(clocks: Iterable[int]) -> int:
    """The most steps that clocks counting steps (events.CLOCK_COUNTS_STEPS) leave unobserved before one of their events:
    from the clock ``a`` of the events before it (0 before the first) to its own ``b``, the steps ``a + 1 .. b`` (step
    ``b`` itself where the event only observes)."""
    ordered = sorted({0, *clocks})
    return max((b - a for a, b in zip(ordered, ordered[1:], strict=False)), default=0)


def merge(log: Log, skew: int = 0) -> Merged:
    """The candidate order of ``log``'s events: by clock when every event has one, else by ts (every event needs one);
    ties and each node's order kept (its file order), then by file and line. ``skew`` (milliseconds) is the window
    of timestamps within which two nodes' events may occur in either order."""
    if skew < 0:
        raise ValueError("the skew is a number of milliseconds >= 0")
    events = log.events
    key = CLOCK if all(e.clock is not None for e in events) else TS
    if key == TS:
        lacking = next((e for e in events if e.ts is None), None)
        if lacking is not None:
            having = next(e for e in events if e.clock is None)
            raise LogError(lacking.file, lacking.line, "ts", f"not every event has a clock ({having.where} has none), so "
                           "events are ordered by timestamp: every event needs a 'ts'")
    order = sorted(range(len(events)), key=lambda i: (getattr(events[i], key), events[i].file, events[i].line))
    merged = tuple(attrs.evolve(events[i], index=n) for n, i in enumerate(order))
    nodes = tuple(dict.fromkeys(e.node for e in merged))  # in order of their first event
    by_node = tuple(tuple(e.index for e in merged if e.node == node) for node in nodes)
    one_step = tuple(frozenset(c for c in range(1, len(ids)) if merged[ids[c - 1]].clock == merged[ids[c]].clock)
                     if key == CLOCK else frozenset() for ids in by_node)
    return Merged(merged, key, skew if key == TS else 0, nodes, by_node, one_step)
