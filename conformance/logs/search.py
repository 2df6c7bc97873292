"""The search for a behaviour of the model that explains a log (``autoswitch validate``; spec/README.md, "Event logs").

Depth-first, from the configuration's Init state, over nodes (state, events consumed per node, unobserved steps left
before the next event). A node first tries to consume an eligible event (merge.py: a node's next event that no other
node's next event must precede): its action, each completion of the parameters it leaves out, must be enabled
(reference/step.py) and every variable it observes equal the model's after it (vocabulary.same; without an action, the
model's at that point). Only then does it take an unobserved step: an action of the spec's Next for the log's domains
(explore.NextActions and its guards, as the checker's), never one of the header's ``complete`` tags nor one its
``completeOf`` claims for the node taking it (events.Log.logs_every), never one that changes nothing, never one between
two events of one node that share a clock (merge.Merged.in_step: one step's lines), never one while a variable of the
header's ``changesLogged`` that the last step changed waits for its node's line (_Frame.pending: only observing lines
come until then), never a Consume (NEVER_UNOBSERVED). Within a search, the steps between two events are searched by
iterative deepening (gaps: 0, 1, 2, 4, ... up to the search's gap; where the header claims that the clock counts steps, events.CLOCK_COUNTS_STEPS, each gap
at most the clock's bound, _Problem.bound, and nothing carries), so that the explanation found takes few, and an
event's completion that a request refuses or a response lost is tried only in the last, full round. A node that failed
with ``k`` steps left is memoised by (fingerprint.Fingerprints of the state, events consumed per node) and not searched
again with ``k`` or fewer. A node from which too few messages can be written before a later event that shows them
(messages_needed), whose state contradicts what a later event observes by a fact it fixes for every later state
(facts.py), where a process's next event needs a registration state it cannot reach first (facts.Guards), or that is
more steps from what an event ahead shows of the counters (epochs, the broker id counter, the log ends heartbeats and
Acks report, the least log end a log, confirmOffset, flushed offset or epoch file implies) than the steps before it
(distance.py), is skipped (_Problem.hopeless); where that search refuses, :func:`_schedule`
runs one without it to name the event refused. A node's unobserved steps are taken nearest first: by the distance of
the state after each to the next event of each node that shows counters, summed (_Problem.nearness; ties in Next's
order), so that the search elects, writes, transfers and beats where the log shows that these happened before it
tries the steps no event needs.

The strategies (:class:`Search`), because a sparse log (a controller's events only, one node's, every third) leaves
most steps unobserved, and the exact search then tries each wrong early choice (a response lost or not, a broker id)
against every interleaving of the steps no event needs, until an event many steps later rules it out:

- ``exact``: every behaviour with at most the gap between two events. Only its refusal is a verdict.
- ``lazy``: an event is consumed as early as the behaviour allows. An unobserved step that could come after the event
  instead, to the same state (it commutes with the event and the unobserved steps after it), is taken after it, so a
  step no event needs is never taken. Every behaviour it finds is one of the model's, but placing steps late may pile
  more than the gap before the event that needs them, so it may miss an explanation.
- ``lazy-carry``: lazy, and the steps a gap leaves unused carry to the next (at most the gap again), for those piles;
  or, with the gap as a rate, every unused step carries on: before the ``n``-th event it takes at most ``n`` times the
  gap, however they pile.
- fault-bounded: a strategy with a budget of unobserved faults (a fault tag of liveness.FAULT_KINDS or a lost
  response, but a Crash whose process's next event is a logged Restart: Search._cost), 0, then 1, 2, ... each starting
  when the one before refuses (no behaviour with so few faults explains the log, which is no verdict), from its memo
  (Search.more_faults), until one refuses that never left out a step for want of a fault: every behaviour with few
  faults is tried before any with more. It also skips a node from which every behaviour takes more unobserved faults
  than it has left (_Problem.short_of_faults: one where the state contradicts a fact only faults break; the
  stretches where a broker id leaves ``alive``, facts.Expiries; the crashes before startup steps, facts.Restarts),
  which is leaving out steps for want of a fault. Lazy-carry's, for logs of runs where faults are rare: with none to
  choose, the steps that remain are few. Exact's: its behaviours are some of the exact search's, so it skips a node that search has found
  failing (its memo), as that search skips its own.

Restarts: a wrong early choice may be found wrong only many events later, after the search has tried it against every
interleaving of the steps between, so the nodes a depth-first search expands before it explains a log vary by orders
of magnitude with the order it tries the steps in (heavy-tailed, as Gomes, Selman and Kautz found for backtracking
search, 1998). So every search starts again from Init after RESTART nodes expanded, then again after RESTART times
each next term of Luby's sequence (1, 1, 2, 1, 1, 2, 4, ...: Luby, Sinclair and Zuckerman, 1993). Its first run takes
the unobserved steps in Next's order, each later one in an order drawn from the restart's number, the state's
fingerprint and the steps left (the same on every run of the search); each takes them nearest first, ties in its
order. Its memo stays: a node that failed in one order fails in every order, and a run that tries every behaviour
refuses as one without restarts would.

:func:`_schedule` runs fault-bounded lazy-carry with ``max_gap`` first, up to a third of PHASED nodes (it explains
most logs cut from the default campaign's walks whose clock only orders, in a median of 245 nodes, and a log that
needs more faults is most often refused as cheaply), then lazy-carry with each gap of RATES below ``max_gap`` as a
rate, up to a tenth each (for a log whose unobserved steps come in bursts), then lazy-carry with each gap below
``max_gap`` in turn, up to a third each (a wrong early choice is found wrong cheaply with a small gap), all these
phases together at most PHASED nodes (``max_states`` where smaller, the shares then of it), then those paused,
fault-bounded exact and the three with ``max_gap`` in turns of SLICE nodes expanded, each resuming where it paused. So
a budget past PHASED runs as PHASED does until that is spent, and searches on where it stopped: it explains every log
a smaller one of at least PHASED does, in the same nodes. Where the clock counts steps, it runs only fault-bounded
exact and exact (each gap has the clock's bound: the lazy searches, which move steps to later gaps, would break it).
The first explanation found is the verdict, and the exact search's refusal; ``max_states`` bounds the nodes expanded
by all searches together (measured on the logs cut from the default campaign's walks: docs/validation.md and the dated pages of
docs/results/).

Before any search, a log with an observed value no behaviour reaches (reach.py: one no state has, past the steps or the
ids the events before it allow, or contradicting a fact an earlier event fixed) is refused at that event, no state
expanded.

The verdict: explained, with the behaviour as an ITF trace that ``autoswitch replay`` passes on both engines (its
``#meta.expect`` names the first property it breaks, if the configuration's options let one break); refused, at the
first event of the candidate order that no behaviour explains, with the states where it was tried and, for each, the
nearest miss (the field, the value the log gives, the model's); or gave up, past ``max_states`` nodes expanded. An
explanation found by lazy-carry may hold more than ``max_gap`` unobserved steps between two events; a refusal says no
behaviour with at most ``max_gap`` explains the log.

``engine="impl"``: the search runs on the reference (whose states are immutable values it can fingerprint and branch
from); the explanation is then replayed on the implementation (conformance/engines/impl.py) as ``autoswitch replay
--against impl`` does, and a divergence refuses the log at the event of the diverging step (or the next event after an
unobserved one), the divergence as its miss. Other behaviours are not searched on the implementation.
"""

from __future__ import annotations

import bisect
import itertools
import math
import random
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs
from attrs import frozen

