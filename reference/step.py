"""One step of the reference model: an action record (``tag`` + parameters, MODEL.md §7) applied to a
``System``. Controller-level tags address the controller directly (an admin, a tool or an outside trace
issuing the request); process-level tags are the broker actions of ``broker.py``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Callable

from attrs import evolve
from frozendict import frozendict

from . import broker, replication
from . import controller as ctl
from .precondition import require
from .state import Options, System


def _on_controller(request: Callable[..., tuple]) -> Callable[..., tuple[System, frozendict]]:
    def run(s: System, *args) -> tuple[System, frozendict]:
        c, outcome = request(s.controller, *args)
        return evolve(s, controller=c), outcome

    return run


_get_next = _on_controller(ctl.get_next_broker_id)
_apply = _on_controller(ctl.apply_broker_id)
_register = _on_controller(ctl.register_broker)
_elect = _on_controller(ctl.elect_master)
_alter = _on_controller(ctl.alter_sync_state_set)
_info = _on_controller(ctl.get_replica_info)
_heartbeat = _on_controller(ctl.broker_heartbeat)
_expire = _on_controller(ctl.heartbeat_expire)
_failover = _on_controller(ctl.controller_failover)
_clean = _on_controller(ctl.clean_broker_data)

# tag -> how to call the action from the record's parameters and the options
_STEPS: dict[str, Callable[[System, Mapping[str, Any], Options], tuple[System, frozendict]]] = {
    "GetNextBrokerId": lambda s, a, o: _get_next(s),
    "ApplyBrokerId": lambda s, a, o: _apply(s, a["brokerId"], a["checkCode"]),
    "RegisterBrokerToController": lambda s, a, o: _register(s, a["brokerId"], a["addr"]),
    "ElectMaster": lambda s, a, o: _elect(s, a["trigger"], a["brokerId"], o),
    "AlterSyncStateSet": lambda s, a, o: _alter(
        s, a["masterId"], a["masterEpoch"], frozenset(a["newSyncStateSet"]), a["syncStateSetEpoch"]
    ),
    "GetReplicaInfo": lambda s, a, o: _info(s),
    "BrokerHeartbeat": lambda s, a, o: _heartbeat(s, a["brokerId"], a["epoch"], a["maxOffset"], a["priority"]),
    "HeartbeatExpire": lambda s, a, o: _expire(s, a["brokerId"]),
    "ControllerFailover": lambda s, a, o: _failover(s),
    "CleanBrokerData": lambda s, a, o: _clean(s, frozenset(a["brokerIds"]), a["cleanLiving"]),
    "ControllerElectScan": lambda s, a, o: broker.controller_elect_scan(s, o),
    "LoadMetaFile": lambda s, a, o: broker.load_meta_file(s, a["process"]),
    "LoadTempFile": lambda s, a, o: broker.load_temp_file(s, a["process"]),
    "CreateTempFile": lambda s, a, o: broker.create_temp_file(s, a["process"]),
    "SendApplyBrokerId": lambda s, a, o: broker.send_apply_broker_id(s, a["process"], a["lost"]),
    "AbandonTempFile": lambda s, a, o: broker.abandon_temp_file(s, a["process"]),
    "WriteMetaFile": lambda s, a, o: broker.write_meta_file(s, a["process"]),
    "DeleteTempFile": lambda s, a, o: broker.delete_temp_file(s, a["process"]),
    "SendRegister": lambda s, a, o: broker.send_register(s, a["process"], a["lost"], o),
    "SendElectMaster": lambda s, a, o: broker.send_elect_master(s, a["process"], a["lost"], o),
    "SyncReplicaInfo": lambda s, a, o: broker.sync_replica_info(s, a["process"], o),
    "SendHeartbeat": lambda s, a, o: broker.send_heartbeat(s, a["process"]),
    "SendAlterSyncStateSet": lambda s, a, o: broker.send_alter_sync_state_set(
        s, a["process"], frozenset(a["newSyncStateSet"]), a["lost"], o
    ),
    "Crash": lambda s, a, o: broker.crash(s, a["process"]),
    "Restart": lambda s, a, o: broker.restart(s, a["process"], a["addr"]),
    "Write": lambda s, a, o: replication.write(s, a["process"], o),
    "Handshake": lambda s, a, o: replication.handshake(s, a["process"], o),
    "Transfer": lambda s, a, o: replication.transfer(s, a["process"], o),
    "Ack": lambda s, a, o: replication.ack(s, a["process"], o),
    "Expand": lambda s, a, o: replication.expand(s, a["process"], a["brokerId"], a["lost"], o),
    "Shrink": lambda s, a, o: replication.shrink(s, a["process"], a["brokerId"], a["lost"], o),
    "AlterArrives": lambda s, a, o: replication.alter_arrives(s, a["process"], o),
    "Flush": lambda s, a, o: replication.flush(s, a["process"]),
    "Consume": lambda s, a, o: replication.consume(s, a["process"]),
}


def step(s: System, action: Mapping[str, Any], opts: Options) -> tuple[System, frozendict]:
    """Apply ``action`` (a record with ``tag``) to ``s``; raises ``NotEnabled`` if it is not enabled."""
    run = _STEPS.get(action["tag"])
    require(run is not None, f"unknown action tag {action['tag']!r}")
    return run(s, action, opts)
