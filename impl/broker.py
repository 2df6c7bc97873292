"""Broker side of controller mode (MODEL.md §4): a broker process with its disk, and while it runs its
volatile ``ReplicasManager`` that registers the broker with the controller and follows its role.

Registration runs ``INITIAL -> TEMP_DONE -> ID_APPLIED -> META_WRITTEN -> META_DONE -> REGISTERED``
(failure: ``TEMP_DONE -> APPLY_FAILED -> INITIAL``), one method per arrow, as the reference actions of
the same names in ``reference/broker.py``. A method called in a state where its action is not enabled
raises :class:`IllegalStateError`. Requests go through a :class:`ControllerClient` whose transport may
lose a response after the controller applied the request: the broker then sees a timeout (None).
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum

from attrs import frozen

from autoswitch.reference.precondition import NotEnabled

from .commit_log import open_commit_log
from .controller import ControllerManager
from .epoch_file import EpochFile
from .ha import ACK_RECOMPUTE, NO_RECOMPUTE, SET_RECOMPUTE, BrokerSet, HAConfig, HAState, PendingAlter
from .metadata import META_FILE, TEMP_META_FILE, BrokerMetadata, TempBrokerMetadata, belongs_to, load_meta, load_temp
from .processor import ControllerRequestProcessor
from .protocol import (
    MASTER_STILL_EXIST,
    NO_MASTER_ID,
    AlterSyncStateSetRequest,
    ApplyBrokerIdRequest,
    BrokerHeartbeatRequest,
    ElectMasterRequest,
    GetNextBrokerIdRequest,
    GetReplicaInfoRequest,
    RegisterBrokerToControllerRequest,
    SUCCESS,
    Response,
    ResponseCode,
)
from .storage import FileStorage, Storage

NO_BROKER_ID = 0  # broker ids start at 1
NOT_LEADER = ResponseCode.CONTROLLER_NOT_LEADER
CONFIRM_OFFSET_FILE = "confirmOffset"  # the confirmOffset checkpoint (file backend)
IN_SYNC_REPLICAS_NOT_ENOUGH = "IN_SYNC_REPLICAS_NOT_ENOUGH"
NO_CONSISTENT_POINT = "NO_CONSISTENT_POINT"
_OK: dict = {"code": "OK"}


class RegisterState(StrEnum):
    """Registration states (reference ``state.py``); DOWN is a process without volatile state."""

    DOWN = "DOWN"
    INITIAL = "INITIAL"
    TEMP_DONE = "TEMP_DONE"
    APPLY_FAILED = "APPLY_FAILED"
    ID_APPLIED = "ID_APPLIED"
    META_WRITTEN = "META_WRITTEN"
    META_DONE = "META_DONE"
    REGISTERED = "REGISTERED"


class Role(StrEnum):
    NONE = "NONE"
    MASTER = "MASTER"
    SLAVE = "SLAVE"


_INITIAL = RegisterState.INITIAL
_TEMP_DONE = RegisterState.TEMP_DONE
_APPLY_FAILED = RegisterState.APPLY_FAILED
_ID_APPLIED = RegisterState.ID_APPLIED
_META_WRITTEN = RegisterState.META_WRITTEN
_META_DONE = RegisterState.META_DONE
_REGISTERED = RegisterState.REGISTERED
_MASTER = Role.MASTER
_SLAVE = Role.SLAVE
_ROLE_NONE = Role.NONE
_HA_NONE = HAState.NONE
_HA_READY = HAState.READY
_HA_TRANSFER = HAState.TRANSFER
_UP_STATES = "/".join(s.value for s in RegisterState if s is not RegisterState.DOWN)


class IllegalStateError(NotEnabled):
    """The broker is not in a state where this operation applies (the spec action is not enabled)."""


@frozen
class BrokerConfig:
    """The broker set this broker belongs to."""

    cluster_name: str
    broker_name: str


class CheckCodeClock:
    """The timestamp source of fresh registerCheckCodes (a logical clock: one tick per use)."""

    __slots__ = ("now",)

    def __init__(self) -> None:
        self.now = 0

    def tick(self) -> int:
        now = self.now
        self.now = now + 1
        return now


class ControllerClient:
    """The brokers' RPC client to the controller leader (RocketMQ ``BrokerOuterAPI``).

    ``lose_next_response`` makes the transport drop the next response after the controller has applied
    the request: the caller gets None (a timeout). ``last_response`` is what the controller last sent,
    as a network observer sees it, delivered or not.
    """

    __slots__ = ("_controller", "lose_next_response", "last_response")

    def __init__(self, controller: ControllerManager | ControllerRequestProcessor) -> None:
        self._controller = controller
        self.lose_next_response = False
        self.last_response: Response | None = None

    def get_next_broker_id(self, request: GetNextBrokerIdRequest) -> Response | None:
        response = self.last_response = self._controller.get_next_broker_id(request)
        return None if self.lose_next_response else response

    def apply_broker_id(self, request: ApplyBrokerIdRequest) -> Response | None:
        response = self.last_response = self._controller.apply_broker_id(request)
        return None if self.lose_next_response else response

    def register_broker(self, request: RegisterBrokerToControllerRequest) -> Response | None:
        response = self.last_response = self._controller.register_broker(request)
        return None if self.lose_next_response else response

    def elect_master(self, request: ElectMasterRequest) -> Response | None:
        response = self.last_response = self._controller.elect_master(request)
        return None if self.lose_next_response else response

    def alter_sync_state_set(self, request: AlterSyncStateSetRequest) -> Response | None:
        response = self.last_response = self._controller.alter_sync_state_set(request)
        return None if self.lose_next_response else response

    def get_replica_info(self, request: GetReplicaInfoRequest) -> Response | None:
        response = self.last_response = self._controller.get_replica_info(request)
        return None if self.lose_next_response else response

    def poll_replica_info(self, request: GetReplicaInfoRequest) -> Response:
        """The GetReplicaInfo poll that decides a broker-triggered election, in the same step: always
        delivered and not the step's observed response (a lost poll would only skip the election)."""
        return self._controller.get_replica_info(request)

    def broker_heartbeat(self, request: BrokerHeartbeatRequest) -> Response | None:
        response = self.last_response = self._controller.broker_heartbeat(request)
        return None if self.lose_next_response else response


