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

from .controller import ControllerManager
from .metadata import META_FILE, TEMP_META_FILE, BrokerMetadata, TempBrokerMetadata, load_meta, load_temp
from .protocol import (
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
)
from .storage import Storage

NO_BROKER_ID = 0  # broker ids start at 1


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

    def __init__(self, controller: ControllerManager) -> None:
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

    def broker_heartbeat(self, request: BrokerHeartbeatRequest) -> Response | None:
        response = self.last_response = self._controller.broker_heartbeat(request)
        return None if self.lose_next_response else response


class ReplicasManager:
    """Volatile controller-mode state of a running broker: registration state, role, local epochs, and
    the identity it works under. Created on start, dropped by a crash."""

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
        self.master_epoch = epoch
        self.sync_state_set_epoch = header["syncStateSetEpoch"]
        if master_id == self.broker_id:
            self.role = _MASTER
            self._process.on_become_master(self._process.name, epoch)
        else:
            self.role = Role.SLAVE

    def load_meta_file(self) -> None:
        """LoadMetaFile: a meta file on disk wins; registration goes to META_DONE with its id. A meta file
        of another broker set raises :class:`~autoswitch.impl.metadata.BrokerIdentityMismatch`."""
        if self.state is not _INITIAL:
            raise self._not_enabled(_INITIAL)
        meta = load_meta(self._storage, (self._cluster_name, self._broker_name))
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
        self._temp = load_temp(storage, (self._cluster_name, self._broker_name))
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
        if response is None:
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

    def send_apply_broker_id(self) -> None:
        """SendApplyBrokerId: ApplyBrokerId(temp id, checkCode); SUCCESS heard -> ID_APPLIED, a refusal or
        a timeout -> APPLY_FAILED."""
        if self.state is not _TEMP_DONE:
            raise self._not_enabled(_TEMP_DONE)
        temp = self._temp
        response = self._client.apply_broker_id(
            ApplyBrokerIdRequest(self._cluster_name, self._broker_name, temp.broker_id, temp.register_check_code)
        )
        self.state = _ID_APPLIED if response is not None and response.code is SUCCESS else _APPLY_FAILED

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
        self.state = _META_WRITTEN

    def delete_temp_file(self) -> None:
        """DeleteTempFile: the meta file is written; drop the temp file."""
        if self.state is not _META_WRITTEN:
            raise self._not_enabled(_META_WRITTEN)
        self._storage.delete(TEMP_META_FILE)
        self._temp = None
        self.state = _META_DONE

    def send_register(self) -> None:
        """SendRegister: RegisterBrokerToController(id, current address); SUCCESS heard -> REGISTERED and
        a live master in the answer is adopted; otherwise stay META_DONE (retry later)."""
        if self.state is not _META_DONE:
            raise self._not_enabled(_META_DONE)
        response = self._client.register_broker(
            RegisterBrokerToControllerRequest(self._cluster_name, self._broker_name, self.broker_id, self.address)
        )
        if response is None or response.code is not SUCCESS:
            return
        self.state = _REGISTERED
        self._adopt_role(response)

    def send_elect_master(self) -> None:
        """SendElectMaster: ElectMaster(broker(id)); a heard answer naming a newer master is adopted."""
        if self.state is not _REGISTERED:
            raise self._not_enabled(_REGISTERED)
        response = self._client.elect_master(ElectMasterRequest(self._cluster_name, self._broker_name, self.broker_id))
        if response is not None:
            self._adopt_role(response)

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
        if (
            self.role is _MASTER
            and header["masterId"] == self.broker_id
            and header["masterEpoch"] == self.master_epoch
            and header["syncStateSetEpoch"] > self.sync_state_set_epoch
        ):
            self.sync_state_set_epoch = header["syncStateSetEpoch"]

    def send_heartbeat(self) -> None:
        """SendHeartbeat: BrokerHeartbeat(id, local master epoch, maxOffset, priority 0); this model has
        no commit log, so the reported maxOffset is 0."""
        if self.state is not _REGISTERED:
            raise self._not_enabled(_REGISTERED)
        self._client.broker_heartbeat(
            BrokerHeartbeatRequest(self._cluster_name, self._broker_name, self.broker_id, self.master_epoch, 0, 0)
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


class BrokerProcess:
    """A broker process: its configuration, its disk (``storage``, kept across crashes), its current
    address, and while it runs its ``replicas_manager`` (None when DOWN)."""

    __slots__ = ("name", "config", "storage", "address", "client", "clock", "on_become_master", "replicas_manager")

    def __init__(
        self,
        name: str,
        config: BrokerConfig,
        storage: Storage,
        address: str,
        client: ControllerClient,
        clock: CheckCodeClock,
        on_become_master: Callable[[str, int], None],
    ) -> None:
        self.name = name
        self.config = config
        self.storage = storage
        self.address = address
        self.client = client
        self.clock = clock
        self.on_become_master = on_become_master
        self.replicas_manager: ReplicasManager | None = ReplicasManager(self)

    @property
    def register_state(self) -> RegisterState:
        manager = self.replicas_manager
        return RegisterState.DOWN if manager is None else manager.state

    def crash(self) -> None:
        """Crash: the volatile state is lost; the identity files survive."""
        if self.replicas_manager is None:
            raise IllegalStateError(f"{self.name} is DOWN, not {_UP_STATES}")
        self.replicas_manager = None

    def restart(self, address: str) -> None:
        """Restart: registration starts again from INITIAL, possibly under a new address."""
        if self.replicas_manager is not None:
            raise IllegalStateError(f"{self.name} is {self.replicas_manager.state}, not DOWN")
        self.address = address
        self.replicas_manager = ReplicasManager(self)