from autoswitch.conformance.check.fingerprint import Fingerprints
from autoswitch.conformance.engines import KINDS, Config
from autoswitch.conformance.explore import NEXT_TRIGGERS, NextActions, admits
from autoswitch.conformance.logs.distance import BROKER_HEARTBEAT, Terms
from autoswitch.conformance.logs.events import CHANGES_LOGGED, CONTROLLER_NODE, Event, Log, LogError, read_log
from autoswitch.conformance.logs.facts import Expiries, Facts, Guards, Restarts, kinds_for
from autoswitch.conformance.logs.merge import Merged, largest_gap, merge
from autoswitch.conformance.logs.reach import unreachable
from autoswitch.conformance.trace.itf import dumps_trace, load_trace, printable
from autoswitch.conformance.trace.replay import PASS, replay_trace, show
from autoswitch.conformance.trace.vocabulary import is_int, same
from autoswitch.reference import NotEnabled, System, codes, initial_system
from autoswitch.reference.actions import (
    ACTIONS,
    ADDR,
    BROKER_ID,
    BROKER_IDS,
    FLAG,
    LOST,
    PEER,
    PROCESS,
    REQUEST,
    TRIGGER,
    TRIGGERS,
)
from autoswitch.reference.faults import LATE_REQUESTS
from autoswitch.reference.invariants import broken_properties
from autoswitch.reference.liveness import FAULT_KINDS, NEW_FAULTS
from autoswitch.reference.variables import PROCESS_VARIABLES, VARIABLES, variables

EXPLAINED, REFUSED, GAVE_UP = "explained", "refused", "gave-up"
MAX_GAP = 8
MAX_STATES = 2_000_000  # nodes expanded before the search gives up (the hardest log cut from the default
# campaign's walks took 1,788,239: docs/results/2026-11-29-logs-budget.md)
PHASED = 200_000  # nodes the schedule's first phases share (_schedule); past them the searches take turns
MAX_COMPLETIONS = 1024  # completions of one event's action (the values of the parameters it leaves out)
SHOWN = 3  # candidate states a refusal shows
KEPT = 64  # candidate states kept while searching (the nearest shown)
NOT_ENABLED = 1 << 20  # a miss's distance when the action is not enabled (any observed field differing counts 1)
DIFFERS = "differs from candidate 1 in"  # a candidate's note: the variables where it differs from the first
NEXT_SWITCHES = frozenset({"DataPath"})  # the switches of Next for a log: the data path, no arbitrary set, no clean
EXACT, LAZY, CARRY = "exact", "lazy", "lazy-carry"  # the strategies (module docstring)
RATES = (1, 2)  # the gaps of the lazy-carry searches with the gap as a rate
RATE_SHARE = 10  # each of those pauses after 1/RATE_SHARE of PHASED
SLICE = 1_000  # nodes a search expands in its turn, when searches take turns (the exact one as many as the others together)
# Consume changes only the ghost ``seen``, which no node observes and only Consume's guard reads (something visible not
# yet seen): a behaviour without an unobserved Consume leaves every other variable as it was and every later Consume
# enabled, so it explains the log whenever the other does, in fewer steps. So Consume is never taken unobserved.
NEVER_UNOBSERVED = frozenset({"Consume"})
RESTART = 2_000  # nodes a search expands before its first restart (then Luby's sequence: module docstring)
HORIZON = 3  # the events ahead of each node whose distance _Problem.hopeless checks
DISTANCES = 1 << 18  # distances kept (_Problem.distance) before they start afresh
PAUSE = 3  # the fault-bounded lazy-carry searches, then each with a gap below max_gap, pause after 1/PAUSE of PHASED


@frozen
class Miss:
    """Why an event did not fit a state: ``field`` (``action``, or an observed variable, ``role['p1']``), the value the
    log gives and the model's. ``distance``: how many observed fields differed (NOT_ENABLED: the action is not)."""

    field: str
    expected: str
    actual: str
    distance: int = 1

    def describe(self) -> str:
        return printable(f"field {self.field}: the log has {self.expected}, the model {self.actual}")


@frozen
class Candidate:
    """A state reached just before the refused event: the unobserved steps taken since the last explained event, a
    few of its variables (the event's node's role and registration state, the variables the event observes), and
    the nearest miss there."""

    steps: tuple[Mapping[str, Any], ...]
    view: Mapping[str, Any]
    miss: Miss


@frozen
class Verdict:
    """The verdict on one log. ``trace``: the explanation's states (action, outcome, every variable), with ``meta`` its
    ``#meta``; ``event``: the first event no behaviour explains (refused, gave up), with ``candidates``; ``expanded``
    and ``memo``: the search's size (nodes expanded, memo entries, over every run); ``unobserved``: steps of the
    explanation no event names; ``consumed``: the events explained (refused: those before ``event`` in the candidate
    order); ``found_by``: the strategy and gap of the search that found the explanation (``lazy, gap 4``)."""

    path: str
    name: str
    engine: str
    status: str
    events: int
    expanded: int
    memo: int
    seconds: float
    trace: tuple[Mapping[str, Any], ...] | None = None
    meta: Mapping[str, Any] | None = None
    event: Event | None = None
    candidates: tuple[Candidate, ...] = ()
    reason: str = ""
    unobserved: int = 0
    consumed: int = 0
    found_by: str = ""

    @property
    def ok(self) -> bool:
        return self.status == EXPLAINED

    def itf(self) -> str:
        """The explanation as an ITF document (itf.dumps_trace)."""
        assert self.trace is not None and self.meta is not None
        return dumps_trace(self.meta, list(self.trace))

    def describe(self) -> str:
        """The verdict in a few lines; a refusal's event, its candidates and their misses."""
        head = printable(f"{self.path} [{self.engine}]: {self.status}")
        size = f"{self.expanded:,} states expanded, {self.memo:,} memo entries, {self.seconds:.2f} s"
        if self.ok:
            return f"{head} ({self.events} events, {self.unobserved} unobserved steps, found by {self.found_by}; {size})"
        lines = [f"{head} ({self.consumed}/{self.events} events explained; {size})"]
        if self.reason:
            lines.append(printable(f"  {self.reason}"))
        if self.event is not None:
            e = self.event
            lines.append(printable(f"  first unexplained event: #{e.index} of the merged order, {e.where}: {e.describe()}"))
            for k, c in enumerate(self.candidates, 1):
                steps = ", ".join(_brief(a) for a in c.steps) or "none"
                view = ", ".join(f"{name}: {value}" if name == DIFFERS else f"{name}={show(value)}" for name, value in c.view.items())
                lines.append(printable(f"  candidate {k}: after unobserved steps [{steps}]; {view}"))
                lines.append(f"    nearest miss: {c.miss.describe()}")
        return "\n".join(lines)


@frozen
class Progress:
    """A search under way (validate's ``progress``): the states expanded so far by all its strategies, the events
    explained on the furthest path any took (Search.best), the log's events, and the seconds since it started."""

    expanded: int
    furthest: int
    events: int
    seconds: float

    def describe(self) -> str:
        rate = self.expanded / self.seconds if self.seconds else 0.0
        return (f"{self.expanded:,} states expanded, {self.furthest}/{self.events} events explained on the furthest path, "
                f"{rate:,.0f} states/s")


def _brief(action: Mapping[str, Any]) -> str:
    params = ", ".join(f"{k}={show(v)}" for k, v in action.items() if k != "tag")
    return f"{action['tag']}({params})"


@frozen
class LogDomains:
    """The domains of Next for a log (explore.Domains): the configuration's processes, each one's address and every
    address the log names; the header's ``next`` (as a lasso's ``#meta.next``: broker ids, switches, faults), else broker
    ids 1..max(processes, the largest id the log names), the data path and every fault of MODEL.md §9 (as a
    simulation walk draws them)."""

    processes: tuple[str, ...]
    addrs: Mapping[str, tuple[str, ...]]
    broker_ids: tuple[int, ...]
    design: str
    faults: frozenset[str] = frozenset(NEW_FAULTS)
    switches: frozenset[str] = NEXT_SWITCHES

    def switch(self, name: str) -> bool:
        return name in self.switches

    def bound(self, name: str) -> int:
        return 1 << 62  # MaxMsgs: a log's writes are not bounded


