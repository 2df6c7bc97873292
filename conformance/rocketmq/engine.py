"""The ``rocketmq`` engine: the reference model's broker processes with RocketMQ's own controller answering every
controller request, in the harness JVM (``ControllerDriver.java``).

Each request function of ``reference/controller.py`` (:data:`REQUESTS`) is replaced, while this engine steps, by one
that sends the request to the real ``ReplicasInfoManager`` (its events applied as the state machine applies them) and
its ``DefaultBrokerHeartbeatManager``, and returns the real answer and the real state of the broker set, read back into
the model's ``Controller``. So a controller-level step is the real code's step, a broker process reacts to the real
code's answers, and every controller variable a trace compares is read from the real objects (:data:`VARIABLES`).
What the real controller does not hold (the model's running election trigger, ``elect_tries_left``) comes from the
model's own function; what this engine does not ask the real code (the broker processes, their files and data path,
the controller node's leadership) is the reference model's and said so in :data:`NOT_ASKED`.

A trace of another design or truncation policy is not RocketMQ 5's controller mode: ``NotAsked`` says so.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from frozendict import frozendict

from autoswitch.conformance.engines.reference import ReferenceEngine
from autoswitch.conformance.errors import NotAsked
from autoswitch.conformance.rocketmq.jvm import DEFAULT_VERSION, Session, session
from autoswitch.reference import codes
from autoswitch.reference import controller as ctl
from autoswitch.reference.cluster import DEFAULT_BROKER, set_of
from autoswitch.reference.precondition import NotEnabled
from autoswitch.reference.state import CONTROLLER, NO_MASTER, Controller, LiveInfo, Replica, evolve

# model variable -> where the engine reads it (the real object and field); spec/README.md shows this table
VARIABLES = {
    "replicas": "ReplicasInfoManager.replicaInfoTable[brokerName]: BrokerReplicaInfo.getBrokerIdTable() (addr) and "
                "getBrokerRegisterCheckCode(id); empty when the set is not in both tables (isContainsBroker)",
    "nextBrokerId": "BrokerReplicaInfo.getNextAssignBrokerId() (1 when the set is unknown)",
    "masterId": "SyncStateInfo.getMasterBrokerId() (null: -1)",
    "masterEpoch": "SyncStateInfo.getMasterEpoch()",
    "syncStateSet": "SyncStateInfo.getSyncStateSet()",
    "syncStateSetEpoch": "SyncStateInfo.getSyncStateSetEpoch()",
    "alive": "DefaultBrokerHeartbeatManager.brokerLiveTable: the set's entries that isBrokerActive, their "
             "BrokerLiveInfo getEpoch(), getMaxOffset(), getElectionPriority()",
}
# the component kinds of trace on the real classes (EpochDriver.java)
COMPONENTS = {
    "epoch-file `entries`": "EpochFileCache.getAllEntries() (copies, with their endOffsets)",
    "epoch-file `file`": "the checkpoint file on disk, its lines after CheckpointFile's count and CRC32 lines (checked)",
    "epoch-file `reload`": "a new EpochFileCache on the same file, initCacheFromFile",
    "handshake `truncateOffset`": "findConsistentPoint between two caches built as AutoSwitchHAClient.doTruncate builds them "
                                  "(initCacheFromEntries, setLastEpochEntryEndOffset(LEO)); an empty local cache skips it",
    "handshake `slaveEpochs`": "the slave's real cache after truncateSuffixByOffset(point), 5.1.1-5.3's unconditional cut "
                               "(5.4.0 made it conditional: not driven here, no DefaultMessageStore in the harness)",
}
# what this engine does not ask the real code, and why
NOT_ASKED = {
    "elect_tries_left (the running election trigger)": "ControllerManager.triggerElectMaster's retries: the model's; "
                                                       "the re-election scan's own predicate is the real one",
    "controllerLeader, CONTROLLER_NOT_LEADER": "DLedger leadership is the trace layer's (reference/cluster.py); "
                                               "a new leader's empty heartbeat table is a new DefaultBrokerHeartbeatManager",
    "every process variable (registration, files, log, epoch file, HA)": "the reference model's broker processes; "
                                                                         "the epoch-file kind runs the real EpochFileCache",
    "#meta.options.design other than controller, #meta.policy other than rocketmq": "not RocketMQ 5's controller mode",
    "the retention kind": "commit-log files and the transfer start need a DefaultMessageStore",
}
# the answer fields of each request, read from the real response (its header, or its body) into the model's outcome
ANSWERS = {
    "GetNextBrokerId": "nextBrokerId: header nextBrokerId",
    "RegisterBrokerToController": "on SUCCESS masterId/masterAddr/masterEpoch/syncStateSetEpoch: header masterBrokerId/"
                                  "masterAddress/masterEpoch/syncStateSetEpoch (null: -1 or \"\"); syncStateSet: body",
    "ElectMaster": "the same four from the header (null: -1 or \"\"); syncStateSet: ElectMasterResponseBody (none: {})",
    "AlterSyncStateSet": "syncStateSetEpoch: header newSyncStateSetEpoch, an int a refusal leaves at 0 (then: -1)",
    "GetReplicaInfo": "on SUCCESS masterId/masterAddr/masterEpoch: header; syncStateSet and syncStateSetEpoch: body",
}


def _nat(value: Any) -> int:
    return NO_MASTER if value is None else int(value)


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def _master_fields(answer: Mapping[str, Any], epoch_from_body: bool = False) -> dict[str, Any]:
    head, body = answer["response"], answer["body"]
    return dict(masterId=_nat(head.get("masterBrokerId")), masterAddr=_text(head.get("masterAddress")),
                masterEpoch=_nat(head.get("masterEpoch")),
                syncStateSetEpoch=_nat(body.get("syncStateSetEpoch") if epoch_from_body else head.get("syncStateSetEpoch")),
                syncStateSet=frozenset(body.get("syncStateSet") or ()))


def _outcome(tag: str, answer: Mapping[str, Any]) -> frozendict:
    """The model's outcome of ``tag`` (reference/controller.py's shape) from the real answer (:data:`ANSWERS`)."""
    code = answer["code"]
    if tag == "GetNextBrokerId":
        return frozendict(code=code, nextBrokerId=int(answer["response"]["nextBrokerId"]))
    if tag == "RegisterBrokerToController" and code == codes.SUCCESS:
        return frozendict(code=code, **_master_fields(answer))
    if tag == "ElectMaster":
        return frozendict(code=code, **_master_fields(answer))
    if tag == "AlterSyncStateSet":
        epoch = answer["response"].get("newSyncStateSetEpoch")
        unset = code != codes.SUCCESS and epoch == 0  # a primitive int a refusal leaves at its default
        return frozendict(code=code, syncStateSetEpoch=NO_MASTER if unset else _nat(epoch))
    if tag == "GetReplicaInfo" and code == codes.SUCCESS:
        return frozendict(code=code, **_master_fields(answer, epoch_from_body=True))
    return frozendict(code=code)


def controller_of(state: Mapping[str, Any], model: Controller) -> Controller:
    """The real state of one set (``ControllerDriver.state``) as the model's ``Controller``; the running election
    trigger is ``model``'s."""
    replicas = frozendict({int(i): Replica(r["addr"], r["checkCode"]) for i, r in state["replicas"].items()}) \
        if state["known"] else frozendict()
    alive = frozendict({int(i): LiveInfo(a["epoch"], a["maxOffset"], a["priority"]) for i, a in state["alive"].items()})
    return Controller(replicas=replicas, next_broker_id=int(state["nextBrokerId"]), master_id=int(state["masterId"]),
                      master_epoch=int(state["masterEpoch"]), sync_state_set=frozenset(state["syncStateSet"]),
                      sync_state_set_epoch=int(state["syncStateSetEpoch"]), alive=alive,
                      elect_tries_left=model.elect_tries_left)


