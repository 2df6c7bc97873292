"""What no behaviour reaches, read off a log before any search (``autoswitch validate``; spec/README.md, "Event logs"):
an event whose observed value no state of the model has, that no behaviour within the search's bounds reaches by the
steps that may come before it, or that contradicts a fact an earlier event fixed (facts.py) with no breaker possible
between them, refuses the log at once, naming the event and the field (search.validate), where the search would try
every behaviour within the gap before it refused it.

Each check is a consequence of the reference's rules; tests/unit/test_reach.py checks the domains and the bounds on
every state of every committed trace and of the campaign's sampled walks, and that no committed log is refused.

| an event observes | refused where | why (reference/) |
|---|---|---|
| ``regState``, ``role``, ``haState``, ``brokerRole`` | not one of the model's values | state.py, invariants.REG_STATES, designs.BROKER_ROLES |
| a counter, an epoch, an offset, a broker id, an address, a checkCode | not of its type, or below its least value | state.py: each is an int (>= 0; a broker id >= 1, ``masterId`` -1 for none, ``nextBrokerId`` >= 1) or a string |
| ``log``, ``epochFile``, ``tempFile``, ``replicas``, ``alive``, ``acks``, a set of broker ids | not of the model's shape | variables.py: a list of (int, int) pairs, a record of its fields, a map from broker ids, a set of ints |
| the controller's ``nextBrokerId``, a process's ``tempFile`` broker id or ``metaFile`` | past 1 + the steps that may raise ``nextBrokerId`` before it (or the processes, in a design that numbers them) | controller.py: only apply_broker_id raises it, by one (SendApplyBrokerId, ApplyBrokerId: RAISERS); CreateTempFile takes it as the temp file's id, WriteMetaFile copies that; designs.initial_design numbers the processes 1..n |
| an epoch (``masterEpoch``, ``syncStateSetEpoch``, a process's, an entry's of ``log`` or ``epochFile``), a message id, a log's length, an offset | past the steps that may come before it | distance.py: each step raises a counter by at most one, appends at most one entry to one log and writes at most one message (``nextMsg`` from 1); every offset is at most its log's end |
| a value a fact fixed earlier (facts.py: ``metaFile``, ``counters``, ``replicas``, ``messages``) | the later value contradicts it | facts.py; only where no breaker of the fact is among the log's events nor the steps the search may take unobserved |

The steps that may come before an event: the events that may be consumed before it (all of its node's before it, and
every other node's that it does not precede: merge.Merged.precedes), its own, and at most ``max_gap`` unobserved steps
before each of those events and before it (the lazy-carry searches carry only steps a gap left unused: search.py), at
most its clock where the clock counts steps (events.CLOCK_COUNTS_STEPS).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Mapping, Sequence, Set
from typing import Any

from attrs import frozen

from autoswitch.conformance.logs.events import CONTROLLER_NODE, Event, Log
from autoswitch.conformance.logs.facts import BREAKERS, COUNTERS, kinds_for
from autoswitch.conformance.logs.merge import Merged
from autoswitch.conformance.trace.itf import printable
from autoswitch.conformance.trace.replay import show
from autoswitch.conformance.trace.vocabulary import is_int
from autoswitch.reference.designs import BROKER_ROLES
from autoswitch.reference.invariants import REG_STATES, ROLES
from autoswitch.reference.state import CONTROLLER, ELECT_MASTER_MAX_RETRY_COUNT, HA_NONE, HA_READY, HA_TRANSFER, NO_ID, NO_MASTER

# the steps that raise the controller's nextBrokerId (each by one: controller.apply_broker_id, its only writer but a reset)
RAISERS = frozenset({"SendApplyBrokerId", "ApplyBrokerId"})
HA_STATES = frozenset({HA_NONE, HA_READY, HA_TRANSFER})


@frozen
class Refusal:
    """An event no behaviour explains whatever comes before it: the observed ``field``, its value and why."""

    event: Event
    field: str
    value: str
    why: str

    def describe(self) -> str:
        return printable(f"refused before the search: {self.event.where} (event #{self.event.index} of the merged order), "
                         f"field {self.field} = {self.value}: {self.why}")


# ---- the domains ------------------------------------------------------------------------------------------------------

def _nat(v: Any) -> bool:
    return is_int(v) and v >= 0


def _id(v: Any) -> bool:
    return is_int(v) and v >= 1


def _text(v: Any) -> bool:
    return isinstance(v, str)


def _ids(v: Any) -> bool:
    return isinstance(v, Set) and all(map(_id, v))


def _master(v: Any) -> bool:
    return _id(v) or (is_int(v) and v == NO_MASTER)


def _pairs(v: Any) -> bool:
    return isinstance(v, list) and all(isinstance(e, tuple) and len(e) == 2 and all(map(is_int, e)) for e in v)


def _record(fields: Mapping[str, Callable[[Any], bool]]) -> Callable[[Any], bool]:
    return lambda v: isinstance(v, Mapping) and set(v) == set(fields) and all(ok(v[k]) for k, ok in fields.items())


def _map(key: Callable[[Any], bool], value: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda v: isinstance(v, Mapping) and all(key(k) and value(x) for k, x in v.items())


def _among(values: Iterable[str]) -> Callable[[Any], bool]:
    known = frozenset(values)
    return lambda v: isinstance(v, str) and v in known


# per observed variable: the values some state of the model has (the type, the least value, the enumeration), in words
DOMAINS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "replicas": (_map(_id, _record({"addr": _text, "checkCode": _text})),
                 "a map from broker ids (>= 1) to records {addr, checkCode} of strings"),
    "nextBrokerId": (_id, "an integer >= 1"),
    "masterId": (_master, f"a broker id (>= 1) or {NO_MASTER} (none)"),
    "masterEpoch": (_nat, "an integer >= 0"),
    "syncStateSet": (_ids, "a set of broker ids (>= 1)"),
    "syncStateSetEpoch": (_nat, "an integer >= 0"),
    "alive": (_map(is_int, _record({"epoch": _nat, "maxOffset": _nat, "priority": _nat})),
              "a map from broker ids to records {epoch, maxOffset, priority} of integers >= 0"),
    "electTriesLeft": (lambda v: _nat(v) and v <= ELECT_MASTER_MAX_RETRY_COUNT,
                       f"an integer from 0 to {ELECT_MASTER_MAX_RETRY_COUNT}"),
    "metaFile": (_nat, f"a broker id, or {NO_ID} (none)"),
    "tempFile": (_record({"brokerId": _nat, "checkCode": _text}),
                 "a record {brokerId, checkCode}: an integer >= 0 and a string"),
    "regState": (_among(REG_STATES), f"one of {', '.join(sorted(REG_STATES))}"),
    "addr": (_text, "a string"),
    "role": (_among(ROLES), f"one of {', '.join(sorted(ROLES))}"),
    "localMasterEpoch": (_nat, "an integer >= 0"),
    "localSyncStateSetEpoch": (_nat, "an integer >= 0"),
    "log": (_pairs, "a list of (message, epoch) tuples of integers"),
    "flushed": (_nat, "an integer >= 0"),
    "epochFile": (_pairs, "a list of (epoch, startOffset) tuples of integers"),
    "confirmOffset": (_nat, "an integer >= 0"),
    "localMasterId": (_master, f"a broker id (>= 1) or {NO_MASTER} (none)"),
    "localSyncStateSet": (_ids, "a set of broker ids (>= 1)"),
    "haState": (_among(HA_STATES), f"one of {', '.join(sorted(HA_STATES))}"),
    "acks": (_map(is_int, _nat), "a map from broker ids to offsets (integers >= 0)"),
    "pendingAlter": (_record({"newSyncStateSet": _ids, "code": _text, "syncStateSetEpoch": lambda v: is_int(v) and v >= -1,
                              "delivered": lambda v: isinstance(v, bool)}),
                     "a record {newSyncStateSet, code, syncStateSetEpoch, delivered}"),
    "brokerRole": (_among(BROKER_ROLES), f"one of {', '.join(BROKER_ROLES)}"),
    "term": (_nat, "an integer >= 0"),
}


def outside(name: str, value: Any) -> str | None:
    """Why no state of the model has ``value`` as a node's ``name`` (its domain, in words); None where some may."""
    domain = DOMAINS.get(name)
    if domain is None or domain[0](value):
        return None
    return f"no state of the model has it: {name} is {domain[1]}"


