"""How many steps a state is at least from what an event observes (``autoswitch validate``; spec/README.md, "Event
logs"), by the counters it shows: each term counts a quantity that one step moves by at most one, so no behaviour
takes fewer steps. The search uses it twice: it skips a node from which the unobserved steps left (with the events'
own) cannot cover the distance to an event ahead (search._Problem.hopeless, as messages_needed does for messages
written), and it takes first the unobserved steps whose state is nearest to the events ahead (Search._unobserved),
so that it writes, transfers, elects and beats where the log shows that they happened rather than in Next's order.

| an event observes | the term | why (reference/) |
|---|---|---|
| the controller's ``masterEpoch``, ``syncStateSetEpoch``, ``nextBrokerId`` | the value less the controller's | controller.py: each is set to one more, kept, or reset to its initial value (ControllerMetadataLoss, CleanBrokerData), from which it climbs one a step again |
| a process's ``localMasterEpoch`` or ``localSyncStateSetEpoch`` other than its own | the value less the controller's ``masterEpoch`` (``syncStateSetEpoch``) | broker.py: a process takes its epochs from the controller's answers, computed from the controller's state when the request is handled (a late one's too: faults.deliver_late) |
| an entry of the controller's ``alive`` or a master's ``acks`` other than the state's | one step per entry (the heartbeat, the Ack that sets it), then the steps its sender's log takes to end at the offset: the largest over the entries of the offset less the log end of the process that sends it, or, for a heartbeat from a longer log, the step that cuts it (the least over the processes that may: one with that broker id or none yet, every other only after WipeDisk, which empties its log; none for a process whose late heartbeat pending reports that broker id and offset, faults.late_request) | controller.py broker_heartbeat: the sender's (epoch, log end), SendHeartbeat, which changes no log; replication.py Ack: the slave's log end, and Handshake: the point it cuts the slave's log at; a step appends at most one entry to one log (Write, Transfer) |
| a process's ``log`` | its length less the process's log end | the same |
| a process's ``confirmOffset``, ``flushed``, or its ``epochFile``'s last start offset (this one with synchronous flush only) | the value less the process's log end | each is at most the log end in every state: each is set to a log end or the least of one and another value (acks.py, replication.py, masterslave.py, dledger.py), and a truncation or a crash cuts each with the log (truncate_slave, broker.crash_keeping); the epoch file is cut by a truncation and a torn crash, and by a crash under the Kafka policies only (broker.recovered_epoch_file: RocketMQ's restart keeps it whole), so with asynchronous flush a crash may leave an entry starting past the recovered log end |

The distance is the largest counter term, or the reports and the entries lacking, where larger. tests/unit/test_distance.py
checks that it is at most the steps between every two states of every committed trace and sampled walk.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from attrs import frozen

from autoswitch.conformance.logs.events import CONTROLLER_NODE, Event
from autoswitch.conformance.logs.facts import COUNTERS  # the controller's: observed variable -> Controller attribute
from autoswitch.conformance.trace.vocabulary import is_int
from autoswitch.reference import System
from autoswitch.reference.state import NO_ID, Process

BROKER_HEARTBEAT = "BrokerHeartbeat"  # the controller-level request (a late heartbeat's record), whose maxOffset is any
# a process's epochs: the observed variable -> (the Process attribute, the Controller attribute it is taken from)
LOCAL = {"localMasterEpoch": ("local_master_epoch", "master_epoch"),
         "localSyncStateSetEpoch": ("local_sync_state_set_epoch", "sync_state_set_epoch")}


@frozen
class Terms:
    """What one event observes that the distance counts: the controller's counters, the node's epochs, ``alive``'s
    entries (broker id, epoch, maxOffset: none where a broker's heartbeat is not the only one, messages_needed), the
    node's ``acks`` (broker id, offset) and the entries its log has at least (-1: none): its length, its confirmOffset, its
    flushed offset, its epoch file's last start offset (where ``epochs_within_log``: synchronous flush, the table above)."""

    node: str
    counters: tuple[tuple[str, int], ...] = ()
    local: tuple[tuple[str, str, int], ...] = ()
    alive: tuple[tuple[int, int, int], ...] = ()
    acks: tuple[tuple[int, int], ...] = ()
    log: int = -1

    @classmethod
    def of(cls, e: Event, brokers_beat: bool, epochs_within_log: bool = True) -> Terms | None:
        """The terms of event ``e`` (None: it shows no counter)."""
        o, controller = e.observe, e.node == CONTROLLER_NODE
        counters = tuple((attr, o[name]) for name, attr in COUNTERS.items() if controller and is_int(o.get(name)))
        local = tuple((mine, theirs, o[name]) for name, (mine, theirs) in LOCAL.items()
                      if not controller and is_int(o.get(name)))
        alive: list[tuple[int, int, int]] = []
        if controller and brokers_beat and isinstance(o.get("alive"), Mapping):
            for b, live in o["alive"].items():
                if is_int(b) and isinstance(live, Mapping) and is_int(live.get("epoch")) and is_int(live.get("maxOffset")):
                    alive.append((b, live["epoch"], live["maxOffset"]))
        acks = tuple((b, v) for b, v in o["acks"].items() if is_int(b) and is_int(v)) \
            if not controller and isinstance(o.get("acks"), Mapping) else ()
        log = -1
        if not controller:  # the log's length, and what is at most the log end (the table above)
            epochs = o.get("epochFile")
            last = epochs[-1] if epochs_within_log and isinstance(epochs, Sequence) and epochs else None
            shown = [len(o["log"]) if isinstance(o.get("log"), Sequence) else -1, o.get("confirmOffset"), o.get("flushed"),
                     last[1] if isinstance(last, Sequence) and len(last) == 2 else None]
            log = max(v for v in shown if is_int(v))
        terms = cls(e.node, counters, local, tuple(alive), acks, log)
        return terms if counters or local or alive or acks or log > 0 else None

    def steps(self, s: System) -> int:
        """The fewest steps from ``s`` to a state where the event's observations of counters may hold (the event's own
        step among them, where it has one)."""
        c, proc = s.controller, s.procs.get(self.node)
        counters = max((value - getattr(c, attr) for attr, value in self.counters), default=0)
        if proc is not None:
            for mine, theirs, value in self.local:
                if getattr(proc, mine) != value:
                    counters = max(counters, value - getattr(c, theirs))
        reports, lacking = 0, 0
        for b, epoch, offset in self.alive:
            live = c.alive.get(b)
            if live is None or (live.epoch, live.max_offset) != (epoch, offset):
                reports += 1
                lacking = max(lacking, _lacking(s, b, offset, True))
        if proc is not None:
            for b, offset in self.acks:
                if proc.acks.get(b) != offset:
                    reports += 1
                    lacking = max(lacking, _lacking(s, b, offset, False))
            lacking = max(lacking, self.log - proc.leo)
        return max(counters, reports + lacking)


def _lacking(s: System, broker_id: int, offset: int, beat: bool) -> int:
    """The fewest steps the log of the process that reports ``offset`` as broker ``broker_id`` still takes to end there
    (Terms), in a heartbeat where ``beat`` (else an Ack)."""
    return max(0, min(_lacks(q, broker_id, offset, beat, s.late.get(p) if beat else None) for p, q in s.procs.items()))


def _lacks(q: Process, broker_id: int, offset: int, beat: bool, late: Mapping[str, Any] | None) -> int:
    if late is not None and (late.get("tag"), late.get("brokerId"), late.get("maxOffset")) == (BROKER_HEARTBEAT, broker_id, offset):
        return 0  # its late heartbeat reports it (a late request is computed when sent: faults.late_request)
    if q.meta_file not in (broker_id, NO_ID):
        return offset
    # a log longer than the offset is cut first, by a step of its own where a heartbeat reports it (a Handshake cuts
    # the slave's log and sets the master's ack at once)
    return int(beat) if q.leo > offset else offset - q.leo