class ReplicasManager:
    """Volatile controller-mode state of a running broker: registration state, role, local epochs, and
    the identity it works under; the HA state: the master it follows and the local syncStateSet, as a
    slave the connection state, as a master the acked offsets of connected slaves and an alter in
    flight. Created on start, dropped by a crash."""

    __slots__ = (
        "_process",
        "_storage",
        "_client",
        "_cluster_name",
        "_broker_name",
        "address",
        "state",
        "role",
        "master_epoch",
        "sync_state_set_epoch",
        "broker_id",
        "_temp",
        "master_id",
        "sync_state_set",
        "ha_state",
        "acks",
        "pending_alter",
    )

    def __init__(self, process: BrokerProcess) -> None:
        self._process = process
        self._storage = process.storage
        self._client = process.client
        self._cluster_name = process.config.cluster_name
        self._broker_name = process.config.broker_name
        self.address = process.address
        self.state = _INITIAL
        self.role = Role.NONE
        self.master_epoch = 0
        self.sync_state_set_epoch = 0
        self.broker_id = NO_BROKER_ID
        self._temp: TempBrokerMetadata | None = None
        self.master_id = NO_MASTER_ID
        self.sync_state_set: frozenset[int] = frozenset()
        self.ha_state = _HA_NONE
        self.acks: dict[int, int] = {}  # master: slave id -> acked offset (a key = a connected slave)
        self.pending_alter: PendingAlter | None = None

    def _not_enabled(self, *expected: RegisterState) -> IllegalStateError:
        return IllegalStateError(f"{self._process.name} is {self.state}, not {'/'.join(expected)}")

    def _adopt_role(self, response: Response) -> None:
        """changeToMaster / changeToSlave from a controller answer, only for a master epoch greater than
        the local one (reference ``_adopt_role``)."""
        header = response.header
        master_id = header["masterId"]
        epoch = header["masterEpoch"]
        if master_id == NO_MASTER_ID or epoch <= self.master_epoch:
            return
        process = self._process
        process.broker_set.drop_connections_to(process.meta_id)
        self.master_epoch = epoch
        self.sync_state_set_epoch = header["syncStateSetEpoch"]
        self.master_id = master_id
        self.acks = {}
        self.pending_alter = None
        if master_id == self.broker_id:
            self.role = _MASTER
            self.ha_state = _HA_NONE
            self.sync_state_set = response.body
            self._new_master_epoch_file(epoch)
            process.on_become_master(process.name, epoch)
            self._settle(SET_RECOMPUTE)
        else:
            # changeToSlave: connect to the new master, handshake first
            self.role = _SLAVE
            self.ha_state = _HA_READY
            self.sync_state_set = frozenset()

    def _new_master_epoch_file(self, epoch: int) -> None:
        """NewMasterEpochFile: ``rocketmq``: haService.changeToMaster's rule (its refusal is ignored, as
        ReplicasManager.changeToMaster does); the Kafka policies: Partition.makeLeader assigns (epoch, LEO)
        only from 2.1.0 (KAFKA-7415, option ``kafka_leader_epoch_on_election``)."""
        process = self._process
        leo = len(process.commit_log.entries)
        config = process.broker_set.config
        if config.policy == "rocketmq":
            process.epoch_file.change_to_master(epoch, leo, config.epoch_reentry_fix)
        elif config.kafka_leader_epoch_on_election:
            process.epoch_file.kafka_assign(epoch, leo, True)

    def load_meta_file(self) -> None:
        """LoadMetaFile: a meta file on disk wins; registration goes to META_DONE with its id (whatever
        broker set the file names: :meth:`send_register` checks that)."""
        if self.state is not _INITIAL:
            raise self._not_enabled(_INITIAL)
        meta = load_meta(self._storage)
        if meta is None:
            raise IllegalStateError(f"{self._process.name} has no meta file")
        self.broker_id = meta.broker_id
        self.state = _META_DONE

    def load_temp_file(self) -> None:
        """LoadTempFile: no meta file but a temp file: resume with its (id, checkCode)."""
        if self.state is not _INITIAL:
            raise self._not_enabled(_INITIAL)
        storage = self._storage
        if storage.exists(META_FILE) or not storage.exists(TEMP_META_FILE):
            raise IllegalStateError(f"{self._process.name} has a meta file or no temp file")
        self._temp = load_temp(storage)
        self.state = _TEMP_DONE

    def create_temp_file(self) -> None:
        """CreateTempFile: GetNextBrokerId, then write the temp file with a fresh ``addr;timestamp``
        checkCode."""
        if self.state is not _INITIAL:
            raise self._not_enabled(_INITIAL)
        storage = self._storage
        if storage.exists(META_FILE) or storage.exists(TEMP_META_FILE):
            raise IllegalStateError(f"{self._process.name} already has an identity file")
        response = self._client.get_next_broker_id(GetNextBrokerIdRequest(self._cluster_name, self._broker_name))
        if response is None or response.code is not SUCCESS:  # getNextBrokerId returned null: no temp file
            return
        temp = TempBrokerMetadata(
            self._cluster_name,
            self._broker_name,
            response.header["nextBrokerId"],
            f"{self.address};{self._process.clock.tick()}",
        )
        storage.write(TEMP_META_FILE, temp.encode())
        self._temp = temp
        self.state = _TEMP_DONE

    def metadata_valid(self) -> bool:
        """ReplicasManager.checkMetadataValid: in TEMP_DONE the temp file, in META_DONE the meta file must
        name the configured cluster and broker set."""
        if self.state is _TEMP_DONE:
            return belongs_to(self._temp, self._cluster_name, self._broker_name)
        if self.state is _META_DONE:
            meta = load_meta(self._storage)
            return meta is None or belongs_to(meta, self._cluster_name, self._broker_name)
        return True

    def send_apply_broker_id(self) -> bool:
        """SendApplyBrokerId: ApplyBrokerId(temp id, checkCode); SUCCESS heard -> ID_APPLIED, a refusal or
        a timeout -> APPLY_FAILED. False, with nothing sent and the state kept, when the temp file is of
        another broker set (register() returns false at checkMetadataValid)."""
        if self.state is not _TEMP_DONE:
            raise self._not_enabled(_TEMP_DONE)
        if not self.metadata_valid():
            return False
        temp = self._temp
        response = self._client.apply_broker_id(
            ApplyBrokerIdRequest(self._cluster_name, self._broker_name, temp.broker_id, temp.register_check_code)
        )
        self.state = _ID_APPLIED if response is not None and response.code is SUCCESS else _APPLY_FAILED
        return True

    def abandon_temp_file(self) -> None:
        """AbandonTempFile: after a failed apply, delete the temp file and start again from INITIAL."""
        if self.state is not _APPLY_FAILED:
            raise self._not_enabled(_APPLY_FAILED)
        self._storage.delete(TEMP_META_FILE)
        self._temp = None
        self.state = _INITIAL

    def write_meta_file(self) -> None:
        """WriteMetaFile: persist the applied id in the meta file (the temp file is still there)."""
        if self.state is not _ID_APPLIED:
            raise self._not_enabled(_ID_APPLIED)
        broker_id = self._temp.broker_id
        self._storage.write(META_FILE, BrokerMetadata(self._cluster_name, self._broker_name, broker_id).encode())
        self.broker_id = broker_id
        self._process.meta_id = broker_id
        self.state = _META_WRITTEN

    def delete_temp_file(self) -> None:
        """DeleteTempFile: the meta file is written; drop the temp file."""
        if self.state is not _META_WRITTEN:
            raise self._not_enabled(_META_WRITTEN)
        self._storage.delete(TEMP_META_FILE)
        self._temp = None
        self.state = _META_DONE

    def send_register(self) -> bool:
        """SendRegister: RegisterBrokerToController(id, current address); SUCCESS heard -> REGISTERED and
        a live master in the answer is adopted; otherwise stay META_DONE (retry later). False, with
        nothing sent, when the meta file is of another broker set (checkMetadataValid)."""
        if self.state is not _META_DONE:
            raise self._not_enabled(_META_DONE)
        if not self.metadata_valid():
            return False
        response = self._client.register_broker(
            RegisterBrokerToControllerRequest(self._cluster_name, self._broker_name, self.broker_id, self.address)
        )
        if response is not None and response.code is SUCCESS:
            self.state = _REGISTERED
            self._adopt_role(response)
        return True

    def send_elect_master(self) -> None:
        """SendElectMaster: ElectMaster(broker(id)); a heard SUCCESS or MASTER_STILL_EXIST naming a newer
        master is adopted (BrokerOuterAPI.brokerElect throws on any other code). Sent only when this
        broker's view has no live master (reference ``elect_wanted``): no master learnt since it registered
        (startBasicService), or a GetReplicaInfo poll naming no master in a newer master epoch
        (schedulingSyncBrokerMetadata)."""
        if self.state is not _REGISTERED:
            raise self._not_enabled(_REGISTERED)
        if self.master_id != NO_MASTER_ID and not self._poll_names_no_newer_master():
            raise IllegalStateError(f"{self._process.name} knows a live master: it does not ask for an election")
        response = self._client.elect_master(ElectMasterRequest(self._cluster_name, self._broker_name, self.broker_id))
        if response is not None and (response.code is SUCCESS or response.code is MASTER_STILL_EXIST):
            self._adopt_role(response)

    def _poll_names_no_newer_master(self) -> bool:
        poll = self._client.poll_replica_info(GetReplicaInfoRequest(self._cluster_name, self._broker_name))
        header = poll.header
        return poll.code is SUCCESS and header["masterId"] == NO_MASTER_ID and header["masterEpoch"] > self.master_epoch

    def sync_replica_info(self) -> None:
        """SyncReplicaInfo: a GetReplicaInfo poll (or role-change notification); adopts a newer master
        epoch, and a master learns a newer syncStateSet epoch of its own master epoch."""
        if self.state is not _REGISTERED:
            raise self._not_enabled(_REGISTERED)
        response = self._client.get_replica_info(GetReplicaInfoRequest(self._cluster_name, self._broker_name))
        if response is None or response.code is not SUCCESS:
            return
        self._adopt_role(response)
        header = response.header
        if self.role is _MASTER and header["masterId"] == self.broker_id and header["masterEpoch"] == self.master_epoch:
            newer = header["syncStateSetEpoch"] > self.sync_state_set_epoch
            if newer:
                self.sync_state_set_epoch = header["syncStateSetEpoch"]
                self.sync_state_set = response.body
            pending = self.pending_alter
            if pending is not None and not pending.delivered:  # the outcome of an alter whose answer was lost
                self.pending_alter = None
            self._settle(SET_RECOMPUTE if newer else NO_RECOMPUTE)

    def send_heartbeat(self) -> None:
        """SendHeartbeat: BrokerHeartbeat(id, last epoch of the epoch file, LEO, priority 0)."""
        if self.state is not _REGISTERED:
            raise self._not_enabled(_REGISTERED)
        process = self._process
        self._client.broker_heartbeat(
            BrokerHeartbeatRequest(
                self._cluster_name,
                self._broker_name,
                self.broker_id,
                process.epoch_file.last_epoch(),
                len(process.commit_log.entries),
                0,
            )
        )

    def send_alter_sync_state_set(self, new_sync_state_set: frozenset[int]) -> None:
        """SendAlterSyncStateSet: the master proposes a set with its local epochs (possibly stale); a heard
        SUCCESS updates its local syncStateSet epoch."""
        if self.state is not _REGISTERED:
            raise self._not_enabled(_REGISTERED)
        if self.role is not _MASTER:
            raise IllegalStateError(f"{self._process.name} is not a master")
        response = self._client.alter_sync_state_set(
            AlterSyncStateSetRequest(
                self._cluster_name,
                self._broker_name,
                self.broker_id,
                self.master_epoch,
                new_sync_state_set,
                self.sync_state_set_epoch,
            )
        )
        if response is not None and response.code is SUCCESS:
            self.sync_state_set_epoch = response.header["syncStateSetEpoch"]
            self.sync_state_set = new_sync_state_set
            self._settle(SET_RECOMPUTE)

    # ---- data path: master side ---------------------------------------------------------------------

    def _settle(self, recompute: str) -> None:
        """After a master's step (``recompute``: the event, reference ``acks``): confirmOffset and the
        producer-acked watermark.

        confirmOffset (reference ``master_confirm``): ``rocketmq``: getConfirmOffset(), the LEO when the
        local set has one member or allAckInSyncStateSet is off, else the stored value, recomputed
        (computeConfirmOffset) on an ack from a local-set slave and, with the #6662 fix, on
        setSyncStateSet and changeToMaster; the Kafka policies: the least counted ack at every step.
        The acks counted are the syncStateSet's, united with an alter in flight (#5663 fix). Producers
        are acked up to the least counted ack when every counted member is connected (0 otherwise), or,
        without allAckInSyncStateSet, up to the offset ``inSyncReplicas`` copies reach."""
        process = self._process
        config = process.broker_set.config
        leo = len(process.commit_log.entries)
        acks = self.acks
        members = self.sync_state_set
        pending = self.pending_alter
        if pending is not None and config.union_ack_fix:
            members = members | pending.new_sync_state_set
        me = process.meta_id
        others = [b for b in members if b != me]
        connected = [acks[b] for b in others if b in acks]
        if config.all_ack_in_sync_state_set:
            upto = 0 if len(connected) < len(others) else min([leo, *connected])
        else:
            need = config.in_sync_replicas - 1  # slaves needed besides the master
            if need <= 0:
                upto = leo
            elif len(acks) >= need:
                upto = min(leo, sorted(acks.values(), reverse=True)[need - 1])
            else:
                upto = 0
        shortcut = len(members) if config.confirm_shortcut_fix else len(self.sync_state_set)
        confirm = self._confirm(config, leo, len(others), connected, recompute, shortcut)
        if confirm != process.confirm_offset:
            process.set_confirm_offset(confirm)
        done = process.acked_upto
        if upto > done:
            process.broker_set.acked.update([m for m, _ in process.commit_log.entries[done:upto]])
            process.acked_upto = upto

    def _confirm(self, config: HAConfig, leo: int, others: int, connected: list[int], recompute: str, shortcut: int) -> int:
        """MasterConfirm over the counted members other than the master (``others`` of them, the acks of
        the ``connected`` ones); ``shortcut``: the size of the set the one-member shortcut reads (the local
        set, or the counted one with the hypothetical confirm_shortcut_fix)."""
        stored = self._process.confirm_offset
        if config.policy == "rocketmq":
            if not config.all_ack_in_sync_state_set or shortcut == 1:
                return leo
            if not (recompute == ACK_RECOMPUTE or (recompute == SET_RECOMPUTE and config.confirm_freeze_fix)):
                return stored
            if not config.confirm_freeze_fix:
                return min([leo, *connected])
            if len(connected) < others:
                return stored  # computeConfirmOffset's freeze (#6662 fix)
            return min([leo, *(a for a in connected if config.confirm_zero_ack_fix or a > 0)])
        if not config.all_ack_in_sync_state_set or not others:
            return leo
        if len(connected) < others and config.confirm_freeze_fix:
            return min(stored, leo)
        return min([leo, *connected])

    def _ack_event(self, slave_id: int) -> str:
        """AckEvent: an ack recomputes confirmOffset only from a slave in the local set."""
        return ACK_RECOMPUTE if slave_id in self.sync_state_set else NO_RECOMPUTE

    def _in_sync_count(self, config: HAConfig) -> int:
        """InSyncCount: ``rocketmq``: inSyncReplicasNums, max(|local|, |proposed|) while an alter is in
        flight (#5663 fix on); otherwise the local set's size."""
        pending = self.pending_alter
        if config.policy == "rocketmq" and config.union_ack_fix and pending is not None:
            return max(len(self.sync_state_set), len(pending.new_sync_state_set))
        return len(self.sync_state_set)

    def _master(self) -> None:
        if self.state is not _REGISTERED:
            raise self._not_enabled(_REGISTERED)
        if self.role is not _MASTER:
            raise IllegalStateError(f"{self._process.name} is not a master")

    def write(self) -> dict:
        """Write: a producer's message; refused with IN_SYNC_REPLICAS_NOT_ENOUGH while the in-sync count is
        below minInSyncReplicas, else appended in the master's epoch."""
        self._master()
        process = self._process
        broker_set = process.broker_set
        config = broker_set.config
        if self._in_sync_count(config) < config.min_in_sync_replicas:
            return {"code": IN_SYNC_REPLICAS_NOT_ENOUGH}
        msg = broker_set.next_msg
        log = process.commit_log
        offset = len(log.entries)
        if config.policy != "rocketmq":  # Kafka's Log.append assigns the record's epoch
            process.epoch_file.kafka_assign(self.master_epoch, offset, config.kafka_leader_epoch_on_election)
        log.append((msg, self.master_epoch), not config.async_flush)
        broker_set.next_msg = msg + 1
        self._settle(NO_RECOMPUTE)
        return {"code": "SUCCESS", "msg": msg, "offset": offset}

    def _propose(self, new_sync_state_set: frozenset[int]) -> None:
        """AlterSyncStateSet; the controller applies it now, the answer arrives later (or, lost, never)."""
        client = self._client
        heard = client.alter_sync_state_set(
            AlterSyncStateSetRequest(
                self._cluster_name,
                self._broker_name,
                self._process.meta_id,
                self.master_epoch,
                new_sync_state_set,
                self.sync_state_set_epoch,
            )
        )
        # a lost answer leaves the proposal in flight (the code keeps its "synchronizing" set after a
        # timeout) until replica info tells the outcome
        self.pending_alter = PendingAlter(new_sync_state_set, client.last_response, heard is not None)

    def expand(self, broker_id: int) -> None:
        """Expand: a connected slave outside the set whose ack reached both the confirmOffset and the start
        of the current epoch joins the set (an async learner never does)."""
        self._master()
        if self.pending_alter is not None:
            raise IllegalStateError(f"{self._process.name} has an alter in flight")
        offset = self.acks.get(broker_id)
        if broker_id in self.sync_state_set or offset is None:
            raise IllegalStateError(f"{broker_id} is in the set or not connected")
        process = self._process
        if offset < process.confirm_offset or offset < process.epoch_file.last_start():
            raise IllegalStateError(f"{broker_id} has not caught up")
        broker_set = process.broker_set
        peer = broker_set.process_of(broker_id)
        if peer is not None and peer.name in broker_set.config.async_learners:
            raise IllegalStateError(f"{broker_id} is an async learner")
        self._propose(self.sync_state_set | {broker_id})

    def shrink(self, broker_id: int) -> None:
        """Shrink: a member that is disconnected or behind leaves the set."""
        self._master()
        if self.pending_alter is not None:
            raise IllegalStateError(f"{self._process.name} has an alter in flight")
        process = self._process
        if broker_id not in self.sync_state_set or broker_id == process.meta_id:
            raise IllegalStateError(f"{broker_id} is not another member")
        if self.acks.get(broker_id, -1) >= len(process.commit_log.entries):
            raise IllegalStateError(f"{broker_id} is connected and caught up")
        self._propose(self.sync_state_set - {broker_id})

    def alter_arrives(self) -> dict:
        """AlterArrives: the controller's answer reaches the master; a SUCCESS becomes its local set."""
        if self.state is not _REGISTERED:
            raise self._not_enabled(_REGISTERED)
        pending = self.pending_alter
        if pending is None or not pending.delivered:
            raise IllegalStateError(f"{self._process.name} has no answer on its way")
        response = pending.response
        master = self.role is _MASTER
        applied = master and response.code is SUCCESS and response.header["syncStateSetEpoch"] > self.sync_state_set_epoch
        if applied:
            # a late answer never rolls the set back: changeSyncStateSet takes only a newer epoch
            self.sync_state_set = pending.new_sync_state_set
            self.sync_state_set_epoch = response.header["syncStateSetEpoch"]
        self.pending_alter = None
        if master:
            self._settle(SET_RECOMPUTE if applied else NO_RECOMPUTE)
        return {"code": response.name}

    # ---- data path: slave side ----------------------------------------------------------------------

    def _link(self, ha_state: HAState) -> tuple[BrokerProcess, ReplicasManager]:
        """As a slave in ``ha_state``: the master process it follows, which must be up, act as master and
        be in the same master epoch (otherwise it refuses the connection)."""
        if self.state is not _REGISTERED:
            raise self._not_enabled(_REGISTERED)
        if self.role is not _SLAVE or self.ha_state is not ha_state:
            raise IllegalStateError(f"{self._process.name} is not a slave in HA state {ha_state}")
        peer = self._process.broker_set.process_of(self.master_id)
        if peer is None:
            raise IllegalStateError(f"{self._process.name} follows broker {self.master_id}, which no process holds")
        master = peer.replicas_manager
        if master is None or master.state is not _REGISTERED or master.role is not _MASTER or master.master_epoch != self.master_epoch:
            raise IllegalStateError(f"{peer.name} is not master in epoch {self.master_epoch}")
        return peer, master

    def handshake(self) -> dict:
        """Handshake: get the master's epoch file and LEO, truncate log and epoch file to the policy's point,
        go to TRANSFER with the point as the first ack; no point: NO_CONSISTENT_POINT, stay READY."""
        peer, master = self._link(_HA_READY)
        process = self._process
        log = process.commit_log
        config = process.broker_set.config
        point = config.truncate(
            process.epoch_file,
            len(log.entries),
            process.confirm_offset,
            peer.epoch_file,
            len(peer.commit_log.entries),
            config.kafka_leader_epoch_on_election,
        )
        if point < 0:
            return {"code": NO_CONSISTENT_POINT, "truncateOffset": -1}
        process.truncate(point)
        self.ha_state = _HA_TRANSFER
        master.acks[process.meta_id] = point
        master._settle(master._ack_event(process.meta_id))
        return {"code": "OK", "truncateOffset": point}

    def _transfer_epoch_entry(self, peer: BrokerProcess, leo: int) -> tuple[int, int]:
        """CanTransferFrom + TransferEpochFile (``rocketmq``): the master's epoch entry containing ``leo``,
        carried in the packet header (AutoSwitchHAConnection: none, no data is sent)."""
        ef = peer.epoch_file
        i = ef.entry_at_offset(leo)
        if i < 0:
            raise IllegalStateError(f"{peer.name} has no epoch entry for offset {leo}")
        return ef.epochs[i], ef.starts[i]

    def transfer(self) -> None:
        """Transfer: the next message from the master (a batch of one never crosses an epoch boundary) with
        the epoch entry of ``_transfer_epoch_entry``, appended with the strict rule (result ignored);
        confirmOffset := min(master's, own LEO)."""
        peer, _ = self._link(_HA_TRANSFER)
        process = self._process
        log = process.commit_log
        leo = len(log.entries)
        source = peer.commit_log.entries
        if leo >= len(source):
            raise IllegalStateError(f"{process.name} has all of the master's log")
        config = process.broker_set.config
        if config.policy == "rocketmq":
            epoch, start = self._transfer_epoch_entry(peer, leo)
            process.epoch_file.append(epoch, start)
        else:  # Kafka's follower Log.append assigns the record's epoch
            process.epoch_file.kafka_assign(source[leo][1], leo, config.kafka_leader_epoch_on_election)
        log.append(source[leo], not config.async_flush)
        confirm = min(peer.confirm_offset, leo + 1)
        if confirm != process.confirm_offset:
            process.set_confirm_offset(confirm)

    def ack(self) -> None:
        """Ack: report the LEO; the master records it, recomputes confirmOffset and acks producers."""
        _, master = self._link(_HA_TRANSFER)
        process = self._process
        leo = len(process.commit_log.entries)
        me = process.meta_id
        if master.acks.get(me) == leo:
            raise IllegalStateError(f"the master already has {process.name}'s offset")
        master.acks[me] = leo
        master._settle(master._ack_event(me))

    # ---- data path: consumers -----------------------------------------------------------------------

    def consume(self) -> None:
        """Consume: a consumer reads the messages below the confirmOffset; enabled only if one is new."""
        if self.state is not _REGISTERED:
            raise self._not_enabled(_REGISTERED)
        if self.role is _ROLE_NONE:
            raise IllegalStateError(f"{self._process.name} has no role")
        process = self._process
        entries = process.commit_log.entries
        visible = min(process.confirm_offset, len(entries))
        done = process.seen_upto
        if visible <= done:
            raise IllegalStateError(f"{process.name} shows nothing new")
        seen = process.broker_set.seen
        fresh = [m for m, _ in entries[done:visible] if m not in seen]
        process.seen_upto = visible  # every message below is seen now, or already was
        if not fresh:
            raise IllegalStateError(f"{process.name} shows nothing new")
        seen.update(fresh)


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
    ) -> None:
        self.name = name
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
        meta = load_meta(storage)
        self.meta_id = NO_BROKER_ID if meta is None else meta.broker_id
        self._durable = isinstance(storage, FileStorage)
        self.commit_log = open_commit_log(storage)
        self.epoch_file = EpochFile.load(storage)
        self.confirm_offset = self._read_confirm_offset()
        self.acked_upto = 0
        self.seen_upto = 0
        self.replicas_manager: ReplicasManager | None = ReplicasManager(self)

    @property
    def register_state(self) -> RegisterState:
        manager = self.replicas_manager
        return RegisterState.DOWN if manager is None else manager.state

    def _read_confirm_offset(self) -> int:
        text = self.storage.read(CONFIRM_OFFSET_FILE)
        return int(text) if text else 0

    def set_confirm_offset(self, offset: int) -> None:
        """confirmOffset, checkpointed on disk (the file backend writes it; memory keeps the attribute)."""
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
        """Flush: the whole log becomes durable (enabled on a running process with unflushed messages)."""
        if self.replicas_manager is None:
            raise IllegalStateError(f"{self.name} is DOWN")
        log = self.commit_log
        if log.flushed >= len(log.entries):
            raise IllegalStateError(f"{self.name} has nothing to flush")
        log.flush()

    def crash(self) -> None:
        """Crash: the volatile state is lost and the HA connections break. The identity files survive; the
        log keeps its flushed prefix, the epoch file drops the entries starting at or beyond the recovered
        LEO, and the confirmOffset checkpoint is clamped to it."""
        if self.replicas_manager is None:
            raise IllegalStateError(f"{self.name} is DOWN, not {_UP_STATES}")
        self.broker_set.drop_connections_to(self.meta_id)
        self.replicas_manager = None
        log = self.commit_log
        log.recover()
        leo = len(log.entries)
        if self._durable:  # read what the disk holds
            self.epoch_file = EpochFile.load(self.storage)
            self.confirm_offset = self._read_confirm_offset()
        self.epoch_file.truncate_suffix_by_offset(leo)
        if self.confirm_offset > leo:
            self.set_confirm_offset(leo)
        if self.acked_upto > leo:
            self.acked_upto = leo
        if self.seen_upto > leo:
            self.seen_upto = leo

    def restart(self, address: str, config: BrokerConfig | None = None) -> None:
        """Restart: registration starts again from INITIAL, possibly under a new address and with a new
        configuration (the operator edited the broker's cluster or broker name)."""
        if self.replicas_manager is not None:
            raise IllegalStateError(f"{self.name} is {self.replicas_manager.state}, not DOWN")
        self.address = address
        if config is not None:
            self.config = config
        self.replicas_manager = ReplicasManager(self)
