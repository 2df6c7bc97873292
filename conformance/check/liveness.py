"""Liveness checking in the explicit-state checker (reference/liveness.py, spec/Liveness.tla): fair cycles on the
reachable graph, as TLC finds them (strongly connected components, fairness as acceptance conditions).

- The search (checker.py) records, for each state within the constraint, its edges (the action record of Next and
  the successor inside the constraint) and the *fairness instances* enabled there: the action records of Next that
  match a row of ``FAIRNESS`` with its guard true and that have a successor other than the state itself, even one
  past the constraint (TLC evaluates ``ENABLED <<A>>_vars`` on the spec, not on the constrained graph). An edge
  *takes* the instance of its record when that record's guard holds in its source.
- A step to the same state is a stuttering step: it takes nothing, and every state may stutter for ever, as in
  TLA+ (``[][Next]_vars``). TLC adds the same implicit self-loop to every state of its behaviour graph. (The spec's
  ``vars`` also hold ``action`` and ``outcome``, so TLC sees such a step as one of its action, a self-loop of the
  VIEW's graph that takes the instance; the condition below is the same either way: an instance whose only step
  in a state is a self-loop is, for TLC, taken inside the component, here disabled in one of its states.)
- ``[]<>ok`` is violated by a fair behaviour that ends in a cycle of states where ``ok`` is false: for each property
  (per process where ``per_process``) the states where ``ok`` is false are cut into strongly connected components
  (:func:`components`, Tarjan's algorithm without recursion), and a component holds a fair cycle iff every instance
  enabled in *all* its states is taken on one of its internal edges (:func:`fair`). The counterexample is a lasso:
  a shortest path from an initial state to the component, then a cycle inside it (:func:`fair_cycle`).

Lasso traces (written by ``autoswitch check``, replayed by ``autoswitch replay``: conformance/trace/replay.py) are ITF
with a top-level ``"loop": i``, an index into ``states``: the last state's variables equal ``states[i]``'s, its step
closes the loop, and the behaviour repeats ``states[i+1..]`` for ever. ``i`` is the last index when the loop is empty:
the behaviour stutters for ever in the last state (fair only when no instance is enabled there). ``#meta.expect`` is
``{"liveness": NAME, "process": P, "loop": i}`` (``process`` only for a per-process property) and ``#meta.next``
gives the domains of Next the replay tries for enabledness: ``{"brokerIds": [...], "switches": [the TRUE switches of
DataPath, AnySetAlter, AllowCleanBrokerData], "faults": [the configuration's Faults]}``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from attrs import frozen

from autoswitch.reference.liveness import LIVENESS_BY_NAME, Liveness

Action = Mapping[str, Any]


@frozen
class Goal:
    """One property to refute: ``[]<>ok(process)`` (process None for a property of the whole system)."""

    prop: Liveness
    process: str | None


def goals(names: Sequence[str], processes: Sequence[str]) -> list[Goal]:
    """The configuration's liveness properties, one goal per process where the property is per process."""
    out = []
    for name in names:
        prop = LIVENESS_BY_NAME[name]
        out += [Goal(prop, p) for p in processes] if prop.per_process else [Goal(prop, None)]
    return out


Edge = tuple[int, int, bool]  # (the action's index in Next, the successor, whether the step takes the action's instance)


class Graph:
    """The reachable graph within the constraint, as the search builds it: states by fingerprint, each with its
    discovery order (a BFS: a smaller order is no deeper), its edges, the instances enabled there (indices of
    fairness instances in Next's records) and a bit per goal set when ``ok`` is false there."""

    def __init__(self, goals_: Sequence[Goal]):
        self.goals = tuple(goals_)
        self.order: dict[int, int] = {}
        self.edges: dict[int, list[Edge]] = {}
        self.enabled: dict[int, frozenset[int]] = {}
        self.bad: dict[int, int] = {}
        self._interned: dict[frozenset[int], frozenset[int]] = {}

    def add_state(self, fp: int, v: Mapping[str, Any]) -> None:
        """A new state: its goals' ``ok`` evaluated on its variables ``v``."""
        self.order[fp] = len(self.order)
        self.bad[fp] = sum(1 << k for k, g in enumerate(self.goals) if not g.prop.ok(v, g.process))

    def add_steps(self, fp: int, edges: list[Edge], enabled: Iterable[int]) -> None:
        """A state's edges inside the constraint (stuttering ones left out) and its enabled instances."""
        self.edges[fp] = edges
        key = frozenset(enabled)
        self.enabled[fp] = self._interned.setdefault(key, key)

    def states_of(self, goal: int) -> set[int]:
        return {fp for fp, bad in self.bad.items() if bad >> goal & 1}

    def find(self, goal: int) -> tuple[int, list[tuple[int, int]]] | None:
        """A fair cycle of states where goal ``goal``'s ``ok`` is false: the state it starts from (the component's
        first state discovered: the nearest to an initial state) and its edges (action index, successor); an empty
        list is a stutter. None: the goal holds."""
        inside = self.states_of(goal)
        best: tuple[int, list[int]] | None = None
        for comp in components(inside, lambda u: (t for _, t, _ in self.edges.get(u, ()) if t in inside)):
            members = set(comp)
            if not fair(members, self.edges, self.enabled):
                continue
            entry = min(comp, key=self.order.__getitem__)
            if best is None or self.order[entry] < self.order[best[0]]:
                best = (entry, comp)
        if best is None:
            return None
        entry, comp = best
        return entry, fair_cycle(entry, set(comp), self.edges, self.enabled)