_ID_VARS = ("metaFile", "masterId", "localMasterId", "syncStateSet", "localSyncStateSet", "replicas", "alive")


def _ints(value: Any) -> Iterator[int]:
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        yield value
    elif isinstance(value, frozenset | set | list | tuple):
        for v in value:
            yield from _ints(v)
    elif isinstance(value, Mapping):
        for k in value:
            yield from _ints(k)


def log_domains(log: Log) -> LogDomains:
    """The domains of Next for ``log``'s unobserved steps (LogDomains)."""
    config = log.config
    addrs: list[str] = []
    ids = set(range(1, len(config.processes) + 1))
    for e in log.events:
        if e.action is not None:
            entry = ACTIONS[e.action["tag"]]
            for name, kind in entry.params.items():
                if name in e.action and kind == ADDR:
                    addrs.append(e.action[name])
                if name in e.action and kind in (BROKER_ID, BROKER_IDS):
                    ids.update(_ints(e.action[name]))
        if "addr" in e.observe and isinstance(e.observe["addr"], str):
            addrs.append(e.observe["addr"])
        for r in e.observe.get("replicas", {}).values() if isinstance(e.observe.get("replicas"), Mapping) else ():
            if isinstance(r, Mapping) and isinstance(r.get("addr"), str):
                addrs.append(r["addr"])
        temp = e.observe.get("tempFile")
        if isinstance(temp, Mapping) and isinstance(temp.get("checkCode"), str) and ";" in temp["checkCode"]:
            addrs.append(temp["checkCode"].rpartition(";")[0])  # CreateTempFile's checkCode is "addr;clock"
        for name in _ID_VARS:
            if name in e.observe:
                ids.update(_ints(e.observe[name]))
    ids = {i for i in ids if 1 <= i <= 64}
    processes = tuple(sorted(config.processes))
    addresses = {p: tuple(dict.fromkeys([config.processes[p], *sorted(set(addrs))])) for p in processes}
    nxt = log.meta.get("next")
    if nxt is not None:
        return LogDomains(processes, addresses, tuple(nxt["brokerIds"]), config.options.design, frozenset(nxt["faults"]),
                          frozenset(nxt["switches"]))
    return LogDomains(processes, addresses, tuple(range(1, max(ids, default=0) + 1)), config.options.design)


def in_next(action: Mapping[str, Any], design: str) -> bool:
    """Whether a step like ``action`` of the ``design`` may be one of Next's for a log without a header's ``next``
    (explore.admits for LogDomains' defaults, and a trigger of NEXT_TRIGGERS): otherwise, as for a controller-level
    request no broker sent (an admin tool's, a stray client's), the search never takes it unobserved and a log must
    show it."""
    defaults = LogDomains((), {}, (), design)
    return admits(defaults, ACTIONS[action["tag"]]) and action.get("trigger", NEXT_TRIGGERS[0]) in NEXT_TRIGGERS


def gaps(max_gap: int) -> list[int]:
    """0, 1, 2, 4, ... up to ``max_gap``: the rounds of iterative deepening."""
    return sorted({0, *(1 << k for k in range(max_gap.bit_length()) if 1 << k < max_gap), max_gap})


def _completions(e: Event, domains: LogDomains) -> list[dict[str, Any]]:
    """The action records of an event: its action with each value of each parameter it leaves out."""
    assert e.action is not None
    entry = ACTIONS[e.action["tag"]]
    procs = domains.processes
    choices = []
    for name in e.missing:
        kind = entry.params[name]
        process = e.action.get("process")
        values: Sequence[Any] = {
            PROCESS: procs, PEER: [q for q in procs if q != process], LOST: (False, True), FLAG: (False, True),
            TRIGGER: TRIGGERS, REQUEST: LATE_REQUESTS, BROKER_ID: domains.broker_ids,
            BROKER_IDS: [frozenset(c) for r in range(len(domains.broker_ids) + 1) for c in itertools.combinations(domains.broker_ids, r)],
            ADDR: domains.addrs[process] if process in domains.addrs else sorted({a for addrs in domains.addrs.values() for a in addrs}),
        }[kind]
        choices.append(values)
    if math.prod(map(len, choices)) > MAX_COMPLETIONS:
        raise LogError(e.file, e.line, f"action.{e.missing[0]}", f"the parameters left out ({', '.join(e.missing)}) have more than "
                       f"{MAX_COMPLETIONS} combinations of values in this log's domains: give them")
    return [{**e.action, **dict(zip(e.missing, combo, strict=True))} for combo in itertools.product(*choices)]


def _value(s: System, name: str, node: str) -> Any:
    if node != CONTROLLER_NODE and name in PROCESS_VARIABLES:  # one process's, without building the others'
        proc = s.procs.get(node)
        return None if proc is None else PROCESS_VARIABLES[name](proc)
    value = VARIABLES[name](s)
    return value if node == CONTROLLER_NODE else value.get(node)


def _fits(e: Event, s: System) -> bool:
    """Whether every variable ``e`` observes has in ``s`` the value the log gives."""
    return all(same(want, _value(s, name, e.node)) for name, want in e.observe.items())


def _miss(e: Event, s: System) -> Miss | None:
    """The first observed variable of ``e`` that differs in ``s`` (the nearest key of a function), with the count of
    those that differ; None when all agree."""
    first, count = None, 0
    for name, want in e.observe.items():
        got = _value(s, name, e.node)
        if same(want, got):
            continue
        count += 1
        if first is None:
            where = name if e.node == CONTROLLER_NODE else f"{name}[{e.node!r}]"
            if isinstance(want, Mapping) and isinstance(got, Mapping):
                key = next(k for k in sorted(set(want) | set(got), key=repr) if not same(want.get(k), got.get(k)))
                where, want, got = f"{where}[{key!r}]", want.get(key, "<absent>"), got.get(key, "<absent>")
            first = (where, show(want), show(got))
    return None if first is None else Miss(*first, count)


Fit = tuple[System, Mapping[str, Any] | None, Mapping[str, Any] | None]  # a state after an event, its step's record, outcome


class _Frame:
    """A node of the search: its state, the events consumed per node, the unobserved steps left (``budget``) and how it
    was reached (``via``: the action and outcome of a step, and the event it consumed, if it did), the unobserved faults it
    may still take, and the changes it owes a line (``pending``)."""

    __slots__ = ("s", "fp", "consumed", "budget", "fresh", "full", "via", "children", "faults", "pending")

    def __init__(self, s: System, fp: int, consumed: tuple[int, ...], budget: int, fresh: bool,
                 via: tuple[Mapping[str, Any] | None, Mapping[str, Any] | None, int | None] | None, full: bool = True,
                 faults: int = 0, pending: frozenset[tuple[str, str]] = frozenset()):
        self.s, self.fp, self.consumed, self.budget, self.fresh, self.via = s, fp, consumed, budget, fresh, via
        self.full, self.faults = full, faults
        # the (node, variable) pairs of changesLogged the last step changed and no line has logged yet: until lines of
        # those nodes observe them, no step may come (events.Log.changes_logged)
        self.pending = pending
        self.children: Iterator[_Frame] | None = None


@frozen
class _Found:
    fp: int
    gap: int
    candidate: Candidate
    state: System