class RealController:
    """The request functions of ``reference/controller.py`` answered by the harness for broker set ``broker``."""

    def __init__(self, jvm: Session, clusters: Mapping[str, str]):
        self.jvm = jvm
        self.clusters = clusters
        self.broker = DEFAULT_BROKER
        self.step = 0  # the trace state being replayed, for an error's message
        self.model = {name: getattr(ctl, name) for name in REQUESTS}

    def _where(self) -> dict[str, str]:
        return {"cluster": self.clusters[self.broker], "broker": self.broker}

    def _call(self, op: str, **fields: Any) -> dict[str, Any]:
        return self.jvm.call({"op": f"controller.{op}", **self._where(), **fields}, f"state {self.step}, controller.{op}")

    def _request(self, c: Controller, tag: str, **fields: Any) -> tuple[Controller, frozendict]:
        answer = self._call("request", tag=tag, **fields)
        return controller_of(answer["state"], c), _outcome(tag, answer)

    def _with_trigger(self, real: Controller, model: Controller) -> Controller:
        return evolve(real, elect_tries_left=model.elect_tries_left)

    def get_next_broker_id(self, c: Controller) -> tuple[Controller, frozendict]:
        return self._request(c, "GetNextBrokerId")

    def apply_broker_id(self, c: Controller, broker_id: int, check_code: str) -> tuple[Controller, frozendict]:
        return self._request(c, "ApplyBrokerId", brokerId=broker_id, checkCode=check_code)

    def register_broker(self, c: Controller, broker_id: int, addr: str) -> tuple[Controller, frozendict]:
        return self._request(c, "RegisterBrokerToController", brokerId=broker_id, addr=addr)

    def elect_master(self, c: Controller, trigger: str, broker_id: int, opts: Any) -> tuple[Controller, frozendict]:
        return self._request(c, "ElectMaster", trigger=trigger, brokerId=broker_id)

    def alter_sync_state_set(self, c: Controller, master_id: int, master_epoch: int, new_set: frozenset[int],
                             sync_state_set_epoch: int) -> tuple[Controller, frozendict]:
        return self._request(c, "AlterSyncStateSet", masterId=master_id, masterEpoch=master_epoch,
                             newSyncStateSet=sorted(new_set), syncStateSetEpoch=sync_state_set_epoch)

    def get_replica_info(self, c: Controller) -> tuple[Controller, frozendict]:
        return self._request(c, "GetReplicaInfo")

    def clean_broker_data(self, c: Controller, broker_ids: frozenset[int], clean_living: bool) -> tuple[Controller, frozendict]:
        return self._request(c, "CleanBrokerData", brokerIds=sorted(broker_ids), cleanLiving=clean_living)

    def broker_heartbeat(self, c: Controller, broker_id: int, epoch: int, max_offset: int, priority: int
                         ) -> tuple[Controller, frozendict]:
        addr = c.replicas[broker_id].addr if broker_id in c.replicas else ""
        answer = self._call("heartbeat", brokerId=broker_id, addr=addr, epoch=epoch, maxOffset=max_offset, priority=priority)
        return controller_of(answer["state"], c), frozendict(code=codes.SUCCESS)

    def heartbeat_expire(self, c: Controller, broker_id: int, opts: Any) -> tuple[Controller, frozendict]:
        """The entry's channel closes; the model's function says whether that starts an election trigger."""
        answer = self._call("expire", brokerId=broker_id)
        if not answer["existed"]:
            raise NotEnabled(f"HeartbeatExpire: the real heartbeat manager has no entry of broker {broker_id}")
        model, outcome = self.model["heartbeat_expire"](c, broker_id, opts)
        return self._with_trigger(controller_of(answer["state"], c), model), outcome

    def controller_failover(self, c: Controller) -> tuple[Controller, frozendict]:
        """A new leader's heartbeat manager (it serves every set: each set's call makes a fresh one). The model's result
        stands until the step ends, when every set is read back from the real controller (RocketMQEngine._read_back)."""
        self._call("failover")
        return self.model["controller_failover"](c)

    def needs_reelect(self, c: Controller, opts: Any) -> bool:
        """A running trigger (the model's), or DLedgerController's scan: ReplicasInfoManager.scanNeedReelectBrokerSets."""
        return c.elect_tries_left > 0 or (opts.reelect_scan and self.broker in self._call("scan")["brokerNames"])

    def lose_metadata(self) -> None:
        self._call("lose")

    def state(self, broker: str, model: Controller) -> Controller:
        self.broker = broker
        return controller_of(self._call("state")["state"], model)


