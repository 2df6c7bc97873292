"""The data path of a broker (MODEL.md §5, spec/Replication.tla), shaped like RocketMQ 5.x's HA:
:class:`AutoSwitchHAService` is the master side (writes, the acks of connected slaves, confirmOffset and
the producer acks, syncStateSet expand and shrink), :class:`AutoSwitchHAClient` the slave side (handshake,
transfer, ack). Beside them, what the brokers of one set share: :class:`BrokerSet` (the options, the peer
directory an HA client reaches its master by, the HA links cut between two brokers, and the ghost message
sets ``acked`` and ``seen``) and :class:`PendingAlter`.

A running broker's ``ReplicasManager`` creates one of each and passes in what they use: its store (log,
epoch file, confirmOffset: the :class:`MessageStore` protocol, which ``BrokerProcess`` provides) and itself
(role and epochs: the :class:`Replicas` protocol). This module imports neither.

With an event sink (the store's ``events``; docs/INSTRUMENTING.md) each step writes its action when it is taken, the
master its confirmOffset when it moves, the slave its log, confirmOffset and HA state after a handshake's truncation.
"""

from __future__ import annotations

from typing import Protocol

from . import acks
from .acks import NO_RECOMPUTE, SET_RECOMPUTE
from .commit_log import CommitLog
from .config import HAConfig
from .epoch_file import EpochFile
from .event_log import EventSink
from .protocol import Response
from .states import (
    S_HA_NONE,
    S_HA_READY,
    S_HA_TRANSFER,
    S_MASTER,
    S_REGISTERED,
    S_SLAVE,
    HAState,
    IllegalStateError,
    RegisterState,
    Role,
)
from .storage import Storage


class AckTable(Protocol):
    """A running broker's master side as the broker set's links see it: the acked offset of each connected slave."""

    acks: dict[int, int]


class Connection(Protocol):
    """A running broker's slave side as the broker set's links see it: its connection state to its master."""

    ha_state: HAState


class Running(Protocol):
    """What the broker set's links read of any running broker, whatever its design (``ReplicasManager``, or
    ``MasterSlaveManager`` and ``DLedgerServer`` of the designs RIP-44 replaced)."""

    @property
    def state(self) -> RegisterState: ...

    @property
    def role(self) -> Role: ...

    @property
    def master_id(self) -> int: ...

    @property
    def ha_service(self) -> AckTable: ...

    @property
    def ha_client(self) -> Connection: ...


class Replicas(Protocol):
    """What the HA objects read of their ``ReplicasManager``."""

    @property
    def state(self) -> RegisterState: ...

    @property
    def role(self) -> Role: ...

    @property
    def master_epoch(self) -> int: ...

    @property
    def master_id(self) -> int: ...

    @property
    def ha_service(self) -> AutoSwitchHAService: ...

    @property
    def ha_client(self) -> AutoSwitchHAClient: ...

    def report_sync_state_set_changed(self, new_sync_state_set: frozenset[int]) -> None:
        """Propose ``new_sync_state_set`` to the controller (RocketMQ's syncStateSet-changed listener)."""


class MessageStore(Protocol):
    """What the HA objects use of a broker's store (RocketMQ ``DefaultMessageStore``): its name and id, its disk
    (the configuration files of the designs RIP-44 replaced), the commit log, the epoch file, confirmOffset with its
    checkpoint, the ghost watermark ``acked_upto`` and, while it runs, its ``ReplicasManager``."""

    acked_upto: int

    @property
    def name(self) -> str: ...

    @property
    def meta_id(self) -> int: ...

    @property
    def storage(self) -> Storage: ...

    @property
    def commit_log(self) -> CommitLog: ...

    @property
    def epoch_file(self) -> EpochFile: ...

    @property
    def confirm_offset(self) -> int: ...

    @property
    def replicas_manager(self) -> Running | None: ...

    @property
    def events(self) -> EventSink | None: ...

    def set_confirm_offset(self, offset: int) -> None: ...

    def truncate(self, offset: int) -> None: ...


class PendingAlter:
    """An AlterSyncStateSet whose outcome the master does not know yet (RocketMQ #5663). ``delivered``: the
    answer is on its way; otherwise it was lost and the master learns the outcome from replica info."""

    __slots__ = ("new_sync_state_set", "response", "delivered")

    def __init__(self, new_sync_state_set: frozenset[int], response: Response, delivered: bool) -> None:
        self.new_sync_state_set = new_sync_state_set
        self.response = response
        self.delivered = delivered


