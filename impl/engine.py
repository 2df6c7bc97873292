"""The adapter the conformance suite drives: one broker set (``DefaultCluster`` / ``broker-a``) with its
controller and broker processes, stepped by the action records of ``reference/step.py`` (MODEL.md §7)
and observed as the reference's variables (``reference/variables.py``).

Controller-level tags send the request to the controller directly (an admin tool or an outside trace);
process-level tags drive a broker's ``ReplicasManager``. A ``lost`` flag makes the transport drop that
step's response after the controller applied the request.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from autoswitch.reference.precondition import NotEnabled

from .broker import BrokerConfig, BrokerProcess, CheckCodeClock, ControllerClient, ReplicasManager, Role
from .controller import ControllerConfig, ControllerManager
from .ha import BrokerSet, HAConfig
from .metadata import load_meta, load_temp
from .protocol import (
    NO_MASTER_ID,
    AlterSyncStateSetRequest,
    ApplyBrokerIdRequest,
    BrokerHeartbeatRequest,
    CleanBrokerDataRequest,
    ElectMasterRequest,
    GetNextBrokerIdRequest,
    GetReplicaInfoRequest,
    RegisterBrokerToControllerRequest,
    Response,
)
from .storage import FileStorage, MemoryStorage, Storage

CLUSTER_NAME = "DefaultCluster"
BROKER_NAME = "broker-a"

Outcome = dict[str, Any]


def _outcome(response: Response) -> Outcome:
    """A controller response as a trace outcome: ``code`` by name, the header fields, the syncStateSet."""
    body = response.body
    if body is None:
        return {"code": response.name, **response.header}
    return {"code": response.name, **response.header, "syncStateSet": body}


class ImplSystem:
    """The implementation of one broker set, steppable like the reference model."""

    def __init__(
        self,
        processes: Mapping[str, str],
        *,
        enable_elect_unclean_master: bool = False,
        policy: str = "rocketmq",
        all_ack_in_sync_state_set: bool = True,
        min_in_sync_replicas: int = 1,
        in_sync_replicas: int = 1,
        async_flush: bool = False,
        async_learners: Iterable[str] = frozenset(),
        union_ack_fix: bool = True,
        confirm_freeze_fix: bool = True,
        storage: str = "memory",
        root: str | None = None,
    ) -> None:
        if storage not in ("memory", "file"):
            raise ValueError(f"unknown storage backend {storage!r}")
        if storage == "file" and root is None:
            raise ValueError("the file storage backend needs a root directory")
        self._controller = ControllerManager(ControllerConfig(enable_elect_unclean_master))
        self._client = ControllerClient(self._controller)
        self._clock = CheckCodeClock()
        self._master_history: set[tuple[int, str]] = set()
        # Requests without parameters are built once (handlers never mutate a request).
        self._next_broker_id_request = GetNextBrokerIdRequest(CLUSTER_NAME, BROKER_NAME)
        self._replica_info_request = GetReplicaInfoRequest(CLUSTER_NAME, BROKER_NAME)
        self._controller_elect_request = ElectMasterRequest(CLUSTER_NAME, BROKER_NAME, None)
        config = BrokerConfig(CLUSTER_NAME, BROKER_NAME)
        self._broker_set = BrokerSet(
            HAConfig(
                policy,
                all_ack_in_sync_state_set,
                min_in_sync_replicas,
                in_sync_replicas,
                async_flush,
                async_learners,
                union_ack_fix,
                confirm_freeze_fix,
            )
        )
        self._processes: dict[str, BrokerProcess] = {}
        for name, address in processes.items():
            disk: Storage = MemoryStorage() if storage == "memory" else FileStorage(os.path.join(root, name))
            self._processes[name] = BrokerProcess(
                name, config, disk, address, self._client, self._clock, self._record_master, self._broker_set
            )

    def _record_master(self, process: str, master_epoch: int) -> None:
        """Ghost variable: which process acted as master in which master epoch."""
        self._master_history.add((master_epoch, process))

    def step(self, action: Mapping[str, Any]) -> Outcome:
        """Apply one action record; raises ``NotEnabled`` if it is not enabled in this state."""
        run = _STEPS.get(action["tag"])
        if run is None:
            raise NotEnabled(f"unknown action tag {action['tag']!r}")
        return run(self, action)

    # ---- controller-level actions -------------------------------------------------------------------

    def _get_next_broker_id(self, a: Mapping[str, Any]) -> Outcome:
        return _outcome(self._controller.get_next_broker_id(self._next_broker_id_request))

    def _apply_broker_id(self, a: Mapping[str, Any]) -> Outcome:
        request = ApplyBrokerIdRequest(CLUSTER_NAME, BROKER_NAME, a["brokerId"], a["checkCode"])
        return _outcome(self._controller.apply_broker_id(request))

    def _register_broker(self, a: Mapping[str, Any]) -> Outcome:
        request = RegisterBrokerToControllerRequest(CLUSTER_NAME, BROKER_NAME, a["brokerId"], a["addr"])
        return _outcome(self._controller.register_broker(request))

    def _elect_master(self, a: Mapping[str, Any]) -> Outcome:
        trigger = a["trigger"]
        if trigger == "controller":
            request = self._controller_elect_request
        else:
            request = ElectMasterRequest(CLUSTER_NAME, BROKER_NAME, a["brokerId"], trigger == "admin")
        return _outcome(self._controller.elect_master(request))

    def _alter_sync_state_set(self, a: Mapping[str, Any]) -> Outcome:
        request = AlterSyncStateSetRequest(
            CLUSTER_NAME,
            BROKER_NAME,
            a["masterId"],
            a["masterEpoch"],
            frozenset(a["newSyncStateSet"]),
            a["syncStateSetEpoch"],
        )
        return _outcome(self._controller.alter_sync_state_set(request))

    def _get_replica_info(self, a: Mapping[str, Any]) -> Outcome:
        return _outcome(self._controller.get_replica_info(self._replica_info_request))

    def _broker_heartbeat(self, a: Mapping[str, Any]) -> Outcome:
        request = BrokerHeartbeatRequest(
            CLUSTER_NAME, BROKER_NAME, a["brokerId"], a["epoch"], a["maxOffset"], a["priority"]
        )
        return _outcome(self._controller.broker_heartbeat(request))

    def _heartbeat_expire(self, a: Mapping[str, Any]) -> Outcome:
        broker_id = a["brokerId"]
        if not self._controller.heartbeat_manager.on_broker_inactive(CLUSTER_NAME, BROKER_NAME, broker_id):
            raise NotEnabled(f"HeartbeatExpire: broker {broker_id} is not alive")
        return {"code": "OK"}

    def _controller_failover(self, a: Mapping[str, Any]) -> Outcome:
        self._controller.failover()
        return {"code": "OK"}

    def _clean_broker_data(self, a: Mapping[str, Any]) -> Outcome:
        request = CleanBrokerDataRequest(CLUSTER_NAME, BROKER_NAME, frozenset(a["brokerIds"]), a["cleanLiving"])
        return _outcome(self._controller.clean_broker_data(request))

    def _controller_elect_scan(self, a: Mapping[str, Any]) -> Outcome:
        response = self._controller.scan_inactive_master(CLUSTER_NAME, BROKER_NAME)
        if response is None:
            raise NotEnabled("no re-election needed")
        return _outcome(response)

    # ---- process-level actions ----------------------------------------------------------------------

    def _running(self, process: str) -> ReplicasManager:
        """The volatile state of a running process; NotEnabled if it is unknown or DOWN."""
        broker = self._processes.get(process)
        if broker is None:
            raise NotEnabled(f"unknown process {process!r}")
        manager = broker.replicas_manager
        if manager is None:
            raise NotEnabled(f"{process} is DOWN")
        return manager

    def _send_alter_sync_state_set(self, a: Mapping[str, Any]) -> Outcome:
        manager = self._running(a["process"])
        client = self._client
        client.lose_next_response = a["lost"]
        try:
            manager.send_alter_sync_state_set(frozenset(a["newSyncStateSet"]))
        finally:
            client.lose_next_response = False
        return _outcome(client.last_response)

    def _crash(self, a: Mapping[str, Any]) -> Outcome:
        _broker(self, a["process"]).crash()
        return {"code": "OK"}

    def _restart(self, a: Mapping[str, Any]) -> Outcome:
        _broker(self, a["process"]).restart(a["addr"])
        return {"code": "OK"}

    def _flush(self, a: Mapping[str, Any]) -> Outcome:
        _broker(self, a["process"]).flush()
        return {"code": "OK"}

    # ---- observation --------------------------------------------------------------------------------

    def variables(self) -> dict[str, Any]:
        """The reference's variables (``reference/variables.py``), read from the implementation's state."""
        info = self._controller.replicas_info
        replica = info.replica_info_table.get(BROKER_NAME)
        sync = info.sync_state_set_info_table.get(BROKER_NAME)
        alive = self._controller.heartbeat_manager.live_table(CLUSTER_NAME, BROKER_NAME)
        meta_file: dict[str, int] = {}
        temp_file: dict[str, dict[str, Any]] = {}
        reg_state: dict[str, str] = {}
        addr: dict[str, str] = {}
        role: dict[str, str] = {}
        local_master_epoch: dict[str, int] = {}
        local_sync_state_set_epoch: dict[str, int] = {}
        log: dict[str, list[tuple[int, int]]] = {}
        flushed: dict[str, int] = {}
        epoch_file: dict[str, list[tuple[int, int]]] = {}
        confirm_offset: dict[str, int] = {}
        local_master_id: dict[str, int] = {}
        local_sync_state_set: dict[str, frozenset[int]] = {}
        ha_state: dict[str, str] = {}
        acks: dict[str, dict[int, int]] = {}
        pending_alter: dict[str, dict[str, Any]] = {}
        for name, broker in self._processes.items():
            meta = load_meta(broker.storage)
            temp = load_temp(broker.storage)
            manager = broker.replicas_manager
            meta_file[name] = meta.broker_id if meta is not None else 0
            temp_file[name] = (
                {"brokerId": temp.broker_id, "checkCode": temp.register_check_code}
                if temp is not None
                else {"brokerId": 0, "checkCode": ""}
            )
            reg_state[name] = broker.register_state.value
            addr[name] = broker.address
            role[name] = Role.NONE.value if manager is None else manager.role.value
            local_master_epoch[name] = 0 if manager is None else manager.master_epoch
            local_sync_state_set_epoch[name] = 0 if manager is None else manager.sync_state_set_epoch
            log[name] = list(broker.commit_log.entries)
            flushed[name] = broker.commit_log.flushed
            epoch_file[name] = broker.epoch_file.entries()
            confirm_offset[name] = broker.confirm_offset
            if manager is None:
                local_master_id[name] = NO_MASTER_ID
                local_sync_state_set[name] = frozenset()
                ha_state[name] = "NONE"
                acks[name] = {}
                pending = None
            else:
                local_master_id[name] = manager.master_id
                local_sync_state_set[name] = manager.sync_state_set
                ha_state[name] = manager.ha_state.value
                acks[name] = dict(manager.acks)
                pending = manager.pending_alter
            pending_alter[name] = (
                {"newSyncStateSet": pending.new_sync_state_set, "code": pending.response.name,
                 "syncStateSetEpoch": pending.response.header["syncStateSetEpoch"], "delivered": pending.delivered}
                if pending is not None
                else {"newSyncStateSet": frozenset(), "code": "", "syncStateSetEpoch": -1, "delivered": False}
            )  # fmt: skip
        return {
            "replicas": {}
            if replica is None
            else {b: {"addr": e.address, "checkCode": e.register_check_code} for b, e in replica.broker_id_table.items()},
            "nextBrokerId": 1 if replica is None else replica.next_assign_broker_id,
            "masterId": NO_MASTER_ID if sync is None else sync.master_broker_id,
            "masterEpoch": 0 if sync is None else sync.master_epoch,
            "syncStateSet": frozenset() if sync is None else sync.sync_state_set,
            "syncStateSetEpoch": 0 if sync is None else sync.sync_state_set_epoch,
            "alive": {
                b: {"epoch": i.epoch, "maxOffset": i.max_offset, "priority": i.election_priority}
                for b, i in alive.items()
            },
            "electTriesLeft": self._controller.elect_tries_left.get(BROKER_NAME, 0),
            "metaFile": meta_file,
            "tempFile": temp_file,
            "regState": reg_state,
            "addr": addr,
            "role": role,
            "localMasterEpoch": local_master_epoch,
            "localSyncStateSetEpoch": local_sync_state_set_epoch,
            "clock": self._clock.now,
            "masterHistory": frozenset(self._master_history),
            "log": log,
            "flushed": flushed,
            "epochFile": epoch_file,
            "confirmOffset": confirm_offset,
            "localMasterId": local_master_id,
            "localSyncStateSet": local_sync_state_set,
            "haState": ha_state,
            "acks": acks,
            "pendingAlter": pending_alter,
            "nextMsg": self._broker_set.next_msg,
            "acked": frozenset(self._broker_set.acked),
            "seen": frozenset(self._broker_set.seen),
        }

def _broker(system: ImplSystem, process: str) -> BrokerProcess:
    """The process named ``process``; NotEnabled for an unknown one."""
    broker = system._processes.get(process)
    if broker is None:
        raise NotEnabled(f"unknown process {process!r}")
    return broker


def _running_manager(system: ImplSystem, process: str) -> ReplicasManager:
    """The ReplicasManager of a running process; NotEnabled for an unknown or a DOWN one."""
    broker = _broker(system, process)
    if broker.replicas_manager is None:
        raise NotEnabled(f"{process} is DOWN")
    return broker.replicas_manager


def _process_step(
    method: Callable[[ReplicasManager], None], calls_controller: bool, lossy: bool
) -> Callable[[ImplSystem, Mapping[str, Any]], Outcome]:
    """The step of a ReplicasManager action. Its outcome is the controller's response when it sends a
    request (delivered or lost), else OK; a ``lossy`` action's ``lost`` flag drops the response."""

    def run(system: ImplSystem, a: Mapping[str, Any]) -> Outcome:
        manager = _running_manager(system, a["process"])
        client = system._client
        if lossy:
            client.lose_next_response = a["lost"]
            try:
                method(manager)
            finally:
                client.lose_next_response = False
        else:
            method(manager)
        return _outcome(client.last_response) if calls_controller else {"code": "OK"}

    return run


