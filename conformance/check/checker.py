"""Explicit-state model checking of the reference model: breadth-first search over every state reachable
within a spec configuration's bounds (conformance/check/specconfig.py), the way TLC explores the spec.

- The initial states are the spec's Init (each process under each of its addresses) or InitRegistered
  (reached from Init by the registration steps AutoSwitch.tla documents, for each order of the processes); in the
  designs RIP-44 replaced, InitDesign (spec/Designs.tla: ids by name, so no symmetry).
- The actions are those of AutoSwitch's Next for the configuration's processes, addresses and ids
  (explore.NextActions, read from the action table; Write bounded by MaxMsgs); a successor outside
  StateConstraint is dropped (not counted, not checked).
  The bounds cut perturbations only: epochs and the clock grow through elections, alters and fresh
  checkCodes, never through the steps that heal the set.
- Every distinct state is checked against the configuration's invariants and every transition, also to
  a state seen before, against its action properties. The search stops at the first violation; BFS
  makes its trace a shortest one.
- States are stored as 64-bit fingerprints (fingerprint.py: the same in every process), each with its
  parent's, as TLC stores them; a shortest trace is rebuilt from that chain by re-running actions.
- A state's actions are those of Next its processes' guards leave (explore.NextActions.candidates), each run by
  its function of the action table (what ``step`` does).
- Symmetry (optional): processes whose address sets can be renamed onto each other are interchangeable;
  a state is fingerprinted by the smallest fingerprint of its renamings.
- The fault budget (``Faults``, ``MaxFaults``, ``BoundAllFaults``; reference/liveness.py): ``System.faults`` counts the
  charged faults taken; it is part of the fingerprint, as of the spec's VIEW, and of no trace.
- Liveness (``SPECIFICATION LiveSpec...`` with liveness properties): the search also records the reachable graph and,
  once every state passed the safety checks, looks for a fair cycle refuting each property: liveness.py, which also
  describes the lasso trace written for it.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from attrs import evolve, frozen
from frozendict import frozendict

from autoswitch.conformance.check.fingerprint import Fingerprints
from autoswitch.conformance.check.liveness import Graph, goals
from autoswitch.conformance.check.specconfig import SpecConfig, SpecConfigError, lasso_next
from autoswitch.conformance.explore import NextActions
from autoswitch.reference import NotEnabled, Options, System, initial_system, step
from autoswitch.reference.actions import ACTIONS
from autoswitch.reference.invariants import ACTION_PROPERTIES, STATE_INVARIANTS
from autoswitch.reference.liveness import charged, counts, fair_row, fault_kind
from autoswitch.reference.state import CONTROLLER, Process, Replica, TempFile
from autoswitch.reference.variables import LazyVariables, variables

Action = Mapping[str, Any]

# The largest configuration the checker takes on: its states grow exponentially with each of these, and the
# largest spec configuration (MC_data3, MC_medium) is at or below each. Larger ones are refused before the search.
LIMITS = {"processes": 3, "addresses of a process": 3, "MaxEpoch": 4, "MaxClock": 4, "MaxNextBrokerId": 5, "MaxMsgs": 4}


OUTSIDE_KEPT = 1 << 17  # answers _check_outside keeps before it starts afresh


def too_large(spec: SpecConfig) -> str | None:
    """Why the checker refuses ``spec`` (a bound beyond LIMITS), or None."""
    sizes = {"processes": len(spec.addrs), "addresses of a process": max(map(len, spec.addrs.values()), default=0),
             **{b: spec.bound(b) for b in ("MaxEpoch", "MaxClock", "MaxNextBrokerId", "MaxMsgs")}}
    over = [f"{what} = {sizes[what]} (at most {limit})" for what, limit in LIMITS.items() if sizes[what] > limit]
    return ("; ".join(over) + ": too large for the explicit-state checker to finish (use autoswitch tla, TLC)") if over else None


def registration_steps(order: Sequence[str]) -> list[dict[str, Any]]:
    """The steps from Init to InitRegistered (AutoSwitch.tla): each process in turn takes the next id,
    applies it, writes its meta file, registers and heartbeats; ``order[i]`` gets id i + 1."""
    steps: list[dict[str, Any]] = []
    for p in order:
        steps += [{"tag": "CreateTempFile", "process": p}, {"tag": "SendApplyBrokerId", "process": p, "lost": False},
                  {"tag": "WriteMetaFile", "process": p}, {"tag": "DeleteTempFile", "process": p},
                  {"tag": "SendRegister", "process": p, "lost": False}, {"tag": "SendHeartbeat", "process": p}]
    return steps


@frozen
class Start:
    """An initial state, the addresses its processes start under, and the steps that reach it from Init."""

    state: System
    addrs: Mapping[str, str]
    prefix: tuple[tuple[Action, Mapping[str, Any], System], ...]  # (action, outcome, state after) from the Init state


def initial_states(spec: SpecConfig, opts: Options) -> list[Start]:
    """The states of the configuration's INIT predicate."""
    starts = []
    for choice in itertools.product(*(spec.addrs[p] for p in spec.processes)):
        addrs = dict(zip(spec.processes, choice, strict=True))
        s = initial_system(addrs, opts.design)
        if spec.init in ("Init", "InitDesign"):
            starts.append(Start(s, addrs, ()))
            continue
        for order in itertools.permutations(spec.processes):
            t, prefix = s, []
            for action in registration_steps(order):
                t, outcome = step(t, action, opts)
                prefix.append((action, outcome, t))
            starts.append(Start(t, addrs, tuple(prefix)))
    return starts