class BrokerSet:
    """The processes of one broker set, in configuration order, the HA links cut between two of them (by
    process name: a partition of the network, MODEL.md §9) and the ghost message sets."""

    __slots__ = ("config", "processes", "partitions", "next_msg", "acked", "seen")

    def __init__(self, config: HAConfig | None = None) -> None:
        self.config = config or HAConfig()
        self.processes: list[MessageStore] = []
        self.partitions: set[frozenset[str]] = set()
        self.next_msg = 1
        self.acked: set[int] = set()
        self.seen: set[int] = set()

    def _named(self, name: str) -> MessageStore:
        process = next((p for p in self.processes if p.name == name), None)
        if process is None:
            raise IllegalStateError(f"unknown process {name!r}")
        return process

    def partition_link(self, name: str, peer: str, lost: bool) -> None:
        """PartitionLink (spec/Broker.tla): cut the HA link between two processes; HA handshakes, transfers
        and acks between them wait (:meth:`AutoSwitchHAClient._link`). ``lost``: the connection breaks too,
        each way a slave is connected (TRANSFER) to the other as its master: it goes back to READY and the
        master forgets its ack."""
        link = frozenset((name, peer))
        if name == peer or link in self.partitions:
            raise IllegalStateError(f"the link {name}-{peer} is one process or already cut")
        ends = self._named(name), self._named(peer)
        self.partitions.add(link)
        if not lost:
            return
        for slave, master in (ends, ends[::-1]):
            manager = slave.replicas_manager
            if manager is None or manager.ha_client.ha_state is not S_HA_TRANSFER or manager.master_id != master.meta_id:
                continue
            manager.ha_client.ha_state = S_HA_READY
            if master.replicas_manager is not None:
                master.replicas_manager.ha_service.acks.pop(slave.meta_id, None)

    def heal_link(self, name: str, peer: str) -> None:
        """HealLink (spec/Broker.tla)."""
        link = frozenset((name, peer))
        if link not in self.partitions:
            raise IllegalStateError(f"the link {name}-{peer} is not cut")
        self.partitions.remove(link)

    def process_of(self, broker_id: int) -> MessageStore | None:
        """The first process whose meta file holds ``broker_id`` (the HA client's address lookup)."""
        if broker_id == 0:
            return None
        for process in self.processes:
            if process.meta_id == broker_id:
                return process
        return None

    def drop_connections_to(self, broker_id: int) -> None:
        """The HA connections of ``broker_id`` break (it crashed or changed role): its slaves go back to
        READY and masters forget its ack."""
        if broker_id == 0:
            return
        for process in self.processes:
            manager = process.replicas_manager
            if manager is None:
                continue
            client = manager.ha_client
            if client.ha_state is S_HA_TRANSFER and manager.master_id == broker_id:
                client.ha_state = S_HA_READY
            else:
                manager.ha_service.acks.pop(broker_id, None)


