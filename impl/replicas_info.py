"""The controller's replicated state machine (RocketMQ ``ReplicasInfoManager``), MODEL.md §2-§3.

Two tables keyed by ``brokerName``, as in RocketMQ: ``replica_info_table`` (ids, addresses, checkCodes,
the next id to hand out) and ``sync_state_set_info_table`` (master, epochs, syncStateSet). A broker set
is known iff it has an entry in both.

Request handlers (``apply_broker_id`` ...) check the request in the documented order and return
``(response, events)`` without mutating anything; :meth:`ReplicasInfoManager.apply_event` applies a
committed event in place. The handler and check order of each request is the reference function of the
same name in ``reference/controller.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from . import elect_policy
from .event_log import CONTROLLER_NODE, EventSink
from .events import (
    AlterSyncStateSetEvent,
    ApplyBrokerIdEvent,
    CleanBrokerDataEvent,
    ElectMasterEvent,
    Event,
    UpdateBrokerAddressEvent,
)
from .heartbeat import BrokerLiveInfo
from .protocol import (
    NO_MASTER_HEADER,
    NO_MASTER_ID,
    AlterSyncStateSetRequest,
    ApplyBrokerIdRequest,
    CleanBrokerDataRequest,
    ElectMasterRequest,
    GetNextBrokerIdRequest,
    GetReplicaInfoRequest,
    RegisterBrokerToControllerRequest,
    Response,
    ResponseCode,
)

ControllerResult = tuple[Response, tuple[Event, ...]]
Alive = Mapping[int, BrokerLiveInfo]

NO_EVENTS: tuple[Event, ...] = ()
FIRST_BROKER_ID = 1  # MixAll.FIRST_BROKER_CONTROLLER_ID: the id that creates a broker set


# Constant responses, shared between calls (responses are immutable). Module constants also keep the
# (slow) enum class attribute lookups off the hot paths.
_SUCCESS_CODE = ResponseCode.SUCCESS
_ELECT_MASTER_FAILED = ResponseCode.CONTROLLER_ELECT_MASTER_FAILED
_MASTER_STILL_EXIST = ResponseCode.CONTROLLER_MASTER_STILL_EXIST
_SUCCESS = Response(_SUCCESS_CODE)
_BROKER_ID_INVALID = Response(ResponseCode.CONTROLLER_BROKER_ID_INVALID)
_NEED_TO_BE_REGISTERED = Response(ResponseCode.CONTROLLER_BROKER_NEED_TO_BE_REGISTERED)
# A failed ElectMaster answers an empty header and no body; the trace vocabulary writes both as absent values.
_ELECT_UNKNOWN_SET = Response(ResponseCode.CONTROLLER_BROKER_NEED_TO_BE_REGISTERED, NO_MASTER_HEADER, frozenset())
_ELECT_FAILED = Response(_ELECT_MASTER_FAILED, NO_MASTER_HEADER, frozenset())
_MASTER_NOT_AVAILABLE = Response(ResponseCode.CONTROLLER_MASTER_NOT_AVAILABLE, NO_MASTER_HEADER, frozenset())
_METADATA_NOT_EXIST = Response(ResponseCode.CONTROLLER_BROKER_METADATA_NOT_EXIST)
_INVALID_CLEAN = Response(ResponseCode.CONTROLLER_INVALID_CLEAN_BROKER_METADATA)
_NO_SET_EPOCH: Mapping[str, Any] = {"syncStateSetEpoch": -1}
_ALTER_FAILED = Response(ResponseCode.CONTROLLER_ALTER_SYNC_STATE_SET_FAILED, _NO_SET_EPOCH)
_INVALID_MASTER = Response(ResponseCode.CONTROLLER_INVALID_MASTER, _NO_SET_EPOCH)
_FENCED_MASTER_EPOCH = Response(ResponseCode.CONTROLLER_FENCED_MASTER_EPOCH, _NO_SET_EPOCH)
_FENCED_SYNC_STATE_SET_EPOCH = Response(ResponseCode.CONTROLLER_FENCED_SYNC_STATE_SET_EPOCH, _NO_SET_EPOCH)
_INVALID_REPLICAS = Response(ResponseCode.CONTROLLER_INVALID_REPLICAS, _NO_SET_EPOCH)
_BROKER_NOT_ALIVE = Response(ResponseCode.CONTROLLER_BROKER_NOT_ALIVE, _NO_SET_EPOCH)


def address_of_check_code(register_check_code: str) -> str:
    """The address part of a ``"<addr>;<timestamp>"`` registerCheckCode."""
    return register_check_code.split(";", 1)[0]


class BrokerIdInfo:
    """The address and registerCheckCode bound to one broker id (RocketMQ's ``Pair<addr, checkCode>``)."""

    __slots__ = ("address", "register_check_code")

    def __init__(self, address: str, register_check_code: str) -> None:
        self.address = address
        self.register_check_code = register_check_code


class BrokerReplicaInfo:
    """The registered ids of a broker set and the next id to hand out (counts additions, starts at 1)."""

    __slots__ = ("cluster_name", "broker_name", "next_assign_broker_id", "broker_id_table")

    def __init__(self, cluster_name: str, broker_name: str) -> None:
        self.cluster_name = cluster_name
        self.broker_name = broker_name
        self.next_assign_broker_id = FIRST_BROKER_ID
        self.broker_id_table: dict[int, BrokerIdInfo] = {}


class SyncStateInfo:
    """The master, its epoch, the syncStateSet and its epoch. ``master_epoch`` 0 means never elected."""

    __slots__ = ("cluster_name", "broker_name", "master_broker_id", "master_epoch", "sync_state_set", "sync_state_set_epoch")

    def __init__(self, cluster_name: str, broker_name: str) -> None:
        self.cluster_name = cluster_name
        self.broker_name = broker_name
        self.master_broker_id = NO_MASTER_ID
        self.master_epoch = 0
        self.sync_state_set: frozenset[int] = frozenset()  # replaced, never mutated: responses share it
        self.sync_state_set_epoch = 0


def _master_header(replica: BrokerReplicaInfo, sync: SyncStateInfo) -> Mapping[str, Any]:
    """The master fields of a response: the current master whether alive or not."""
    master = sync.master_broker_id
    if master == NO_MASTER_ID:
        return NO_MASTER_HEADER
    return {
        "masterId": master,
        "masterAddr": replica.broker_id_table[master].address,
        "masterEpoch": sync.master_epoch,
        "syncStateSetEpoch": sync.sync_state_set_epoch,
    }


class ReplicasInfoManager:
    """Replica and sync-state tables of every broker set, the handlers that read them and the event appliers."""

    __slots__ = ("replica_info_table", "sync_state_set_info_table", "_enable_elect_unclean_master", "_events")

    def __init__(self, enable_elect_unclean_master: bool = False, events: EventSink | None = None) -> None:
        self.replica_info_table: dict[str, BrokerReplicaInfo] = {}
        self.sync_state_set_info_table: dict[str, SyncStateInfo] = {}
        self._enable_elect_unclean_master = enable_elect_unclean_master
        self._events = events

    def broker_names(self) -> list[str]:
        """The broker sets it knows."""
        return sorted(self.replica_info_table)

    def clear(self) -> None:
        """Forget every broker set (the state machine of an empty log: ControllerMetadataLoss)."""
        self.replica_info_table.clear()
        self.sync_state_set_info_table.clear()

    # ---- request handlers: compute (response, events), mutate nothing -------------------------------

    def get_next_broker_id(self, request: GetNextBrokerIdRequest) -> Response:
        """GetNextBrokerId (reference ``get_next_broker_id``): read only; 1 for an unknown set."""
        replica = self.replica_info_table.get(request.broker_name)
        next_id = FIRST_BROKER_ID if replica is None else replica.next_assign_broker_id
        return Response(_SUCCESS_CODE, {"nextBrokerId": next_id})

    def apply_broker_id(self, request: ApplyBrokerIdRequest) -> ControllerResult:
        """ApplyBrokerId (reference ``apply_broker_id``): an unknown set accepts only id 1 (and is created);
        a known set accepts a free id, or the same (id, checkCode) again with no event."""
        replica = self.replica_info_table.get(request.broker_name)
        broker_id = request.applied_broker_id
        check_code = request.register_check_code
        if broker_id < FIRST_BROKER_ID:  # ids start at 1 (a model refinement: RocketMQ has no range check)
            return _BROKER_ID_INVALID, NO_EVENTS
        if replica is None:
            if broker_id != FIRST_BROKER_ID:
                return _BROKER_ID_INVALID, NO_EVENTS
        else:
            bound = replica.broker_id_table.get(broker_id)
            if bound is not None:
                return (_SUCCESS if bound.register_check_code == check_code else _BROKER_ID_INVALID), NO_EVENTS
        event = ApplyBrokerIdEvent(
            request.cluster_name, request.broker_name, address_of_check_code(check_code), broker_id, check_code
        )
        return _SUCCESS, (event,)

    def register_broker(self, request: RegisterBrokerToControllerRequest, alive: Alive) -> ControllerResult:
        """RegisterBrokerToController (reference ``register_broker``): a known id updates its address; the
        answer names the master only if it is alive, with the address stored before this update, and
        carries the syncStateSet. Never elects."""
        name = request.broker_name
        replica = self.replica_info_table.get(name)
        broker_id = request.broker_id
        if replica is None or (entry := replica.broker_id_table.get(broker_id)) is None:
            return _NEED_TO_BE_REGISTERED, NO_EVENTS
        address = request.broker_address
        events = NO_EVENTS
        if entry.address != address:
            events = (UpdateBrokerAddressEvent(request.cluster_name, name, address, broker_id),)
        sync = self.sync_state_set_info_table[name]
        master = sync.master_broker_id
        if master != NO_MASTER_ID and master in alive:
            header: Mapping[str, Any] = {
                "masterId": master,
                "masterAddr": replica.broker_id_table[master].address,
                "masterEpoch": sync.master_epoch,
                "syncStateSetEpoch": sync.sync_state_set_epoch,
            }
        else:
            header = NO_MASTER_HEADER
        return Response(_SUCCESS_CODE, header, sync.sync_state_set), events

    def elect_master(self, request: ElectMasterRequest, alive: Alive) -> ControllerResult:
        """ElectMaster (reference ``elect_master``). The first election of a set (master epoch 0) lets a
        registered broker/admin id win outright; otherwise the elect policy decides. The old master again
        -> MASTER_STILL_EXIST; a winner -> SUCCESS; no winner -> MASTER_NOT_AVAILABLE with a
        master-clearing event for the controller trigger, ELECT_MASTER_FAILED otherwise."""
        name = request.broker_name
        replica = self.replica_info_table.get(name)
        if replica is None:
            return _ELECT_UNKNOWN_SET, NO_EVENTS
        sync = self.sync_state_set_info_table[name]
        broker_id = request.broker_id
        old_master = sync.master_broker_id
        ids = replica.broker_id_table
        if sync.master_epoch == 0 and broker_id is not None and broker_id in ids:
            winner: int | None = broker_id
        else:
            winner = elect_policy.elect(
                sync.sync_state_set,
                ids if self._enable_elect_unclean_master else None,
                old_master,
                broker_id if request.designate_elect else None,
                alive,
            )
        if winner is None:
            if broker_id is None:
                return _MASTER_NOT_AVAILABLE, (ElectMasterEvent(name, False, NO_MASTER_ID),)
            return _ELECT_FAILED, NO_EVENTS
        if winner == old_master:
            return Response(_MASTER_STILL_EXIST, _master_header(replica, sync), sync.sync_state_set), NO_EVENTS
        header = {
            "masterId": winner,
            "masterAddr": ids[winner].address,
            "masterEpoch": sync.master_epoch + 1,
            "syncStateSetEpoch": sync.sync_state_set_epoch + 1,
        }
        return Response(_SUCCESS_CODE, header, frozenset((winner,))), (ElectMasterEvent(name, True, winner),)

    def alter_sync_state_set(self, request: AlterSyncStateSetRequest, alive: Alive) -> ControllerResult:
        """AlterSyncStateSet (reference ``alter_sync_state_set``), checks in order: unknown set or an
        unchanged set, wrong master, stale master epoch, stale set epoch, each member (ascending) registered
        and alive, the master in the new set. SUCCESS answers the new set epoch."""
        name = request.broker_name
        replica = self.replica_info_table.get(name)
        if replica is None:
            return _ALTER_FAILED, NO_EVENTS
        sync = self.sync_state_set_info_table[name]
        new_set = request.new_sync_state_set
        master = sync.master_broker_id
        if new_set == sync.sync_state_set:
            return _ALTER_FAILED, NO_EVENTS
        if master == NO_MASTER_ID or master != request.master_broker_id:
            return _INVALID_MASTER, NO_EVENTS
        if request.master_epoch != sync.master_epoch:
            return _FENCED_MASTER_EPOCH, NO_EVENTS
        if request.sync_state_set_epoch != sync.sync_state_set_epoch:
            return _FENCED_SYNC_STATE_SET_EPOCH, NO_EVENTS
        ids = replica.broker_id_table
        for member in sorted(new_set):
            if member not in ids:
                return _INVALID_REPLICAS, NO_EVENTS
            if member not in alive:
                return _BROKER_NOT_ALIVE, NO_EVENTS
        if master not in new_set:
            return _ALTER_FAILED, NO_EVENTS
        header = {"syncStateSetEpoch": sync.sync_state_set_epoch + 1}
        return Response(_SUCCESS_CODE, header), (AlterSyncStateSetEvent(name, new_set),)

    def get_replica_info(self, request: GetReplicaInfoRequest) -> Response:
        """GetReplicaInfo (reference ``get_replica_info``): the master, alive or not, and the syncStateSet;
        both epochs even when there is no master."""
        name = request.broker_name
        replica = self.replica_info_table.get(name)
        if replica is None:
            return _METADATA_NOT_EXIST
        sync = self.sync_state_set_info_table[name]
        master = sync.master_broker_id
        header = {
            "masterId": master,
            "masterAddr": "" if master == NO_MASTER_ID else replica.broker_id_table[master].address,
            "masterEpoch": sync.master_epoch,
            "syncStateSetEpoch": sync.sync_state_set_epoch,
        }
        return Response(_SUCCESS_CODE, header, sync.sync_state_set)

    def clean_broker_data(self, request: CleanBrokerDataRequest, alive: Alive) -> ControllerResult:
        """CleanBrokerData (reference ``clean_broker_data``): unless cleaning living brokers, refuses a
        whole-set clean while a master exists and any alive id; refuses an unknown set. Cleaning living
        brokers sends an empty id set, which removes the whole set (RocketMQ leaves it null)."""
        name = request.broker_name
        ids = request.broker_ids_to_clean
        if not request.clean_living_broker:
            sync = self.sync_state_set_info_table.get(name)
            if not ids and sync is not None and sync.master_broker_id != NO_MASTER_ID:
                return _INVALID_CLEAN, NO_EVENTS
            for broker_id in ids:
                if broker_id in alive:
                    return _INVALID_CLEAN, NO_EVENTS
        if name not in self.replica_info_table:
            return _INVALID_CLEAN, NO_EVENTS
        return _SUCCESS, (CleanBrokerDataEvent(name, frozenset() if request.clean_living_broker else ids),)

    # ---- state machine: apply committed events in place ---------------------------------------------

    def apply_event(self, event: Event) -> None:
        """Apply one committed event (RocketMQ ``ReplicasInfoManager.applyEvent``); with an event sink, the broker set's
        tables as they are now (the controller's variables ``replicas``, ``nextBrokerId``, ``masterId``, ``masterEpoch``,
        ``syncStateSet``, ``syncStateSetEpoch``: docs/INSTRUMENTING.md)."""
        _APPLIERS[event.__class__](self, event)
        if self._events is not None:
            self._events.emit(CONTROLLER_NODE, observe=self.observed(event.broker_name))

    def observed(self, broker_name: str) -> dict[str, Any]:
        """The controller variables of one broker set (an unknown set: as before its first id)."""
        replica = self.replica_info_table.get(broker_name)
        sync = self.sync_state_set_info_table.get(broker_name)
        if replica is None or sync is None:
            return {"replicas": {}, "nextBrokerId": FIRST_BROKER_ID, "masterId": NO_MASTER_ID, "masterEpoch": 0,
                    "syncStateSet": frozenset(), "syncStateSetEpoch": 0}
        return {
            "replicas": {b: {"addr": e.address, "checkCode": e.register_check_code} for b, e in replica.broker_id_table.items()},
            "nextBrokerId": replica.next_assign_broker_id,
            "masterId": sync.master_broker_id,
            "masterEpoch": sync.master_epoch,
            "syncStateSet": sync.sync_state_set,
            "syncStateSetEpoch": sync.sync_state_set_epoch,
        }

    def _apply_broker_id_event(self, event: ApplyBrokerIdEvent) -> None:
        name = event.broker_name
        replica = self.replica_info_table.get(name)
        if replica is None:
            replica = self.replica_info_table[name] = BrokerReplicaInfo(event.cluster_name, name)
            self.sync_state_set_info_table[name] = SyncStateInfo(event.cluster_name, name)
        if event.new_broker_id not in replica.broker_id_table:
            replica.broker_id_table[event.new_broker_id] = BrokerIdInfo(event.broker_address, event.register_check_code)
            replica.next_assign_broker_id += 1

    def _update_broker_address_event(self, event: UpdateBrokerAddressEvent) -> None:
        replica = self.replica_info_table.get(event.broker_name)
        entry = None if replica is None else replica.broker_id_table.get(event.broker_id)
        if entry is not None:
            entry.address = event.broker_address

    def _elect_master_event(self, event: ElectMasterEvent) -> None:
        sync = self.sync_state_set_info_table.get(event.broker_name)
        if sync is None:
            return
        sync.master_epoch += 1
        if event.new_master_elected:
            sync.master_broker_id = event.new_master_broker_id
            sync.sync_state_set = frozenset((event.new_master_broker_id,))
            sync.sync_state_set_epoch += 1
        else:
            sync.master_broker_id = NO_MASTER_ID

    def _alter_sync_state_set_event(self, event: AlterSyncStateSetEvent) -> None:
        sync = self.sync_state_set_info_table.get(event.broker_name)
        if sync is not None:
            sync.sync_state_set = event.new_sync_state_set
            sync.sync_state_set_epoch += 1

    def _clean_broker_data_event(self, event: CleanBrokerDataEvent) -> None:
        """Removes the ids from the replicas and the syncStateSet (no epoch change), clears a removed master
        (refinement, spec/README.md), and forgets the set when no id is left or none was named."""
        name = event.broker_name
        replica = self.replica_info_table.get(name)
        if replica is None:
            return
        ids = event.broker_ids_to_clean
        table = replica.broker_id_table
        for broker_id in ids:
            table.pop(broker_id, None)
        if not ids or not table:
            del self.replica_info_table[name]
            del self.sync_state_set_info_table[name]
            return
        sync = self.sync_state_set_info_table[name]
        sync.sync_state_set = sync.sync_state_set - ids
        if sync.master_broker_id in ids:
            sync.master_broker_id = NO_MASTER_ID


# event class -> its applier (RocketMQ switches on the event type)
_APPLIERS: dict[type, Callable[[ReplicasInfoManager, Any], None]] = {
    ApplyBrokerIdEvent: ReplicasInfoManager._apply_broker_id_event,
    UpdateBrokerAddressEvent: ReplicasInfoManager._update_broker_address_event,
    ElectMasterEvent: ReplicasInfoManager._elect_master_event,
    AlterSyncStateSetEvent: ReplicasInfoManager._alter_sync_state_set_event,
    CleanBrokerDataEvent: ReplicasInfoManager._clean_broker_data_event,
}
