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
| ``epochFile``: the entries a process's epoch file covers (each entry's but the last's, from its start to the next's) hold messages of its epoch, so a later one (offset, epoch) is a message some log holds at that offset and epoch, or one not yet written at an epoch some process holds as its ``localMasterEpoch`` or at the controller's ``masterEpoch`` or above (``messages``, ``lost``, ``unwritten``); the Kafka policies only (kinds_for): RocketMQ's file is what its masters filed, and a master whose append is refused (its last entry starts at its log end: an epoch re-entered without its fix, or an entry a crash kept, refinement 38) writes under the older epoch's entry | ControllerMetadataLoss, CleanBrokerData (anywhere in the log: Facts.of) | epoch_file.py: a master appends its epoch at its log end (ChangeToMaster, KafkaAssign) and writes at that epoch (replication.py: Write), a slave appends the epoch of each entry it copies (Transfer), and every cut cuts a log and its epoch file at one offset (Handshake, CrashKeeping); without the fix a master that re-enters its epoch moves the epoch's start past its entries (traces/truncation/T8-same-epoch-restart) |
| ``localMasterEpoch``: a process's ``localMasterEpoch`` later is its present one, 0, or the controller's ``masterEpoch`` or above | ControllerMetadataLoss, CleanBrokerData (anywhere in the log: Facts.of) | broker.py: AdoptRole sets it only to the ``masterEpoch`` of the controller's answer in the same step (SendRegister, SendElectMaster, SyncReplicaInfo), which is the controller's then and never decreases (``counters``); a crash starts it at 0 (CrashKeeping) |
| ``metaFile``: a process's ``metaFile``, once written, stays | WipeDisk | broker.py: WriteMetaFile writes it once, from INITIAL's registration; Crash and Restart keep the disk |
| ``alive``: a broker id in the controller's ``alive`` stays in it | HeartbeatExpire, ControllerFailover, ControllerLeaderElected, ControllerMetadataLoss | controller.py: broker_heartbeat sets an entry, heartbeat_expire deletes one, controller_failover empties the table (cluster.py: a new controller leader's too); faults.py: ControllerMetadataLoss starts the controller afresh |
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from autoswitch.conformance.logs.events import CONTROLLER_NODE
from autoswitch.conformance.logs.merge import Merged
from autoswitch.conformance.trace.vocabulary import is_int
from autoswitch.reference import Options, System
from autoswitch.reference.broker import GUARDS
from autoswitch.reference.state import DOWN, INITIAL, NO_ID, Process

# per fact, the steps that may break it between two states
BREAKERS: Mapping[str, frozenset[str]] = {
    "replicas": frozenset({"ControllerMetadataLoss", "CleanBrokerData"}),
    "counters": frozenset({"ControllerMetadataLoss", "CleanBrokerData"}),
    "messages": frozenset(),
    "lost": frozenset(),
    "unwritten": frozenset({"ControllerMetadataLoss", "CleanBrokerData"}),
    "localMasterEpoch": frozenset({"ControllerMetadataLoss", "CleanBrokerData"}),
    "epochFile": frozenset({"ControllerMetadataLoss", "CleanBrokerData"}),
    "metaFile": frozenset({"WipeDisk"}),
    "alive": frozenset({"HeartbeatExpire", "ControllerFailover", "ControllerLeaderElected", "ControllerMetadataLoss"}),
}
# the facts of processes' observations that the controller's steps break (Facts.of)
ACROSS = frozenset({"unwritten", "localMasterEpoch", "epochFile"})
COUNTERS = {"nextBrokerId": "next_broker_id", "masterEpoch": "master_epoch", "syncStateSetEpoch": "sync_state_set_epoch"}


def kinds_for(possible: Iterable[str], options: Options | None = None) -> frozenset[str]:
    """The facts no step of ``possible`` (the tags of the steps a log's behaviours may take) breaks, and that hold with
    ``options`` (None: any)."""
    possible = frozenset(possible)
    kinds = frozenset(kind for kind, breakers in BREAKERS.items() if not breakers & possible)
    filed = options is None or options.policy == "rocketmq"  # RocketMQ's file need not name its messages' epochs
    return kinds - {"epochFile"} if filed else kinds