def messages_needed(e: Event, brokers_beat: bool = False) -> int:
    """The least ``nextMsg`` a state may have where ``e``'s observations hold, by what they show of the messages written:
    each Write takes ``nextMsg`` as its message's id and is the only step that changes it, by one (reference/
    replication.py, masterslave.py, dledger.py), and a log's entries are distinct messages, so every id a ``log`` holds
    and every offset (an epoch file's start offsets, a ``confirmOffset``) is below it. So is a heartbeat's ``maxOffset``
    in ``alive`` where ``brokers_beat``: every heartbeat a broker's (SendHeartbeat, or a late one: the log end when it
    was sent), none the controller-level BrokerHeartbeat request (not in Next), which takes any. 0 where they show
    nothing. tests/unit/test_messages_needed.py checks these facts on every committed trace and the sampled walks."""
    o, need = e.observe, 0
    for entry in o.get("log", ()) if isinstance(o.get("log"), Sequence) else ():
        if isinstance(entry, Sequence) and entry and is_int(entry[0]):
            need = max(need, entry[0] + 1)
    for entry in o.get("epochFile", ()) if isinstance(o.get("epochFile"), Sequence) else ():
        if isinstance(entry, Sequence) and len(entry) == 2 and is_int(entry[1]):
            need = max(need, entry[1] + 1)
    for live in o["alive"].values() if brokers_beat and isinstance(o.get("alive"), Mapping) else ():
        if isinstance(live, Mapping) and is_int(live.get("maxOffset")):
            need = max(need, live["maxOffset"] + 1)
    if is_int(o.get("confirmOffset")):
        need = max(need, o["confirmOffset"] + 1)
    if is_int(o.get("nextMsg")):
        need = max(need, o["nextMsg"])
    return need


class _Problem:
    """What every search of one log shares: the log, its candidate order, the domains of Next and its actions, the
    completions of each event's action, the fingerprints, and the messages later events need written
    (messages_needed)."""

    def __init__(self, log: Log, merged: Merged):
        self.log, self.merged = log, merged
        self.opts = log.config.options
        self.domains = log_domains(log)
        self.actions = NextActions(self.domains)
        self.runs = [ACTIONS[a["tag"]].run for a in self.actions.all]
        self.skipped = {i for i, a in enumerate(self.actions.all) if log.logs_every(a) or a["tag"] in NEVER_UNOBSERVED}
        self.records = {e.index: _completions(e, self.domains) for e in merged.events if e.action is not None}
        # liveness.fault_kind without the state: a HeartbeatExpire counts as a fault even where it heals
        self.fault = [int(a["tag"] in FAULT_KINDS or a.get("lost") is True) for a in self.actions.all]
        # per Crash, the position of its process among the log's nodes: a crash whose process's next event is a logged
        # Restart is shown by it (only a Restart brings a down process up), and is no unobserved fault (Search._cost)
        place = {node: k for k, node in enumerate(merged.nodes)}
        self.crashes = {i: place[a["process"]] for i, a in enumerate(self.actions.all)
                        if a["tag"] == "Crash" and a["process"] in place}
        self.fingerprints = Fingerprints()
        self.steps = log.clock_counts_steps  # the clock bounds each gap (_Problem.bound)
        # the (node, variable) pairs whose every change the log shows (changesLogged)
        self.claims = tuple((node, name) for node, names in sorted(log.changes_logged.items()) for name in sorted(names))
        m = merged
        at = {i: (k, c) for k, ids in enumerate(m.by_node) for c, i in enumerate(ids)}
        beat = not any(e.action is not None and e.action["tag"] == BROKER_HEARTBEAT for e in m.events)
        # (event index, its node's position in nodes, the event's place among its node's, nextMsg it needs at least) for
        # each event that needs a message written
        self.needs = [(e.index, *at[e.index], need) for e in m.events if (need := messages_needed(e, beat)) > 1]
        # what each event shows of the counters (distance.py), and per node its events that show some, (place, index)
        self.terms = {e.index: terms for e in m.events if (terms := Terms.of(e, beat, not self.opts.async_flush)) is not None}
        self.distances: dict[tuple[int, int], int] = {}  # (fingerprint, event index) -> distance (_Problem.distance)
        self.ahead = [[(c, i) for c, i in enumerate(ids) if i in self.terms] for ids in m.by_node]
        # per event of those, per node the count of its events that cannot follow it: those of the same node before it,
        # others' it does not precede (the events that may come before it, or are it)
        self.before = {i: tuple(sum(1 for j in ids if not m.precedes(i, j)) for ids in m.by_node)
                       for i in sorted({index for index, *_ in self.needs} | set(self.terms))}
        # the actions a search may take unobserved: none the log has every one of, nor a NEVER_UNOBSERVED one
        unobserved = [a for i, a in enumerate(self.actions.all) if i not in self.skipped]
        self.unobserved = frozenset(a["tag"] for a in unobserved)
        # what each node's events observe of the facts a state fixes for every later one, of the kinds no unobserved step
        # the search may take breaks (a breaker among the events is a threat to the observations it may precede: facts.py)
        self.facts = Facts.of(m, kinds_for((a["tag"] for a in unobserved), self.opts))
        # and those of a fault-bounded search with no fault left, which takes no unobserved fault (but a Crash a logged
        # Restart shows: Search._cost), so that every fact only a fault breaks holds too
        calm = kinds_for((a["tag"] for i, a in enumerate(self.actions.all)
                          if i not in self.skipped and (not self.fault[i] or i in self.crashes)), self.opts)
        self.calm = self.facts if calm == self.facts.kinds else Facts.of(m, calm)
        # the registration states each process's next event needs, where no unobserved step changes its own (facts.Guards)
        self.guards = Guards(m, unobserved)
        self.expiries = Expiries(m) if "alive" in calm else None
        self.restarts = Restarts(m)

    def bound(self, clock: int, consumed: tuple[int, ...]) -> int | None:
        """The most unobserved steps before the next event, after an event at ``clock`` (0: Init) and ``consumed`` events
        of each node, where the clock counts steps: those after ``clock`` and before the next event's, and that one too
        when the next event only observes (its step may be unobserved; merge.largest_gap); None where the clock does not
        count steps, or no event is left."""
        following = self.merged.first_unconsumed(consumed)
        if not self.steps or following == len(self.merged.events):
            return None
        observes = self.merged.events[following].action is None
        return max(0, self.merged.value(following) - clock - (0 if observes else 1))

    def short_of_faults(self, frame: _Frame) -> bool:
        """Whether every behaviour from a fault-bounded search's node takes more unobserved faults than it has left: the
        crashes before startup steps (facts.Restarts), and the more of the stretches ahead where a broker id leaves
        ``alive`` (facts.Expiries) and one where the state contradicts what an event left observes by a fact only faults
        break (facts.Facts), each a fault step of its own: no crash breaks a fact, and a step that breaks the contradicted
        one may break ``alive`` too."""
        s, consumed = frame.s, frame.consumed
        needed = self.restarts.needed(s, consumed)
        if needed > frame.faults:
            return True
        expiries = self.expiries.needed(s, consumed) if self.expiries is not None else 0
        if needed + max(expiries, 1) <= frame.faults:
            return False
        if needed + expiries > frame.faults:
            return True
        return self.calm is not self.facts and self.calm.contradiction(s, consumed) is not None

    def rooms(self, frame: _Frame, per_event: int) -> Callable[[int], int]:
        """The most steps a behaviour takes from the node to the state of each event left (by its index): the node's
        ``budget`` of unobserved steps before the next event, then, where the clock counts steps, the step of the smallest
        clock left where an event left at that clock has an action (lines that only observe show the state after a step
        of the budget: bound) and those from that clock to the event's (each a step), else ``per_event`` for each event
        that may come before it or is it (its step, and the unobserved steps after the one before: a gap of lazy-carry
        takes more than the search's gap only of what those before it left unused, which ``budget`` holds)."""
        consumed, m, budget = frame.consumed, self.merged, frame.budget
        if not self.steps:
            return lambda index: budget + per_event * sum(max(0, b - c) for b, c in zip(self.before[index], consumed, strict=True))
        clock = m.value(m.first_unconsumed(consumed))  # the candidate order is by clock: its first event left has the smallest
        acts = any(m.events[i].action is not None for ids, c in zip(m.by_node, consumed, strict=True)
                   for i in itertools.takewhile(lambda i: m.value(i) == clock, itertools.islice(ids, c, None)))
        start = budget + acts - clock
        return lambda index: start + m.value(index)

    def hopeless(self, frame: _Frame, per_event: int) -> bool:
        """Whether a process's next event needs a registration state the process cannot reach first (facts.Guards), the
        state contradicts what an event left observes (facts.Facts), or some event left needs more messages written
        (messages_needed), or more steps (distance.py: of the next HORIZON events of each node that show counters), than
        a behaviour takes before it (rooms)."""
        s, consumed = frame.s, frame.consumed
        if self.guards.stuck(s, consumed) is not None or self.facts.contradiction(s, consumed) is not None:
            return True
        room, written = self.rooms(frame, per_event), s.next_msg
        for index, node, place, need in self.needs:
            if need > written and consumed[node] <= place and need - written > room(index):
                return True
        return any(self.distance(index, s, frame.fp) > room(index) for index in self._ahead(consumed, HORIZON))

    def distance(self, index: int, s: System, fp: int) -> int:
        """The fewest steps from ``s`` (fingerprint ``fp``) to what event ``index`` shows of the counters (distance.py),
        kept by fingerprint and event: most states are asked again, by the searches that take turns and by a node's
        nearness and then its pruning."""
        key = (fp, index)
        d = self.distances.get(key)
        if d is None:
            if len(self.distances) >= DISTANCES:
                self.distances.clear()
            d = self.distances[key] = self.terms[index].steps(s)
        return d

    def nearness(self, s: System, fp: int, consumed: tuple[int, ...]) -> int:
        """How far ``s`` is from the events ahead: per node, the distance to its next event that shows counters, summed
        (the order Search._unobserved takes steps in)."""
        return sum(self.distance(index, s, fp) for index in self._ahead(consumed, 1))

    def _ahead(self, consumed: tuple[int, ...], count: int) -> Iterator[int]:
        """The indices of each node's next ``count`` events not consumed that show counters (distance.py)."""
        for k, ahead in enumerate(self.ahead):
            start = bisect.bisect_left(ahead, (consumed[k],))
            for _, index in ahead[start:start + count]:
                yield index