# ---- the bounds -------------------------------------------------------------------------------------------------------

class Steps:
    """The most steps a behaviour the search may find takes from Init to the state an event observes (module
    docstring), and the most of them that raise ``nextBrokerId`` (RAISERS)."""

    def __init__(self, merged: Merged, max_gap: int, clock_counts_steps: bool, raisers_unobserved: bool):
        self.merged, self.max_gap, self.clocks = merged, max_gap, clock_counts_steps
        self.raisers_unobserved = raisers_unobserved
        m = merged
        self.values = [[m.value(i) for i in ids] for ids in m.by_node]
        self.place = {i: (k, c) for k, ids in enumerate(m.by_node) for c, i in enumerate(ids)}
        # per node, per count c of its events, how many of the first c have an action, and a RAISERS one
        self.actions = [_prefix([m.events[i].action is not None for i in ids]) for ids in m.by_node]
        self.raisers = [_prefix([m.events[i].action is not None and m.events[i].action["tag"] in RAISERS for i in ids])
                        for ids in m.by_node]

    def _before(self, i: int) -> list[int]:
        """Per node, how many of its events may be consumed before event ``i`` or are it (the first that many)."""
        k, c = self.place[i]
        edge = self.merged.value(i) + self.merged.window
        return [c + 1 if j == k else bisect.bisect_right(values, edge) for j, values in enumerate(self.values)]

    def unobserved(self, i: int) -> int:
        counts = self._before(i)
        most = self.max_gap * sum(counts)  # a gap before each event that may come before i, and before i
        clock = self.merged.events[i].clock
        return min(most, clock) if self.clocks and clock is not None else most

    def steps(self, i: int) -> int:
        """The most steps from Init to the state event ``i`` observes."""
        return sum(row[n] for row, n in zip(self.actions, self._before(i), strict=True)) + self.unobserved(i)

    def raised(self, i: int) -> int:
        """The most steps that raise ``nextBrokerId`` from Init to the state event ``i`` observes."""
        logged = sum(row[n] for row, n in zip(self.raisers, self._before(i), strict=True))
        return logged + (self.unobserved(i) if self.raisers_unobserved else 0)