# the functions of reference/controller.py the real controller answers (every request the model sends)
REQUESTS = ("get_next_broker_id", "apply_broker_id", "register_broker", "elect_master", "alter_sync_state_set",
            "get_replica_info", "clean_broker_data", "broker_heartbeat", "heartbeat_expire", "controller_failover",
            "needs_reelect")


@contextlib.contextmanager
def answering(real: RealController, names: tuple[str, ...] = REQUESTS) -> Iterator[None]:
    """While it is open, ``reference/controller.py``'s request functions ``names`` are ``real``'s."""
    saved: dict[str, Callable[..., Any]] = {name: getattr(ctl, name) for name in names}
    try:
        for name in names:
            setattr(ctl, name, getattr(real, name))
        yield
    finally:
        for name, function in saved.items():
            setattr(ctl, name, function)


class RealEpochCache:
    """The epoch-file kind's operations on a real EpochFileCache and its checkpoint file (``EpochDriver``); ``reload``
    is a new cache on the same file (initCacheFromFile)."""

    def __init__(self, version: str):
        self.jvm = session(version)
        self.last = self.jvm.call({"op": "epoch.reset"}, "Init")
        self.steps = 0

    def run(self, tag: str, a: Mapping[str, Any]) -> Any:
        self.steps += 1
        fields = {k: v for k, v in a.items() if k != "tag"}
        self.last = self.jvm.call({"op": "epoch.op", "tag": tag, **fields}, f"state {self.steps}, {tag}")
        if "found" in self.last:
            e = self.last.get("entry")
            return None if e is None else (e["epoch"], e["startOffset"], e["endOffset"])
        return self.last.get("returns") if tag != "reload" else None

    def view(self) -> dict[str, Any]:
        return {"entries": self.last["entries"], "file": self.last["file"]}