_Key = tuple[int, tuple[int, ...], bool, int, frozenset[tuple[str, str]]]  # a node's memo key (Search.memo)


def luby(i: int) -> int:
    """The ``i``-th term (from 1) of Luby's sequence, 1, 1, 2, 1, 1, 2, 4, 1, ...: (i + 1) / 2 where i + 1 is a power
    of 2, else the term as many places after the last such i."""
    while (i + 1) & i:
        i -= (1 << (i.bit_length() - 1)) - 1
    return (i + 1) >> 1


def _failed(memo: Mapping[_Key, int], frame: _Frame, faults: int) -> int:
    """The largest budget with which ``memo`` has ``frame``'s node failing with ``faults`` left (-1: none): a node
    searched in full failed for one that is not too."""
    failed = memo.get((frame.fp, frame.consumed, True, faults, frame.pending), -1)
    if not frame.full:
        failed = max(failed, memo.get((frame.fp, frame.consumed, False, faults, frame.pending), -1))
    return failed


class Search:
    """One strategy's search of one log with at most ``max_gap`` unobserved steps between two events (module
    docstring); :meth:`run` resumes where it paused."""

    def __init__(self, problem: _Problem, max_gap: int, strategy: str = EXACT, faults: int | None = None,
                 prune: bool = True, restart: int = RESTART, nearest: bool = True, rate: bool = False):
        self.problem, self.max_gap, self.strategy, self.rate = problem, max_gap, strategy, rate
        # take the unobserved steps nearest to the events ahead first (_Problem.nearness; else in Next's order)
        self.nearest = nearest
        self.nearness = problem.nearness if nearest and problem.terms else None
        # restarts (module docstring): the nodes before the first (0: none), the restarts so far (0: the first run, in
        # Next's order), and the nodes expanded at which the next one comes
        self.restart, self.restarts = restart, 0
        self.restart_at = restart
        self.faults = faults  # None: unlimited; else the unobserved faults a behaviour may take
        self.starved = False  # whether it left out a step for want of a fault to spend (more_faults)
        self.fault = problem.fault
        self.lazy = strategy != EXACT
        # the unused steps of a gap the next may take, at most: the gap, or all with the gap as a rate (none where the
        # clock counts steps: it bounds each gap)
        self.carry = (math.inf if rate else max_gap) if strategy == CARRY and not problem.steps else 0
        self.bound = problem.bound
        # skip the nodes from which no behaviour writes the messages a later event needs (_Problem.hopeless): sound,
        # but a refusal then may stop short of the event it is about (validate runs a search without it to say which)
        self.prune, self.pruned, self.hopeless = prune, 0, problem.hopeless
        # an event's step and the gap before it: a gap takes more only of what earlier ones left unused, which the
        # budget of a node holds (_Problem.rooms)
        self.per_event = max_gap + 1
        self.log, self.merged, self.opts = problem.log, problem.merged, problem.opts
        self.actions, self.runs, self.skipped = problem.actions, problem.runs, problem.skipped
        self.crashes = problem.crashes
        self.records, self.fingerprints = problem.records, problem.fingerprints
        self.claims = problem.claims
        # (fingerprint, consumed, full, faults left, pending) -> the largest budget with which the node failed
        self.memo: dict[_Key, int] = {}
        # a fault-bounded search's: the memo of the exact search with the same gap and no fault budget, whose failures
        # are its failures too (its behaviours are some of that search's); None: none
        self.refuted: dict[_Key, int] | None = None
        self.expanded = 0
        self.levels = gaps(max_gap)
        self.best = -1  # the largest first-unconsumed event index a node reached
        self.found: list[_Found] = []
        self.found_fps: set[int] = set()
        self.stack: list[_Frame] = []
        self.verdict: str | None = None  # EXPLAINED or REFUSED once the search is over

    def describe(self) -> str:
        """The strategy, its gap and its fault budget: ``lazy-carry, gap 4, at most 1 fault unobserved``; ``lazy-carry, gap 1
        as a rate``."""
        faults = "" if self.faults is None else f", at most {self.faults} fault{'' if self.faults == 1 else 's'} unobserved"
        return f"{self.strategy}, gap {self.max_gap}{' as a rate' if self.carry == math.inf else ''}{faults}"

    def more_faults(self) -> Search | None:
        """The same search with one unobserved fault more, after this fault-bounded one refused; None where it never left
        out a step for want of a fault (it tried every behaviour its strategy has: more faults change nothing). It starts
        with this one's memo: a node's key holds the faults left, and a node fails with as many left whatever the search
        began with."""
        assert self.faults is not None and self.verdict == REFUSED
        if not self.starved:
            return None
        following = Search(self.problem, self.max_gap, self.strategy, self.faults + 1, self.prune, self.restart, self.nearest,
                           self.rate)
        following.memo, following.refuted = self.memo, self.refuted
        return following

    def _consume(self, e: Event, s: System) -> list[Fit]:
        """The states after event ``e`` from ``s``, with the record and outcome of its step; the preferred first
        (:func:`_preferred`)."""
        if e.action is None:
            return [(s, None, None)] if _fits(e, s) else []
        fits: list[Fit] = []
        for record in self.records[e.index]:
            try:
                w, outcome = ACTIONS[record["tag"]].run(s, record, self.opts)  # type: ignore[misc]
            except NotEnabled:
                continue
            if _fits(e, w):
                fits.append((w, record, outcome))
        fits.sort(key=lambda fit: not _preferred(e, fit[1], fit[2]))
        return fits

    def _nearest(self, e: Event, s: System) -> Miss:
        """The nearest miss of event ``e`` in ``s``, where it does not fit: the state's (an observation), or the state's
        after the completion of its action nearest to fitting."""
        if e.action is None:
            miss = _miss(e, s)
            assert miss is not None
            return miss
        nearest = Miss("action", "enabled", "not enabled", NOT_ENABLED)
        for record in self.records[e.index]:
            try:
                w, _ = ACTIONS[record["tag"]].run(s, record, self.opts)  # type: ignore[misc]
            except NotEnabled as why:
                if nearest.distance == NOT_ENABLED and nearest.actual == "not enabled":
                    nearest = Miss("action", f"{_brief(record)} enabled", f"not enabled: {why}", NOT_ENABLED)
                continue
            miss = _miss(e, w)
            if miss is not None and miss.distance < nearest.distance:
                nearest = miss
        return nearest

    def _steps_since_event(self) -> tuple[Mapping[str, Any], ...]:
        steps: list[Mapping[str, Any]] = []
        for frame in reversed(self.stack):
            if frame.fresh:
                break
            if frame.via is not None and frame.via[0] is not None:
                steps.append(frame.via[0])
        return tuple(reversed(steps))

    def _note(self, e: Event, s: System, fp: int, gap: int, miss: Miss) -> None:
        """Keep the state where the frontier event failed (the nearest KEPT, one per state: the caller asks once)."""
        self.found_fps.add(fp)
        view = {} if e.node == CONTROLLER_NODE else {"regState": _value(s, "regState", e.node), "role": _value(s, "role", e.node)}
        view.update({name: _value(s, name, e.node) for name in e.observe})
        self.found.append(_Found(fp, gap, Candidate(self._steps_since_event(), view, miss), s))
        if len(self.found) > 2 * KEPT:
            self.found.sort(key=lambda f: (f.candidate.miss.distance, f.gap))
            del self.found[KEPT:]

    def _children(self, frame: _Frame) -> Iterator[_Frame]:
        consumed, s = frame.consumed, frame.s
        if frame.fresh:  # iterative deepening of the unobserved steps before the next event; the last level in full
            for budget in [*(level for level in self.levels if level < frame.budget), frame.budget]:
                yield _Frame(s, frame.fp, consumed, budget, False, None, budget == frame.budget, frame.faults, frame.pending)
            return
        front = self.merged.first_unconsumed(consumed)
        if front > self.best:
            self.best, self.found, self.found_fps = front, [], set()
        deferred: list[_Frame] = []
        for k in self.merged.eligible(consumed):
            e = self.merged.next_event(k, consumed)
            assert e is not None  # eligible: a node with an event left
            if frame.pending and e.action is not None:  # a step before the lines that log the last one's changes
                if e.index == self.best and frame.fp not in self.found_fps:
                    owed = ", ".join(f"{v}[{n!r}]" for n, v in sorted(frame.pending))
                    self._note(e, s, frame.fp, self.max_gap - frame.budget,
                               Miss(CHANGES_LOGGED, f"a line logging {owed} before this step (changesLogged)",
                                    "the step before it changed them, and no line logs that", NOT_ENABLED))
                continue
            fits = self._consume(e, s)
            if not fits and e.index == self.best and frame.fp not in self.found_fps:
                self._note(e, s, frame.fp, self.max_gap - frame.budget, self._nearest(e, s))
            after = consumed[:k] + (consumed[k] + 1,) + consumed[k + 1:]
            for w, record, outcome in fits:
                if self.lazy and not frame.fresh and self._movable(e, record, w):
                    continue
                budget = 0 if self.merged.in_step(after) else self._gap(e.clock or 0, after, frame.budget)
                left = frame.pending if record is None else self._changed(s, w)
                child = _Frame(w, frame.fp if w is s else self.fingerprints(w), after, budget, True, (record, outcome, e.index),
                               faults=frame.faults, pending=frozenset((n, v) for n, v in left if n != e.node or v not in e.observe))
                if _preferred(e, record, outcome):
                    yield child
                elif frame.full:
                    deferred.append(child)
        yield from self._unobserved(frame)
        yield from deferred

    def _changed(self, s: System, w: System) -> frozenset[tuple[str, str]]:
        """The (node, variable) pairs of changesLogged whose value differs in ``w`` from ``s`` (a node's variables read
        only its Controller or Process object, reference/variables.py: one shared by both states changed nothing)."""
        if not self.claims:
            return frozenset()
        # both values are the model's, each variable of one type (spec/State.tla's TypeOK): == compares them
        return frozenset((n, v) for n, v in self.claims
                         if ((s.controller is not w.controller) if n == CONTROLLER_NODE else (s.procs.get(n) is not w.procs.get(n)))
                         and _value(s, v, n) != _value(w, v, n))

    def _gap(self, clock: int, consumed: tuple[int, ...], left: int) -> int:
        """The unobserved steps a node may take before the next event, after an event at ``clock`` (0: Init) with
        ``left`` of its own gap unused: the search's gap (and what it carries), at most the clock's bound."""
        bound = self.bound(clock, consumed)
        gap = self.max_gap + int(min(left, self.carry))
        return gap if bound is None else min(gap, bound)

    def _movable(self, e: Event, record: Mapping[str, Any] | None, w: System) -> bool:
        """Whether an unobserved step since the last event could come after ``e`` instead, to the same state ``w``."""
        gap: list[_Frame] = []
        for f in reversed(self.stack):
            if f.fresh or f.via is None:
                start = f.s
                break
            gap.append(f)
        gap.reverse()
        if not gap:
            return False
        target = self.fingerprints(w)
        states = [start, *(f.s for f in gap)]
        opts = self.opts
        for i in range(len(gap) - 1, -1, -1):
            t = states[i]
            try:
                for f in gap[i + 1:]:
                    t, _ = ACTIONS[f.via[0]["tag"]].run(t, f.via[0], opts)  # type: ignore[index,misc]
                if record is not None:
                    t, _ = ACTIONS[record["tag"]].run(t, record, opts)  # type: ignore[misc]
                if not _fits(e, t):
                    continue
                u = gap[i].via[0]  # type: ignore[index]
                t, _ = ACTIONS[u["tag"]].run(t, u, opts)  # type: ignore[misc]
            except NotEnabled:
                continue
            if self.fingerprints(t) == target:
                return True
        return False

    def _unobserved(self, frame: _Frame) -> Iterator[_Frame]:
        """The unobserved steps from ``frame``: the actions of Next enabled there that change the state (none where a
        change the last step made is still to be logged: ``pending``)."""
        if frame.budget == 0 or frame.pending:
            return
        consumed, s = frame.consumed, frame.s
        order = self.actions.candidates(s)
        if self.restarts:  # an order drawn from the restart, the state and the steps left: the same on every run
            order = list(order)
            random.Random(self.restarts << 80 ^ frame.fp << 8 ^ frame.budget).shuffle(order)
        steps = self._steps(frame, order)
        if self.nearness is None:
            yield from steps
            return
        near = self.nearness
        yield from sorted(steps, key=lambda child: near(child.s, child.fp, consumed))  # stable: ties in the order above

    def _steps(self, frame: _Frame, order: Sequence[int]) -> Iterator[_Frame]:
        """The nodes after each step of ``order`` enabled at ``frame`` (within its fault budget) that changes the state."""
        consumed, s = frame.consumed, frame.s
        actions, runs, opts = self.actions.all, self.runs, self.opts
        limited = self.faults is not None
        for i in order:
            if i in self.skipped:
                continue
            cost = self._cost(i, consumed) if limited else 0
            if cost and frame.faults == 0:
                self.starved = True
                continue
            try:
                w, outcome = runs[i](s, actions[i], opts)  # type: ignore[misc]
            except NotEnabled:
                continue
            wfp = self.fingerprints(w)
            if wfp != frame.fp:
                yield _Frame(w, wfp, consumed, frame.budget - 1, False, (actions[i], outcome, None), frame.full,
                             frame.faults - cost if limited else 0, self._changed(s, w))

    def _cost(self, i: int, consumed: tuple[int, ...]) -> int:
        """The faults unobserved action ``i`` spends after ``consumed`` events: 1 for a fault, but 0 for a Crash whose
        process's next event is a logged Restart, which shows it."""
        k = self.crashes.get(i)
        following = None if k is None else self.merged.next_event(k, consumed)
        if following is not None and following.action is not None and following.action["tag"] == "Restart":
            return 0
        return self.fault[i]

    def _root(self) -> _Frame:
        """The node of Init, no event consumed."""
        s0 = initial_system(dict(self.log.config.processes), self.opts.design)
        start = (0,) * len(self.merged.nodes)
        root = _Frame(s0, self.fingerprints(s0), start, self._gap(0, start, 0), True, None,
                      faults=0 if self.faults is None else self.faults)
        root.children = self._children(root)
        return root

    def run(self, limit: int) -> list[_Frame] | None:
        """Search on until ``limit`` nodes are expanded in all: the frames of an explanation from Init (``verdict``
        EXPLAINED), or None: ``verdict`` REFUSED when every behaviour was tried, else paused (``verdict`` None)."""
        memo, total = self.memo, len(self.merged.events)
        stack = self.stack
        if not stack and self.verdict is None:
            stack.append(self._root())
        while stack and self.expanded < limit:
            if self.restart and self.expanded >= self.restart_at:  # from Init again, the memo kept
                self.restarts += 1
                self.restart_at += self.restart * luby(self.restarts + 1)
                stack[:] = [self._root()]
            top = stack[-1]
            assert top.children is not None
            child = next(top.children, None)
            if child is None:
                stack.pop()
                key = (top.fp, top.consumed, top.full, top.faults, top.pending)
                memo[key] = max(memo.get(key, -1), top.budget)
                continue
            if child.fresh and sum(child.consumed) == total:  # pending or not: a log may end before its last lines
                stack.append(child)
                self.verdict = EXPLAINED
                return stack
            failed = _failed(memo, child, child.faults)
            if self.refuted is not None:  # the exact search's keys have 0 faults left: it counts none
                failed = max(failed, _failed(self.refuted, child, 0))
            if failed >= child.budget:
                continue
            if self.prune and self.hopeless(child, self.per_event):
                self.pruned += 1
                continue
            if self.prune and self.faults is not None and self.problem.short_of_faults(child):
                self.starved = True  # more faults may explain it: more_faults
                self.pruned += 1
                continue
            if not child.fresh:
                self.expanded += 1
            child.children = self._children(child)
            stack.append(child)
        if not stack:
            self.verdict = REFUSED
        return None

    def candidates(self) -> tuple[Candidate, ...]:
        """The nearest SHOWN candidates; after the first, each view also names the variables where the state differs
        from the first's (two candidates may agree on everything else shown)."""
        found = sorted(self.found, key=lambda f: (f.candidate.miss.distance, f.gap))[:SHOWN]
        if not found:
            return ()
        first = variables(found[0].state)
        out = [found[0].candidate]
        for f in found[1:]:
            other = variables(f.state)
            differs = [name for name in first if not same(first[name], other[name])]
            view = {**f.candidate.view, DIFFERS: ", ".join(differs) or "the fault count"}
            out.append(attrs.evolve(f.candidate, view=view))
        return tuple(out)


