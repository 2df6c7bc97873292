"""Hand-written traces of the trace-only kinds of spec/README.md ("Trace kinds"): several broker sets,
the controller node losing and regaining leadership, a heartbeat without brokerId, and the identity
files' contents with a process whose configured broker set differs from its files. Each expected value
is what ../shared/ROCKETMQ.md (§1-§3, §6.1, §7.2) and RocketMQ's code cited there say.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from autoswitch.conformance.engines import Config
from autoswitch.conformance.scenarios.controller import EMPTY_TEMP, NO_LIVE_MASTER, Scenario, _cc

A, B, C = "10.0.0.1:30911", "10.0.0.2:30911", "10.0.0.3:30911"
SETS = {"broker-a": "DefaultCluster", "broker-b": "DefaultCluster"}
LIVE0 = {"epoch": 0, "maxOffset": 0, "priority": 0}


def _sets(name: str, about: str) -> Scenario:
    """Two declared sets in one cluster; the controller variables are functions of the brokerName."""
    s = Scenario(name, about, replicas={"broker-a": {}, "broker-b": {}}, nextBrokerId={"broker-a": 1, "broker-b": 1},
                 masterId={"broker-a": -1, "broker-b": -1}, masterEpoch={"broker-a": 0, "broker-b": 0},
                 alive={"broker-a": {}, "broker-b": {}})
    s.config = Config({}, s.config.options, SETS)
    return s


def _in(broker: str, **params: Any) -> dict[str, Any]:
    return {"clusterName": "DefaultCluster", "brokerName": broker, **params}


def _join_set(s: Scenario, broker: str, broker_id: int, addr: str, t: int, master: dict[str, Any] = NO_LIVE_MASTER) -> Scenario:
    """ApplyBrokerId, RegisterBrokerToController (answering ``master``) and a heartbeat of one id in one set."""
    s.step("ApplyBrokerId", params=_in(broker, brokerId=broker_id, checkCode=_cc(addr, t)))
    s.step("RegisterBrokerToController", params=_in(broker, brokerId=broker_id, addr=addr), returns=master)
    return s.step("BrokerHeartbeat", params=_in(broker, brokerId=broker_id, epoch=0, maxOffset=0, priority=0))


def two_sets_elect_independently() -> Scenario:
    s = _sets("two-sets-elect-independently", "Two broker sets of one cluster: each hands out ids from 1 and elects "
              "its own master in its own epoch; a request names its set by brokerName (ReplicasInfoManager keys "
              "both tables by brokerName)")
    _join_set(s, "broker-a", 1, A, 1)
    _join_set(s, "broker-b", 1, B, 2)
    s.step("GetNextBrokerId", params=_in("broker-b"), returns={"nextBrokerId": 2},
           replicas={"broker-a": {1: {"addr": A, "checkCode": _cc(A, 1)}}, "broker-b": {1: {"addr": B, "checkCode": _cc(B, 2)}}},
           nextBrokerId={"broker-a": 2, "broker-b": 2}, alive={"broker-a": {1: LIVE0}, "broker-b": {1: LIVE0}})
    s.step("ElectMaster", params=_in("broker-a", trigger="broker", brokerId=1),
           returns={"masterId": 1, "masterAddr": A, "masterEpoch": 1, "syncStateSetEpoch": 1, "syncStateSet": frozenset({1})},
           masterId={"broker-a": 1, "broker-b": -1}, masterEpoch={"broker-a": 1, "broker-b": 0},
           syncStateSet={"broker-a": frozenset({1}), "broker-b": frozenset()})
    _join_set(s, "broker-a", 2, C, 3, {"masterId": 1, "masterAddr": A, "masterEpoch": 1, "syncStateSetEpoch": 1})
    s.step("ElectMaster", params=_in("broker-b", trigger="broker", brokerId=1),
           returns={"masterId": 1, "masterAddr": B, "masterEpoch": 1, "syncStateSetEpoch": 1, "syncStateSet": frozenset({1})},
           masterId={"broker-a": 1, "broker-b": 1}, masterEpoch={"broker-a": 1, "broker-b": 1},
           syncStateSetEpoch={"broker-a": 1, "broker-b": 1}, nextBrokerId={"broker-a": 3, "broker-b": 2})
    # the master of broker-a expires: its scan elects nobody (broker 2 is not in the set), broker-b is untouched
    s.step("HeartbeatExpire", "OK", params=_in("broker-a", brokerId=1),
           alive={"broker-a": {2: LIVE0}, "broker-b": {1: LIVE0}})
    s.step("ControllerElectScan", "CONTROLLER_MASTER_NOT_AVAILABLE", params=_in("broker-a"),
           returns={"masterId": -1},
           masterId={"broker-a": -1, "broker-b": 1}, masterEpoch={"broker-a": 2, "broker-b": 1},
           syncStateSet={"broker-a": frozenset({1}), "broker-b": frozenset({1})})
    s.step("GetReplicaInfo", params=_in("broker-b"),
           returns={"masterId": 1, "masterAddr": B, "masterEpoch": 1, "syncStateSet": frozenset({1})})
    # a new controller leader has no heartbeat of any set
    return s.step("ControllerFailover", "OK", alive={"broker-a": {}, "broker-b": {}},
                  masterId={"broker-a": -1, "broker-b": 1})


def heartbeat_of_another_set() -> Scenario:
    s = _sets("heartbeat-of-another-set", "The liveness table is keyed by (clusterName, brokerName, brokerId): a "
              "heartbeat of id 1 of broker-b does not make id 1 of broker-a alive, so broker-a's registration "
              "answer names no live master and its broker election fails")
    _join_set(s, "broker-a", 1, A, 1)
    s.step("ElectMaster", params=_in("broker-a", trigger="broker", brokerId=1),
           returns={"masterId": 1, "masterAddr": A, "masterEpoch": 1, "syncStateSetEpoch": 1})
    s.step("HeartbeatExpire", "OK", params=_in("broker-a", brokerId=1), alive={"broker-a": {}, "broker-b": {}})
    s.step("BrokerHeartbeat", params=_in("broker-b", brokerId=1, epoch=1, maxOffset=5, priority=0),
           alive={"broker-a": {}, "broker-b": {1: {"epoch": 1, "maxOffset": 5, "priority": 0}}})
    s.step("RegisterBrokerToController", params=_in("broker-a", brokerId=1, addr=A),
           returns={**NO_LIVE_MASTER, "syncStateSet": frozenset({1})})
    return s.step("ElectMaster", "CONTROLLER_ELECT_MASTER_FAILED", params=_in("broker-a", trigger="broker", brokerId=1),
                  masterId={"broker-a": 1, "broker-b": -1}, masterEpoch={"broker-a": 1, "broker-b": 0},
                  replicas={"broker-a": {1: {"addr": A, "checkCode": _cc(A, 1)}}, "broker-b": {}})


def _one_set(name: str, about: str) -> Scenario:
    return Scenario(name, about, replicas={}, nextBrokerId=1, masterId=-1, masterEpoch=0, alive={}, controllerLeader=True)


def leader_lost() -> Scenario:
    s = _one_set("controller-leader-lost", "The controller node loses DLedger leadership: every replicated request "
                 "answers CONTROLLER_NOT_LEADER and changes nothing (DLedgerController.appendEvent); heartbeats are "
                 "still taken (ControllerRequestProcessor.handleBrokerHeartbeat). Leadership regained: the "
                 "replicated state is kept and the liveness table starts empty")
    s.step("ApplyBrokerId", params={"brokerId": 1, "checkCode": _cc(A, 1)}, nextBrokerId=2)
    s.step("BrokerHeartbeat", params={"brokerId": 1, "epoch": 0, "maxOffset": 0, "priority": 0})
    s.step("ElectMaster", params={"trigger": "broker", "brokerId": 1},
           returns={"masterId": 1, "masterAddr": A, "masterEpoch": 1, "syncStateSetEpoch": 1}, masterId=1, masterEpoch=1)
    s.step("ControllerLeaderLost", "OK", controllerLeader=False)
    s.step("GetNextBrokerId", "CONTROLLER_NOT_LEADER")
    s.step("ApplyBrokerId", "CONTROLLER_NOT_LEADER", params={"brokerId": 2, "checkCode": _cc(B, 2)}, nextBrokerId=2,
           replicas={1: {"addr": A, "checkCode": _cc(A, 1)}})
    s.step("RegisterBrokerToController", "CONTROLLER_NOT_LEADER", params={"brokerId": 1, "addr": B},
           replicas={1: {"addr": A, "checkCode": _cc(A, 1)}})
    s.step("ElectMaster", "CONTROLLER_NOT_LEADER", params={"trigger": "admin", "brokerId": 1}, masterEpoch=1)
    s.step("AlterSyncStateSet", "CONTROLLER_NOT_LEADER",
           params={"masterId": 1, "masterEpoch": 1, "newSyncStateSet": frozenset({1}), "syncStateSetEpoch": 1})
    s.step("CleanBrokerData", "CONTROLLER_NOT_LEADER", params={"brokerIds": frozenset(), "cleanLiving": True}, masterId=1)
    s.step("GetReplicaInfo", "CONTROLLER_NOT_LEADER")
    s.step("BrokerHeartbeat", params={"brokerId": 2, "epoch": 0, "maxOffset": 0, "priority": 0},
           alive={1: LIVE0, 2: LIVE0})
    s.step("ControllerLeaderElected", "OK", controllerLeader=True, alive={}, masterId=1, masterEpoch=1, nextBrokerId=2)
    s.step("GetReplicaInfo", returns={"masterId": 1, "masterAddr": A, "masterEpoch": 1, "syncStateSetEpoch": 1,
                                      "syncStateSet": frozenset({1})})
    return s.step("ApplyBrokerId", params={"brokerId": 2, "checkCode": _cc(B, 2)}, nextBrokerId=3)


def null_heartbeat() -> Scenario:
    s = _one_set("heartbeat-without-broker-id", "A BrokerHeartbeat whose brokerId header is null (written -1) is "
                 "refused with CONTROLLER_INVALID_REQUEST and marks nobody alive "
                 "(ControllerRequestProcessor.handleBrokerHeartbeat)")
    s.step("ApplyBrokerId", params={"brokerId": 1, "checkCode": _cc(A, 1)}, nextBrokerId=2)
    s.step("BrokerHeartbeat", "CONTROLLER_INVALID_REQUEST", params={"brokerId": -1, "epoch": 0, "maxOffset": 0, "priority": 0},
           alive={})
    s.step("BrokerHeartbeat", params={"brokerId": 1, "epoch": 0, "maxOffset": 0, "priority": 0}, alive={1: LIVE0})
    return s.step("RegisterBrokerToController", params={"brokerId": 1, "addr": A},
                  returns={**NO_LIVE_MASTER, "syncStateSet": frozenset()})


def broker_waits_for_leader() -> Scenario:
    s = Scenario("broker-waits-for-leader", "A registered broker keeps heartbeating while the controller has no "
                 "leader (every controller node takes heartbeats); the new leader starts with no heartbeat, the "
                 "next one makes the broker alive again and its election request succeeds",
                 {"p1": A}, controllerLeader=True, alive={})
    for tag in ("CreateTempFile", "SendApplyBrokerId", "WriteMetaFile", "DeleteTempFile", "SendRegister"):
        params = {"process": "p1", **({"lost": False} if tag.startswith("Send") else {})}
        s.step(tag, "OK" if tag.endswith("File") and tag != "CreateTempFile" else "SUCCESS", params=params)
    s.step("SendHeartbeat", params={"process": "p1"}, alive={1: LIVE0}, regState={"p1": "REGISTERED"})
    s.step("ControllerLeaderLost", "OK", controllerLeader=False)
    s.step("SendHeartbeat", params={"process": "p1"}, alive={1: LIVE0})
    s.step("ControllerLeaderElected", "OK", controllerLeader=True, alive={}, role={"p1": "NONE"})
    s.step("SendHeartbeat", params={"process": "p1"}, alive={1: LIVE0})
    return s.step("SendElectMaster", params={"process": "p1", "lost": False},
                  returns={"masterId": 1, "masterAddr": A, "masterEpoch": 1}, role={"p1": "MASTER"}, masterId=1)


def broker_requests_to_a_non_leader() -> Scenario:
    s = Scenario("broker-requests-to-a-non-leader", "A broker whose requests reach a controller node that is not "
                 "the leader (its cached leader address is stale) hears CONTROLLER_NOT_LEADER: nothing is applied; "
                 "getNextBrokerId fails before a temp file or checkCode is made, a failed ApplyBrokerId sends the "
                 "broker back to a new temp file (ReplicasManager.register), a failed register, election or "
                 "replica-info poll changes nothing", {"p1": A}, controllerLeader=True, clock=0)
    no_leader = {"controllerLeader": False}
    p1 = {"process": "p1"}
    s.step("ControllerLeaderLost", "OK", **no_leader)
    s.step("CreateTempFile", "CONTROLLER_NOT_LEADER", params=p1, tempFile={"p1": EMPTY_TEMP}, regState={"p1": "INITIAL"}, clock=0)
    s.step("ControllerLeaderElected", "OK", controllerLeader=True)
    s.step("CreateTempFile", params=p1, returns={"nextBrokerId": 1}, tempFile={"p1": {"brokerId": 1, "checkCode": f"{A};0"}},
           clock=1)
    s.step("ControllerLeaderLost", "OK", **no_leader)
    s.step("SendApplyBrokerId", "CONTROLLER_NOT_LEADER", params={**p1, "lost": False}, regState={"p1": "APPLY_FAILED"},
           replicas={}, nextBrokerId=1)
    s.step("AbandonTempFile", "OK", params=p1, regState={"p1": "INITIAL"}, tempFile={"p1": EMPTY_TEMP})
    s.step("ControllerLeaderElected", "OK", controllerLeader=True)
    s.step("CreateTempFile", params=p1, returns={"nextBrokerId": 1}, tempFile={"p1": {"brokerId": 1, "checkCode": f"{A};1"}})
    s.step("SendApplyBrokerId", params={**p1, "lost": False}, regState={"p1": "ID_APPLIED"}, nextBrokerId=2)
    s.step("WriteMetaFile", "OK", params=p1)
    s.step("DeleteTempFile", "OK", params=p1, regState={"p1": "META_DONE"})
    s.step("ControllerLeaderLost", "OK", **no_leader)
    s.step("SendRegister", "CONTROLLER_NOT_LEADER", params={**p1, "lost": False}, regState={"p1": "META_DONE"})
    s.step("ControllerLeaderElected", "OK", controllerLeader=True)
    s.step("SendRegister", params={**p1, "lost": False}, returns=NO_LIVE_MASTER, regState={"p1": "REGISTERED"})
    s.step("SendHeartbeat", params=p1, alive={1: LIVE0})
    s.step("ControllerLeaderLost", "OK", **no_leader)
    s.step("SendElectMaster", "CONTROLLER_NOT_LEADER", params={**p1, "lost": False}, role={"p1": "NONE"}, masterId=-1)
    s.step("SyncReplicaInfo", "CONTROLLER_NOT_LEADER", params=p1, role={"p1": "NONE"})
    s.step("ControllerLeaderElected", "OK", controllerLeader=True, alive={})
    s.step("SendHeartbeat", params=p1, alive={1: LIVE0})
    return s.step("SendElectMaster", params={**p1, "lost": False}, returns={"masterId": 1, "masterEpoch": 1},
                  role={"p1": "MASTER"}, localMasterEpoch={"p1": 1})


def _files(name: str, about: str) -> Scenario:
    return Scenario(name, about, {"p1": A}, metaFile={"p1": 0}, tempFile={"p1": EMPTY_TEMP}, regState={"p1": "INITIAL"},
                    metaFileContent={"p1": ""}, tempFileContent={"p1": ""}, brokerConfig={"p1": "DefaultCluster#broker-a"})


def meta_file_of_another_set() -> Scenario:
    meta = "DefaultCluster#broker-a#1"
    s = _files("meta-file-of-another-set", "The identity files hold clusterName#brokerName#brokerId and "
               "clusterName#brokerName#brokerId#registerCheckCode; a process restarted with another brokerName "
               "loads its meta file, but register() stops at checkMetadataValid: nothing is sent, the state stays "
               "META_DONE, the controller keeps the old address; with the name restored it registers")
    s.step("CreateTempFile", params={"process": "p1"}, returns={"nextBrokerId": 1},
           tempFileContent={"p1": f"DefaultCluster#broker-a#1#{A};0"}, metaFileContent={"p1": ""})
    s.step("SendApplyBrokerId", params={"process": "p1", "lost": False}, nextBrokerId=2)
    s.step("WriteMetaFile", "OK", params={"process": "p1"}, metaFileContent={"p1": meta},
           tempFileContent={"p1": f"DefaultCluster#broker-a#1#{A};0"})
    s.step("DeleteTempFile", "OK", params={"process": "p1"}, tempFileContent={"p1": ""}, regState={"p1": "META_DONE"})
    s.step("Crash", "OK", params={"process": "p1"}, regState={"p1": "DOWN"})
    s.step("Restart", "OK", params={"process": "p1", "addr": B, "brokerName": "broker-b"},
           brokerConfig={"p1": "DefaultCluster#broker-b"}, metaFileContent={"p1": meta})
    s.step("LoadMetaFile", "OK", params={"process": "p1"}, regState={"p1": "META_DONE"}, metaFile={"p1": 1})
    s.step("SendRegister", "METADATA_INVALID", params={"process": "p1", "lost": False}, regState={"p1": "META_DONE"},
           replicas={1: {"addr": A, "checkCode": f"{A};0"}})
    s.step("Crash", "OK", params={"process": "p1"})
    s.step("Restart", "OK", params={"process": "p1", "addr": B, "brokerName": "broker-a"},
           brokerConfig={"p1": "DefaultCluster#broker-a"})
    s.step("LoadMetaFile", "OK", params={"process": "p1"})
    return s.step("SendRegister", params={"process": "p1", "lost": False}, returns=NO_LIVE_MASTER,
                  regState={"p1": "REGISTERED"}, replicas={1: {"addr": B, "checkCode": f"{A};0"}}, metaFileContent={"p1": meta})


def temp_file_of_another_cluster() -> Scenario:
    temp = f"DefaultCluster#broker-a#1#{A};0"
    s = _files("temp-file-of-another-cluster", "A process crashed with only its temp file and restarted under "
               "another clusterName: LoadTempFile resumes, but register() stops at checkMetadataValid before "
               "ApplyBrokerId: nothing is applied and the temp file is kept (a refusal by the controller would "
               "delete it)")
    s.step("CreateTempFile", params={"process": "p1"}, returns={"nextBrokerId": 1}, tempFileContent={"p1": temp})
    s.step("Crash", "OK", params={"process": "p1"}, regState={"p1": "DOWN"})
    s.step("Restart", "OK", params={"process": "p1", "addr": A, "clusterName": "OtherCluster"},
           brokerConfig={"p1": "OtherCluster#broker-a"})
    s.step("LoadTempFile", "OK", params={"process": "p1"}, regState={"p1": "TEMP_DONE"})
    s.step("SendApplyBrokerId", "METADATA_INVALID", params={"process": "p1", "lost": False}, regState={"p1": "TEMP_DONE"},
           tempFile={"p1": {"brokerId": 1, "checkCode": f"{A};0"}}, tempFileContent={"p1": temp}, nextBrokerId=1, replicas={})
    s.step("SendApplyBrokerId", "METADATA_INVALID", params={"process": "p1", "lost": False}, regState={"p1": "TEMP_DONE"})
    s.step("Crash", "OK", params={"process": "p1"})
    s.step("Restart", "OK", params={"process": "p1", "addr": A, "clusterName": "DefaultCluster"},
           brokerConfig={"p1": "DefaultCluster#broker-a"})
    s.step("LoadTempFile", "OK", params={"process": "p1"})
    return s.step("SendApplyBrokerId", params={"process": "p1", "lost": False}, regState={"p1": "ID_APPLIED"}, nextBrokerId=2,
                  tempFileContent={"p1": temp})


KIND_SCENARIOS: dict[str, Callable[[], Scenario]] = {
    "kinds/two-sets-elect-independently": two_sets_elect_independently,
    "kinds/heartbeat-of-another-set": heartbeat_of_another_set,
    "kinds/controller-leader-lost": leader_lost,
    "kinds/heartbeat-without-broker-id": null_heartbeat,
    "kinds/broker-waits-for-leader": broker_waits_for_leader,
    "kinds/broker-requests-to-a-non-leader": broker_requests_to_a_non_leader,
    "kinds/meta-file-of-another-set": meta_file_of_another_set,
    "kinds/temp-file-of-another-cluster": temp_file_of_another_cluster,
}