class RocketMQEngine(ReferenceEngine):
    """The engine interface of ``conformance/engines`` over the reference processes and the real controller."""

    def __init__(self, config: Any, version: str = DEFAULT_VERSION):
        if config.options.design != CONTROLLER:
            raise NotAsked(f"the {config.options.design} design is not RocketMQ 5's controller mode")
        if config.options.policy != "rocketmq":
            raise NotAsked(f"the {config.options.policy} truncation policy is Kafka's, not RocketMQ's")
        super().__init__(config)
        self.version = version
        self.jvm = session(version)
        self.jvm.call({"op": "controller.reset", "unclean": config.options.enable_elect_unclean_master}, "reset")
        self.real = RealController(self.jvm, self.cluster.clusters)

    def step(self, action: Mapping[str, Any]) -> Mapping[str, Any]:
        self.real.step += 1
        self.real.broker = set_of(self.cluster, action) if "process" not in action else DEFAULT_BROKER
        if action["tag"] == "ControllerMetadataLoss":
            outcome = super().step(action)  # its guard and the processes' view; the controllers are read below
            self.real.lose_metadata()
        else:
            # without a leader no request reaches the state machine (the trace layer answers CONTROLLER_NOT_LEADER and
            # may run the step only to test its guard); a heartbeat still reaches the node (ControllerRequestProcessor)
            leads = self.cluster.leader or action["tag"] == "ControllerLeaderElected"
            with answering(self.real, REQUESTS if leads else ("broker_heartbeat",)):
                outcome = super().step(action)
        self._read_back()
        return outcome

    def truncation_point(self, pre: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """The handshake kind on the real caches (``EpochDriver.handshake``): the point and the slave's epoch file
        after it; the slave's LEO and confirmOffset follow the point as the model's do (truncateFiles, which lowers
        confirmOffset: not driven here)."""
        answer = self.jvm.call({"op": "epoch.handshake", **{k: pre[k] for k in ("slaveEpochs", "slaveLeo", "masterEpochs",
                                                                                 "masterLeo")}}, "Handshake")
        point, leo, confirm = int(answer["point"]), pre["slaveLeo"], pre["slaveConfirmOffset"]
        code = codes.NO_CONSISTENT_POINT if point < 0 else codes.OK
        epochs = [(e["epoch"], e["startOffset"]) for e in answer["entries"]]
        return {"code": code, "truncateOffset": point}, {"slaveEpochs": epochs, "slaveLeo": leo if point < 0 else point,
                                                         "slaveConfirmOffset": confirm if point < 0 else min(confirm, point)}

    def _read_back(self) -> None:
        """Every set's controller as the real one holds it now (a step may touch several: a failover)."""
        c = self.cluster
        system = evolve(c.system, controller=self.real.state(DEFAULT_BROKER, c.system.controller))
        sets = frozendict({b: self.real.state(b, x) for b, x in c.sets.items()})
        self.cluster = evolve(c, system=system, sets=sets)


def markdown_table() -> str:
    """spec/README.md's table of the rocketmq engine: each model variable and answer with the real object it is read
    from, and what the engine does not ask the real code (a test checks the README holds exactly this)."""
    lines = ["| model | read from RocketMQ's classes |", "|---|---|"]
    lines += [f"| `{name}` | {where} |" for name, where in VARIABLES.items()]
    lines += [f"| `{tag}` answer | {where} |" for tag, where in ANSWERS.items()]
    lines += [f"| {what} | {where} |" for what, where in COMPONENTS.items()]
    lines += [f"| {what} | **not asked**: {why} |" for what, why in NOT_ASKED.items()]
    return "\n".join(lines) + "\n"
