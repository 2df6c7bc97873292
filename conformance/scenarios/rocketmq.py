"""The model's findings about RocketMQ, each as a trace that replays on RocketMQ's own classes (the ``rocketmq``
engine) as it does on both models: ``autoswitch scenarios`` writes them to ``traces/rocketmq/``; tests/rocketmq replays
them there. A finding the real code does not show is withdrawn, not written here (docs/fidelity.md)."""

from __future__ import annotations

from collections.abc import Callable

from autoswitch.conformance.scenarios.builder import Scenario
from autoswitch.conformance.scenarios.code import _apply, _beat, _ctl, _elect, _registered
from autoswitch.conformance.scenarios.components import Cache, Vector, _e
from autoswitch.conformance.scenarios.controller import A, B, C, _cc


def id_handed_out_twice() -> Scenario:
    s = _ctl("id-handed-out-twice-after-metadata-loss",
             "ROCKETMQ.md §2.1, §4: after the controller loses its metadata (its DLedger store wiped, no snapshot) it "
             "hands id 1 out again: GetNextBrokerId answers 1 and a new broker's ApplyBrokerId(1) with its own checkCode "
             "succeeds, while the first broker still holds id 1 in its identity file")
    s.step("GetNextBrokerId", returns={"nextBrokerId": 1})
    _apply(s, 1, A, 1, replicas={1: {"addr": A, "checkCode": _cc(A, 1)}}, nextBrokerId=2)
    s.step("RegisterBrokerToController", params={"brokerId": 1, "addr": A})
    s.step("ControllerMetadataLoss", "OK", replicas={}, nextBrokerId=1)
    s.step("GetNextBrokerId", returns={"nextBrokerId": 1})
    return _apply(s, 1, B, 2, replicas={1: {"addr": B, "checkCode": _cc(B, 2)}}, nextBrokerId=2)


def next_id_taken() -> Scenario:
    s = _ctl("next-id-already-taken",
             "ROCKETMQ.md §1, §10.7: nextAssignBrokerId counts additions, so once an id other than the next one is "
             "applied, GetNextBrokerId names a taken id; a broker that applies it is refused, and again, since a "
             "refusal adds nothing")
    _apply(s, 1, A, 1, nextBrokerId=2)
    _apply(s, 3, B, 2, nextBrokerId=3)
    s.step("GetNextBrokerId", returns={"nextBrokerId": 3})
    _apply(s, 3, C, 3, "CONTROLLER_BROKER_ID_INVALID", nextBrokerId=3)
    s.step("GetNextBrokerId", returns={"nextBrokerId": 3})
    return _apply(s, 3, C, 4, "CONTROLLER_BROKER_ID_INVALID", nextBrokerId=3)


def master_relisted_after_quick_restart() -> Scenario:
    s = _registered("master-relisted-after-quick-restart",
                    "ROCKETMQ.md §8.6 (the controller's half of the epoch re-entry): a master that restarts before its "
                    "heartbeat expires registers again and is answered as the alive master in its own epoch 1, so its "
                    "fresh ReplicasManager (epoch 0) takes epoch 1 again; no election is needed", n=2)
    _beat(s, 1)
    _elect(s, "broker", 1, returns={"masterId": 1, "masterEpoch": 1, "syncStateSetEpoch": 1}, masterId=1, masterEpoch=1)
    _beat(s, 1, epoch=1, offset=500)
    s.step("RegisterBrokerToController", params={"brokerId": 1, "addr": A},
           returns={"masterId": 1, "masterAddr": A, "masterEpoch": 1, "syncStateSetEpoch": 1, "syncStateSet": frozenset({1})})
    return _elect(s, "broker", 1, "CONTROLLER_MASTER_STILL_EXIST", returns={"masterId": 1, "masterEpoch": 1}, masterEpoch=1)


def failover_demotes_live_master() -> Scenario:
    s = _registered("controller-failover-demotes-a-live-master",
                    "ROCKETMQ.md §2.1, §3.4 (the re-election trigger, settled on the real code): a new controller leader "
                    "starts with no heartbeats; its periodic scan (scanNeedReelectBrokerSets) does nothing while no "
                    "broker of the set is alive, but once the slave's heartbeat reaches it before the live master's, "
                    "the master is not alive there and the slave, in the syncStateSet, is elected in epoch 2", n=2)
    _beat(s, 1)
    _beat(s, 2)
    _elect(s, "broker", 1, returns={"masterId": 1, "masterEpoch": 1, "syncStateSetEpoch": 1}, masterId=1, masterEpoch=1)
    s.step("AlterSyncStateSet", params={"masterId": 1, "masterEpoch": 1, "newSyncStateSet": frozenset({1, 2}),
                                        "syncStateSetEpoch": 1}, returns={"syncStateSetEpoch": 2})
    s.step("ControllerFailover", "OK", alive={})
    s.step("ControllerElectScan", "DISABLED")
    _beat(s, 2)
    return s.step("ControllerElectScan", returns={"masterId": 2, "masterAddr": B, "masterEpoch": 2, "syncStateSetEpoch": 3},
                  masterId=2, masterEpoch=2, syncStateSet=frozenset({2}))


def epoch_reentry() -> Vector:
    c = Cache("epoch-reentry-moves-start",
              "ROCKETMQ.md §8.6, §10.12 (the epoch file's half of the re-entry): changeToMaster(3) on a cache whose last "
              "epoch is 3 removes it (truncateSuffixByEpoch) and appends (3, maxPhyOffset): epoch 3 now starts at 800, "
              "not 500, and [500, 800) reads as epoch 1's; a slave holding (3, 500) finds no match at 3 and cuts to 500")
    c.append(1, 0).append(3, 500)
    c.op("truncateSuffixByEpoch", epoch=3, entries=[_e(1, 0, 500)], file=["1-0"])
    c.append(3, 800, entries=[_e(1, 0, 800), _e(3, 800)], file=["1-0", "3-800"])
    return c.op("findConsistentPoint", {"returns": 500}, other=[_e(1, 0, 500), _e(3, 500, 900)])


ROCKETMQ_SCENARIOS: dict[str, Callable[[], Scenario | Vector]] = {
    "rocketmq/id-handed-out-twice-after-metadata-loss": id_handed_out_twice,
    "rocketmq/next-id-already-taken": next_id_taken,
    "rocketmq/master-relisted-after-quick-restart": master_relisted_after_quick_restart,
    "rocketmq/epoch-reentry-moves-start": epoch_reentry,
    "rocketmq/controller-failover-demotes-a-live-master": failover_demotes_live_master,
}