def _prefix(flags: Sequence[bool]) -> list[int]:
    out = [0]
    for flag in flags:
        out.append(out[-1] + flag)
    return out


def _past(e: Event, steps: Steps, design: str, processes: int) -> tuple[str, str, str] | None:
    """The first value ``e`` observes past what the steps before it reach: (field, value, why)."""
    o, i = e.observe, e.index
    total = None

    def most() -> int:
        nonlocal total
        total = steps.steps(i) if total is None else total
        return total

    ids = 1 + steps.raised(i)
    numbered = processes if design != CONTROLLER else 0
    raise_words = ("SendApplyBrokerId and ApplyBrokerId raise it, by one: at most "
                   f"{ids - 1} of them come before this event{' (its clock, the gaps)' if steps.raisers_unobserved else ''}")
    if e.node == CONTROLLER_NODE:
        if is_int(o.get("nextBrokerId")) and o["nextBrokerId"] > ids:
            return "nextBrokerId", str(o["nextBrokerId"]), f"nextBrokerId is at most {ids}: it starts at 1 and only {raise_words}"
        for name in ("masterEpoch", "syncStateSetEpoch"):
            if is_int(o.get(name)) and o[name] > most():
                return name, str(o[name]), _steps_words(name, most())
        return None
    temp = o.get("tempFile")
    if isinstance(temp, Mapping) and is_int(temp.get("brokerId")) and temp["brokerId"] > ids:
        return "tempFile.brokerId", str(temp["brokerId"]), (f"a temp file's broker id is the controller's nextBrokerId, at "
                                                            f"most {ids}: it starts at 1 and only {raise_words}")
    if is_int(o.get("metaFile")) and o["metaFile"] > max(ids, numbered):
        return "metaFile", str(o["metaFile"]), (f"a meta file's broker id is a temp file's, at most the controller's "
                                                f"nextBrokerId, at most {ids}: it starts at 1 and only {raise_words}")
    for name in ("localMasterEpoch", "localSyncStateSetEpoch", "flushed", "confirmOffset"):
        if is_int(o.get(name)) and o[name] > most():
            return name, str(o[name]), _steps_words(name, most())
    for name in ("log", "epochFile"):
        entries = o.get(name)
        if not _pairs(entries):
            continue
        if name == "log" and len(entries) > most():
            return name, f"{len(entries)} entries", _steps_words("its length", most())
        for entry in entries:
            if max(entry) > most():
                what = "a message id or an epoch" if name == "log" else "an epoch or an offset"
                return name, show(entry), _steps_words(what, most())
    return None


def _steps_words(what: str, most: int) -> str:
    return (f"{what} is at most the steps before this event, {most} (the events that may come before it, and the gap "
            f"before each): each step raises it by at most one")


