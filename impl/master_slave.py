"""RocketMQ 4.x master-slave HA (spec/MasterSlave.tla), shaped like 4.9's store: a broker's role is its configuration
(``broker.conf``: ``brokerRole`` and a slave's ``haMasterAddress``, ``impl/store_config.py``), there is no controller
and no epoch. :class:`MasterSlaveManager` is a running broker's role state (what ``BrokerController`` reads of its
``MessageStoreConfig``) with its :class:`DefaultHAService` (master side: ``CommitLog.handleHA``, the
``HAConnection`` of each slave, ``push2SlaveMaxOffset``, ``GroupTransferService``) and :class:`DefaultHAClient`
(slave side: connect, ``dispatchReadRequest``, ``reportSlaveMaxOffset``); :func:`operator_failover` is the
operator's reconfiguration of the set.

Differs from the code as the reference does (reference/masterslave.py): the master streams from the slave's offset
even for an empty slave (every log of the model fits in one commit-log file); ``push2SlaveMaxOffset`` is the
largest offset a connected slave reported; the producer sends one message at a time (a SYNC_MASTER takes a write
only when the previous one is answered); a write's answer ends the model's confirmOffset of the master (what it has
answered), which 4.x does not have.
"""

from __future__ import annotations

from enum import StrEnum

from .ha import BrokerSet, MessageStore
from .protocol import NO_MASTER_ID
from .states import S_HA_NONE, S_HA_TRANSFER, S_MASTER, S_REGISTERED, S_SLAVE, HAState, IllegalStateError, Role
from .storage import Storage
from .store_config import BrokerRole, MessageStoreConfig, load_store_config, save_store_config


class PutMessageStatus(StrEnum):
    """RocketMQ ``PutMessageStatus`` of a 4.x write (the ones the model has). PUT_OK: appended; a SYNC_MASTER's
    answer waits for a slave (:class:`GroupCommitRequest`)."""

    PUT_OK = "PUT_OK"
    FLUSH_SLAVE_TIMEOUT = "FLUSH_SLAVE_TIMEOUT"
    SLAVE_NOT_AVAILABLE = "SLAVE_NOT_AVAILABLE"


class GroupCommitRequest:
    """A SYNC_MASTER's write waiting for a slave (``CommitLog.GroupCommitRequest``): answered once
    ``push2SlaveMaxOffset`` reaches ``next_offset``."""

    __slots__ = ("next_offset",)

    def __init__(self, next_offset: int) -> None:
        self.next_offset = next_offset