class AutoSwitchHAService:
    """The master side of a running broker: its local syncStateSet, the acked offsets of its connected
    slaves (a key = a connected slave) and an alter in flight; its steps are enabled while its broker acts
    as master (ActsAsMaster)."""

    __slots__ = ("_store", "_replicas", "_broker_set", "sync_state_set", "acks", "pending_alter")

    def __init__(self, store: MessageStore, replicas: Replicas, broker_set: BrokerSet) -> None:
        self._store = store
        self._replicas = replicas
        self._broker_set = broker_set
        self.sync_state_set: frozenset[int] = frozenset()
        self.acks: dict[int, int] = {}
        self.pending_alter: PendingAlter | None = None

    def acts_as_master_in(self, master_epoch: int) -> bool:
        """ActsAsMaster (spec/Replication.tla) in ``master_epoch``: the master a slave of that epoch connects to."""
        replicas = self._replicas
        return replicas.state is S_REGISTERED and replicas.role is S_MASTER and replicas.master_epoch == master_epoch

    def _acts_as_master(self) -> None:
        """ActsAsMaster (spec/Replication.tla)."""
        replicas = self._replicas
        if replicas.state is not S_REGISTERED:
            raise IllegalStateError(f"{self._store.name} is {replicas.state}, not {S_REGISTERED}")
        if replicas.role is not S_MASTER:
            raise IllegalStateError(f"{self._store.name} is not a master")

    def settle(self, recompute: str) -> None:
        """SettledConfirm and SettledAcked (spec/Broker.tla) after a master's step with event ``recompute``:
        checkpoint the new confirmOffset and add the newly acknowledged messages to the ghost ``acked``."""
        store = self._store
        config = self._broker_set.config
        entries = store.commit_log.entries
        leo = len(entries)
        me = store.meta_id
        local = self.sync_state_set
        pending = self.pending_alter
        proposed = None if pending is None else pending.new_sync_state_set
        confirm = acks.confirm_offset(config, me, local, proposed, leo, self.acks, store.confirm_offset, recompute)
        if confirm != store.confirm_offset:
            store.set_confirm_offset(confirm)
            events = store.events
            if events is not None:
                events.emit(store.name, observe={"confirmOffset": confirm})
        upto = acks.acked_upto(config, me, local, proposed, leo, self.acks)
        done = store.acked_upto
        if upto > done:
            self._broker_set.acked.update([m for m, _ in entries[done:upto]])
            store.acked_upto = upto

    def receive_ack(self, slave_id: int, offset: int) -> None:
        """A connected slave's ack (the handshake's point or a later LEO): record it and settle with AckEvent."""
        self.acks[slave_id] = offset
        self.settle(acks.ack_event(slave_id, self.sync_state_set))

    def change_to_master(self, master_epoch: int, sync_state_set: frozenset[int]) -> None:
        """The data-path half of AdoptRole as master (spec/Broker.tla): the controller's syncStateSet, the
        epoch file of NewMasterEpochFile, then settle. ``rocketmq``: haService.changeToMaster's rule (its
        refusal is ignored, as ReplicasManager.changeToMaster does); the Kafka policies: Partition.makeLeader
        assigns (epoch, LEO) only from 2.1.0 (KAFKA-7415, option ``kafka_leader_epoch_on_election``)."""
        self.sync_state_set = sync_state_set
        store = self._store
        leo = len(store.commit_log.entries)
        config = self._broker_set.config
        if config.policy == "rocketmq":
            store.epoch_file.change_to_master(master_epoch, leo, config.epoch_reentry_fix)
        elif config.kafka_leader_epoch_on_election:
            store.epoch_file.kafka_assign(master_epoch, leo, True)
        self.settle(SET_RECOMPUTE)

    def write(self) -> tuple[int, int] | None:
        """Write (spec/Replication.tla): the appended message's id and offset (RocketMQ
        ``AppendMessageResult``), or None when refused (IN_SYNC_REPLICAS_NOT_ENOUGH)."""
        self._acts_as_master()
        broker_set = self._broker_set
        config = broker_set.config
        pending = self.pending_alter
        proposed = None if pending is None else pending.new_sync_state_set
        store = self._store
        if store.events is not None:
            store.events.emit(store.name, {"tag": "Write"})
        if acks.in_sync_count(config, self.sync_state_set, proposed) < config.min_in_sync_replicas:
            return None
        msg = broker_set.next_msg
        log = store.commit_log
        offset = len(log.entries)
        master_epoch = self._replicas.master_epoch
        if config.policy != "rocketmq":  # Kafka's Log.append assigns the record's epoch
            store.epoch_file.kafka_assign(master_epoch, offset, config.kafka_leader_epoch_on_election)
        log.append((msg, master_epoch), not config.async_flush)
        broker_set.next_msg = msg + 1
        self.settle(NO_RECOMPUTE)
        return msg, offset

    def _no_alter_in_flight(self) -> None:
        if self.pending_alter is not None:
            raise IllegalStateError(f"{self._store.name} has an alter in flight")

    def expand(self, broker_id: int) -> None:
        """Expand (spec/Replication.tla), proposed through the ReplicasManager."""
        self._acts_as_master()
        self._no_alter_in_flight()
        offset = self.acks.get(broker_id)
        if broker_id in self.sync_state_set or offset is None:
            raise IllegalStateError(f"{broker_id} is in the set or not connected")
        store = self._store
        if offset < store.confirm_offset or offset < store.epoch_file.last_start():
            raise IllegalStateError(f"{broker_id} has not caught up")
        broker_set = self._broker_set
        peer = broker_set.process_of(broker_id)
        if peer is not None and peer.name in broker_set.config.async_learners:
            raise IllegalStateError(f"{broker_id} is an async learner")
        if store.events is not None:
            store.events.emit(store.name, {"tag": "Expand", "brokerId": broker_id})
        self._replicas.report_sync_state_set_changed(self.sync_state_set | {broker_id})

    def shrink(self, broker_id: int) -> None:
        """Shrink (spec/Replication.tla), proposed through the ReplicasManager."""
        self._acts_as_master()
        self._no_alter_in_flight()
        store = self._store
        if broker_id not in self.sync_state_set or broker_id == store.meta_id:
            raise IllegalStateError(f"{broker_id} is not another member")
        if self.acks.get(broker_id, -1) >= len(store.commit_log.entries):
            raise IllegalStateError(f"{broker_id} is connected and caught up")
        if store.events is not None:
            store.events.emit(store.name, {"tag": "Shrink", "brokerId": broker_id})
        self._replicas.report_sync_state_set_changed(self.sync_state_set - {broker_id})


