"""Behaviours of RocketMQ's code (../shared/ROCKETMQ.md §3-§8) as hand-written traces, one small trace per
behaviour or a few per trace, for the rows of spec/README.md's code-to-model table that state a code, an
epoch, an id or an offset. Each description names the ROCKETMQ.md section. The values are written from
the documented semantics, not recorded from a model; ``autoswitch scenarios`` writes them to ``traces/code/``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from autoswitch.conformance.scenarios.builder import Cluster
from autoswitch.conformance.scenarios.controller import A, B, C, Scenario, _alter, _cc, _procs

EMPTY_CONTROLLER = dict(replicas={}, nextBrokerId=1, masterId=-1, masterEpoch=0, syncStateSet=frozenset(), syncStateSetEpoch=0,
                        alive={})


def _ctl(name: str, about: str, unclean: bool = False) -> Scenario:
    return Scenario(name, about, unclean=unclean, **EMPTY_CONTROLLER)


def _apply(s: Scenario, broker_id: int, addr: str, t: int, code: str = "SUCCESS", **then: Any) -> Scenario:
    return s.step("ApplyBrokerId", code, params={"brokerId": broker_id, "checkCode": _cc(addr, t)}, **then)


def _beat(s: Scenario, broker_id: int, epoch: int = 0, offset: int = 0, priority: int = 0, **then: Any) -> Scenario:
    return s.step("BrokerHeartbeat", params={"brokerId": broker_id, "epoch": epoch, "maxOffset": offset, "priority": priority}, **then)


def _elect(s: Scenario, trigger: str, broker_id: int, code: str = "SUCCESS", returns: dict[str, Any] | None = None,
           **then: Any) -> Scenario:
    return s.step("ElectMaster", code, params={"trigger": trigger, "brokerId": broker_id}, returns=returns, **then)


def _live(epoch: int, offset: int, priority: int) -> dict[str, int]:
    return {"epoch": epoch, "maxOffset": offset, "priority": priority}


def _registered(name: str, about: str, n: int = 3) -> Scenario:
    """Ids 1..n applied in order (addresses A, B, C), none alive, no election yet."""
    s = _ctl(name, about)
    for broker_id, addr in zip(range(1, n + 1), (A, B, C), strict=False):
        _apply(s, broker_id, addr, broker_id, nextBrokerId=broker_id + 1)
    return s


def broker_ids() -> Scenario:
    s = _ctl("broker-ids", "ROCKETMQ.md §1, §3.1, §3.2, §4, §10.7: GetNextBrokerId on an unknown set is 1; an unknown set "
             "refuses an id other than 1; a known set takes any unused id and nextBrokerId counts additions (1 + number "
             "of adds, not max id + 1); the same (id, checkCode) again is a SUCCESS with no change; a taken id with "
             "another checkCode is refused; removing an id does not lower nextBrokerId; so GetNextBrokerId can name a "
             "taken id, whose apply is then refused")
    s.step("GetNextBrokerId", returns={"nextBrokerId": 1})
    _apply(s, 2, A, 1, "CONTROLLER_BROKER_ID_INVALID", replicas={}, nextBrokerId=1)
    _apply(s, 1, A, 1, replicas={1: {"addr": A, "checkCode": _cc(A, 1)}}, nextBrokerId=2)
    _apply(s, 5, B, 2, nextBrokerId=3)
    s.step("GetNextBrokerId", returns={"nextBrokerId": 3})
    _apply(s, 1, A, 1, nextBrokerId=3)
    _apply(s, 1, C, 3, "CONTROLLER_BROKER_ID_INVALID", replicas={1: {"addr": A, "checkCode": _cc(A, 1)},
                                                                 5: {"addr": B, "checkCode": _cc(B, 2)}})
    _apply(s, 3, C, 3, nextBrokerId=4)
    _apply(s, 4, C, 4, nextBrokerId=5)
    s.step("CleanBrokerData", params={"brokerIds": frozenset({4}), "cleanLiving": False}, nextBrokerId=5)
    s.step("GetNextBrokerId", returns={"nextBrokerId": 5})
    return _apply(s, 5, C, 5, "CONTROLLER_BROKER_ID_INVALID", nextBrokerId=5)


def register() -> Scenario:
    s = _ctl("register", "ROCKETMQ.md §3.3, §3.6: RegisterBrokerToController on an unknown set, or with an id the set "
             "does not hold, answers BROKER_NEED_TO_BE_REGISTERED; otherwise SUCCESS, the syncStateSet always, the master "
             "only while it is alive; a new address replaces the stored one and keeps the checkCode; it never elects. "
             "GetReplicaInfo of an unknown set is BROKER_METADATA_NOT_EXIST, and it names the master alive or not")
    s.step("RegisterBrokerToController", "CONTROLLER_BROKER_NEED_TO_BE_REGISTERED", params={"brokerId": 1, "addr": A})
    s.step("GetReplicaInfo", "CONTROLLER_BROKER_METADATA_NOT_EXIST")
    _apply(s, 1, A, 1)
    _apply(s, 2, B, 2, nextBrokerId=3)
    s.step("RegisterBrokerToController", "CONTROLLER_BROKER_NEED_TO_BE_REGISTERED", params={"brokerId": 3, "addr": C})
    _beat(s, 1)
    _elect(s, "broker", 1, returns={"masterId": 1, "masterEpoch": 1, "syncStateSetEpoch": 1}, masterId=1, masterEpoch=1)
    master = {"masterId": 1, "masterAddr": A, "masterEpoch": 1, "syncStateSetEpoch": 1, "syncStateSet": frozenset({1})}
    new_b = "10.0.1.2:30911"
    s.step("RegisterBrokerToController", params={"brokerId": 2, "addr": new_b}, returns=master,
           replicas={1: {"addr": A, "checkCode": _cc(A, 1)}, 2: {"addr": new_b, "checkCode": _cc(B, 2)}},
           masterId=1, masterEpoch=1, syncStateSetEpoch=1)
    s.step("HeartbeatExpire", "OK", params={"brokerId": 1}, alive={})
    s.step("RegisterBrokerToController", params={"brokerId": 2, "addr": new_b},
           returns={"masterId": -1, "masterAddr": "", "syncStateSet": frozenset({1})}, masterId=1, masterEpoch=1)
    return s.step("GetReplicaInfo", returns=master, masterId=1)


def elect_first_time() -> Scenario:
    s = _registered("elect-first-time", "ROCKETMQ.md §3.4: ElectMaster on an unknown set answers BROKER_NEED_TO_BE_"
                    "REGISTERED; the first election of a set (masterEpoch 0) lets the requester's id win with no alive "
                    "and no membership check (id 3, never alive, not in the empty set): masterEpoch 1, syncStateSetEpoch 1, "
                    "set {3}; after it a broker's own id is ignored: the policy keeps the alive old master "
                    "(MASTER_STILL_EXIST with its epochs, no change) or ranks the candidates, so the answer may name "
                    "another broker", n=0)
    _elect(s, "broker", 1, "CONTROLLER_BROKER_NEED_TO_BE_REGISTERED", masterEpoch=0)
    for broker_id, addr in ((1, A), (2, B), (3, C)):
        _apply(s, broker_id, addr, broker_id)
    _elect(s, "broker", 3, returns={"masterId": 3, "masterAddr": C, "masterEpoch": 1, "syncStateSetEpoch": 1,
                                    "syncStateSet": frozenset({3})},
           masterId=3, masterEpoch=1, syncStateSet=frozenset({3}), syncStateSetEpoch=1, alive={})
    _beat(s, 3)
    _beat(s, 1)
    _beat(s, 2)
    _elect(s, "broker", 1, "CONTROLLER_MASTER_STILL_EXIST", returns={"masterId": 3, "masterAddr": C, "masterEpoch": 1,
                                                                      "syncStateSetEpoch": 1}, masterId=3, masterEpoch=1)
    s.step("AlterSyncStateSet", params=_alter(3, 1, {1, 2, 3}, 1), returns={"syncStateSetEpoch": 2},
           syncStateSet=frozenset({1, 2, 3}), syncStateSetEpoch=2)
    s.step("HeartbeatExpire", "OK", params={"brokerId": 3})
    # broker 2 asks; broker 1 (lower id, same epoch/offset/priority) is ranked first and named
    return _elect(s, "broker", 2, returns={"masterId": 1, "masterAddr": A, "masterEpoch": 2, "syncStateSetEpoch": 3,
                                           "syncStateSet": frozenset({1})},
                  masterId=1, masterEpoch=2, syncStateSet=frozenset({1}), syncStateSetEpoch=3)


def elect_ranking() -> Scenario:
    s = _registered("elect-ranking", "ROCKETMQ.md §5: among the alive syncStateSet members the policy picks the higher "
                    "heartbeat epoch first, then the higher maxOffset, then the lower priority value; the alive old master "
                    "is kept although another member reports more")
    _beat(s, 1)
    _elect(s, "broker", 1, masterId=1, masterEpoch=1)
    _beat(s, 2, 1, 5, 0)
    _beat(s, 3, 1, 9, 0)
    s.step("AlterSyncStateSet", params=_alter(1, 1, {1, 2, 3}, 1), returns={"syncStateSetEpoch": 2},
           syncStateSet=frozenset({1, 2, 3}), syncStateSetEpoch=2)
    _elect(s, "broker", 3, "CONTROLLER_MASTER_STILL_EXIST", returns={"masterId": 1}, masterId=1, masterEpoch=1)
    # offset: 3 (epoch 1, offset 9) before 2 (epoch 1, offset 5)
    s.step("HeartbeatExpire", "OK", params={"brokerId": 1})
    _elect(s, "broker", 2, returns={"masterId": 3, "masterEpoch": 2, "syncStateSetEpoch": 3}, masterId=3, masterEpoch=2,
           syncStateSet=frozenset({3}))
    s.step("AlterSyncStateSet", params=_alter(3, 2, {2, 3}, 3), returns={"syncStateSetEpoch": 4}, syncStateSet=frozenset({2, 3}))
    _beat(s, 1, 2, 1, 0)
    s.step("AlterSyncStateSet", params=_alter(3, 2, {1, 2, 3}, 4), returns={"syncStateSetEpoch": 5},
           syncStateSet=frozenset({1, 2, 3}))
    # epoch: 1 (epoch 2, offset 1) before 2 (epoch 1, offset 5)
    s.step("HeartbeatExpire", "OK", params={"brokerId": 3})
    _elect(s, "broker", 2, returns={"masterId": 1, "masterEpoch": 3, "syncStateSetEpoch": 6}, masterId=1, masterEpoch=3,
           syncStateSet=frozenset({1}))
    _beat(s, 3, 1, 5, 0)
    _beat(s, 2, 1, 5, 7, alive={1: _live(2, 1, 0), 2: _live(1, 5, 7), 3: _live(1, 5, 0)})
    s.step("AlterSyncStateSet", params=_alter(1, 3, {1, 2, 3}, 6), returns={"syncStateSetEpoch": 7},
           syncStateSet=frozenset({1, 2, 3}))
    # priority: 3 (priority 0) before 2 (priority 7), both at epoch 1, offset 5
    s.step("HeartbeatExpire", "OK", params={"brokerId": 1})
    return _elect(s, "broker", 2, returns={"masterId": 3, "masterEpoch": 4, "syncStateSetEpoch": 8}, masterId=3,
                  masterEpoch=4, syncStateSet=frozenset({3}))


def elect_admin() -> Scenario:
    s = _registered("elect-admin", "ROCKETMQ.md §3.4, §5: an admin election designates an id: an alive member of the set "
                    "wins even over the alive old master; the alive old master designated answers MASTER_STILL_EXIST; an "
                    "id outside the set or not alive answers ELECT_MASTER_FAILED with no change; a broker-triggered "
                    "election with no candidate also answers ELECT_MASTER_FAILED and leaves masterEpoch alone")
    for broker_id in (1, 2, 3):
        _beat(s, broker_id)
    _elect(s, "broker", 1, masterId=1, masterEpoch=1)
    s.step("AlterSyncStateSet", params=_alter(1, 1, {1, 2}, 1), returns={"syncStateSetEpoch": 2}, syncStateSet=frozenset({1, 2}))
    _elect(s, "admin", 1, "CONTROLLER_MASTER_STILL_EXIST", returns={"masterId": 1, "masterEpoch": 1}, masterId=1, masterEpoch=1)
    _elect(s, "admin", 3, "CONTROLLER_ELECT_MASTER_FAILED", masterId=1, masterEpoch=1, syncStateSetEpoch=2)
    _elect(s, "admin", 2, returns={"masterId": 2, "masterAddr": B, "masterEpoch": 2, "syncStateSetEpoch": 3},
           masterId=2, masterEpoch=2, syncStateSet=frozenset({2}), syncStateSetEpoch=3)
    s.step("AlterSyncStateSet", params=_alter(2, 2, {1, 2}, 3), returns={"syncStateSetEpoch": 4}, syncStateSet=frozenset({1, 2}))
    s.step("HeartbeatExpire", "OK", params={"brokerId": 1})
    _elect(s, "admin", 1, "CONTROLLER_ELECT_MASTER_FAILED", masterId=2, masterEpoch=2, syncStateSetEpoch=4)
    s.step("HeartbeatExpire", "OK", params={"brokerId": 2})
    return _elect(s, "broker", 3, "CONTROLLER_ELECT_MASTER_FAILED", masterId=2, masterEpoch=2, syncStateSet=frozenset({1, 2}),
                  syncStateSetEpoch=4)


def alter_checks() -> Scenario:
    s = _ctl("alter-check-order", "ROCKETMQ.md §3.5: AlterSyncStateSet checks in order: unknown set, set equal to the "
             "current one (before any master check: a non-master proposing the current set gets ALTER_SYNC_STATE_SET_"
             "FAILED), no or another master (INVALID_MASTER), master epoch, set epoch, then per member in id order "
             "unregistered (INVALID_REPLICAS) or not alive (BROKER_NOT_ALIVE), then the master must be in the set; "
             "each refusal changes nothing; SUCCESS answers syncStateSetEpoch + 1")
    s.step("AlterSyncStateSet", "CONTROLLER_ALTER_SYNC_STATE_SET_FAILED", params=_alter(1, 0, {1}, 0), syncStateSetEpoch=0)
    for broker_id, addr in ((1, A), (2, B), (3, C)):
        _apply(s, broker_id, addr, broker_id)
    s.step("AlterSyncStateSet", "CONTROLLER_INVALID_MASTER", params=_alter(1, 0, {1}, 0), syncStateSet=frozenset())
    _beat(s, 1)
    _beat(s, 3)
    _elect(s, "broker", 1, masterId=1, masterEpoch=1, syncStateSet=frozenset({1}), syncStateSetEpoch=1)
    s.step("AlterSyncStateSet", "CONTROLLER_ALTER_SYNC_STATE_SET_FAILED", params=_alter(2, 0, {1}, 0))
    s.step("AlterSyncStateSet", "CONTROLLER_FENCED_MASTER_EPOCH", params=_alter(1, 0, {1, 2}, 0))
    s.step("AlterSyncStateSet", "CONTROLLER_FENCED_SYNC_STATE_SET_EPOCH", params=_alter(1, 1, {1, 9}, 0))
    s.step("AlterSyncStateSet", "CONTROLLER_INVALID_REPLICAS", params=_alter(1, 1, {1, 9}, 1))
    s.step("AlterSyncStateSet", "CONTROLLER_BROKER_NOT_ALIVE", params=_alter(1, 1, {1, 2, 9}, 1))
    s.step("AlterSyncStateSet", "CONTROLLER_INVALID_REPLICAS", params=_alter(1, 1, {3, 9}, 1))
    s.step("AlterSyncStateSet", "CONTROLLER_ALTER_SYNC_STATE_SET_FAILED", params=_alter(1, 1, {3}, 1))
    s.step("AlterSyncStateSet", "CONTROLLER_ALTER_SYNC_STATE_SET_FAILED", params=_alter(1, 1, set(), 1),
           masterId=1, masterEpoch=1, syncStateSet=frozenset({1}), syncStateSetEpoch=1)
    return s.step("AlterSyncStateSet", params=_alter(1, 1, {1, 3}, 1), returns={"syncStateSetEpoch": 2},
                  masterEpoch=1, syncStateSet=frozenset({1, 3}), syncStateSetEpoch=2)


def heartbeats() -> Scenario:
    s = _registered("heartbeat-liveness", "ROCKETMQ.md §6.1, §2.1, §3.9: a heartbeat's (epoch, maxOffset) replaces the "
                    "stored one only if it is larger (epoch first, then offset), the priority always; after the entry "
                    "expires a fresh heartbeat is taken as sent; a controller failover starts with no liveness (DLedger's "
                    "table is the leader's own); the set's epochs and master are untouched", n=2)
    _beat(s, 1, 2, 10, 3, alive={1: _live(2, 10, 3)})
    _beat(s, 1, 2, 8, 1, alive={1: _live(2, 10, 1)})
    _beat(s, 1, 1, 20, 1, alive={1: _live(2, 10, 1)})
    _beat(s, 1, 3, 0, 1, alive={1: _live(3, 0, 1)})
    _beat(s, 1, 3, 4, 2, alive={1: _live(3, 4, 2)})
    s.step("HeartbeatExpire", "OK", params={"brokerId": 1}, alive={})
    _beat(s, 1, 1, 2, 0, alive={1: _live(1, 2, 0)})
    _beat(s, 2, 0, 0, 0)
    _elect(s, "broker", 2, masterId=2, masterEpoch=1)
    return s.step("ControllerFailover", "OK", alive={}, masterId=2, masterEpoch=1, syncStateSet=frozenset({2}), syncStateSetEpoch=1)


def clean_broker_data() -> Scenario:
    s = _registered("clean-broker-data", "ROCKETMQ.md §3.8, §4: CleanBrokerData without cleanLiving refuses (INVALID_"
                    "CLEAN_BROKER_METADATA) no ids while a master exists, and any listed id that is alive; listed ids that are "
                    "not alive are removed from the replicas and the syncStateSet with no epoch change and nextBrokerId "
                    "unchanged; an unknown set is refused")
    _beat(s, 1)
    _beat(s, 2)
    _elect(s, "broker", 1, masterId=1, masterEpoch=1)
    s.step("AlterSyncStateSet", params=_alter(1, 1, {1, 2}, 1), returns={"syncStateSetEpoch": 2}, syncStateSet=frozenset({1, 2}))
    s.step("CleanBrokerData", "CONTROLLER_INVALID_CLEAN_BROKER_METADATA", params={"brokerIds": frozenset(), "cleanLiving": False})
    s.step("CleanBrokerData", "CONTROLLER_INVALID_CLEAN_BROKER_METADATA", params={"brokerIds": frozenset({2, 3}), "cleanLiving": False})
    s.step("HeartbeatExpire", "OK", params={"brokerId": 2})
    return s.step("CleanBrokerData", params={"brokerIds": frozenset({2, 3}), "cleanLiving": False},
                  replicas={1: {"addr": A, "checkCode": _cc(A, 1)}}, syncStateSet=frozenset({1}), syncStateSetEpoch=2,
                  masterId=1, masterEpoch=1, nextBrokerId=4)


def clean_unknown_set() -> Scenario:
    s = _ctl("clean-unknown-set", "ROCKETMQ.md §3.8: CleanBrokerData of a set the controller does not know answers "
             "INVALID_CLEAN_BROKER_METADATA")
    return s.step("CleanBrokerData", "CONTROLLER_INVALID_CLEAN_BROKER_METADATA", params={"brokerIds": frozenset({1}), "cleanLiving": False},
                  replicas={})


def _admin(c: Cluster, broker_id: int, epoch: int) -> Cluster:
    c.s.step("ElectMaster", returns={"masterId": broker_id, "masterEpoch": epoch}, params={"trigger": "admin", "brokerId": broker_id})
    return c


def epoch_bump_without_data() -> Scenario:
    c = Cluster("epoch-bump-without-data", "ROCKETMQ.md §8.1, §10.3, §3.9: a master's epoch entry is appended only if both "
                "its epoch and its start offset exceed the last entry's: pB, master in epoch 2 from offset 1, is elected "
                "again (admin, unclean) in epoch 4 with no message since; its epoch file stays [(1, 0), (2, 1)] and its "
                "heartbeat reports epoch 2, not 4", enable_elect_unclean_master=True)
    c.start("pA").elect("pA", 1).start("pB").follow("pB", 0).join("pA", "pB").write("pA", 1).replicate("pB", 1)
    c.expect(epochFile={"pA": [(1, 0)], "pB": [(1, 0)]})
    _admin(c, 2, 2).notify("pB", "pA").expect(epochFile={"pA": [(1, 0)], "pB": [(1, 0), (2, 1)]}, localMasterEpoch={"pA": 2, "pB": 2})
    c.follow("pA", 1).join("pB", "pA").expect(syncStateSet=frozenset({1, 2}))
    _admin(c, 1, 3).notify("pA", "pB").expect(epochFile={"pA": [(1, 0), (3, 1)], "pB": [(1, 0), (2, 1)]}, syncStateSet=frozenset({1}))
    _admin(c, 2, 4).notify("pB").expect(epochFile={"pA": [(1, 0), (3, 1)], "pB": [(1, 0), (2, 1)]},
                                        localMasterEpoch={"pA": 3, "pB": 4}, role={"pA": "MASTER", "pB": "MASTER"})
    return c.do("SendHeartbeat", "SUCCESS", process="pB").expect(alive={1: _live(0, 0, 0), 2: _live(2, 1, 0)}).s


def leftover_temp_file() -> Scenario:
    s = _procs("leftover-temp-file", "ROCKETMQ.md §7.2: a crash after the meta file is written but before the temp file is "
               "deleted leaves both; on restart the meta file wins (its id, straight to registration) and the leftover "
               "temp file is never deleted; the controller saw one apply", {"p1": A})
    temp = {"brokerId": 1, "checkCode": f"{A};0"}
    s.step("CreateTempFile", params={"process": "p1"}, returns={"nextBrokerId": 1}, tempFile={"p1": temp})
    s.step("SendApplyBrokerId", params={"process": "p1", "lost": False}, nextBrokerId=2, regState={"p1": "ID_APPLIED"})
    s.step("WriteMetaFile", "OK", params={"process": "p1"}, metaFile={"p1": 1}, regState={"p1": "META_WRITTEN"})
    s.step("Crash", "OK", params={"process": "p1"}, regState={"p1": "DOWN"}, metaFile={"p1": 1}, tempFile={"p1": temp})
    s.step("Restart", "OK", params={"process": "p1", "addr": A}, regState={"p1": "INITIAL"})
    s.step("LoadMetaFile", "OK", params={"process": "p1"}, regState={"p1": "META_DONE"}, tempFile={"p1": temp})
    return s.step("SendRegister", params={"process": "p1", "lost": False}, regState={"p1": "REGISTERED"}, metaFile={"p1": 1},
                  tempFile={"p1": temp}, nextBrokerId=2, replicas={1: {"addr": A, "checkCode": f"{A};0"}})


def writes_and_reads() -> Scenario:
    c = Cluster("writes-and-reads", "ROCKETMQ.md §8.5, §8.4: with minInSyncReplicas 2 a master whose syncStateSet is "
                "itself refuses a write (IN_SYNC_REPLICAS_NOT_ENOUGH, nothing appended); with allAckInSyncStateSet and "
                "the set {1, 2} the master's confirmOffset is the least member ack, and a consumer reads only below it; "
                "the slave's confirmOffset is min(the master's when sent, its own LEO); replica info of the same master epoch "
                "leaves a slave as it is (§7.4)", min_in_sync_replicas=2)
    c.start("pA").elect("pA", 1).do("Write", "IN_SYNC_REPLICAS_NOT_ENOUGH", process="pA").expect(log={"pA": [], "pB": []})
    c.start("pB").follow("pB", 0).join("pA", "pB").write("pA", 2).replicate("pB", 1)
    c.expect(confirmOffset={"pA": 1, "pB": 0}, acked=frozenset({1}), log={"pA": [(1, 1), (2, 1)], "pB": [(1, 1)]})
    c.do("Consume", process="pA").expect(seen=frozenset({1}))
    c.replicate("pB", 1).expect(confirmOffset={"pA": 2, "pB": 1}, acked=frozenset({1, 2}))
    c.do("Consume", process="pA").expect(seen=frozenset({1, 2}))
    # replica info of the same master epoch changes nothing on a slave: it stays connected (changeBrokerRole's guard)
    return c.notify("pB").expect(role={"pA": "MASTER", "pB": "SLAVE"}, haState={"pA": "NONE", "pB": "TRANSFER"},
                                 localMasterEpoch={"pA": 1, "pB": 1}).s


def sync_learns_set() -> Scenario:
    c = Cluster("sync-learns-set", "ROCKETMQ.md §7.5, §7.4: the answer to the master's expansion to {1, 2} is lost; "
                "the controller holds {1, 2} at syncStateSetEpoch 2 while the master still has {1} at 1; its next "
                "replica-info poll (same master epoch, newer set epoch) gives it {1, 2} and epoch 2")
    c.start("pA").elect("pA", 1).start("pB").follow("pB", 0)
    c.do("Expand", "SUCCESS", {"syncStateSetEpoch": 2}, process="pA", brokerId=2, lost=True)
    c.expect(syncStateSet=frozenset({1, 2}), syncStateSetEpoch=2, localSyncStateSet={"pA": frozenset({1}), "pB": frozenset()},
             localSyncStateSetEpoch={"pA": 1, "pB": 1})
    c.notify("pA")
    return c.expect(localSyncStateSet={"pA": frozenset({1, 2}), "pB": frozenset()}, localSyncStateSetEpoch={"pA": 2, "pB": 1},
                    localMasterEpoch={"pA": 1, "pB": 1}).s


CODE_SCENARIOS: dict[str, Callable[[], Scenario]] = {
    "code/broker-ids": broker_ids,
    "code/register": register,
    "code/elect-first-time": elect_first_time,
    "code/elect-ranking": elect_ranking,
    "code/elect-admin": elect_admin,
    "code/alter-check-order": alter_checks,
    "code/heartbeat-liveness": heartbeats,
    "code/clean-broker-data": clean_broker_data,
    "code/clean-unknown-set": clean_unknown_set,
    "code/epoch-bump-without-data": epoch_bump_without_data,
    "code/leftover-temp-file": leftover_temp_file,
    "code/writes-and-reads": writes_and_reads,
    "code/sync-learns-set": sync_learns_set,
}