# ---- the facts between two events -------------------------------------------------------------------------------------

class _Fixed:
    """What the events so far in the candidate order fixed of the facts that hold (facts.py), and the event that did."""

    def __init__(self, kinds: frozenset[str]):
        self.kinds = kinds
        self.meta: dict[str, tuple[int, Event]] = {}  # process -> its metaFile, once written
        self.counters: dict[str, tuple[int, Event]] = {}  # controller counter -> its largest value so far
        self.replicas: dict[int, tuple[Any, Event]] = {}  # broker id -> its checkCode
        self.messages: dict[int, tuple[tuple[int, int], Event]] = {}  # message id -> (offset, epoch)

    def contradiction(self, e: Event) -> tuple[str, str, str] | None:
        """The first fact an earlier event fixed that ``e`` contradicts; then ``e``'s own facts are kept."""
        o = e.observe
        found: tuple[str, str, str] | None = None
        if e.node == CONTROLLER_NODE:
            if "counters" in self.kinds:
                for name in COUNTERS:
                    value = o.get(name)
                    seen = self.counters.get(name)
                    if is_int(value) and seen is not None and value < seen[0]:
                        found = found or (name, str(value), _fixed(f"{name} was {seen[0]}", seen[1], "counters",
                                                                   "never decreases"))
                    if is_int(value) and (seen is None or value > seen[0]):
                        self.counters[name] = (value, e)
            replicas = o.get("replicas")
            if "replicas" in self.kinds and isinstance(replicas, Mapping):
                for b, (code, where) in sorted(self.replicas.items()):
                    now = replicas.get(b)
                    now_code = now.get("checkCode") if isinstance(now, Mapping) else "<unbound>"
                    if now_code != code:
                        found = found or (f"replicas[{b}]", show(now_code), _fixed(f"broker id {b} was bound to {show(code)}",
                                                                                   where, "replicas", "stays bound to it"))
                for b, r in replicas.items():
                    if isinstance(r, Mapping) and b not in self.replicas:
                        self.replicas[b] = (r.get("checkCode"), e)
        else:
            meta = o.get("metaFile")
            seen = self.meta.get(e.node)
            if "metaFile" in self.kinds and is_int(meta):
                if seen is not None and meta != seen[0]:
                    found = ("metaFile", str(meta), _fixed(f"{e.node}'s metaFile was {seen[0]}", seen[1], "metaFile",
                                                            "stays once written"))
                elif seen is None and meta != NO_ID:
                    self.meta[e.node] = (meta, e)
        if "messages" in self.kinds and _pairs(o.get("log")):
            for offset, (m, epoch) in enumerate(o["log"]):
                seen_at = self.messages.setdefault(m, ((offset, epoch), e))
                if seen_at[0] != (offset, epoch) and found is None:
                    found = ("log", show((m, epoch)), _fixed(f"message {m} was at (offset, epoch) {show(seen_at[0])}",
                                                           seen_at[1], "messages", "keeps the offset and epoch it was "
                                                           "written at"))
        return found


def _fixed(what: str, where: Event, fact: str, rule: str) -> str:
    return f"it contradicts {where.where}, where {what}; it {rule} (facts.py, {fact}), and no step that breaks that can come between"


def unreachable(log: Log, merged: Merged, unobserved: Iterable[str], max_gap: int) -> Refusal | None:
    """The first event of ``merged`` (``log``'s candidate order) whose observation no behaviour reaches (module
    docstring), where the search may take steps of the tags ``unobserved`` unobserved with at most ``max_gap`` between
    two events; None where there is none."""
    tags = frozenset(unobserved)
    steps = Steps(merged, max_gap, log.clock_counts_steps, bool(tags & RAISERS))
    logged = {e.action["tag"] for e in merged.events if e.action is not None}
    kinds = kinds_for(tags, log.config.options) & {"metaFile", "counters", "replicas", "messages"}
    kinds = frozenset(k for k in kinds if not BREAKERS[k] & logged)
    fixed = _Fixed(kinds)
    design, processes = log.config.options.design, len(log.config.processes)
    for e in merged.events:
        for name, value in e.observe.items():
            why = outside(name, value)
            if why is not None:
                return Refusal(e, f"observe.{name}", show(value), why)
        past = _past(e, steps, design, processes)
        if past is None:
            past = fixed.contradiction(e)
        if past is not None:
            field, value, why = past
            return Refusal(e, f"observe.{field}", value, why)
    return None