def _shown(node: str, o: Mapping[str, Any], kinds: frozenset[str]) -> dict[str, Any]:
    """What one observation of ``node`` shows of the facts: ``replicas`` (broker id -> checkCode), each counter,
    ``alive`` (its broker ids), ``metaFile``, ``localMasterEpoch``, ``log`` (message id -> its offset and epoch) and
    ``covered`` (the (offset, epoch) pairs its epoch file covers); the kinds not asked for left out."""
    shown: dict[str, Any] = {}
    if node == CONTROLLER_NODE:
        if "replicas" in kinds and isinstance(o.get("replicas"), Mapping):
            shown["replicas"] = {b: r.get("checkCode") if isinstance(r, Mapping) else None for b, r in o["replicas"].items()}
        shown.update({name: o[name] for name in COUNTERS if "counters" in kinds and is_int(o.get(name))})
        if "alive" in kinds and isinstance(o.get("alive"), Mapping):
            shown["alive"] = frozenset(o["alive"])
        return shown
    for name in ("metaFile", "localMasterEpoch"):
        if name in kinds and is_int(o.get(name)):
            shown[name] = o[name]
    if kinds & {"messages", "lost", "unwritten"} and isinstance(o.get("log"), Sequence):
        shown["log"] = {entry[0]: (offset, entry[1]) for offset, entry in enumerate(o["log"])
                        if isinstance(entry, Sequence) and len(entry) == 2 and is_int(entry[0])}
    if "epochFile" in kinds and isinstance(o.get("epochFile"), Sequence):
        entries = [tuple(e) for e in o["epochFile"] if isinstance(e, Sequence) and len(e) == 2 and all(map(is_int, e))]
        shown["covered"] = frozenset((offset, epoch) for (epoch, start), (_, end) in itertools.pairwise(entries)
                                     for offset in range(start, end))
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
        # per node: (offset, epoch) an epoch file covers -> the last count c whose observation shows it
        self.covered: list[dict[tuple[int, int], int]] = []
        for node, seen in zip(nodes, observations, strict=True):
            rows: list[Mapping[str, tuple[Any, int]]] = [{}] * (len(seen) + 1)
            epochs: dict[int, tuple[tuple[int, int], int]] = {}
            covered: dict[tuple[int, int], int] = {}
            for c in range(len(seen) - 1, -1, -1):
                shown = _shown(node, seen[c], kinds)
                log, positions = shown.pop("log", {}), shown.pop("covered", ())
                rows[c] = {**rows[c + 1], **{name: (value, c) for name, value in shown.items()}} if shown else rows[c + 1]
                for m, e in log.items():
                    epochs.setdefault(m, (e, c))
                for position in positions:
                    covered.setdefault(position, c)
            self.next.append(rows)
            self.epochs.append(epochs)
            self.covered.append(covered)

    @classmethod
    def of(cls, merged: Merged, kinds: frozenset[str]) -> Facts:
        """The facts of a log's candidate order (merge.py): each node's events' observations, and the breakers among
        its events, each a threat to the observations of its node that it may precede (ACROSS, whose breakers are the
        controller's and its observations processes', only in a log without them)."""
        m, place = merged, {node: k for k, node in enumerate(merged.nodes)}
        at = {i: (k, c) for k, ids in enumerate(m.by_node) for c, i in enumerate(ids)}
        tags = frozenset().union(*BREAKERS.values())
        breakers = [(e.index, place.get(e.action.get("process", CONTROLLER_NODE))) for e in m.events
                    if e.action is not None and e.action["tag"] in tags]
        if any(e.action is not None and any(e.action["tag"] in BREAKERS[kind] for kind in ACROSS) for e in m.events):
            kinds -= ACROSS  # facts of processes' observations broken by the controller's: not used at all
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
        positions: frozenset[tuple[int, int]] | None = None  # the (offset, epoch) of every entry of every log
        for k, (node, epochs, covered, c) in enumerate(zip(self.nodes, self.epochs, self.covered, consumed, strict=True)):
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
            epoch = later.get("localMasterEpoch")
            if epoch and proc is not None and epoch != proc.local_master_epoch and epoch < s.controller.master_epoch:
                return (f"localMasterEpoch: {node}'s is {proc.local_master_epoch}, later {epoch}, below the controller's "
                        f"masterEpoch {s.controller.master_epoch}")
            unwritable = [position for position, last in covered.items() if last >= c and self._unwritable(s, position[1])]
            if unwritable:
                if positions is None:
                    positions = frozenset((offset, e) for p in s.procs.values() for offset, (_, e) in enumerate(p.log))
                missing = next((position for position in unwritable if position not in positions), None)
                if missing is not None:
                    return (f"epochFile: {node}'s later covers offset {missing[0]} at epoch {missing[1]}; no log holds a "
                            f"message there, and none not yet written (nextMsg {s.next_msg}) is at that epoch, below the "
                            f"controller's masterEpoch {s.controller.master_epoch} and no process's localMasterEpoch")
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
                elif "unwritten" in self.kinds and self._unwritable(s, e[1]):
                    return (f"unwritten: message {m} is not written (nextMsg {s.next_msg}), later at epoch {e[1]}, below the "
                            f"controller's masterEpoch {s.controller.master_epoch} and no process's localMasterEpoch")
        return None

    @staticmethod
    def _unwritable(s: System, epoch: int) -> bool:
        """Whether no message not yet written is written at ``epoch``: it is below the controller's ``masterEpoch`` and no
        process's ``localMasterEpoch`` (``unwritten``)."""
        return epoch < s.controller.master_epoch and all(p.local_master_epoch != epoch for p in s.procs.values())


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