class DefaultHAService:
    """The master side of a running 4.x broker (``HAService``). ``acks``: slave id -> the offset its ``HAConnection``
    last read from the slave (a key = an open connection); ``request``: the GroupTransferService's waiting write."""

    __slots__ = ("_store", "_replicas", "_broker_set", "acks", "request")

    def __init__(self, store: MessageStore, replicas: MasterSlaveManager, broker_set: BrokerSet) -> None:
        self._store = store
        self._replicas = replicas
        self._broker_set = broker_set
        self.acks: dict[int, int] = {}
        self.request: GroupCommitRequest | None = None

    @property
    def push2_slave_max_offset(self) -> int:
        """``push2SlaveMaxOffset``: the furthest offset a connected slave has reported."""
        return max(self.acks.values(), default=0)

    def is_slave_ok(self, master_put_where: int) -> bool:
        """``HAService.isSlaveOK``: a slave is connected and within ``haMaxGapNotInSync`` of the write's end."""
        return bool(self.acks) and master_put_where - self.push2_slave_max_offset < self._broker_set.config.ha_max_gap

    def _acts_as_master(self) -> None:
        replicas = self._replicas
        if replicas.state is not S_REGISTERED or replicas.role is not S_MASTER:
            raise IllegalStateError(f"{self._store.name} is not a master")

    def put_message(self) -> tuple[PutMessageStatus, int, int]:
        """MsWrite (spec/MasterSlave.tla): ``CommitLog.putMessage`` then ``handleHA``: the status, the message and its
        offset. An ASYNC_MASTER's write is acknowledged at once; a SYNC_MASTER's waits for a slave, or is answered
        SLAVE_NOT_AVAILABLE at once when no slave is OK (acknowledged when producers take it for a success)."""
        self._acts_as_master()
        if self.request is not None:
            raise IllegalStateError(f"{self._store.name} has a write waiting for a slave")
        store, broker_set = self._store, self._broker_set
        config = broker_set.config
        log = store.commit_log
        msg, offset = broker_set.next_msg, len(log.entries)
        log.append((msg, 0), not config.async_flush)
        broker_set.next_msg = msg + 1
        leo = offset + 1
        if self._replicas.broker_role is not BrokerRole.SYNC_MASTER:
            self._answer(leo, acked=True)
            return PutMessageStatus.PUT_OK, msg, offset
        if not self.is_slave_ok(leo):
            self._answer(leo, acked=config.slave_not_available_ok)
            return PutMessageStatus.SLAVE_NOT_AVAILABLE, msg, offset
        self.request = GroupCommitRequest(leo)
        self.do_wait_transfer()
        return PutMessageStatus.PUT_OK, msg, offset

    def _answer(self, leo: int, acked: bool) -> None:
        """The producer has its answer for the log up to ``leo``: the model's confirmOffset moves there; ``acked``:
        the answered messages are acknowledged (the ghost ``acked``)."""
        store = self._store
        if acked:
            self._broker_set.acked.update(m for m, _ in store.commit_log.entries[store.confirm_offset:leo])
        store.set_confirm_offset(leo)
        self.request = None

    def do_wait_transfer(self) -> None:
        """MsSettled (spec/MasterSlave.tla): ``GroupTransferService.doWaitTransfer`` acknowledges the waiting write
        once ``push2SlaveMaxOffset`` reaches its end."""
        request = self.request
        if request is not None and self.push2_slave_max_offset >= request.next_offset:
            self._answer(request.next_offset, acked=True)

    def notify_transfer_some(self, slave_id: int, offset: int) -> None:
        """A slave's report of its max offset, read by its ``HAConnection`` (the first one opens the connection)."""
        self.acks[slave_id] = offset
        self.do_wait_transfer()

    def slave_timeout(self) -> PutMessageStatus:
        """MsSlaveTimeout (spec/MasterSlave.tla): the waiting write is answered FLUSH_SLAVE_TIMEOUT after
        ``syncFlushTimeout`` (not acknowledged)."""
        self._acts_as_master()
        request = self.request
        if request is None:
            raise IllegalStateError(f"{self._store.name} has no write waiting")
        self._answer(request.next_offset, acked=False)
        return PutMessageStatus.FLUSH_SLAVE_TIMEOUT


class DefaultHAClient:
    """The slave side of a running 4.x broker (``HAService.HAClient``): its connection to the master at
    ``haMasterAddress`` (NONE before the first connect, READY after the master went away, TRANSFER connected)."""

    __slots__ = ("_store", "_replicas", "_broker_set", "ha_state")

    def __init__(self, store: MessageStore, replicas: MasterSlaveManager, broker_set: BrokerSet) -> None:
        self._store = store
        self._replicas = replicas
        self._broker_set = broker_set
        self.ha_state: HAState = S_HA_NONE

    def _master(self) -> tuple[MessageStore, DefaultHAService]:
        """The master this slave follows, which runs as MASTER over an uncut link (MsLink, spec/MasterSlave.tla)."""
        replicas, name = self._replicas, self._store.name
        if replicas.state is not S_REGISTERED or replicas.role is not S_SLAVE:
            raise IllegalStateError(f"{name} is not a slave")
        broker_set = self._broker_set
        peer = broker_set.process_of(replicas.master_id)
        master = None if peer is None else peer.replicas_manager
        if not isinstance(master, MasterSlaveManager) or master.role is not S_MASTER:
            raise IllegalStateError(f"{name}'s master {replicas.master_id} does not run as MASTER")
        assert peer is not None
        if frozenset((name, peer.name)) in broker_set.partitions:
            raise IllegalStateError(f"the link {name}-{peer.name} is cut")
        return peer, master.ha_service

    def connect_master(self) -> None:
        """MsConnect (spec/MasterSlave.tla): ``connectMaster``, then the first ``reportSlaveMaxOffset``, which the
        master's new ``HAConnection`` takes as the offset to stream from and as the slave's ack."""
        if self.ha_state is S_HA_TRANSFER:
            raise IllegalStateError(f"{self._store.name} is connected")
        _, master = self._master()
        self.ha_state = S_HA_TRANSFER
        master.notify_transfer_some(self._store.meta_id, len(self._store.commit_log.entries))

    def _connected(self) -> tuple[MessageStore, DefaultHAService]:
        if self.ha_state is not S_HA_TRANSFER:
            raise IllegalStateError(f"{self._store.name} is not connected")
        return self._master()

    def dispatch_read_request(self) -> None:
        """MsTransfer (spec/MasterSlave.tla): the master's ``WriteSocketService`` sends the entry at the slave's
        offset; ``dispatchReadRequest`` appends it after whatever the slave holds (no epoch, no truncation)."""
        peer, _ = self._connected()
        log = self._store.commit_log
        leo = len(log.entries)
        source = peer.commit_log.entries
        if leo >= len(source):
            raise IllegalStateError(f"{self._store.name} has the master's whole log")
        log.append(source[leo], not self._broker_set.config.async_flush)

    def report_slave_max_offset(self) -> None:
        """MsAck (spec/MasterSlave.tla): ``reportSlaveMaxOffset``; the master's waiting write may be acknowledged."""
        _, master = self._connected()
        me, leo = self._store.meta_id, len(self._store.commit_log.entries)
        if master.acks.get(me) == leo:
            raise IllegalStateError(f"the master already has {self._store.name}'s offset")
        master.notify_transfer_some(me, leo)