def _preferred(e: Event, record: Mapping[str, Any] | None, outcome: Mapping[str, Any] | None) -> bool:
    """Whether a step consuming ``e`` is one the search tries early: an event that names every parameter, or a
    completion that succeeds (OK, SUCCESS) and loses no response (a ``lost`` left out is false). The others (a request
    refused, a response lost, where the log did not say so) are tried only with the full gap."""
    if record is None or outcome is None or not e.missing:
        return True
    return outcome.get("code") in (codes.OK, codes.SUCCESS) and not ("lost" in e.missing and record.get("lost"))


def _behaviour(log: Log, frames: list[_Frame]) -> tuple[list[dict[str, Any]], dict[int, int]]:
    """The explanation's states (Init, then each step's action, outcome and variables) and, per event index, the index
    of the state it was checked on."""
    s0 = frames[0].s
    states = [{"action": {"tag": "Init"}, "outcome": {"code": "OK"}, **variables(s0)}]
    at: dict[int, int] = {}
    for frame in frames[1:]:
        if frame.via is None:
            continue
        action, outcome, event = frame.via
        if action is not None:
            states.append({"action": dict(action), "outcome": dict(outcome or {}), **variables(frame.s)})
        if event is not None:
            at[event] = len(states) - 1
    return states, at


def _meta(log: Log, states: list[dict[str, Any]], events: int) -> dict[str, Any]:
    """The explanation's ``#meta``: the configuration, where it comes from, and the first property it breaks (replay
    then passes exactly when it reproduces that)."""
    meta: dict[str, Any] = {
        "generator": "autoswitch validate",
        "description": f"a behaviour of the reference model explaining the log {log.name} ({events} events, "
                       f"{len(states) - 1} steps)",
        **log.config.to_meta(),
    }
    names = {k: v for k, v in states[0].items() if k not in ("action", "outcome")}
    before = None
    for i, state in enumerate(states):
        after = {k: v for k, v in state.items() if k not in ("action", "outcome")} if i else names
        broken = broken_properties(before, after)
        if broken:
            meta["expect"] = {"violation": broken[0], "state": i}
            break
        before = after
    return meta


