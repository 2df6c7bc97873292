"""A broker process (MODEL.md §4): its configuration, its disk (identity files, commit log, epoch file,
confirmOffset checkpoint: RocketMQ's ``DefaultMessageStore``, the store the HA objects use), recovery on every
open of the disk, crash, restart and flush, the disk faults of MODEL.md §9 (a crash tearing the last record,
a wiped disk), and while it runs its volatile :class:`~autoswitch.impl.replicas_manager.ReplicasManager`, or in the
designs RIP-44 replaced (a ``broker.conf`` on its disk, ``impl/store_config.py``) its
:class:`~autoswitch.impl.master_slave.MasterSlaveManager` or :class:`~autoswitch.impl.dledger.DLedgerServer`.
"""

from __future__ import annotations

from collections.abc import Callable

from .client import ControllerClient
from .commit_log import COMMIT_LOG_FILE, open_commit_log
from .config import BrokerConfig
from .dledger import DLedgerServer
from .epoch_file import EPOCH_FILE, EpochFile
from .event_log import EventSink
from .ha import BrokerSet
from .master_slave import MasterSlaveManager
from .metadata import META_FILE, TEMP_META_FILE, load_meta
from .protocol import NO_BROKER_ID
from .replicas_manager import ReplicasManager
from .states import S_REGISTERED, S_ROLE_NONE, S_SLAVE, IllegalStateError, RegisterState
from .storage import Storage
from .store_config import load_store_config

__all__ = ["BrokerConfig", "BrokerProcess", "CheckCodeClock"]

CONFIRM_OFFSET_FILE = "confirmOffset"  # the confirmOffset checkpoint (a storage that re-reads on recovery)
_UP_STATES = "/".join(s.value for s in RegisterState if s is not RegisterState.DOWN)
# every file of a broker's store, which a wipe deletes
STORE_FILES = (META_FILE, TEMP_META_FILE, COMMIT_LOG_FILE, EPOCH_FILE, CONFIRM_OFFSET_FILE)
# written (durably) before a wipe deletes anything and deleted after it: a store opened with it finishes the wipe, so
# a wipe cut short anywhere recovers to the disk before it (no marker yet) or after it (the marker on disk)
WIPE_MARKER = "wipeInProgress"
Running = ReplicasManager | MasterSlaveManager | DLedgerServer  # a running broker's volatile state, by its design


class CheckCodeClock:
    """The timestamp source of fresh registerCheckCodes (a logical clock: one tick per use)."""

    __slots__ = ("now",)

    def __init__(self) -> None:
        self.now = 0

    def tick(self) -> int:
        now = self.now
        self.now = now + 1
        return now