class MasterSlaveManager:
    """A running 4.x broker (MsRestart, spec/MasterSlave.tla): it starts in its configured role, a master with no
    write waiting (the model's confirmOffset at its log end), a slave following ``haMasterAddress``. Always
    REGISTERED (no registration in 4.x); created on start, dropped by a crash."""

    __slots__ = ("_process", "state", "role", "master_id", "broker_role", "ha_service", "ha_client")

    def __init__(self, process: MessageStore, broker_set: BrokerSet) -> None:
        config = load_store_config(process.storage)
        if config is None or config.enable_dleger_commit_log:
            raise IllegalStateError(f"{process.name} is not configured as a 4.x master or slave")
        self._process = process
        self.state = S_REGISTERED
        self.role: Role = S_SLAVE
        self.master_id = NO_MASTER_ID
        self.ha_service = DefaultHAService(process, self, broker_set)
        self.ha_client = DefaultHAClient(process, self, broker_set)
        self.broker_role = config.broker_role
        if config.is_master:
            self.become_master()
        else:
            self.follow(config.ha_master_address)

    def become_master(self) -> None:
        """Start (or, on the operator's failover, restart) as the master: no connection, no write waiting."""
        self.role = S_MASTER
        self.master_id = NO_MASTER_ID
        self.ha_client.ha_state = S_HA_NONE
        self.ha_service.acks = {}
        self.ha_service.request = None
        process = self._process
        leo = len(process.commit_log.entries)
        if process.confirm_offset != leo:
            process.set_confirm_offset(leo)

    def follow(self, master_id: int) -> None:
        """Start (or restart) as a slave of ``master_id``, not connected yet."""
        self.role = S_SLAVE
        self.master_id = master_id
        self.ha_client.ha_state = S_HA_NONE


def _configured_as_master(storage: Storage) -> bool:
    config = load_store_config(storage)
    return config is not None and config.is_master


def operator_failover(broker_set: BrokerSet, name: str) -> None:
    """OperatorFailover (spec/MasterSlave.tla): with every configured master down, the operator rewrites each broker's
    ``broker.conf`` (the running slave ``name`` becomes the master, every other broker a slave of it) and restarts
    the running brokers in their new roles (a clean restart loses nothing of a log)."""
    target = next((p for p in broker_set.processes if p.name == name), None)
    if target is None:
        raise IllegalStateError(f"unknown process {name!r}")
    manager = target.replicas_manager
    if not isinstance(manager, MasterSlaveManager) or manager.broker_role is not BrokerRole.SLAVE:
        raise IllegalStateError(f"{name} is not a running broker configured as a slave")
    alive = [p.name for p in broker_set.processes if p.replicas_manager is not None and _configured_as_master(p.storage)]
    if alive:
        raise IllegalStateError(f"the configured master {', '.join(alive)} still runs")
    master_role = BrokerRole.SYNC_MASTER if broker_set.config.sync_master else BrokerRole.ASYNC_MASTER
    for process in broker_set.processes:
        running = process.replicas_manager
        if process is target:
            save_store_config(process.storage, MessageStoreConfig(master_role))
            manager.broker_role = master_role
            manager.become_master()
            continue
        save_store_config(process.storage, MessageStoreConfig(BrokerRole.SLAVE, target.meta_id))
        if isinstance(running, MasterSlaveManager):
            running.broker_role = BrokerRole.SLAVE
            running.follow(target.meta_id)