# the steps that change their process's ``regState`` (broker.py: the registration steps, CrashKeeping and Restart;
# designs.py: a design's restart), each only its own process's; tests/unit/test_stable_facts.py checks that no other
# step changes a process's on every committed trace and the sampled walks
REG_STEPS = frozenset({"CreateTempFile", "SendApplyBrokerId", "AbandonTempFile", "WriteMetaFile", "DeleteTempFile",
                       "SendRegister", "LoadMetaFile", "LoadTempFile", "Crash", "CrashTorn", "Restart", "MsRestart",
                       "DlRestart"})


class Guards:
    """The registration states the next event of each process may need, for the search's pruning
    (search._Problem.hopeless): a process none of whose REG_STEPS the search may take unobserved (``unobserved``: the
    actions it may take, explore.NextActions) nor another node's event takes keeps its ``regState`` until its next
    event, so where that event's action has a Guard (broker.py) the state already passes it, or no behaviour from it
    explains the log."""

    def __init__(self, merged: Merged, unobserved: Iterable[Mapping[str, Any]]):
        moving = {a["process"] for a in unobserved if a["tag"] in REG_STEPS}
        moving |= {e.action["process"] for e in merged.events
                   if e.action is not None and e.action["tag"] in REG_STEPS and e.action.get("process") != e.node}
        self.nodes = merged.nodes
        # per node: per count c of its events consumed, the states its next event's guard allows (None: any); None for
        # a node whose regState may change unobserved
        self.allowed: list[list[frozenset[str] | None] | None] = []
        for node, ids in zip(merged.nodes, merged.by_node, strict=True):
            if node == CONTROLLER_NODE or node in moving:
                self.allowed.append(None)
                continue
            row: list[frozenset[str] | None] = []
            for i in ids:
                action = merged.events[i].action
                guard = GUARDS.get(action["tag"]) if action is not None and action.get("process") == node else None
                row.append(frozenset(guard.states) if guard is not None else None)
            self.allowed.append([*row, None])

    def stuck(self, s: System, consumed: Sequence[int]) -> str | None:
        """The first process whose ``regState`` in ``s`` its next event's guard rules out, in words; None where none."""
        for node, allowed, c in zip(self.nodes, self.allowed, consumed, strict=True):
            states = allowed[c] if allowed is not None else None
            proc = s.procs.get(node)
            if states is not None and proc is not None and proc.reg_state not in states:
                return f"regState: {node} is {proc.reg_state}, its next event needs {' or '.join(sorted(states))}"
        return None