N = TypeVar("N")  # a node of the graph components() cuts


def components(nodes: Iterable[N], successors: Callable[[N], Iterable[N]]) -> list[list[N]]:
    """The strongly connected components of the graph on ``nodes`` (Tarjan's algorithm, iterative: no recursion
    limit on long paths). ``successors(u)`` must yield only members of ``nodes``."""
    index: dict[N, int] = {}
    low: dict[N, int] = {}
    stack: list[N] = []
    on_stack: set[N] = set()
    found: list[list[N]] = []
    for root in nodes:
        if root in index:
            continue
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        work = [(root, iter(successors(root)))]
        while work:
            u, it = work[-1]
            for t in it:
                if t not in index:
                    index[t] = low[t] = len(index)
                    stack.append(t)
                    on_stack.add(t)
                    work.append((t, iter(successors(t))))
                    break
                if t in on_stack:
                    low[u] = min(low[u], index[t])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[u])
                if low[u] == index[u]:
                    comp = []
                    while True:
                        t = stack.pop()
                        on_stack.discard(t)
                        comp.append(t)
                        if t == u:
                            break
                    found.append(comp)
    return found


def fair(comp: set[int], edges: Mapping[int, Sequence[Edge]], enabled: Mapping[int, frozenset[int]]) -> bool:
    """Whether the component ``comp`` holds a weakly fair cycle: every instance enabled in all its states is taken on
    one of its internal edges. Then a cycle through every state and edge of ``comp`` (it is strongly connected; with
    the stuttering self-loop every component is non-trivial) takes each instance infinitely often or passes
    infinitely often through a state where it is disabled, which is what WF asks. Weak fairness needs no more: unlike
    strong fairness (TLC's and Emerson-Lei's recursive decomposition, removing the states where an untaken instance
    is enabled and looking again), an instance disabled in one state of the cycle is never continuously enabled."""
    always = frozenset.intersection(*(enabled[u] for u in comp))
    if not always:
        return True
    taken = {i for u in comp for i, t, takes in edges.get(u, ()) if takes and t in comp}
    return always <= taken


def _path(start: int, comp: set[int], edges: Mapping[int, Sequence[Edge]], goal: Callable[[int], bool]) -> list[Edge]:
    """A shortest path inside ``comp`` from ``start`` to a state where ``goal`` holds (``start`` itself included)."""
    prev: dict[int, tuple[int, int, bool] | None] = {start: None}
    queue = deque([start])
    while queue:
        u = queue.popleft()
        if goal(u):
            path = []
            while (step := prev[u]) is not None:
                path.append((step[1], u, step[2]))
                u = step[0]
            return path[::-1]
        for i, t, takes in edges.get(u, ()):
            if t in comp and t not in prev:
                prev[t] = (u, i, takes)
                queue.append(t)
    raise AssertionError("no path inside a strongly connected component")


def fair_cycle(entry: int, comp: set[int], edges: Mapping[int, Sequence[Edge]],
               enabled: Mapping[int, frozenset[int]]) -> list[tuple[int, int]]:
    """A cycle from ``entry`` back to it inside the fair component ``comp`` (edges (action index, successor)) that
    takes each instance enabled somewhere in ``comp`` or passes through a state where it is disabled: greedily to the
    nearest state that settles a pending instance, then home. Empty when nothing is enabled at ``entry``: a stutter."""
    pending = set(frozenset.union(*(enabled[u] for u in comp))) & enabled[entry]
    cycle: list[tuple[int, int]] = []
    here = entry

    def settles(u: int) -> bool:
        return bool(pending - enabled[u]) or any(takes and i in pending and t in comp for i, t, takes in edges.get(u, ()))

    def walk(steps: Iterable[tuple[int, int, bool]]) -> None:
        nonlocal here
        for i, t, takes in steps:
            cycle.append((i, t))
            if takes:
                pending.discard(i)
            pending.intersection_update(enabled[t])
            here = t

    while pending:
        walk(_path(here, comp, edges, settles))
        step = next(((i, t, takes) for i, t, takes in edges.get(here, ()) if takes and i in pending and t in comp), None)
        if step is not None:
            walk([step])
    if cycle:
        walk(_path(here, comp, edges, lambda u: u == entry))
    return cycle
