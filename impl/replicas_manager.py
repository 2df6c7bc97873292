"""A running broker's controller-mode state (RocketMQ ``ReplicasManager``), MODEL.md §4, spec/Broker.tla:
registration, role change (changeToMaster / changeToSlave), heartbeat, elect, replica-info sync and the
master's AlterSyncStateSet; it owns the broker's HA objects (``impl/ha.py``).

Registration runs ``INITIAL -> TEMP_DONE -> ID_APPLIED -> META_WRITTEN -> META_DONE -> REGISTERED``
(failure: ``TEMP_DONE -> APPLY_FAILED -> INITIAL``), one method per arrow, as the spec actions of the same
names. A method called in a state where its action is not enabled raises :class:`IllegalStateError`.
Requests go through a :class:`~autoswitch.impl.client.ControllerClient` whose transport may lose a
response after the controller applied the request: the broker then sees a timeout (None).

With an event sink (the broker's ``events``; docs/INSTRUMENTING.md) each step writes its action when it is taken (its
guards passed) and what it changed: the registration state, the role with the local epochs, the local syncStateSet.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from .acks import NO_RECOMPUTE, SET_RECOMPUTE
from .client import ControllerClient, LateRequest
from .config import BrokerConfig
from .event_log import EventSink
from .ha import AutoSwitchHAClient, AutoSwitchHAService, BrokerSet, MessageStore, PendingAlter
from .metadata import META_FILE, TEMP_META_FILE, BrokerMetadata, TempBrokerMetadata, belongs_to, load_meta, load_temp
from .protocol import (
    MASTER_STILL_EXIST,
    NO_BROKER_ID,
    NO_MASTER_ID,
    SUCCESS,
    AlterSyncStateSetRequest,
    ApplyBrokerIdRequest,
    BrokerHeartbeatRequest,
    ElectMasterRequest,
    GetNextBrokerIdRequest,
    GetReplicaInfoRequest,
    RegisterBrokerToControllerRequest,
    Response,
)
from .states import (
    S_APPLY_FAILED,
    S_HA_NONE,
    S_HA_READY,
    S_ID_APPLIED,
    S_INITIAL,
    S_MASTER,
    S_META_DONE,
    S_META_WRITTEN,
    S_REGISTERED,
    S_SLAVE,
    S_TEMP_DONE,
    IllegalStateError,
    RegisterState,
    Role,
)
from .storage import Storage


class Clock(Protocol):
    def tick(self) -> int: ...


class Broker(MessageStore, Protocol):
    """What a ReplicasManager uses of its ``BrokerProcess`` besides the store: the disk, the controller
    client, the configuration, the address, the checkCode clock, the master-history callback and the broker
    set; it writes ``meta_id`` when it persists its id."""

    meta_id: int

    @property
    def storage(self) -> Storage: ...

    @property
    def client(self) -> ControllerClient: ...

    @property
    def config(self) -> BrokerConfig: ...

    @property
    def address(self) -> str: ...

    @property
    def clock(self) -> Clock: ...

    @property
    def on_become_master(self) -> Callable[[str, int], None]: ...

    @property
    def broker_set(self) -> BrokerSet: ...

    @property
    def events(self) -> EventSink | None: ...


class ReplicasManager:
    """Volatile controller-mode state of a running broker: registration state, role, local epochs, the
    identity it works under and the master it follows, with its HA service (master side) and HA client
    (slave side). Created on start, dropped by a crash."""

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
        "ha_service",
        "ha_client",
        "_events",
    )

    def __init__(self, process: Broker) -> None:
        self._process = process
        self._storage = process.storage
        self._client = process.client
        self._cluster_name = process.config.cluster_name
        self._broker_name = process.config.broker_name
        self.address = process.address
        self.state = S_INITIAL
        self.role = Role.NONE
        self.master_epoch = 0
        self.sync_state_set_epoch = 0
        self.broker_id = NO_BROKER_ID
        self._temp: TempBrokerMetadata | None = None
        self.master_id = NO_MASTER_ID
        self.ha_service = AutoSwitchHAService(process, self, process.broker_set)
        self.ha_client = AutoSwitchHAClient(process, self, process.broker_set)
        self._events = process.events

    def _emit(self, tag: str | None, observe: dict[str, object] | None = None) -> None:
        """An event of this broker: the step ``tag`` taken (None: none) and the variables it changed."""
        events = self._events
        if events is not None:
            events.emit(self._process.name, None if tag is None else {"tag": tag}, observe)

    def _registration(self, tag: str, **identity: object) -> None:
        """A registration step done: its action, the registration state it left and the identity file it wrote or read
        (``metaFile``: the broker id; ``tempFile``: the id applied for and the checkCode), which pins the broker ids."""
        if self._events is not None:
            self._emit(tag, {"regState": self.state.value, **identity})

    def _sync_state_set_changed(self) -> None:
        """The master's local syncStateSet and its epoch changed (changeSyncStateSet)."""
        if self._events is not None:
            self._emit(None, {"localSyncStateSet": self.ha_service.sync_state_set, "localSyncStateSetEpoch": self.sync_state_set_epoch})

    def _not_enabled(self, *expected: RegisterState) -> IllegalStateError:
        return IllegalStateError(f"{self._process.name} is {self.state}, not {'/'.join(expected)}")

    def _adopt_role(self, response: Response) -> None:
        """AdoptRole (spec/Broker.tla): RocketMQ changeToMaster / changeToSlave; the data-path half of
        changeToMaster is :meth:`AutoSwitchHAService.change_to_master`."""
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
        service = self.ha_service
        service.acks = {}
        service.pending_alter = None
        if master_id == self.broker_id:
            self.role = S_MASTER
            self.ha_client.ha_state = S_HA_NONE
            process.on_become_master(process.name, epoch)
            service.change_to_master(epoch, response.body or frozenset())
        else:
            # changeToSlave: connect to the new master, handshake first
            self.role = S_SLAVE
            self.ha_client.ha_state = S_HA_READY
            service.sync_state_set = frozenset()
        if self._events is not None:  # changeToMaster / changeToSlave done
            self._emit(None, {"role": self.role.value, "localMasterEpoch": epoch, "localMasterId": master_id,
                              "localSyncStateSetEpoch": self.sync_state_set_epoch, "localSyncStateSet": service.sync_state_set,
                              "haState": self.ha_client.ha_state.value})

    def load_meta_file(self) -> None:
        """LoadMetaFile (spec/Broker.tla); whatever broker set the file names (:meth:`send_register` checks)."""
        if self.state is not S_INITIAL:
            raise self._not_enabled(S_INITIAL)
        meta = load_meta(self._storage)
        if meta is None:
            raise IllegalStateError(f"{self._process.name} has no meta file")
        self.broker_id = meta.broker_id
        self.state = S_META_DONE
        self._registration("LoadMetaFile", metaFile=meta.broker_id)

    def load_temp_file(self) -> None:
        """LoadTempFile (spec/Broker.tla)."""
        if self.state is not S_INITIAL:
            raise self._not_enabled(S_INITIAL)
        storage = self._storage
        if storage.exists(META_FILE) or not storage.exists(TEMP_META_FILE):
            raise IllegalStateError(f"{self._process.name} has a meta file or no temp file")
        self._temp = load_temp(storage)
        self.state = S_TEMP_DONE
        self._registration("LoadTempFile")

    def create_temp_file(self) -> None:
        """CreateTempFile (spec/Broker.tla); a timed-out GetNextBrokerId writes nothing (getNextBrokerId
        returned null)."""
        if self.state is not S_INITIAL:
            raise self._not_enabled(S_INITIAL)
        storage = self._storage
        if storage.exists(META_FILE) or storage.exists(TEMP_META_FILE):
            raise IllegalStateError(f"{self._process.name} already has an identity file")
        response = self._client.get_next_broker_id(GetNextBrokerIdRequest(self._cluster_name, self._broker_name))
        if response is None or response.code is not SUCCESS:  # getNextBrokerId returned null: no temp file
            self._registration("CreateTempFile")
            return
        temp = TempBrokerMetadata(
            self._cluster_name,
            self._broker_name,
            response.header["nextBrokerId"],
            f"{self.address};{self._process.clock.tick()}",
        )
        storage.write(TEMP_META_FILE, temp.encode())
        self._temp = temp
        self.state = S_TEMP_DONE
        self._registration("CreateTempFile", tempFile={"brokerId": temp.broker_id, "checkCode": temp.register_check_code})

    def _temp_file(self) -> TempBrokerMetadata:
        """The temp file's content, held from TEMP_DONE until DeleteTempFile."""
        temp = self._temp
        assert temp is not None, f"{self._process.name} holds no temp file in {self.state}"
        return temp

    def metadata_valid(self) -> bool:
        """RocketMQ ``ReplicasManager.checkMetadataValid``: in TEMP_DONE the temp file, in META_DONE the meta
        file must name the configured cluster and broker set (spec/README.md, "Trace kinds": ``brokerConfig``)."""
        if self.state is S_TEMP_DONE:
            return belongs_to(self._temp_file(), self._cluster_name, self._broker_name)
        if self.state is S_META_DONE:
            meta = load_meta(self._storage)
            return meta is None or belongs_to(meta, self._cluster_name, self._broker_name)
        return True

    def send_apply_broker_id(self) -> bool:
        """SendApplyBrokerId (spec/Broker.tla). False, with nothing sent and the state kept, when the temp file
        is of another broker set (register() returns false at :meth:`metadata_valid`)."""
        if self.state is not S_TEMP_DONE:
            raise self._not_enabled(S_TEMP_DONE)
        if not self.metadata_valid():
            self._registration("SendApplyBrokerId")
            return False
        temp = self._temp_file()
        response = self._client.apply_broker_id(
            ApplyBrokerIdRequest(self._cluster_name, self._broker_name, temp.broker_id, temp.register_check_code)
        )
        self.state = S_ID_APPLIED if response is not None and response.code is SUCCESS else S_APPLY_FAILED
        self._registration("SendApplyBrokerId")
        return True

    def abandon_temp_file(self) -> None:
        """AbandonTempFile (spec/Broker.tla): startBasicService runs again from the start; not with
        ``register_retry`` off (a broker that never retries stays APPLY_FAILED)."""
        if self.state is not S_APPLY_FAILED:
            raise self._not_enabled(S_APPLY_FAILED)
        if not self._process.broker_set.config.register_retry:
            raise IllegalStateError(f"{self._process.name} does not retry its registration (register_retry off)")
        self._storage.delete(TEMP_META_FILE)
        self._temp = None
        self.state = S_INITIAL
        self._registration("AbandonTempFile")

    def write_meta_file(self) -> None:
        """WriteMetaFile (spec/Broker.tla); the process's ``meta_id`` follows the file."""
        if self.state is not S_ID_APPLIED:
            raise self._not_enabled(S_ID_APPLIED)
        broker_id = self._temp_file().broker_id
        self._storage.write(META_FILE, BrokerMetadata(self._cluster_name, self._broker_name, broker_id).encode())
        self.broker_id = broker_id
        self._process.meta_id = broker_id
        self.state = S_META_WRITTEN
        self._registration("WriteMetaFile", metaFile=broker_id)

    def delete_temp_file(self) -> None:
        """DeleteTempFile (spec/Broker.tla)."""
        if self.state is not S_META_WRITTEN:
            raise self._not_enabled(S_META_WRITTEN)
        self._storage.delete(TEMP_META_FILE)
        self._temp = None
        self.state = S_META_DONE
        self._registration("DeleteTempFile")

    def send_register(self) -> bool:
        """SendRegister (spec/Broker.tla). False, with nothing sent, when the meta file is of another broker
        set (:meth:`metadata_valid`)."""
        if self.state is not S_META_DONE:
            raise self._not_enabled(S_META_DONE)
        self._emit("SendRegister")
        if not self.metadata_valid():
            return False
        response = self._client.register_broker(self.register_request())
        if response is not None and response.code is SUCCESS:
            self.state = S_REGISTERED
            self._emit(None, {"regState": S_REGISTERED.value})
            self._adopt_role(response)
        return True

    def send_elect_master(self) -> None:
        """SendElectMaster (spec/Broker.tla), enabled by ElectWanted: no master learnt since registering
        (startBasicService), or a GetReplicaInfo poll (:meth:`ControllerClient.poll_replica_info`) naming no
        master in a newer master epoch (schedulingSyncBrokerMetadata)."""
        request = self.elect_request()
        self._emit("SendElectMaster")
        response = self._client.elect_master(request)
        if response is not None and (response.code is SUCCESS or response.code is MASTER_STILL_EXIST):
            self._adopt_role(response)

    def register_request(self) -> RegisterBrokerToControllerRequest:
        """The RegisterBrokerToController request of a broker with a persisted id (META_DONE, or REGISTERED:
        what a late one was built from), under its id and current address."""
        if self.state is not S_META_DONE and self.state is not S_REGISTERED:
            raise self._not_enabled(S_META_DONE, S_REGISTERED)
        return RegisterBrokerToControllerRequest(self._cluster_name, self._broker_name, self.broker_id, self.address)

    def elect_request(self) -> ElectMasterRequest:
        """The broker-triggered ElectMaster request, when ElectWanted (spec/Broker.tla)."""
        if self.state is not S_REGISTERED:
            raise self._not_enabled(S_REGISTERED)
        if self.master_id != NO_MASTER_ID and not self._poll_names_no_newer_master():
            raise IllegalStateError(f"{self._process.name} knows a live master: it does not ask for an election")
        return ElectMasterRequest(self._cluster_name, self._broker_name, self.broker_id)

    def heartbeat_request(self) -> BrokerHeartbeatRequest:
        """The BrokerHeartbeat request of a registered broker: its last epoch, LEO and priority 0."""
        if self.state is not S_REGISTERED:
            raise self._not_enabled(S_REGISTERED)
        process = self._process
        return BrokerHeartbeatRequest(
            self._cluster_name,
            self._broker_name,
            self.broker_id,
            process.epoch_file.last_epoch(),
            len(process.commit_log.entries),
            0,
        )

    def send_late(self, request: LateRequest) -> None:
        """SendLate (spec/Broker.tla): ``request`` (one of the builders above, run now) is held by the network
        and delivered later (:meth:`ControllerClient.deliver_late`); this broker sees a timeout."""
        self._client.send_late(self._process.name, request)

    def _poll_names_no_newer_master(self) -> bool:
        poll = self._client.poll_replica_info(GetReplicaInfoRequest(self._cluster_name, self._broker_name))
        header = poll.header
        return poll.code is SUCCESS and header["masterId"] == NO_MASTER_ID and header["masterEpoch"] > self.master_epoch

    def sync_replica_info(self) -> None:
        """SyncReplicaInfo (spec/Broker.tla)."""
        if self.state is not S_REGISTERED:
            raise self._not_enabled(S_REGISTERED)
        self._emit("SyncReplicaInfo")
        response = self._client.get_replica_info(GetReplicaInfoRequest(self._cluster_name, self._broker_name))
        if response is None or response.code is not SUCCESS:
            return
        self._adopt_role(response)
        header = response.header
        if self.role is S_MASTER and header["masterId"] == self.broker_id and header["masterEpoch"] == self.master_epoch:
            newer = header["syncStateSetEpoch"] > self.sync_state_set_epoch
            service = self.ha_service
            if newer:
                self.sync_state_set_epoch = header["syncStateSetEpoch"]
                service.sync_state_set = response.body or frozenset()
                self._sync_state_set_changed()
            pending = service.pending_alter
            if pending is not None and not pending.delivered:  # the outcome of an alter whose answer was lost
                service.pending_alter = None
            service.settle(SET_RECOMPUTE if newer else NO_RECOMPUTE)

    def send_heartbeat(self) -> None:
        """SendHeartbeat (spec/Broker.tla)."""
        request = self.heartbeat_request()
        self._emit("SendHeartbeat")
        self._client.broker_heartbeat(request)

    def send_alter_sync_state_set(self, new_sync_state_set: frozenset[int]) -> None:
        """SendAlterSyncStateSet (spec/Broker.tla)."""
        if self.state is not S_REGISTERED:
            raise self._not_enabled(S_REGISTERED)
        if self.role is not S_MASTER:
            raise IllegalStateError(f"{self._process.name} is not a master")
        if self._events is not None:
            self._events.emit(self._process.name, {"tag": "SendAlterSyncStateSet", "newSyncStateSet": new_sync_state_set})
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
            self.ha_service.sync_state_set = new_sync_state_set
            self._sync_state_set_changed()
            self.ha_service.settle(SET_RECOMPUTE)

    def report_sync_state_set_changed(self, new_sync_state_set: frozenset[int]) -> None:
        """Propose (spec/Replication.tla), RocketMQ ``doReportSyncStateSetChanged``: the controller applies
        the AlterSyncStateSet now, its answer arrives later (AlterArrives) or, lost, never."""
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
        response = client.last_response
        assert response is not None  # the controller answered, delivered or not
        # a lost answer leaves the proposal in flight (the code keeps its "synchronizing" set after a
        # timeout) until replica info tells the outcome
        self.ha_service.pending_alter = PendingAlter(new_sync_state_set, response, heard is not None)

    def alter_arrives(self) -> Response:
        """AlterArrives (spec/Replication.tla): RocketMQ ``changeSyncStateSet`` on the answer; returns it."""
        if self.state is not S_REGISTERED:
            raise self._not_enabled(S_REGISTERED)
        service = self.ha_service
        pending = service.pending_alter
        if pending is None or not pending.delivered:
            raise IllegalStateError(f"{self._process.name} has no answer on its way")
        self._emit("AlterArrives")
        response = pending.response
        master = self.role is S_MASTER
        applied = master and response.code is SUCCESS and response.header["syncStateSetEpoch"] > self.sync_state_set_epoch
        if applied:
            # a late answer never rolls the set back: changeSyncStateSet takes only a newer epoch
            service.sync_state_set = pending.new_sync_state_set
            self.sync_state_set_epoch = response.header["syncStateSetEpoch"]
            self._sync_state_set_changed()
        service.pending_alter = None
        if master:
            service.settle(SET_RECOMPUTE if applied else NO_RECOMPUTE)
        return response