def _data_step(
    method: Callable[..., Outcome | None], calls_controller: bool = False, broker_id: bool = False
) -> Callable[[ImplSystem, Mapping[str, Any]], Outcome]:
    """The step of a data-path action of a running process's ReplicasManager. A method that returns None
    has outcome OK, or the controller's response when it sends a request (``lost`` drops the answer)."""

    def run(system: ImplSystem, a: Mapping[str, Any]) -> Outcome:
        manager = _running_manager(system, a["process"])
        if not calls_controller:
            outcome = method(manager)
            return {"code": "OK"} if outcome is None else outcome
        client = system._client
        client.lose_next_response = a["lost"]
        try:
            method(manager, a["brokerId"])
        finally:
            client.lose_next_response = False
        return _outcome(client.last_response)

    return run


# tag -> the step, called with the system and the action record (built once, not per system)
_STEPS: dict[str, Callable[[ImplSystem, Mapping[str, Any]], Outcome]] = {
    "GetNextBrokerId": ImplSystem._get_next_broker_id,
    "ApplyBrokerId": ImplSystem._apply_broker_id,
    "RegisterBrokerToController": ImplSystem._register_broker,
    "ElectMaster": ImplSystem._elect_master,
    "AlterSyncStateSet": ImplSystem._alter_sync_state_set,
    "GetReplicaInfo": ImplSystem._get_replica_info,
    "BrokerHeartbeat": ImplSystem._broker_heartbeat,
    "HeartbeatExpire": ImplSystem._heartbeat_expire,
    "ControllerFailover": ImplSystem._controller_failover,
    "CleanBrokerData": ImplSystem._clean_broker_data,
    "ControllerElectScan": ImplSystem._controller_elect_scan,
    "LoadMetaFile": _process_step(ReplicasManager.load_meta_file, False, False),
    "LoadTempFile": _process_step(ReplicasManager.load_temp_file, False, False),
    "CreateTempFile": _process_step(ReplicasManager.create_temp_file, True, False),
    "SendApplyBrokerId": _process_step(ReplicasManager.send_apply_broker_id, True, True),
    "AbandonTempFile": _process_step(ReplicasManager.abandon_temp_file, False, False),
    "WriteMetaFile": _process_step(ReplicasManager.write_meta_file, False, False),
    "DeleteTempFile": _process_step(ReplicasManager.delete_temp_file, False, False),
    "SendRegister": _process_step(ReplicasManager.send_register, True, True),
    "SendElectMaster": _process_step(ReplicasManager.send_elect_master, True, True),
    "SyncReplicaInfo": _process_step(ReplicasManager.sync_replica_info, True, False),
    "SendHeartbeat": _process_step(ReplicasManager.send_heartbeat, True, False),
    "SendAlterSyncStateSet": ImplSystem._send_alter_sync_state_set,
    "Crash": ImplSystem._crash,
    "Restart": ImplSystem._restart,
    "Write": _data_step(ReplicasManager.write),
    "Handshake": _data_step(ReplicasManager.handshake),
    "Transfer": _data_step(ReplicasManager.transfer),
    "Ack": _data_step(ReplicasManager.ack),
    "Expand": _data_step(ReplicasManager.expand, True),
    "Shrink": _data_step(ReplicasManager.shrink, True),
    "AlterArrives": _data_step(ReplicasManager.alter_arrives),
    "Flush": ImplSystem._flush,
    "Consume": _data_step(ReplicasManager.consume),
}
