"""Facts a state fixes for every later state, and the pruning they give ``autoswitch validate`` (spec/README.md, "Event
logs"): a node of the search whose state contradicts what an event it has not consumed observes explains no log,
whatever steps follow, since that event is consumed later, in a state the fact still holds in (search._Problem.hopeless).

Each fact is a consequence of the reference's rules, not a rule of its own; tests/unit/test_stable_facts.py checks each
on every committed trace and the campaign's sampled walks. A fact holds unless one of its ``breakers`` is taken between
the two states: the search uses it only where no breaker is an unobserved step it may take (kinds_for), and an event's
observation only once every breaker among the events that may come before it is consumed (Facts.of).

| fact | breakers | why it holds (reference/) |
|---|---|---|
| ``replicas``: a broker id bound in the controller's ``replicas`` stays bound, to its checkCode | ControllerMetadataLoss, CleanBrokerData | controller.py: apply_broker_id binds an unbound id only; register_broker changes an entry's addr only |
| ``counters``: the controller's ``nextBrokerId``, ``masterEpoch`` and ``syncStateSetEpoch`` never decrease | ControllerMetadataLoss, CleanBrokerData | controller.py: each is set to one more, or kept |
| ``messages``: a message keeps the offset and the epoch it was written at | none | a Write takes ``nextMsg`` as its message's id and is the only step that changes it, by one; a log gains an entry only by a Write or a copy of another log's at the same offset (replication.py, masterslave.py, dledger.py) |
| ``lost``: a message written (its id below ``nextMsg``) that no log holds is never held again | none | the same |
| ``unwritten``: a message not yet written (its id ``nextMsg`` or above) is written at an epoch some process holds as its ``localMasterEpoch``, or at the controller's ``masterEpoch`` or above | ControllerMetadataLoss, CleanBrokerData (anywhere in the log: Facts.of) | replication.py: a Write takes its process's ``localMasterEpoch``; a process's changes only to an epoch the controller answers (broker.py), which never decreases (``counters``), or to 0 at a restart |
| ``metaFile``: a process's ``metaFile``, once written, stays | WipeDisk | broker.py: WriteMetaFile writes it once, from INITIAL's registration; Crash and Restart keep the disk |
| ``alive``: a broker id in the controller's ``alive`` stays in it | HeartbeatExpire, ControllerFailover, ControllerLeaderElected, ControllerMetadataLoss | controller.py: broker_heartbeat sets an entry, heartbeat_expire deletes one, controller_failover empties the table (cluster.py: a new controller leader's too); faults.py: ControllerMetadataLoss starts the controller afresh |
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from autoswitch.conformance.logs.events import CONTROLLER_NODE
from autoswitch.conformance.logs.merge import Merged
from autoswitch.conformance.trace.vocabulary import is_int
from autoswitch.reference import System
from autoswitch.reference.state import DOWN, INITIAL, NO_ID, Process

# per fact, the steps that may break it between two states
BREAKERS: Mapping[str, frozenset[str]] = {
    "replicas": frozenset({"ControllerMetadataLoss", "CleanBrokerData"}),
    "counters": frozenset({"ControllerMetadataLoss", "CleanBrokerData"}),
    "messages": frozenset(),
    "lost": frozenset(),
    "unwritten": frozenset({"ControllerMetadataLoss", "CleanBrokerData"}),
    "metaFile": frozenset({"WipeDisk"}),
    "alive": frozenset({"HeartbeatExpire", "ControllerFailover", "ControllerLeaderElected", "ControllerMetadataLoss"}),
}
COUNTERS = {"nextBrokerId": "next_broker_id", "masterEpoch": "master_epoch", "syncStateSetEpoch": "sync_state_set_epoch"}


def kinds_for(possible: Iterable[str]) -> frozenset[str]:
    """The facts no step of ``possible`` (the tags of the steps a log's behaviours may take) breaks."""
    possible = frozenset(possible)
    return frozenset(kind for kind, breakers in BREAKERS.items() if not breakers & possible)


def _shown(node: str, o: Mapping[str, Any], kinds: frozenset[str]) -> dict[str, Any]:
    """What one observation of ``node`` shows of the facts: ``replicas`` (broker id -> checkCode), each counter,
    ``alive`` (its broker ids), ``metaFile`` and ``log`` (message id -> its offset and epoch); the kinds not asked for
    left out."""
    shown: dict[str, Any] = {}
    if node == CONTROLLER_NODE:
        if "replicas" in kinds and isinstance(o.get("replicas"), Mapping):
            shown["replicas"] = {b: r.get("checkCode") if isinstance(r, Mapping) else None for b, r in o["replicas"].items()}
        shown.update({name: o[name] for name in COUNTERS if "counters" in kinds and is_int(o.get(name))})
        if "alive" in kinds and isinstance(o.get("alive"), Mapping):
            shown["alive"] = frozenset(o["alive"])
        return shown
    if "metaFile" in kinds and is_int(o.get("metaFile")):
        shown["metaFile"] = o["metaFile"]
    if kinds & {"messages", "lost", "unwritten"} and isinstance(o.get("log"), Sequence):
        shown["log"] = {entry[0]: (offset, entry[1]) for offset, entry in enumerate(o["log"])
                        if isinstance(entry, Sequence) and len(entry) == 2 and is_int(entry[0])}
    return shown


class Facts:
    """What the observations of a log's nodes show of the facts of ``kinds`` (kinds_for), for the states before them:
    per node and per count ``c`` of its observations consumed, the next of them to show each variable, and where; per
    message id a ``log`` shows, its offset and epoch and the last of the node's observations to show it. ``threats``:
    per node, per observation, the events (node position, count) of a breaker of that node's facts that may come
    before it (a breaker breaks its process's facts, or the controller's where it has none: Facts.of); an observation
    is used only once they are consumed."""

    def __init__(self, nodes: Sequence[str], observations: Sequence[Sequence[Mapping[str, Any]]], kinds: frozenset[str],
                 threats: Sequence[Sequence[Sequence[tuple[int, int]]]] | None = None):
        self.nodes, self.kinds = tuple(nodes), kinds
        self.threats = threats if threats is not None else [[()] * len(seen) for seen in observations]
        # per node: per count c, the next observation (at c or after) of each variable: name -> (value, its count)
        self.next: list[list[Mapping[str, tuple[Any, int]]]] = []
        # per node: message id -> ((its offset, its epoch), the last count c whose observation shows it)
        self.epochs: list[dict[int, tuple[tuple[int, int], int]]] = []
        for node, seen in zip(nodes, observations, strict=True):
            rows: list[Mapping[str, tuple[Any, int]]] = [{}] * (len(seen) + 1)
            epochs: dict[int, tuple[tuple[int, int], int]] = {}
            for c in range(len(seen) - 1, -1, -1):
                shown = _shown(node, seen[c], kinds)
                log = shown.pop("log", {})
                rows[c] = {**rows[c + 1], **{name: (value, c) for name, value in shown.items()}} if shown else rows[c + 1]
                for m, e in log.items():
                    epochs.setdefault(m, (e, c))
            self.next.append(rows)
            self.epochs.append(epochs)

    @classmethod
    def of(cls, merged: Merged, kinds: frozenset[str]) -> Facts:
        """The facts of a log's candidate order (merge.py): each node's events' observations, and the breakers among
        its events, each a threat to the observations of its node that it may precede (``unwritten``, whose breakers
        are the controller's and its observations processes', only in a log without them)."""
        m, place = merged, {node: k for k, node in enumerate(merged.nodes)}
        at = {i: (k, c) for k, ids in enumerate(m.by_node) for c, i in enumerate(ids)}
        tags = frozenset().union(*BREAKERS.values())
        breakers = [(e.index, place.get(e.action.get("process", CONTROLLER_NODE))) for e in m.events
                    if e.action is not None and e.action["tag"] in tags]
        if any(e.action is not None and e.action["tag"] in BREAKERS["unwritten"] for e in m.events):
            kinds -= {"unwritten"}  # a fact of processes' observations broken by the controller's: not used at all
        threats = [[tuple(at[b] for b, owner in breakers if owner == k and (at[b][0] != k or at[b][1] <= c)
                          and (at[b][0] == k or not m.precedes(i, b))) for c, i in enumerate(ids)]
                   for k, ids in enumerate(m.by_node)]
        return cls(m.nodes, [[m.events[i].observe for i in ids] for ids in m.by_node], kinds, threats)

    def _later(self, k: int, c: int, consumed: Sequence[int]) -> dict[str, Any]:
        """What node ``k``'s observations from count ``c`` on show next of each variable, where no breaker may come
        before the observation (its threats are consumed)."""
        rows = self.next[k]
        later = rows[c] if c < len(rows) else {}
        threats = self.threats[k]
        return {name: value for name, (value, at) in later.items()
                if all(consumed[j] > d for j, d in threats[at])}

    def contradiction(self, s: System, consumed: Sequence[int]) -> str | None:
        """The first fact of ``s`` that an observation not yet consumed (``consumed`` of each node) contradicts, in
        words; None where none does."""
        held: dict[int, tuple[int, int]] | None = None
        for k, (node, epochs, c) in enumerate(zip(self.nodes, self.epochs, consumed, strict=True)):
            later = self._later(k, c, consumed)
            if node == CONTROLLER_NODE:
                ctl = s.controller
                want: Mapping[int, Any] = later.get("replicas", {})
                for b, r in ctl.replicas.items() if "replicas" in later else ():
                    if want.get(b, "<unbound>") != r.check_code:
                        return f"replicas: broker id {b} is bound to {r.check_code!r}, later {want.get(b, '<unbound>')!r}"
                for name, attr in COUNTERS.items():
                    if name in later and getattr(ctl, attr) > later[name]:
                        return f"counters: {name} is {getattr(ctl, attr)}, later {later[name]}"
                gone = sorted(set(ctl.alive) - later["alive"]) if "alive" in later else ()
                if gone:
                    return f"alive: broker id {gone[0]} is alive, later not"
                continue
            meta_file = later.get("metaFile")
            proc = s.procs.get(node)
            if meta_file is not None and proc is not None and proc.meta_file not in (NO_ID, meta_file):
                return f"metaFile: {node}'s is {proc.meta_file}, later {meta_file}"
            if not epochs:
                continue
            if held is None:
                held = {m: (offset, e) for p in s.procs.values() for offset, (m, e) in enumerate(p.log)}
            for m, (e, last) in epochs.items():
                if last < c:
                    continue
                if m in held:
                    if "messages" in self.kinds and held[m] != e:
                        return f"messages: message {m} is at (offset, epoch) {held[m]}, later {e}"
                elif m < s.next_msg:
                    if "lost" in self.kinds:
                        return f"lost: message {m} is written (nextMsg {s.next_msg}) and no log holds it, later {node}'s does"
                elif "unwritten" in self.kinds and e[1] < s.controller.master_epoch and \
                        all(p.local_master_epoch != e[1] for p in s.procs.values()):
                    return (f"unwritten: message {m} is not written (nextMsg {s.next_msg}), later at epoch {e[1]}, below the "
                            f"controller's masterEpoch {s.controller.master_epoch} and no process's localMasterEpoch")
        return None


class Expiries:
    """The unobserved faults a behaviour still takes by the ``alive`` fact, for the fault-bounded searches
    (search._Problem.short_of_faults): a broker id leaves the controller's ``alive`` only by a step of its breakers, each
    a fault (liveness.FAULT_KINDS) where ControllerLeaderElected is not among the steps the search may take. So each
    stretch between two of the controller's ``alive`` observations, or between the state and the next one, in which an
    id leaves and no logged event takes a breaker holds an unobserved fault of its own."""

    def __init__(self, merged: Merged):
        self.node = merged.nodes.index(CONTROLLER_NODE) if CONTROLLER_NODE in merged.nodes else -1
        events = [merged.events[i] for i in merged.by_node[self.node]] if self.node >= 0 else []
        breakers = BREAKERS["alive"]
        # per observation of ``alive`` (in the controller's order): its place, its ids, and the places of the breakers
        # among the controller's events up to it (an event's action comes before what it observes)
        self.seen = [(c, frozenset(e.observe["alive"])) for c, e in enumerate(events) if isinstance(e.observe.get("alive"), Mapping)]
        self.breakers = [c for c, e in enumerate(events) if e.action is not None and e.action["tag"] in breakers]
        # per observation, the stretches from it on that hold an unobserved fault
        self.after = [0] * (len(self.seen) + 1)
        for j in range(len(self.seen) - 2, -1, -1):
            (c, ids), (d, later) = self.seen[j], self.seen[j + 1]
            self.after[j] = self.after[j + 1] + int(bool(ids - later) and not self._broken(c + 1, d))

    def _broken(self, start: int, end: int) -> bool:
        """Whether a breaker is among the controller's events ``start`` to ``end`` (places, both included)."""
        k = bisect.bisect_left(self.breakers, start)
        return k < len(self.breakers) and self.breakers[k] <= end

    def needed(self, s: System, consumed: Sequence[int]) -> int:
        """The fewest unobserved faults a behaviour from ``s``, ``consumed`` events of each node, still takes."""
        if self.node < 0:
            return 0
        c = consumed[self.node]
        j = bisect.bisect_left(self.seen, (c,))
        if j == len(self.seen):
            return 0
        d, ids = self.seen[j]
        return self.after[j] + int(bool(set(s.controller.alive) - ids) and not self._broken(c, d))


STARTUP = frozenset({"LoadMetaFile", "LoadTempFile"})  # the steps a process takes at startup, reading its disk


def restarted(proc: Process) -> bool:
    """Whether ``proc`` may take a startup step without crashing first: it is down, or restarted with an identity file on
    disk (Restarts)."""
    return proc.reg_state == DOWN or (proc.reg_state == INITIAL and (proc.meta_file != NO_ID or proc.temp_file is not None))


class Restarts:
    """The unobserved crashes a behaviour still takes before processes' startup steps, for the fault-bounded searches
    (search._Problem.short_of_faults): LoadMetaFile and LoadTempFile start from INITIAL with an identity file on disk,
    which only Restart leaves (AbandonTempFile, the other step to INITIAL, leaves none: broker.py), from DOWN, which only
    a crash leaves (Crash, CrashTorn: broker.crash_keeping), a fault whose process's next event is no logged Restart
    (search.Search._cost). So a process not yet restarted (:func:`restarted`) whose next event takes a startup step
    crashes unobserved before it, and so does one between two of its events, the first showing it up and past startup
    (``regState`` neither INITIAL nor DOWN), the second taking a startup step."""

    def __init__(self, merged: Merged):
        self.nodes = merged.nodes
        # per node: per count c of its events consumed, whether its next event takes a startup step, and the stretches
        # between two of its events from the next on that hold a crash
        self.starts: list[list[bool]] = []
        self.after: list[list[int]] = []
        for node, ids in zip(merged.nodes, merged.by_node, strict=True):
            events = [merged.events[i] for i in ids]
            starts = [node != CONTROLLER_NODE and e.action is not None and e.action["tag"] in STARTUP for e in events]
            after = [0] * (len(events) + 1)
            for c in range(len(events) - 2, -1, -1):
                up = events[c].observe.get("regState") not in (None, INITIAL, DOWN)
                after[c] = after[c + 1] + int(up and starts[c + 1])
            self.starts.append([*starts, False])
            self.after.append(after)

    def needed(self, s: System, consumed: Sequence[int]) -> int:
        """The fewest unobserved crashes a behaviour from ``s``, ``consumed`` events of each node, still takes."""
        needed = 0
        for node, starts, after, c in zip(self.nodes, self.starts, self.after, consumed, strict=True):
            proc = s.procs.get(node)
            if proc is not None:
                needed += after[c] + int(starts[c] and not restarted(proc))
        return needed
