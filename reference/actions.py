"""The action alphabet (MODEL.md §7): every action tag, its parameters with their kinds, and the reference
function that runs it, in one table. Replay validates a trace's actions against it, ``step`` runs them,
the checker and the simulator enumerate and draw them from it (conformance/explore.py).

Controller-level tags address the controller directly (an admin, a tool or an outside trace issuing the
request); process-level tags are the broker actions of ``broker.py``, data tags those of
``replication.py``. Which tags are actions of the spec's ``Next`` (AutoSwitch.tla) is said by ``next``:
the rest (the raw requests a process action sends) are taken only by traces and random requests.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from attrs import frozen
from frozendict import frozendict

from . import broker, dledger, faults, masterslave, replication
from . import controller as ctl
from .state import CONTROLLER as CONTROLLER_MODE
from .state import DESIGNS, DLEDGER, MASTER_SLAVE, Options, System, evolve

INT, STR, BOOL, INT_SET = "int", "str", "bool", "set of int"


@frozen
class Kind:
    """What a parameter ranges over (``domain``, e.g. a process or a broker id) and the type a trace
    writes it with (``type``: int, str, bool or set of int)."""

    domain: str
    type: str


PROCESS = Kind("process", STR)
BROKER_ID = Kind("broker id", INT)
BROKER_IDS = Kind("broker ids", INT_SET)
ADDR = Kind("address", STR)
CHECK_CODE = Kind("check code", STR)
LOST = Kind("response lost", BOOL)
FLAG = Kind("flag", BOOL)
TRIGGER = Kind("trigger", STR)
EPOCH = Kind("epoch", INT)
OFFSET = Kind("offset", INT)
PRIORITY = Kind("priority", INT)
NAME = Kind("name", STR)
PEER = Kind("peer", STR)  # the other end of a replication link (PartitionLink, HealLink): a process
REQUEST = Kind("request", STR)  # the controller request SendLate computes: one of faults.LATE_REQUESTS

TRIGGERS = ("broker", "controller", "admin")  # ElectMaster's trigger (MODEL.md §3)
# The switches of the spec's Next (AutoSwitch.tla): the spec configuration's TRUE ones put the rows naming them
# (``ActionDef.switch``) in Next; a lasso's ``#meta.next`` and a log's ``meta.next`` list the TRUE ones
SWITCHES = ("DataPath", "AnySetAlter", "AllowCleanBrokerData")

# groups: the controller's own election scan, requests to the controller, a broker process's actions, its
# data path, the trace-only leadership changes, and a trace's first state
SCAN, CONTROLLER, PROCESS_GROUP, DATA, LEADERSHIP, INIT = "scan", "controller", "process", "data", "leadership", "init"
Run = Callable[[System, Mapping[str, Any], Options], tuple[System, frozendict]]


@frozen
class ActionDef:
    """One tag of the alphabet. ``run(system, action, options)`` is its reference function (None for the
    tags ``step`` does not run: Init, and the leadership tags ``cluster.step`` runs). ``in_next``: an action
    of the spec's Next, when the spec configuration's ``switch`` (if any) is TRUE. ``optional``: the
    parameters a trace may add (spec/README.md, "Trace kinds"). ``fault``: the fault of MODEL.md §9
    (liveness.NEW_FAULTS) whose presence in the configuration's ``Faults`` puts the action in Next. ``designs``: the
    replication designs (state.DESIGNS, spec/Designs.tla) whose Next has the action."""

    tag: str
    group: str
    params: Mapping[str, Kind]
    run: Run | None
    in_next: bool = False
    switch: str | None = None
    optional: Mapping[str, Kind] = {}
    fault: str | None = None
    designs: frozenset[str] = frozenset({CONTROLLER_MODE})


def _on_controller(request: str) -> Callable[..., tuple[System, frozendict]]:
    """The request function of ``controller.py`` named ``request``, looked up at each call as the broker actions
    look theirs up, so that an engine may answer every request with another controller (conformance/rocketmq)."""
    def run(s: System, *args) -> tuple[System, frozendict]:
        c, outcome = getattr(ctl, request)(s.controller, *args)
        return evolve(s, controller=c), outcome

    return run


_get_next = _on_controller("get_next_broker_id")
_apply = _on_controller("apply_broker_id")
_register = _on_controller("register_broker")
_elect = _on_controller("elect_master")
_alter = _on_controller("alter_sync_state_set")
_info = _on_controller("get_replica_info")
_heartbeat = _on_controller("broker_heartbeat")
_expire = _on_controller("heartbeat_expire")
_failover = _on_controller("controller_failover")
_clean = _on_controller("clean_broker_data")

# the broker set a request names (absent: the default set), the configuration a process restarts with
# (absent: the one it had)
SET_PARAMS = {"clusterName": NAME, "brokerName": NAME}
_PROCESS = {"process": PROCESS}


def _c(tag: str, params: Mapping[str, Kind], run: Run, in_next: bool = False, switch: str | None = None,
       optional: Mapping[str, Kind] = SET_PARAMS) -> ActionDef:
    return ActionDef(tag, CONTROLLER, params, run, in_next, switch, optional)


def _p(tag: str, params: Mapping[str, Kind], run: Run, switch: str | None = None,
       optional: Mapping[str, Kind] | None = None, fault: str | None = None) -> ActionDef:
    return ActionDef(tag, PROCESS_GROUP, {**_PROCESS, **params}, run, True, switch, optional or {}, fault)


def _deliver(s: System, a: Mapping[str, Any], o: Options) -> tuple[System, frozendict]:
    """DeliverLate: the late request run by its own tag's function of this table."""
    def apply(t: System, request: Mapping[str, Any]) -> tuple[System, frozendict]:
        run = ACTIONS[request["tag"]].run
        assert run is not None  # a late request is one of faults.LATE_REQUESTS, controller-level actions
        return run(t, request, o)

    return faults.deliver_late(s, a["process"], apply)