class AutoSwitchHAClient:
    """The slave side of a running broker: its HA connection state to the master it follows."""

    __slots__ = ("_store", "_replicas", "_broker_set", "ha_state")

    def __init__(self, store: MessageStore, replicas: Replicas, broker_set: BrokerSet) -> None:
        self._store = store
        self._replicas = replicas
        self._broker_set = broker_set
        self.ha_state = S_HA_NONE

    def _link(self, ha_state: HAState) -> tuple[MessageStore, AutoSwitchHAService]:
        """SlaveLink (spec/Replication.tla): the master's store and HA service; the link to the master must
        not be cut (PartitionLink), and the master refuses the connection unless it acts as master in the
        slave's master epoch."""
        replicas = self._replicas
        name = self._store.name
        if replicas.state is not S_REGISTERED:
            raise IllegalStateError(f"{name} is {replicas.state}, not {S_REGISTERED}")
        if replicas.role is not S_SLAVE or self.ha_state is not ha_state:
            raise IllegalStateError(f"{name} is not a slave in HA state {ha_state}")
        broker_set = self._broker_set
        peer = broker_set.process_of(replicas.master_id)
        if peer is None:
            raise IllegalStateError(f"{name} follows broker {replicas.master_id}, which no process holds")
        if broker_set.partitions and frozenset((name, peer.name)) in broker_set.partitions:
            raise IllegalStateError(f"the link {name}-{peer.name} is cut")
        master = peer.replicas_manager
        service = None if master is None else master.ha_service
        if not isinstance(service, AutoSwitchHAService) or not service.acts_as_master_in(replicas.master_epoch):
            raise IllegalStateError(f"{peer.name} is not master in epoch {replicas.master_epoch}")
        return peer, service

    def handshake(self) -> int:
        """Handshake (spec/Replication.tla): the truncation point, -1 when there is none (NO_CONSISTENT_POINT,
        the client stays READY)."""
        peer, master = self._link(S_HA_READY)
        store = self._store
        config = self._broker_set.config
        point = config.truncate(
            store.epoch_file,
            len(store.commit_log.entries),
            store.confirm_offset,
            peer.epoch_file,
            len(peer.commit_log.entries),
            config.kafka_leader_epoch_on_election,
        )
        events = store.events
        if events is not None:
            events.emit(store.name, {"tag": "Handshake"})
        if point < 0:
            return -1
        store.truncate(point)
        self.ha_state = S_HA_TRANSFER
        if events is not None:  # the truncation done: the log, its confirmOffset and the connection as they are now
            events.emit(store.name, observe={"log": list(store.commit_log.entries), "confirmOffset": store.confirm_offset,
                                             "haState": S_HA_TRANSFER.value})
        master.receive_ack(store.meta_id, point)
        return point

    @staticmethod
    def _transfer_epoch_entry(peer: MessageStore, leo: int) -> tuple[int, int]:
        """CanTransferFrom + TransferEpochFile (spec/Replication.tla), ``rocketmq``: the master's epoch entry
        containing ``leo``, carried in the packet header (AutoSwitchHAConnection: none, no data is sent)."""
        ef = peer.epoch_file
        i = ef.entry_at_offset(leo)
        if i < 0:
            raise IllegalStateError(f"{peer.name} has no epoch entry for offset {leo}")
        return ef.epochs[i], ef.starts[i]

    def transfer(self) -> None:
        """Transfer (spec/Replication.tla); the epoch entry is appended with the strict rule, its result
        ignored."""
        peer, _ = self._link(S_HA_TRANSFER)
        store = self._store
        log = store.commit_log
        leo = len(log.entries)
        source = peer.commit_log.entries
        if leo >= len(source):
            raise IllegalStateError(f"{store.name} has all of the master's log")
        config = self._broker_set.config
        rocketmq = config.policy == "rocketmq"
        epoch, start = self._transfer_epoch_entry(peer, leo) if rocketmq else (source[leo][1], leo)
        if store.events is not None:
            store.events.emit(store.name, {"tag": "Transfer"})
        if rocketmq:
            store.epoch_file.append(epoch, start)
        else:  # Kafka's follower Log.append assigns the record's epoch
            store.epoch_file.kafka_assign(epoch, start, config.kafka_leader_epoch_on_election)
        log.append(source[leo], not config.async_flush)
        confirm = min(peer.confirm_offset, leo + 1)
        if confirm != store.confirm_offset:
            store.set_confirm_offset(confirm)

    def ack(self) -> None:
        """Ack (spec/Replication.tla)."""
        _, master = self._link(S_HA_TRANSFER)
        store = self._store
        leo = len(store.commit_log.entries)
        me = store.meta_id
        if master.acks.get(me) == leo:
            raise IllegalStateError(f"the master already has {store.name}'s offset")
        if store.events is not None:
            store.events.emit(store.name, {"tag": "Ack"})
        master.receive_ack(me, leo)