class BrokerProcess:
    """A broker process: its configuration, its disk (``storage`` with the identity files, the commit
    log, the epoch file and the confirmOffset checkpoint, all kept across crashes), its current address,
    and while it runs its ``replicas_manager`` (None when DOWN). ``acked_upto`` / ``seen_upto`` are
    bookkeeping of the ghost sets: every message of the log below them is in ``acked`` / ``seen``."""

    __slots__ = (
        "name",
        "config",
        "storage",
        "address",
        "client",
        "clock",
        "on_become_master",
        "replicas_manager",
        "broker_set",
        "meta_id",
        "commit_log",
        "epoch_file",
        "confirm_offset",
        "acked_upto",
        "seen_upto",
        "events",
        "_durable",
    )

    def __init__(
        self,
        name: str,
        config: BrokerConfig,
        storage: Storage,
        address: str,
        client: ControllerClient,
        clock: CheckCodeClock,
        on_become_master: Callable[[str, int], None],
        broker_set: BrokerSet | None = None,
        events: EventSink | None = None,
    ) -> None:
        self.name = name
        self.events = events
        self.config = config
        self.storage = storage
        self.address = address
        self.client = client
        self.clock = clock
        self.on_become_master = on_become_master
        if broker_set is None:
            broker_set = BrokerSet()
        self.broker_set = broker_set
        broker_set.processes.append(self)
        self._durable = storage.durable
        self._open_disk()
        self.replicas_manager: Running | None = self._start()

    def _open_disk(self) -> None:
        """Read the store from the disk and recover it (on start, and after a wipe): a wipe begun (WIPE_MARKER) is
        finished first."""
        storage = self.storage
        if storage.read(WIPE_MARKER) is not None:
            for name in STORE_FILES:
                storage.delete(name)
            storage.delete(WIPE_MARKER)
        meta = load_meta(storage)
        self.meta_id = NO_BROKER_ID if meta is None else meta.broker_id
        self.commit_log = open_commit_log(storage)
        self._load_epoch_file()
        self.confirm_offset = self._read_confirm_offset()
        self.acked_upto = 0
        self.seen_upto = 0
        self._recover()

    def _start(self) -> Running:
        """The volatile state the broker starts with, by its configuration on disk: controller mode without a
        ``broker.conf``, else 4.x master-slave or DLedger mode."""
        config = load_store_config(self.storage)
        if config is None:
            return ReplicasManager(self)
        if config.enable_dleger_commit_log:
            return DLedgerServer(self, self.broker_set)
        return MasterSlaveManager(self, self.broker_set)

    def _load_epoch_file(self) -> None:
        """The epoch file as the disk holds it, writing its changes to this broker's event sink."""
        self.epoch_file = EpochFile.load(self.storage)
        self.epoch_file.events = self.events
        self.epoch_file.node = self.name

    def _emit(self, action: dict[str, object], observe: dict[str, object] | None = None) -> None:
        """This broker's step ``action`` to the event sink (the process parameter is the node), with what it
        ``observe``s after it."""
        if self.events is not None:
            self.events.emit(self.name, action, observe)

    @property
    def register_state(self) -> RegisterState:
        manager = self.replicas_manager
        return RegisterState.DOWN if manager is None else manager.state

    def _read_confirm_offset(self) -> int:
        text = self.storage.read(CONFIRM_OFFSET_FILE)
        return int(text) if text else 0

    def set_confirm_offset(self, offset: int) -> None:
        """confirmOffset, checkpointed on a durable storage (``Storage.durable``). The checkpoint is written
        after the step's log and epoch file writes: a crash between them recovers the previous confirmOffset,
        clamped to the log end (no message is shown that was not shown before; tests/unit/test_crash_points.py)."""
        self.confirm_offset = offset
        if self._durable:
            self.storage.write(CONFIRM_OFFSET_FILE, str(offset))

    def truncate(self, offset: int) -> None:
        """Truncate the log, the epoch file and confirmOffset to ``offset`` (the handshake's point)."""
        self.commit_log.truncate(offset)
        self.epoch_file.truncate_suffix_by_offset(offset)
        if self.confirm_offset > offset:
            self.set_confirm_offset(offset)
        if self.acked_upto > offset:
            self.acked_upto = offset
        if self.seen_upto > offset:
            self.seen_upto = offset

    def flush(self) -> None:
        """Flush (spec/Replication.tla)."""
        if self.replicas_manager is None:
            raise IllegalStateError(f"{self.name} is DOWN")
        log = self.commit_log
        if log.flushed >= len(log.entries):
            raise IllegalStateError(f"{self.name} has nothing to flush")
        self._emit({"tag": "Flush"})
        log.flush()

    def crash(self) -> None:
        """Crash (spec/Broker.tla); a durable storage's commit log, epoch file and checkpoint are read back
        first, then recovered as on every start."""
        if self.replicas_manager is None:
            raise IllegalStateError(f"{self.name} is DOWN, not {_UP_STATES}")
        self._emit({"tag": "Crash"})
        self._down()

    def _down(self, torn: bool = False) -> None:
        """The crash itself: volatile state gone, the disk read back and recovered (``torn``: CrashTorn's)."""
        self.broker_set.drop_connections_to(self.meta_id)
        self.replicas_manager = None
        self.commit_log.recover()
        if self._durable:
            self._load_epoch_file()
            self.confirm_offset = self._read_confirm_offset()
        self._recover(torn)

    def _recover(self, torn: bool = False) -> None:
        """The disk's recovery on every start (RocketMQ ``DefaultMessageStore.recover``), after the commit log has
        recovered its valid (flushed) prefix: confirmOffset is clamped to the log end; the epoch file is kept whole
        under ``rocketmq`` and cut to the log end under the Kafka policies and after CrashTorn (``torn``)
        (RecoveredEpochFile, spec/Broker.tla)."""
        leo = len(self.commit_log.entries)
        if torn or self.broker_set.config.policy != "rocketmq":
            self.epoch_file.truncate_suffix_by_offset(leo)
        if self.confirm_offset > leo:
            self.set_confirm_offset(leo)
        if self.acked_upto > leo:
            self.acked_upto = leo
        if self.seen_upto > leo:
            self.seen_upto = leo

    def torn_crash_enabled(self) -> bool:
        """CrashTorn's guard (spec/Broker.tla): up, and the last durable record ``kept - 1`` (``kept`` = the
        flushed prefix, min(flushed, LEO)) lies above confirmOffset, is not acknowledged to a producer, and was
        reported to no master by an ack at or beyond ``kept``, and, unless it is a slave, is in no other process's log."""
        if self.replicas_manager is None:
            return False
        kept = self.commit_log.flushed
        if kept <= self.confirm_offset or self.commit_log.entries[kept - 1][0] in self.broker_set.acked:
            return False
        me, record = self.meta_id, self.commit_log.entries[kept - 1]
        slave = self.replicas_manager.role is S_SLAVE  # its master has the record: another copy does not matter
        for process in self.broker_set.processes:
            manager = process.replicas_manager
            if manager is not None and manager.ha_service.acks.get(me, -1) >= kept:
                return False
            theirs = process.commit_log.entries
            if not slave and process is not self and len(theirs) >= kept and theirs[kept - 1] == record:
                return False
        return True

    def crash_torn(self) -> None:
        """CrashTorn (spec/Broker.tla): the crash tears the log's last durable record on the disk
        (:meth:`CommitLog.tear_last_record`); the crash's recovery cuts it, with confirmOffset as after any
        :meth:`crash`, and the epoch file is cut to the recovered log end (:meth:`_recover`: CrashTorn keeps the
        earlier cut, refinement 38)."""
        if not self.torn_crash_enabled():
            raise IllegalStateError(f"{self.name}: no torn crash (DOWN, or the last durable record is confirmed, acked or reported)")
        self._emit({"tag": "CrashTorn"})
        self.commit_log.tear_last_record()
        self._down(torn=True)

    def wipe_disk(self) -> None:
        """WipeDisk (spec/Broker.tla): a DOWN broker's store is deleted (the files of ``STORE_FILES`` in order,
        through the storage) and opened again empty, as a replaced disk; the next start registers a new broker id."""
        if self.replicas_manager is not None:
            raise IllegalStateError(f"{self.name} is {self.replicas_manager.state}, not DOWN")
        self._emit({"tag": "WipeDisk"})
        self.storage.write(WIPE_MARKER, "")
        self._open_disk()

    def restart(self, address: str, config: BrokerConfig | None = None) -> None:
        """Restart (spec/Broker.tla), with ``config`` the operator's edit of the broker's cluster or broker
        name (trace kinds)."""
        if self.replicas_manager is not None:
            raise IllegalStateError(f"{self.name} is {self.replicas_manager.state}, not DOWN")
        self.address = address
        if config is not None:
            self.config = config
        self.replicas_manager = ReplicasManager(self)
        manager = self.replicas_manager  # the startup line: the role and registration state it starts in
        self._emit({"tag": "Restart", "addr": address}, {"role": manager.role.value, "regState": manager.state.value})

    def start(self) -> None:
        """MsRestart (spec/MasterSlave.tla), DlRestart (spec/DLedger.tla): a DOWN broker of the designs RIP-44 replaced
        starts by its ``broker.conf`` (controller mode's brokers start with :meth:`restart`)."""
        if self.replicas_manager is not None:
            raise IllegalStateError(f"{self.name} is {self.replicas_manager.state}, not DOWN")
        if load_store_config(self.storage) is None:
            raise IllegalStateError(f"{self.name} has no broker.conf: a controller-mode broker")
        self.replicas_manager = self._start()

    def consume(self) -> None:
        """Consume (spec/Replication.tla): a consumer reads the store below its confirmOffset; in 4.x the whole log
        (Visible, spec/Designs.tla: the ReputMessageService dispatches every message stored)."""
        manager = self.replicas_manager
        if manager is None or manager.state is not S_REGISTERED:
            raise IllegalStateError(f"{self.name} is {self.register_state}, not {S_REGISTERED}")
        if manager.role is S_ROLE_NONE:
            raise IllegalStateError(f"{self.name} has no role")
        entries = self.commit_log.entries
        visible = len(entries) if isinstance(manager, MasterSlaveManager) else min(self.confirm_offset, len(entries))
        done = self.seen_upto
        if visible <= done:
            raise IllegalStateError(f"{self.name} shows nothing new")
        seen = self.broker_set.seen
        fresh = [m for m, _ in entries[done:visible] if m not in seen]
        self.seen_upto = visible  # every message below is seen now, or already was
        if not fresh:
            raise IllegalStateError(f"{self.name} shows nothing new")
        self._emit({"tag": "Consume"})
        seen.update(fresh)