# --- symmetry ---------------------------------------------------------------------------------------

@frozen
class Renaming:
    """A permutation of the processes with the matching renaming of their addresses."""

    procs: Mapping[str, str]
    addrs: Mapping[str, str]

    def _code(self, code: str) -> str:
        addr, sep, ts = code.partition(";")
        return self.addrs.get(addr, addr) + sep + ts

    def _process(self, x: Process) -> Process:
        temp = x.temp_file
        return evolve(x, addr=self.addrs.get(x.addr, x.addr),
                      temp_file=temp if temp is None else TempFile(temp.broker_id, self._code(temp.check_code)))

    def system(self, s: System) -> System:
        c = s.controller
        replicas = frozendict({b: Replica(self.addrs.get(r.addr, r.addr), self._code(r.check_code)) for b, r in c.replicas.items()})
        procs = {self.procs[p]: self._process(x) for p, x in s.procs.items()}
        late = {self.procs[p]: frozendict({**r, "addr": self.addrs.get(r["addr"], r["addr"])}) if "addr" in r else r
                for p, r in s.late.items()}
        return evolve(s, controller=evolve(c, replicas=replicas), procs=frozendict(sorted(procs.items())),
                      master_history=frozenset((e, self.procs[p]) for e, p in s.master_history),
                      partitions=frozenset(frozenset(self.procs[p] for p in link) for link in s.partitions),
                      late=frozendict(sorted(late.items())))


def symmetries(spec: SpecConfig, opts: Options) -> tuple[list[Renaming], str]:
    """The non-identity renamings under which the configuration is symmetric, or ``([], why not)``.
    Processes are interchangeable when they have as many addresses (mapped in sorted order) and agree
    on the process-named options (asyncLearners); never in the designs RIP-44 replaced (InitDesign)."""
    if opts.design != CONTROLLER:
        return [], (f"the processes of the {opts.design} design are not interchangeable: InitDesign fixes each one's broker "
                    "id by its name (ids 1..n in name order; in 4.x the first is the MASTER)")
    procs = spec.processes
    all_addrs = [a for p in procs for a in spec.addrs[p]]
    if len(set(all_addrs)) != len(all_addrs):
        return [], "processes share addresses"
    found = []
    for image in itertools.permutations(procs):
        pmap = dict(zip(procs, image, strict=True))
        if image == procs or any(len(spec.addrs[p]) != len(spec.addrs[q]) for p, q in pmap.items()):
            continue
        if frozenset(pmap[p] for p in opts.async_learners) != opts.async_learners:
            continue
        amap = {a: b for p, q in pmap.items() for a, b in zip(spec.addrs[p], spec.addrs[q], strict=True)}
        found.append(Renaming(pmap, amap))
    return found, "" if found else "no two processes are interchangeable (address sets or asyncLearners differ)"