def _on_impl(verdict: Verdict, log: Log, at: Mapping[int, int], merged: Merged) -> Verdict:
    """Replay the explanation on the implementation (``autoswitch replay --against impl``); a divergence refuses the log
    at the event of the diverging state, or the first event after it."""
    with tempfile.TemporaryDirectory(prefix="autoswitch-validate-") as scratch:
        path = Path(scratch) / f"{log.name}.itf.json"
        path.write_text(verdict.itf())
        result = replay_trace(load_trace(path), "impl")
    if result.status == PASS:
        return verdict
    state = result.state or 0
    after = sorted((i, e) for e, i in at.items() if i >= state)
    event = merged.events[after[0][1]] if after else None
    assert verdict.trace is not None
    before = verdict.trace[max(state - 1, 0)]
    node_view = {} if event is None or event.node == CONTROLLER_NODE else \
        {"regState": before["regState"].get(event.node), "role": before["role"].get(event.node)}
    steps = tuple(verdict.trace[i]["action"] for i in range(max(state - 1, 1), state + 1) if i < len(verdict.trace))
    miss = Miss(str(result.field), str(result.expected), str(result.actual))
    reason = (f"the implementation diverges from the reference on the explanation, at its state {state} "
              f"({result.status}: {result.message})")
    return Verdict(verdict.path, verdict.name, "impl", REFUSED, verdict.events, verdict.expanded, verdict.memo,
                   verdict.seconds, verdict.trace, verdict.meta, event, (Candidate(steps, node_view, miss),), reason,
                   verdict.unobserved, sum(1 for i in at.values() if i < state))