def _d(tag: str, params: Mapping[str, Kind], run: Run, designs: frozenset[str] = frozenset({CONTROLLER_MODE})) -> ActionDef:
    return ActionDef(tag, DATA, {**_PROCESS, **params}, run, True, "DataPath", designs=designs)


_ALL, _MS, _DL = frozenset(DESIGNS), frozenset({MASTER_SLAVE}), frozenset({DLEDGER})


def _design(tag: str, params: Mapping[str, Kind], run: Run, designs: frozenset[str]) -> ActionDef:
    """A process action of a design RIP-44 replaced (designs.py)."""
    return ActionDef(tag, PROCESS_GROUP, {**_PROCESS, **params}, run, True, designs=designs)


_TABLE = (
    ActionDef("Init", INIT, {}, None),
    # controller-level: its own scan (first: EnvNext's order), then the requests it answers
    ActionDef("ControllerElectScan", SCAN, {}, lambda s, a, o: broker.controller_elect_scan(s, o), True, None, SET_PARAMS),
    _c("GetNextBrokerId", {}, lambda s, a, o: _get_next(s)),
    _c("ApplyBrokerId", {"brokerId": BROKER_ID, "checkCode": CHECK_CODE},
       lambda s, a, o: _apply(s, a["brokerId"], a["checkCode"])),
    _c("RegisterBrokerToController", {"brokerId": BROKER_ID, "addr": ADDR},
       lambda s, a, o: _register(s, a["brokerId"], a["addr"])),
    _c("ElectMaster", {"trigger": TRIGGER, "brokerId": BROKER_ID},
       lambda s, a, o: _elect(s, a["trigger"], a["brokerId"], o), in_next=True),  # Next: the admin's ElectMaster
    _c("AlterSyncStateSet",
       {"masterId": BROKER_ID, "masterEpoch": EPOCH, "newSyncStateSet": BROKER_IDS, "syncStateSetEpoch": EPOCH},
       lambda s, a, o: _alter(s, a["masterId"], a["masterEpoch"], frozenset(a["newSyncStateSet"]), a["syncStateSetEpoch"])),
    _c("GetReplicaInfo", {}, lambda s, a, o: _info(s)),
    _c("BrokerHeartbeat", {"brokerId": BROKER_ID, "epoch": EPOCH, "maxOffset": OFFSET, "priority": PRIORITY},
       lambda s, a, o: _heartbeat(s, a["brokerId"], a["epoch"], a["maxOffset"], a["priority"])),
    _c("HeartbeatExpire", {"brokerId": BROKER_ID}, lambda s, a, o: _expire(s, a["brokerId"], o), in_next=True),
    _c("ControllerFailover", {}, lambda s, a, o: _failover(s), in_next=True, optional={}),
    _c("CleanBrokerData", {"brokerIds": BROKER_IDS, "cleanLiving": FLAG},
       lambda s, a, o: _clean(s, frozenset(a["brokerIds"]), a["cleanLiving"]), in_next=True, switch="AllowCleanBrokerData"),
    # process-level: a broker process's registration, heartbeats, elections, crash and restart
    _p("LoadMetaFile", {}, lambda s, a, o: broker.load_meta_file(s, a["process"])),
    _p("LoadTempFile", {}, lambda s, a, o: broker.load_temp_file(s, a["process"])),
    _p("CreateTempFile", {}, lambda s, a, o: broker.create_temp_file(s, a["process"])),
    _p("SendApplyBrokerId", {"lost": LOST}, lambda s, a, o: broker.send_apply_broker_id(s, a["process"], a["lost"])),
    _p("AbandonTempFile", {}, lambda s, a, o: broker.abandon_temp_file(s, a["process"], o)),
    _p("WriteMetaFile", {}, lambda s, a, o: broker.write_meta_file(s, a["process"])),
    _p("DeleteTempFile", {}, lambda s, a, o: broker.delete_temp_file(s, a["process"])),
    _p("SendRegister", {"lost": LOST}, lambda s, a, o: broker.send_register(s, a["process"], a["lost"], o)),
    _p("SendElectMaster", {"lost": LOST}, lambda s, a, o: broker.send_elect_master(s, a["process"], a["lost"], o)),
    _p("SyncReplicaInfo", {}, lambda s, a, o: broker.sync_replica_info(s, a["process"], o)),
    _p("SendHeartbeat", {}, lambda s, a, o: broker.send_heartbeat(s, a["process"])),
    _p("SendAlterSyncStateSet", {"newSyncStateSet": BROKER_IDS, "lost": LOST},
       lambda s, a, o: broker.send_alter_sync_state_set(s, a["process"], frozenset(a["newSyncStateSet"]), a["lost"], o),
       switch="AnySetAlter"),
    ActionDef("Crash", PROCESS_GROUP, _PROCESS, lambda s, a, o: broker.crash(s, a["process"], o), True, designs=_ALL),
    _p("Restart", {"addr": ADDR}, lambda s, a, o: broker.restart(s, a["process"], a["addr"]), optional=SET_PARAMS),
    # the faults of MODEL.md §9 a process suffers (faults.py), in Next only when the configuration's Faults names them
    _p("CrashTorn", {}, lambda s, a, o: faults.crash_torn(s, a["process"], o), fault="CrashTorn"),
    _p("PartitionLink", {"peer": PEER, "lost": LOST}, lambda s, a, o: faults.partition_link(s, a["process"], a["peer"], a["lost"]),
       fault="PartitionLink"),
    _p("HealLink", {"peer": PEER}, lambda s, a, o: faults.heal_link(s, a["process"], a["peer"]), fault="PartitionLink"),
    _p("SendLate", {"request": REQUEST}, lambda s, a, o: faults.send_late(s, a["process"], a["request"]), fault="SendLate"),
    _p("DeliverLate", {}, _deliver, fault="SendLate"),
    _p("WipeDisk", {}, lambda s, a, o: faults.wipe_disk(s, a["process"]), fault="WipeDisk"),
    # data path (replication.py)
    _d("Write", {}, lambda s, a, o: replication.write(s, a["process"], o)),
    _d("Handshake", {}, lambda s, a, o: replication.handshake(s, a["process"], o)),
    _d("Transfer", {}, lambda s, a, o: replication.transfer(s, a["process"], o)),
    _d("Ack", {}, lambda s, a, o: replication.ack(s, a["process"], o)),
    _d("Expand", {"brokerId": BROKER_ID, "lost": LOST},
       lambda s, a, o: replication.expand(s, a["process"], a["brokerId"], a["lost"], o)),
    _d("Shrink", {"brokerId": BROKER_ID, "lost": LOST},
       lambda s, a, o: replication.shrink(s, a["process"], a["brokerId"], a["lost"], o)),
    _d("AlterArrives", {}, lambda s, a, o: replication.alter_arrives(s, a["process"], o)),
    _d("Flush", {}, lambda s, a, o: replication.flush(s, a["process"]), _ALL),
    _d("Consume", {}, lambda s, a, o: replication.consume(s, a["process"], o), _ALL),
    # RocketMQ 4.x master-slave (masterslave.py): the operator's restart and failover, then the data path
    _design("MsRestart", {}, lambda s, a, o: masterslave.ms_restart(s, a["process"]), _MS),
    _design("OperatorFailover", {}, lambda s, a, o: masterslave.operator_failover(s, a["process"]), _MS),
    _d("MsWrite", {}, lambda s, a, o: masterslave.ms_write(s, a["process"], o), _MS),
    _d("MsConnect", {}, lambda s, a, o: masterslave.ms_connect(s, a["process"]), _MS),
    _d("MsTransfer", {}, lambda s, a, o: masterslave.ms_transfer(s, a["process"], o), _MS),
    _d("MsAck", {}, lambda s, a, o: masterslave.ms_ack(s, a["process"]), _MS),
    _d("MsSlaveTimeout", {}, lambda s, a, o: masterslave.ms_slave_timeout(s, a["process"]), _MS),
    # DLedger mode (dledger.py): elections and restarts, then the data path
    _design("DlElect", {}, lambda s, a, o: dledger.dl_elect(s, a["process"]), _DL),
    _design("DlRestart", {}, lambda s, a, o: dledger.dl_restart(s, a["process"]), _DL),
    _d("DlWrite", {}, lambda s, a, o: dledger.dl_write(s, a["process"], o), _DL),
    _d("DlPush", {"peer": PEER}, lambda s, a, o: dledger.dl_push(s, a["process"], a["peer"], o), _DL),
    # the controller forgets everything (EnvNext's last action)
    ActionDef("ControllerMetadataLoss", CONTROLLER, {}, lambda s, a, o: faults.controller_metadata_loss(s), True, None, SET_PARAMS,
              "ControllerMetadataLoss"),
    # trace-only (spec/README.md, "Trace kinds"): the controller node loses / regains DLedger leadership;
    # not spec actions, run by cluster.step
    ActionDef("ControllerLeaderLost", LEADERSHIP, {}, None),
    ActionDef("ControllerLeaderElected", LEADERSHIP, {}, None),
)
ACTIONS: dict[str, ActionDef] = {a.tag: a for a in _TABLE}
if not {a.switch for a in _TABLE if a.switch} <= set(SWITCHES):
    raise ImportError(f"a row's switch is not one of SWITCHES {SWITCHES}")


WRITE_TAGS = frozenset({"Write", "MsWrite", "DlWrite"})  # a producer's write, in Next while nextMsg <= MaxMsgs


def tags(*groups: str, with_faults: bool = False, design: str = CONTROLLER_MODE) -> tuple[str, ...]:
    """The tags of ``groups`` in ``design``'s Next, in the table's order; a fault's action (``ActionDef.fault``) only
    ``with_faults`` (as Next has one only when the configuration's Faults names it)."""
    return tuple(t for t, a in ACTIONS.items()
                 if a.group in groups and design in a.designs and (with_faults or a.fault is None))


def record(tag: str, values: Mapping[Kind, Any]) -> dict[str, Any]:
    """The action record of ``tag``, each parameter's value taken from ``values`` by its kind."""
    missing = [f"{n} ({k.domain})" for n, k in ACTIONS[tag].params.items() if k not in values]
    if missing:
        raise ValueError(f"{tag}: no value for {', '.join(missing)}")
    return {"tag": tag, **{name: values[kind] for name, kind in ACTIONS[tag].params.items()}}