# --- the search -------------------------------------------------------------------------------------

@frozen
class Progress:
    depth: int
    distinct: int
    generated: int
    queue: int
    seconds: float
    phase: str = ""  # "" during the search; the liveness goal being looked at after it


@frozen
class Violation:
    name: str
    kind: str  # "invariant", "action property" or "liveness"
    depth: int
    states: tuple[dict[str, Any], ...]  # the trace: each state's action, outcome and variables
    addrs: Mapping[str, str]
    loop: int | None = None  # liveness: the lasso's loop index (liveness.py)
    process: str | None = None  # liveness: the process of a per-process property


@frozen
class Expansion:
    """One state's transitions (Checker.expand): the successors within the constraint as (index of the action in
    ``Checker.actions.all``, successor, its fingerprint), and what the last transition broke, if one did:
    (property, "action property" or "invariant", the successor's fingerprint). A successor breaking an action
    property is the last one listed; one past the constraint breaking an invariant is not listed."""

    successors: list[tuple[int, System, int]]
    broken: tuple[str, str, int] | None


@frozen
class CheckResult:
    """What a search found: ``violation`` is None when every reachable state within the bounds satisfies
    the invariants and every transition the action properties."""

    config: str
    distinct: int  # distinct states (fingerprints), the number TLC reports for the same view and bounds
    generated: int  # successor states computed (transitions), TLC's "states generated" less the initial ones
    depth: int  # levels of the search, counting the initial states as level 1 (TLC's "depth")
    seconds: float
    symmetry: bool
    violation: Violation | None
    liveness: tuple[str, ...] = ()  # the liveness properties checked (none refuted when violation is None)