def _schedule(problem: _Problem, max_gap: int, max_states: int,
              turned: Callable[[list[Search]], None] = lambda searches: None) -> tuple[list[Search], list[_Frame] | None]:
    """The searches run on ``problem`` and the explanation found, if one was: the fault-bounded lazy-carry search with
    ``max_gap`` (0 faults, then one more each time it refuses: Search.more_faults) until 1/PAUSE of ``phased`` nodes
    expanded (PHASED, or ``max_states`` where smaller); then the lazy-carry search with each gap of RATES below
    ``max_gap`` as a rate, each pausing after 1/RATE_SHARE of ``phased``, and with each gap below ``max_gap`` in turn,
    each pausing after 1/PAUSE of ``phased``, these phases stopping when ``phased`` nodes are expanded in all; then the
    paused ones, the fault-bounded exact one (0 faults, then one more each time it refuses) and
    the lazy, lazy-carry and exact searches with ``max_gap`` taking turns of SLICE nodes expanded, the exact one as many
    as the others together, each resuming where it paused, at most ``max_states`` nodes in all; where the clock counts
    steps, the fault-bounded exact search and the exact one only. It ends at an explanation, at the exact search's
    refusal (the only refusal that ends it: another search that refuses leaves the turns, a fault-bounded one for the
    one with a fault more; where the exact search pruned, it then runs without pruning with the budget left, to name
    the event refused), or at the budget. ``turned`` hears the searches after each turn."""
    searches: list[Search] = []

    def left(budget: int = max_states) -> int:
        return budget - sum(x.expanded for x in searches)

    # the first phases take shares of at most PHASED states, and stop there: past it every search takes turns, so a
    # larger budget searches on from where a smaller one stopped
    phased = min(max_states, PHASED)
    paused: list[Search] = []
    carry = Search(problem, max_gap, CARRY, 0) if max_gap and not problem.steps else None
    if carry is not None:
        searches.append(carry)
        while (room := phased // PAUSE - sum(x.expanded for x in searches)) > 0:
            frames = carry.run(carry.expanded + room)
            turned(searches)
            if frames is not None:
                return searches, frames
            following = carry.more_faults() if carry.verdict == REFUSED else None
            if following is None:
                break
            carry = following
            searches.append(carry)
    # (gap, as a rate, the share of phased before it pauses) of each small-gap lazy-carry search, in their order
    small = [] if problem.steps else [*((gap, True, RATE_SHARE) for gap in RATES if gap < max_gap),
                                      *((gap, False, PAUSE) for gap in gaps(max_gap)[:-1])]
    for gap, rate, share in small:
        search = Search(problem, gap, CARRY, rate=rate)
        searches.append(search)
        frames = search.run(min(left(phased), phased // share))
        turned(searches)
        if frames is not None:
            return searches, frames
        if search.verdict is None:
            paused.append(search)
    # the fault-bounded exact searches: 0 faults, then 1, 2, ... (none with no unobserved step: each would be the exact one)
    chain = Search(problem, max_gap, EXACT, 0) if max_gap else None
    strategies = (EXACT,) if not max_gap or problem.steps else (LAZY, CARRY, EXACT)
    turns = [*([chain] if chain else []), *(Search(problem, max_gap, strategy) for strategy in strategies)]
    searches += turns
    turns = paused + ([carry] if carry is not None and carry.verdict is None else []) + turns
    exact = turns[-1]
    if chain:
        chain.refuted = exact.memo
    while left() > 0:
        for search in [x for x in turns if x.verdict is None]:
            share = max(1, len(turns) - 1) if search is exact else 1  # the exact search: half of every round
            frames = search.run(search.expanded + min(SLICE * share, left()))
            turned(searches)
            if frames is not None:
                return searches, frames
            if search is exact and search.verdict == REFUSED:
                if exact.pruned:  # to name the first event no behaviour explains, search again without pruning
                    diagnosis = Search(problem, max_gap, EXACT, prune=False)
                    searches.append(diagnosis)
                    found = diagnosis.run(left())
                    turned(searches)
                    if found is not None:
                        raise RuntimeError("pruning (_Problem.hopeless) refused a log a search without it explains")
                return searches, None
            if search.faults is not None and search.verdict == REFUSED:  # too few faults: one more, in its place
                following = search.more_faults()
                if following is not None:
                    searches.append(following)
                    turns[turns.index(search)] = following
    return searches, None


def alone(log: Log, max_gap: int, strategy: str, max_states: int, skew: int = 0) -> Search:
    """One strategy's search of ``log`` run alone, up to ``max_states`` nodes expanded (``autoswitch bench --logs``): its
    ``verdict`` is EXPLAINED, REFUSED, or None where it gave up."""
    search = Search(_Problem(log, merge(log, skew)), max_gap, strategy)
    search.run(max_states)
    return search


def validate(log: Log | str | Path, max_gap: int | None = None, engine: str = "reference", skew: int = 0,
             max_states: int = MAX_STATES, config: Config | None = None,
             progress: Callable[[Progress], None] | None = None, every: float = 2.0) -> Verdict:
    """Search for a behaviour of the model that explains ``log`` (a Log, or the path of one, read with ``config`` when
    it has no header): at most ``max_gap`` unobserved steps between two events (None: MAX_GAP, or where the log's clock
    counts steps, as many as its clock leaves between them), timestamps within ``skew`` milliseconds in either order, at
    most ``max_states`` nodes expanded. ``engine``: "reference", or "impl" (the explanation replayed on the
    implementation: module docstring). ``progress`` hears how the search goes, at most once every ``every`` seconds.
    Bad input raises events.LogError."""
    if engine not in KINDS:
        raise ValueError(f"unknown engine {engine!r}; expected one of {KINDS}")
    if (max_gap is not None and max_gap < 0) or max_states < 1:
        raise ValueError("max_gap >= 0 and max_states >= 1")
    if not isinstance(log, Log):
        log = read_log(log, config)
    merged = merge(log, skew)
    if max_gap is None:
        max_gap = largest_gap(e.clock or 0 for e in merged.events) if log.clock_counts_steps else MAX_GAP
    started = time.perf_counter()
    n = len(merged.events)
    problem = _Problem(log, merged)
    told = started

    def turned(searches: list[Search]) -> None:
        nonlocal told
        now = time.perf_counter()
        if progress is not None and now - told >= every:
            told = now
            progress(Progress(sum(x.expanded for x in searches), max(0, *(x.best for x in searches)), n,
                              now - started))

    refusal = unreachable(log, merged, problem.unobserved, max_gap)  # a value no behaviour reaches: no search
    if refusal is not None:
        return Verdict(log.path, log.name, engine, REFUSED, n, 0, 0, round(time.perf_counter() - started, 3),
                       event=refusal.event, reason=refusal.describe())
    searches, frames = _schedule(problem, max_gap, max_states, turned)
    refusals = [x for x in searches if x.strategy == EXACT and x.max_gap == max_gap and x.faults is None
                and x.verdict == REFUSED]
    refusal = min(refusals, key=lambda x: x.prune, default=None)  # the one without pruning, where it finished
    seconds = round(time.perf_counter() - started, 3)
    memos = {id(x.memo): x.memo for x in searches}  # a fault-bounded search's shares the one's before (more_faults)
    size = (sum(x.expanded for x in searches), sum(len(memo) for memo in memos.values()), seconds)
    if frames is None:
        if refusal is not None:
            status, reason, search = REFUSED, "", refusal
            if refusal.pruned:
                reason = ("no behaviour explains the log; the first event this search could not reach may come before "
                          "the one no behaviour explains: it skipped the states from which too few messages could be "
                          "written for a later event or that contradict what one observes, and the search without that "
                          "ran out of --max-states")
        else:
            status, search = GAVE_UP, max(searches, key=lambda x: x.best)
            reason = (f"gave up after {max_states:,} states expanded (--max-states): no verdict; a smaller --max-gap, or "
                      "the header's complete and next, narrow the search")
        event = merged.events[search.best] if 0 <= search.best < n else None
        return Verdict(log.path, log.name, engine, status, n, *size, event=event, candidates=search.candidates(),
                       reason=reason, consumed=max(search.best, 0))
    states, at = _behaviour(log, frames)
    verdict = Verdict(log.path, log.name, engine, EXPLAINED, n, *size, tuple(states), _meta(log, states, n),
                      unobserved=len(states) - 1 - sum(1 for e in merged.events if e.action is not None), consumed=n,
                      found_by=next(x.describe() for x in searches if x.verdict == EXPLAINED))
    return _on_impl(verdict, log, at, merged) if engine == "impl" else verdict

