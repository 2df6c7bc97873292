"""Event logs cut from a behaviour (a simulation walk, a committed trace, an implementation run), and the mutations of a
log that ``autoswitch validate`` must refuse (spec/README.md "Event logs"; tests/agreement/test_logs_sources.py).

:func:`walk_log` turns a behaviour into its full event log: step ``k`` (clock ``k``, ts ``10 k``) is an event on its node
(the step's process, or ``controller`` for a controller-level tag) with the whole action record and the node's variables
the step changed; the other nodes whose variables the step changed get an observe-only event with the same clock (the
controller its variables, a process its own). A step's events are in node-name order, so that a log's order is the
merge's candidate order (clock, then file and line) and an event's index here is its index there. Environment and ghost variables (``clock``, ``masterHistory``, ``nextMsg``,
``acked``, ``seen``, ``partitions``, ``late``) are no node's and are not logged. Every step is logged, so the header says
every tag is ``complete``: the search may take no unobserved step; that every node logs every change of its variables
(``changesLogged``); and that the clock counts steps
(``clockCountsSteps``), which stays true whatever events are dropped (:func:`clock_orders_only` drops the claim, for
a log whose clock only orders, as most systems' do). The filters (:func:`keep`, :func:`controller_view`,
:func:`one_node`, :func:`every_kth`) drop events, and with them the ``complete`` claim of each tag an event dropped had
(a tag none had, or that never occurred, stays complete: every step of it is still logged), but never a step outside Next
(a controller-level request no broker sent: search.in_next), which the controller logs and no search takes unobserved.
An implementation run's own log (impl/event_log.py) is read with :func:`read_log` and filtered the same way.

A log is kept as its events' NDJSON objects (values already ITF JSON), in clock order; :meth:`CutLog.write` writes one file
per node (or one file) and :meth:`CutLog.located` says where an event landed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from attrs import evolve, frozen

from autoswitch.conformance.engines import Config, config_from_meta, make_engine, trace_states
from autoswitch.conformance.engines.impl import ImplSystem
from autoswitch.conformance.errors import InputError
from autoswitch.conformance.logs.events import CHANGES_LOGGED, CLOCK_COUNTS_STEPS, PROCESS_OBSERVED, takes
from autoswitch.conformance.logs.merge import largest_gap
from autoswitch.conformance.logs.reach import RAISERS
from autoswitch.conformance.logs.search import in_next
from autoswitch.conformance.trace.itf import decode, encode, load_trace
from autoswitch.reference.actions import ACTIONS, DATA, INIT, LEADERSHIP, PROCESS_GROUP
from autoswitch.reference.precondition import NotEnabled
from autoswitch.reference.variables import CONTROLLER_VARIABLES

CONTROLLER = "controller"
# the variables of no node: the environment's and the ghosts (module docstring)
UNOBSERVABLE = frozenset({"clock", "masterHistory", "nextMsg", "acked", "seen", "partitions", "late"})
# every tag a behaviour can take (a full log's ``complete``)
ALL_TAGS = tuple(t for t, a in ACTIONS.items() if a.group not in (INIT, LEADERSHIP))
BIG = 10**6  # a falsified value (falsify)
# variables each step moves by at most one (epochs, the id counter) or that count messages (confirmOffset <= log length)
BOUNDED = ("masterEpoch", "syncStateSetEpoch", "localMasterEpoch", "localSyncStateSetEpoch", "nextBrokerId", "confirmOffset")

Event = dict[str, Any]


@frozen
class CutLog:
    """A log: its header (a trace's ``#meta``, and ``complete`` when every step is logged) and its events in clock order."""

    meta: dict[str, Any]
    events: tuple[Event, ...]

    @property
    def nodes(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(e["node"] for e in self.events))

    def write(self, path: str | Path, split: bool = True) -> Path:
        """Write the log: ``split``, a directory ``path`` with ``<node>.ndjson`` per node, each headed by the header; else the
        one file ``path`` (its header first)."""
        path = Path(path)
        header = json.dumps({"meta": self.meta})
        if not split:
            path.write_text("\n".join([header, *(json.dumps(e) for e in self.events)]) + "\n", encoding="utf-8")
            return path
        path.mkdir(parents=True, exist_ok=True)
        for node in self.nodes:
            lines = [header, *(json.dumps(e) for e in self.events if e["node"] == node)]
            (path / f"{node}.ndjson").write_text("\n".join(lines) + "\n", encoding="utf-8")
        return path

    def located(self, index: int, split: bool = True) -> tuple[str, int]:
        """The file name and the line (1-based, the header is line 1) event ``index`` is written at."""
        node = self.events[index]["node"]
        if not split:
            return "", index + 2
        return f"{node}.ndjson", 2 + sum(1 for e in self.events[:index] if e["node"] == node)


def _node(action: Mapping[str, Any]) -> str:
    return action.get("process", CONTROLLER)


def _changed(before: Mapping[str, Any], after: Mapping[str, Any], node: str) -> dict[str, Any]:
    """The variables of ``node`` that differ between two states, as ITF JSON (a per-process variable: the node's value)."""
    out = {}
    for name, value in after.items():
        if name in UNOBSERVABLE or name in ("action", "outcome"):
            continue
        if name in CONTROLLER_VARIABLES:
            if node == CONTROLLER and value != before[name]:
                out[name] = encode(value, as_function=isinstance(value, dict))
        elif node != CONTROLLER and isinstance(value, dict) and node in value and value[node] != before[name].get(node):
            out[name] = encode(value[node])
    return out


def walk_log(config: Config, actions: Sequence[Mapping[str, Any]], description: str = "") -> CutLog:
    """The full event log of the enabled ``actions`` from Init (module docstring); NotEnabled for a disabled one."""
    states = trace_states(config, actions)
    nodes = [CONTROLLER, *config.processes]  # a step's events by node name: the merged order's (clock, file, line)
    events: list[Event] = []
    for k, action in enumerate(actions, 1):
        before, after = states[k - 1], states[k]
        actor = _node(action)
        for node in sorted(nodes):
            observe = _changed(before, after, node)
            event: Event = {"node": node, "ts": 10 * k, "clock": k}
            if node == actor:
                event["action"] = encode(dict(action))
            elif not observe:
                continue
            if observe:
                event["observe"] = observe
            events.append(event)
    meta = {**config.to_meta(), "description": description or "a full event log cut from a behaviour", "complete": list(ALL_TAGS),
            CLOCK_COUNTS_STEPS: True,
            CHANGES_LOGGED: {CONTROLLER: list(CONTROLLER_VARIABLES), **{p: list(PROCESS_OBSERVED) for p in config.processes}}}
    return CutLog(meta, tuple(events))


def trace_log(path: str | Path) -> CutLog:
    """The full event log of a committed trace's steps (its ``#meta`` the configuration)."""
    trace = load_trace(path)
    config, field, problem = config_from_meta(trace.meta)
    if config is None:
        raise InputError(f"{path}: {field}: {problem}")
    return walk_log(config, [s["action"] for s in trace.states[1:]], f"cut from {Path(path).name}")


def read_log(directory: str | Path) -> CutLog:
    """A directory of ``*.ndjson`` files (an implementation run's log) as one log in clock order (ties: by file name, then
    line); the first header found is the log's."""
    meta: dict[str, Any] = {}
    events: list[Event] = []
    for path in sorted(Path(directory).glob("*.ndjson")):
        for line in path.read_text(encoding="utf-8").splitlines():
            obj = json.loads(line)
            if "meta" in obj:
                meta = meta or obj["meta"]
            else:
                events.append(obj)
    events.sort(key=lambda e: e["clock"])  # stable: a node's events keep their order
    return CutLog(meta, tuple(events))


# ---- filters ----------------------------------------------------------------------------------------------------------

def _kept(log: CutLog, events: Sequence[Event]) -> CutLog:
    """``events``, a subsequence of ``log``'s, and every step outside Next (a request no broker sent: search.in_next; the
    search never takes one unobserved, and the controller logs each, docs/INSTRUMENTING.md), as a log whose header claims
    complete only the tags it claimed whose every event is kept (every step of such a tag is still logged), and, per node
    (``completeOf``), the tags it claimed complete there (for every node or that one) whose every event of that node is
    kept: a node whose events are all kept still logs every step it takes of each tag it did; and, per node
    (``changesLogged``), the variables it claimed whose every line observing them is kept (every change is still on a
    line of that node: the lines of a full log observe the variables that changed)."""
    design = log.meta["options"]["design"]  # Config.to_meta writes every option: walk_log's header and the implementation's
    kept = {id(e) for e in events} | {id(e) for e in log.events if "action" in e and not in_next(e["action"], design)}
    events = [e for e in log.events if id(e) in kept]
    dropped: dict[str, set[str | None]] = {}
    unseen: dict[str, set[str]] = {}  # per node, the variables a dropped line of it observes
    for e in log.events:
        if id(e) not in kept:
            dropped.setdefault(e["node"], set()).add(_tag(e))
            unseen.setdefault(e["node"], set()).update(e.get("observe", {}))
    everywhere = set().union(*dropped.values())
    meta = dict(log.meta)
    claimed = list(meta.get("complete", []))
    if "complete" in meta:
        meta["complete"] = [t for t in claimed if t not in everywhere]
    of = {node: [t for t in dict.fromkeys([*claimed, *meta.get("completeOf", {}).get(node, [])])
                 if t not in dropped.get(node, ()) and t not in meta.get("complete", ()) and takes(node, t)]
          for node in (CONTROLLER, *meta.get("processes", {}))}
    of = {node: tags for node, tags in of.items() if tags}
    meta.pop("completeOf", None)
    if of:
        meta["completeOf"] = of
    changes = {node: [v for v in names if v not in unseen.get(node, ())]
               for node, names in meta.pop(CHANGES_LOGGED, {}).items()}
    changes = {node: names for node, names in changes.items() if names}
    if changes:
        meta[CHANGES_LOGGED] = changes
    return CutLog(meta, tuple(events))


def clock_orders_only(log: CutLog) -> CutLog:
    """``log`` without the claim that its clock counts steps: its clock then only orders (``clockCountsSteps``)."""
    return CutLog({k: v for k, v in log.meta.items() if k != CLOCK_COUNTS_STEPS}, log.events)


def keep(log: CutLog, predicate: Callable[[Event], bool]) -> CutLog:
    """The events ``predicate`` keeps."""
    return _kept(log, [e for e in log.events if predicate(e)])


def _tag(e: Event) -> str | None:
    return e.get("action", {}).get("tag")


def controller_view(log: CutLog) -> CutLog:
    """Only the controller's events, the role changes (an event observing ``role``) and the truncations (a Handshake, and
    an event observing the epoch file or the log without an action: the truncation's own lines)."""
    return keep(log, lambda e: e["node"] == CONTROLLER or "role" in e.get("observe", {}) or _tag(e) == "Handshake"
                or ("action" not in e and bool({"epochFile", "log"} & set(e.get("observe", {})))))


def one_node(log: CutLog, node: str) -> CutLog:
    """Only ``node``'s log."""
    return keep(log, lambda e: e["node"] == node)


def every_kth(log: CutLog, k: int, offset: int = 0) -> CutLog:
    """Every ``k``-th event (from ``offset``)."""
    return _kept(log, log.events[offset::k])


# the cuts the tests and ``autoswitch bench --logs`` make of a full log: every event; only the controller's, the role
# changes and the truncations; only p1's (a process every configuration has); every third event
FILTERS: dict[str, Callable[[CutLog], CutLog]] = {
    "full": lambda log: log,
    "controller-roles-truncations": controller_view,
    "one-node": lambda log: one_node(log, "p1"),
    "every-3rd": lambda log: every_kth(log, 3),
}


def impl_log(config: Config, actions: Sequence[Mapping[str, Any]], root: Path, system: type[ImplSystem] = ImplSystem) -> CutLog:
    """The implementation's own log of ``actions`` (file backend under ``root/disk``, emission on into ``root/log``)."""
    impl = system(config.processes, config.options, storage="file", root=str(root / "disk"), event_dir=str(root / "log"))
    try:
        for action in actions:
            impl.step(action)
    finally:
        impl.close()
    return read_log(root / "log")


def max_gap(log: CutLog) -> int:
    """The most steps a log may leave unobserved before one of its events (merge.largest_gap: its clocks count steps, as
    walk_log's and the implementation's do). The ``--max-gap`` that surely suffices."""
    return largest_gap(e["clock"] for e in log.events)


# ---- mutations --------------------------------------------------------------------------------------------------------

@frozen
class Mutation:
    """A mutated log and the event (its index in clock order) that ``validate`` must refuse it at."""

    log: CutLog
    index: int
    what: str


def _alone(log: CutLog, i: int) -> bool:
    """Event ``i`` is the only one of its clock: no event of another node may be consumed in its place."""
    clock = log.events[i]["clock"]
    return sum(1 for e in log.events if e["clock"] == clock) == 1


def _replaced(log: CutLog, changes: Mapping[int, Event], what: str, index: int) -> Mutation:
    events = list(log.events)
    for i, e in changes.items():
        events[i] = e
    return Mutation(evolve(log, events=tuple(events)), index, what)


def falsify(log: CutLog, nth: int = 0) -> Mutation | None:
    """The ``nth`` (modulo their number) event observing a variable of BOUNDED, the first event of its clock, with that
    value set to BIG = 10**6. Refused there whatever the gap: each step raises an epoch or the id counter by at most one, and
    confirmOffset is at most the log's length (one message a step), while the search takes at most (events + 1) x max_gap
    steps from Init; the events before it are unchanged, so they are explained as before. Being the first of its clock,
    it stays the first event not consumed even where an event of its clock is consumed before it."""
    found = [(i, name) for i, e in enumerate(log.events) if i == 0 or log.events[i - 1]["clock"] < e["clock"]
             for name in BOUNDED if name in e.get("observe", {})]
    if not found:
        return None
    i, name = found[nth % len(found)]
    e = log.events[i]
    return _replaced(log, {i: {**e, "observe": {**e["observe"], name: BIG}}}, f"event {i}: {name} falsified to {BIG}", i)


def past_ids(log: CutLog) -> Mutation | None:
    """The first event observing a written ``metaFile`` with it set to one past the broker ids the controller can have
    handed out by then: 1 + the SendApplyBrokerId and ApplyBrokerId events of its clock or before (reach.RAISERS; a full
    log's every step is logged), + 1, and past the processes (a design that numbers them). Refused before the search
    (reach.py), as an identity file past what the run could write."""
    _complete(log)
    for i, e in enumerate(log.events):
        if e.get("observe", {}).get("metaFile", 0) != 0:
            raised = sum(1 for x in log.events if x["clock"] <= e["clock"] and _tag(x) in RAISERS)
            value = max(raised + 2, len(log.meta["processes"]) + 1)
            return _replaced(log, {i: {**e, "observe": {**e["observe"], "metaFile": value}}},
                             f"event {i}: metaFile past the ids handed out, {value}", i)
    return None


def _state_before(config: Config, log: CutLog, i: int) -> Any:
    """The reference engine after the steps of a full log's actions before event ``i``."""
    engine = make_engine("reference", config)
    for e in log.events[:i]:
        if "action" in e:
            engine.step(decode(e["action"]))
    return engine


def _explained_here(config: Config, log: CutLog, i: int, event: Event) -> bool:
    """Whether ``event``, put at ``i`` of a complete log, is a step the state before ``i`` takes with its observations."""
    engine = _state_before(config, log, i)
    try:
        engine.step(decode(event["action"]))
    except NotEnabled:
        return False
    now = engine.variables()
    node = event["node"]
    return all(decode(v) == _value(now, name, node) for name, v in event.get("observe", {}).items())


def _value(variables: Mapping[str, Any], name: str, node: str) -> Any:
    value = variables[name] if name in CONTROLLER_VARIABLES else variables[name][node]
    return [tuple(x) for x in value] if isinstance(value, list) else value


def _complete(log: CutLog) -> None:
    if set(log.meta.get("complete", ())) != set(ALL_TAGS):
        raise ValueError("the mutation needs a full log (every tag complete): take one from walk_log")


def _from_middle(log: CutLog) -> list[tuple[int, Event]]:
    """The events from the log's middle on, then the first half (a mutation deep in the log, where there is one)."""
    half = len(log.events) // 2
    indexed = list(enumerate(log.events))
    return indexed[half:] + indexed[:half]


def change(config: Config, log: CutLog) -> Mutation | None:
    """A full log with one process step's action (the first from the middle on that can be) replaced by another tag of that process (with ``lost`` false) that the
    state before it does not enable; the step must be alone at its clock. Refused there: every tag is complete, so the
    search takes no unobserved step and reaches that event in exactly the state the unchanged prefix leads to, where the
    new action is not enabled."""
    _complete(log)
    tags = [t for t, a in ACTIONS.items() if a.group in (PROCESS_GROUP, DATA) and set(a.params) <= {"process", "lost"}]
    for i, e in _from_middle(log):
        if "action" not in e or e["node"] == CONTROLLER or not _alone(log, i):
            continue
        old = e["action"]["tag"]
        for tag in tags:
            if tag == old:
                continue
            action = {"tag": tag, "process": e["node"], **({"lost": False} if "lost" in ACTIONS[tag].params else {})}
            changed = {"node": e["node"], "ts": e["ts"], "clock": e["clock"], "action": encode(action)}
            if not _explained_here(config, log, i, changed):
                return _replaced(log, {i: changed}, f"event {i}: {old} changed to {tag}", i)
    return None


def reorder(config: Config, log: CutLog) -> Mutation | None:
    """A full log with two steps of one process swapped: the first event ``i`` (from the middle on) (alone at its clock) whose node's next event
    ``j`` (alone too), put at ``i``, is not a step the state before ``i`` takes with its observations. The two keep their
    slots' clocks and timestamps, so the node's file order and its clocks agree on the swap: no skew window admits another
    order of one node's events. Refused at ``i``: as for :func:`change`, the search reaches ``i`` in exactly one state."""
    _complete(log)
    events = log.events
    for i, e in _from_middle(log):
        if "action" not in e or e["node"] == CONTROLLER or not _alone(log, i):
            continue
        j = next((j for j in range(i + 1, len(events)) if events[j]["node"] == e["node"]), None)
        if j is None or "action" not in events[j] or not _alone(log, j):
            continue
        slot_i, slot_j = {"ts": e["ts"], "clock": e["clock"]}, {"ts": events[j]["ts"], "clock": events[j]["clock"]}
        moved = {**events[j], **slot_i}
        if not _explained_here(config, log, i, moved):
            return _replaced(log, {i: moved, j: {**e, **slot_j}}, f"events {i} and {j} of {e['node']} swapped", i)
    return None