class Checker:
    """Breadth-first search of one configuration. ``symmetry`` asks for symmetry reduction (taken only
    when the configuration is symmetric: ``symmetry_note`` says why not otherwise; never with liveness).

    The fault budget (reference/liveness.py, spec ``Fault(kind, A)``): a charged fault is disabled once
    ``faults = MaxFaults`` and its successor counts one more; skipped when the configuration has no Faults and
    BoundAllFaults is FALSE. With liveness properties (SPECIFICATION LiveSpec...), the search also records the
    reachable graph and, once every state is checked, looks for a fair cycle refuting each (liveness.py)."""

    def __init__(self, spec: SpecConfig, symmetry: bool = False, invariants: Sequence[str] | None = None,
                 properties: Sequence[str] | None = None):
        if (why := too_large(spec)) is not None:
            raise SpecConfigError(f"{spec.where}: {why}")
        self.spec = spec
        self._symmetry = symmetry
        self.opts = spec.options
        self.actions = NextActions(spec)
        self.bounds = (spec.bound("MaxEpoch"), spec.bound("MaxClock"), spec.bound("MaxNextBrokerId"))
        names = {i.name: i for i in STATE_INVARIANTS}
        props = {p.name: p for p in ACTION_PROPERTIES}
        wanted_inv = spec.invariants if invariants is None else tuple(invariants)
        wanted_prop = spec.properties if properties is None else tuple(properties)
        unknown = [n for n in wanted_inv if n not in names] + [n for n in wanted_prop if n not in props]
        if unknown:
            raise SpecConfigError(f"{spec.where}: the reference has no property {', '.join(unknown)} "
                                  f"(invariants: {', '.join(names)}; action properties: {', '.join(props)})")
        self.invariants = [names[n] for n in wanted_inv]
        self.properties = [props[n] for n in wanted_prop]
        self.budget = bool(spec.faults) or spec.bound_all_faults
        self.goals = goals(spec.liveness, spec.processes)
        self.runs = [ACTIONS[a["tag"]].run for a in self.actions.all]
        self.fingerprints = Fingerprints()
        self._outside: dict[int, str | None] = {}  # _check_outside's answers by fingerprint
        self.fair_rows = [fair_row(a) for a in self.actions.all]
        self.renamings, self.symmetry_note = (([], "liveness properties are checked without it") if symmetry and self.goals
                                              else symmetries(spec, self.opts) if symmetry else ([], "not asked for"))

    def in_model(self, s: System) -> bool:
        """StateConstraint (AutoSwitch.tla)."""
        c = s.controller
        max_epoch, max_clock, max_next = self.bounds
        return (c.master_epoch <= max_epoch and c.sync_state_set_epoch <= max_epoch and s.clock <= max_clock
                and c.next_broker_id <= max_next and all(x.term <= max_epoch for x in s.procs.values()))

    def fingerprint(self, s: System) -> int:
        """The state's 64-bit fingerprint, the same in every process (fingerprint.py); with symmetry, the smallest of
        its renamings'."""
        if not self.renamings:
            return self.fingerprints(s)
        return min([self.fingerprints(s)] + [self.fingerprints(r.system(s)) for r in self.renamings])

    def steps(self, s: System) -> Iterator[tuple[Action, System, Mapping[str, Any], bool]]:
        """(action, successor, outcome, whether the successor satisfies the state constraint) for each
        action of Next enabled in ``s``."""
        for _, action, w, outcome, inside in self._steps(s):
            yield action, w, outcome, inside

    def _steps(self, s: System) -> Iterator[tuple[int, Action, System, Mapping[str, Any], bool]]:
        """``steps`` with each action's index in ``actions.all``."""
        v = LazyVariables(s) if self.budget else None
        actions, runs, opts = self.actions.all, self.runs, self.opts
        for i in self.actions.candidates(s):
            action = actions[i]
            cost = 0
            if v is not None and charged(fault_kind(v, action), self.spec.bound_all_faults):
                if s.faults >= self.spec.max_faults:
                    continue
                cost = 1
            try:
                w, outcome = runs[i](s, action, opts)  # type: ignore[misc]  # a tag of Next has its function
            except NotEnabled:
                continue
            if v is not None and w.faults != s.faults + cost:
                w = evolve(w, faults=s.faults + cost)
            yield i, action, w, outcome, self.in_model(w)

    def successors(self, s: System) -> Iterator[tuple[Action, System, Mapping[str, Any]]]:
        """(action, successor, outcome) for each action of Next enabled in ``s`` whose successor satisfies
        the state constraint."""
        for action, w, outcome, inside in self.steps(s):
            if inside:
                yield action, w, outcome

    def broken_invariant(self, v: Mapping[str, Any]) -> str | None:
        return next((i.name for i in self.invariants if not i.holds(v)), None)

    def broken_property(self, v: Mapping[str, Any], w: Mapping[str, Any]) -> str | None:
        return next((p.name for p in self.properties if not p.holds(v, w)), None)

    def initial(self) -> list[tuple[Start, int]]:
        """The distinct initial states (INIT) with their fingerprints, in the order the search takes them."""
        seen: set[int] = set()
        out = []
        for start in initial_states(self.spec, self.opts):
            if (fp := self.fingerprint(start.state)) not in seen:
                seen.add(fp)
                out.append((start, fp))
        return out

    def check_state(self, s: System) -> str | None:
        """The first invariant ``s`` breaks, or None: run on every distinct state, once."""
        return self.broken_invariant(LazyVariables(s)) if self.invariants else None

    def _check_outside(self, w: System) -> str | None:
        """``check_state`` of a successor past the constraint: such states are reached again and again and never
        stored, so the answer is kept by fingerprint for a while."""
        if not self.invariants:
            return None
        wfp = self.fingerprint(w)
        if wfp not in self._outside:
            if len(self._outside) >= OUTSIDE_KEPT:
                self._outside.clear()
            self._outside[wfp] = self.check_state(w)
        return self._outside[wfp]

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled (for worker processes, Spark executors; plain pickle too) as the arguments that built it: the
        table's functions and the properties' lambdas are looked up again, the caches start empty."""
        return Checker, (self.spec, self._symmetry, [i.name for i in self.invariants], [p.name for p in self.properties])

    def expand(self, s: System, fp: int, graph: Graph | None = None) -> Expansion:
        """One state's transitions, in Next's order: the successors within the constraint (each generated
        one, seen before or not), up to the first transition that breaks an action property or reaches, past the
        constraint, a state breaking an invariant (TLC evaluates the invariants there too: Worker.doNext).
        With ``graph`` (liveness), the state's fair edges are recorded in it as well. Every search (one process,
        ``--workers``, Spark) expands states with this and nothing else."""
        v = LazyVariables(s)  # the action properties read a few variables of s, for every transition
        successors: list[tuple[int, System, int]] = []
        edges: list[tuple[int, int, bool]] = []
        enabled: list[int] = []
        broken = None
        for i, action, w, _, inside in self._steps(s):
            wfp = self.fingerprint(w) if inside else 0
            if graph is not None:
                takes = counts(self.fair_rows[i], v, action)
                if takes and w != s:
                    enabled.append(i)
                if inside and wfp != fp:
                    edges.append((i, wfp, takes))
            if not inside:
                if (name := self._check_outside(w)) is not None:
                    broken = (name, "invariant", self.fingerprint(w))
                    break
                continue
            successors.append((i, w, wfp))
            if self.properties and (name := self.broken_property(v, LazyVariables(w))) is not None:
                broken = (name, "action property", wfp)
                break
        if graph is not None and broken is None:
            graph.add_steps(fp, edges, enabled)
        return Expansion(successors, broken)

    def run(self, on_progress: Callable[[Progress], None] | None = None, every: float = 2.0) -> CheckResult:
        """The breadth-first search in this process (``--workers 1``)."""
        started = last = time.monotonic()
        parent: dict[int, int | None] = {}  # fingerprint -> its parent's (None: an initial state)
        starts: dict[int, Start] = {}
        frontier: list[tuple[System, int]] = []
        generated, depth = 0, 1
        graph = Graph(self.goals) if self.goals else None

        def found(name: str, kind: str, chain: list[int]) -> CheckResult:
            violation = self.counterexample(name, kind, chain, starts)
            return CheckResult(self.spec.name, len(parent), generated, len(chain), time.monotonic() - started,
                               bool(self.renamings), violation, self.spec.liveness)

        for start, fp in self.initial():
            parent[fp], starts[fp] = None, start
            frontier.append((start.state, fp))
            if (name := self.check_state(start.state)) is not None:
                return found(name, "invariant", [fp])
            if graph is not None:
                graph.add_state(fp, LazyVariables(start.state))
        while frontier:
            level: list[tuple[System, int]] = []
            for s, fp in frontier:
                expansion = self.expand(s, fp, graph)
                for last_one, (_, w, wfp) in enumerate(expansion.successors, 1 - len(expansion.successors)):
                    generated += 1
                    if expansion.broken is not None and last_one == 0 and expansion.broken[1] == "action property":
                        break  # a transition that breaks an action property: reported below, seen before or not
                    if wfp in parent:
                        continue
                    parent[wfp] = fp
                    if (name := self.check_state(w)) is not None:
                        return found(name, "invariant", self._chain(wfp, parent))
                    if graph is not None:
                        graph.add_state(wfp, LazyVariables(w))
                    level.append((w, wfp))
                if expansion.broken is not None:
                    name, kind, wfp = expansion.broken
                    parent.setdefault(wfp, fp)
                    return found(name, kind, self._chain(fp, parent) + [wfp])
                if on_progress and time.monotonic() - last >= every:
                    last = time.monotonic()
                    on_progress(Progress(depth, len(parent), generated, len(level), last - started))
            frontier = level
            depth += bool(level)
        violation = None
        for k, goal in enumerate(self.goals):
            assert graph is not None
            if on_progress:
                on_progress(Progress(depth, len(parent), generated, 0, time.monotonic() - started,
                                     f"liveness {goal.prop.name}" + (f" of {goal.process}" if goal.process else "")))
            if (cycle := graph.find(k)) is not None:
                violation = self._lasso(goal.prop.name, goal.process, self._chain(cycle[0], parent), cycle[1], starts)
                break
        return CheckResult(self.spec.name, len(parent), generated, depth, time.monotonic() - started, bool(self.renamings), violation,
                           self.spec.liveness)

    @staticmethod
    def _chain(fp: int, parent: Mapping[int, int | None]) -> list[int]:
        chain = [fp]
        while (up := parent[chain[-1]]) is not None:
            chain.append(up)
        return chain[::-1]

    def _run_chain(self, kind: str, name: str, chain: list[int], starts: Mapping[int, Start]) -> tuple[list[dict[str, Any]], System]:
        """Rebuild a trace along ``chain`` (fingerprints from an initial state): at each step the first
        action whose successor has the next fingerprint (for an action property, the last step is one
        that breaks it). Renamings make the states of the trace a real run, not a mix of representatives.
        Returns the trace's states and the last state reached."""
        start = starts[chain[0]]
        s = start.state
        states = [{"action": {"tag": "Init"}, "outcome": {"code": "OK"}, **variables(initial_system(dict(start.addrs), self.opts.design))}]
        states += [{"action": dict(a), "outcome": dict(o), **variables(t)} for a, o, t in start.prefix]
        for i, target in enumerate(chain[1:], 1):
            last_property = kind == "action property" and i == len(chain) - 1
            for action, w, outcome, _ in self.steps(s):  # the last state may lie past the constraint
                if self.fingerprint(w) != target:
                    continue
                if last_property and self.broken_property(LazyVariables(s), LazyVariables(w)) != name:
                    continue
                s = w
                states.append({"action": dict(action), "outcome": dict(outcome), **variables(w)})
                break
            else:
                raise AssertionError(f"no step of {self.spec.name} reaches the next state of the counterexample at depth {i}")
        return states, s

    def counterexample(self, name: str, kind: str, chain: list[int], starts: Mapping[int, Start]) -> Violation:
        """The trace of a safety violation along ``chain`` (fingerprints from an initial state, one of ``starts``),
        rebuilt by re-running actions: every search rebuilds its counterexample with this."""
        states, _ = self._run_chain(kind, name, chain, starts)
        return Violation(name, kind, len(chain), tuple(states), dict(starts[chain[0]].addrs))

    def _lasso(self, name: str, process: str | None, chain: list[int], cycle: list[tuple[int, int]],
               starts: Mapping[int, Start]) -> Violation:
        """The lasso of a liveness violation: the shortest path ``chain`` to the cycle's first state, then the
        ``cycle``'s steps (action index, successor's fingerprint) back to it; the loop index is that first state's."""
        states, s = self._run_chain("liveness", name, chain, starts)
        loop = len(states) - 1
        for i, target in cycle:
            action = self.actions.all[i]
            action, w, outcome = next((a, w, o) for a, w, o, _ in self.steps(s) if a is action and self.fingerprint(w) == target)
            s = w
            states.append({"action": dict(action), "outcome": dict(outcome), **variables(w)})
        return Violation(name, "liveness", len(chain) + len(cycle), tuple(states), dict(starts[chain[0]].addrs), loop, process)


def violation_trace_meta(spec: SpecConfig, violation: Violation) -> dict[str, Any]:
    """The ``#meta`` of a counterexample trace: the configuration, and the violation ``autoswitch replay``
    must reproduce (the first state where the model breaks it; for liveness, the lasso and the domains of
    Next its fairness is judged on: liveness.py)."""
    v = violation
    if v.kind != "liveness":
        what, expect = f"shortest counterexample found by the explicit-state checker: {v.kind} {v.name}", \
            {"violation": v.name, "state": len(v.states) - 1}
    else:
        of = f" of {v.process}" if v.process else ""
        what = f"lasso found by the explicit-state checker: liveness {v.name}{of} violated by a fair cycle from state {v.loop}"
        expect = {"liveness": v.name, **({} if v.process is None else {"process": v.process}), "loop": v.loop}
    meta = {"generator": f"autoswitch check {spec.name}", "source": f"spec/{spec.name}.cfg", "description": what,
            **spec.meta(v.addrs), "expect": expect}
    if v.kind == "liveness":
        meta["next"] = lasso_next(spec)
    return meta
