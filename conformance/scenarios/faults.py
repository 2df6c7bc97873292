"""The faults of MODEL.md §9 and the liveness controls' options (ReelectScan, RegisterRetry) as hand-written traces
(traces/faults/): each shows what its fault does - the state it leaves, the steps it disables until it heals - with
the values the contract (../shared/MODEL.md §9) says it must produce. A refused step is written DISABLED.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from autoswitch.conformance.scenarios.builder import ADDR, Cluster, Scenario

NEW_ADDR = "10.0.0.9:30911"
EMPTY_TEMP = {"brokerId": 0, "checkCode": ""}


def _step(c: Cluster, tag: str, code: str = "OK", returns: dict[str, Any] | None = None, params: dict[str, Any] | None = None,
          **then: Any) -> Cluster:
    """A step with parameters the builder does not sort out itself (``peer``, ``request``)."""
    c.s.step(tag, code, returns, params=params or {}, **then)
    return c


def _pair(name: str, about: str, **options: Any) -> Cluster:
    """pA master in epoch 1 with pB connected and in the syncStateSet {1, 2}."""
    c = Cluster(name, about, **options)
    c.start("pA").elect("pA", 1).start("pB").follow("pB", 0).join("pA", "pB")
    return c.expect(syncStateSet=frozenset({1, 2}))


def crash_torn() -> Scenario:
    c = _pair("crash-torn-cuts-last-record", "CrashTorn: pA, master, crashes with its last record torn; recovery cuts it. "
              "Not enabled while every flushed record is confirmed (offset 2 = confirmOffset); after a third write that no "
              "one copied, the crash keeps 2 records and the epoch file, and nothing acknowledged is lost")
    c.write("pA", 2).replicate("pB", 2).expect(acked=frozenset({1, 2}), confirmOffset={"pA": 2, "pB": 0})
    c.do("CrashTorn", "DISABLED", process="pA")
    c.write("pA", 1).expect(log={"pA": [(1, 1), (2, 1), (3, 1)], "pB": [(1, 1), (2, 1)]}, flushed={"pA": 3, "pB": 2})
    c.do("CrashTorn", process="pA")
    return c.expect(regState={"pA": "DOWN", "pB": "REGISTERED"}, log={"pA": [(1, 1), (2, 1)], "pB": [(1, 1), (2, 1)]},
                    flushed={"pA": 2, "pB": 2}, epochFile={"pA": [(1, 0)], "pB": [(1, 0)]}, confirmOffset={"pA": 2, "pB": 0},
                    acked=frozenset({1, 2}), haState={"pA": "NONE", "pB": "READY"}).s


def metadata_loss() -> Scenario:
    c = Cluster("controller-metadata-loss", "ControllerMetadataLoss: the controller forgets the set and starts as the "
                "initial one. pA, REGISTERED, notices nothing (its poll is answered METADATA_NOT_EXIST and changes "
                "nothing); pB, restarted with its meta file, is refused (NEED_TO_BE_REGISTERED) and stays META_DONE: "
                "a broker with a meta file never applies its id again (EventuallyRegistered fails for the code)")
    c.start("pA").elect("pA", 1).start("pB")
    c.do("ControllerMetadataLoss")
    c.expect(replicas={}, nextBrokerId=1, masterId=-1, masterEpoch=0, syncStateSet=frozenset(), syncStateSetEpoch=0, alive={},
             electTriesLeft=0, regState={"pA": "REGISTERED", "pB": "REGISTERED"}, role={"pA": "MASTER", "pB": "SLAVE"})
    c.do("ControllerMetadataLoss", "DISABLED")
    c.do("SyncReplicaInfo", "CONTROLLER_BROKER_METADATA_NOT_EXIST", process="pA").expect(role={"pA": "MASTER", "pB": "SLAVE"})
    c.do("Crash", process="pB").do("Restart", process="pB", addr=ADDR["pB"]).do("LoadMetaFile", process="pB")
    c.do("SendRegister", "CONTROLLER_BROKER_NEED_TO_BE_REGISTERED", process="pB", lost=False)
    c.do("SendRegister", "CONTROLLER_BROKER_NEED_TO_BE_REGISTERED", process="pB", lost=False)
    return c.expect(regState={"pA": "REGISTERED", "pB": "META_DONE"}, metaFile={"pA": 1, "pB": 2}, replicas={}).s


def metadata_loss_reuses_id() -> Scenario:
    c = Cluster("controller-metadata-loss-reuses-id", "ControllerMetadataLoss with a broker that has no identity yet (a "
                "fresh process, or one whose disk was wiped): the controller, empty again, hands id 1 out a second time and "
                "pB writes it into its meta file while pA holds it (UniqueBrokerIds fails: safety needs the metadata)")
    c.start("pA").elect("pA", 1).do("ControllerMetadataLoss")
    c.do("CreateTempFile", "SUCCESS", {"nextBrokerId": 1}, process="pB").do("SendApplyBrokerId", "SUCCESS", process="pB", lost=False)
    c.do("WriteMetaFile", process="pB").expect(metaFile={"pA": 1, "pB": 1})
    return c.violation("UniqueBrokerIds")


def partition_delays() -> Scenario:
    c = _pair("partition-delays-transfer", "PartitionLink without loss: the link pB-pA is cut, the HA connection stays; "
              "pB's Transfer and Ack wait (DISABLED) and the write is not acknowledged until HealLink (named from either "
              "end); controller traffic flows meanwhile")
    _step(c, "PartitionLink", params={"process": "pB", "peer": "pA", "lost": False},
          partitions=frozenset({frozenset({"pA", "pB"})}), haState={"pA": "NONE", "pB": "TRANSFER"})
    _step(c, "PartitionLink", "DISABLED", params={"process": "pA", "peer": "pB", "lost": True})
    c.write("pA", 1).expect(acked=frozenset(), confirmOffset={"pA": 0, "pB": 0})
    c.do("Transfer", "DISABLED", process="pB").do("Handshake", "DISABLED", process="pB").do("SendHeartbeat", "SUCCESS", process="pB")
    _step(c, "HealLink", params={"process": "pA", "peer": "pB"}, partitions=frozenset())
    _step(c, "HealLink", "DISABLED", params={"process": "pB", "peer": "pA"})
    c.replicate("pB", 1)
    return c.expect(acked=frozenset({1}), log={"pA": [(1, 1)], "pB": [(1, 1)]}, confirmOffset={"pA": 1, "pB": 0}).s


def partition_breaks() -> Scenario:
    c = _pair("partition-breaks-connection", "PartitionLink with loss: the cut breaks the HA connection both ways (pB "
              "goes READY, pA forgets pB's ack); pB cannot hand-shake again until the link heals")
    c.write("pA", 1).replicate("pB", 1).expect(acks={"pA": {2: 1}, "pB": {}})
    _step(c, "PartitionLink", params={"process": "pA", "peer": "pB", "lost": True},
          partitions=frozenset({frozenset({"pA", "pB"})}), haState={"pA": "NONE", "pB": "READY"}, acks={"pA": {}, "pB": {}})
    c.write("pA", 1).do("Handshake", "DISABLED", process="pB")
    _step(c, "HealLink", params={"process": "pB", "peer": "pA"}, partitions=frozenset())
    c.follow("pB", 1).replicate("pB", 1)
    return c.expect(log={"pA": [(1, 1), (2, 1)], "pB": [(1, 1), (2, 1)]}, acked=frozenset({1, 2}), acks={"pA": {2: 2}, "pB": {}}).s


_LATE_REGISTER = {"tag": "RegisterBrokerToController", "brokerId": 2, "addr": ADDR["pB"]}


def late_register() -> Scenario:
    c = Cluster("late-register-after-restart", "SendLate and DeliverLate: pB's RegisterBrokerToController, computed with "
                "its old address, arrives after pB restarted under a new address and registered it: the controller "
                "applies the stale request and records the old address again")
    c.start("pA").elect("pA", 1).start("pB")
    _step(c, "SendLate", params={"process": "pB", "request": "RegisterBrokerToController"}, late={"pB": _LATE_REGISTER})
    _step(c, "SendLate", "DISABLED", params={"process": "pB", "request": "BrokerHeartbeat"})
    c.do("Crash", process="pB").do("Restart", process="pB", addr=NEW_ADDR).do("LoadMetaFile", process="pB")
    c.do("SendRegister", "SUCCESS", process="pB", lost=False).expect(addr={"pA": ADDR["pA"], "pB": NEW_ADDR})
    c.expect(replicas={1: {"addr": ADDR["pA"], "checkCode": f"{ADDR['pA']};0"}, 2: {"addr": NEW_ADDR, "checkCode": f"{ADDR['pB']};1"}})
    master = {"masterId": 1, "masterAddr": ADDR["pA"], "masterEpoch": 1, "syncStateSetEpoch": 1, "syncStateSet": frozenset({1})}
    c.do("DeliverLate", "SUCCESS", master, process="pB")
    c.expect(late={}, replicas={1: {"addr": ADDR["pA"], "checkCode": f"{ADDR['pA']};0"}, 2: {"addr": ADDR["pB"], "checkCode": f"{ADDR['pB']};1"}})
    return c.do("DeliverLate", "DISABLED", process="pB").s


def late_heartbeat() -> Scenario:
    c = Cluster("late-heartbeat-revives-dead-master", "SendLate and DeliverLate: pA's heartbeat, delayed, arrives after pA "
                "crashed and its entry expired; the controller believes the dead master alive again, so the election its "
                "expiry started hears MASTER_STILL_EXIST on each of its tries, and then the re-elect scan is not needed "
                "(DISABLED) until that entry expires once more")
    c.start("pA").elect("pA", 1).start("pB")
    beat = {"tag": "BrokerHeartbeat", "brokerId": 1, "epoch": 1, "maxOffset": 0, "priority": 0}
    _step(c, "SendLate", params={"process": "pA", "request": "BrokerHeartbeat"}, late={"pA": beat})
    c.die("pA").expect(alive={2: {"epoch": 0, "maxOffset": 0, "priority": 0}})
    c.do("DeliverLate", "SUCCESS", process="pA")
    c.expect(late={}, alive={1: {"epoch": 1, "maxOffset": 0, "priority": 0}, 2: {"epoch": 0, "maxOffset": 0, "priority": 0}},
             regState={"pA": "DOWN", "pB": "REGISTERED"})
    for _ in range(3):
        c.do("ControllerElectScan", "CONTROLLER_MASTER_STILL_EXIST", {"masterId": 1, "masterEpoch": 1})
    c.do("ControllerElectScan", "DISABLED").do("HeartbeatExpire", brokerId=1)
    return c.do("ControllerElectScan", "CONTROLLER_MASTER_NOT_AVAILABLE", {"masterId": -1, "masterEpoch": -1}).s


def wipe_disk() -> Scenario:
    c = Cluster("wiped-disk-new-id", "WipeDisk: pB's disk is replaced while it is down (only then: DISABLED while up); "
                "restarted, it has no identity file and registers as a new broker, id 3 (BrokerIdStable allows it)")
    c.start("pA").elect("pA", 1).start("pB").write("pA", 1)
    c.do("WipeDisk", "DISABLED", process="pB").die("pB")
    c.do("WipeDisk", process="pB")
    c.expect(metaFile={"pA": 1, "pB": 0}, tempFile={"pA": EMPTY_TEMP, "pB": EMPTY_TEMP}, log={"pA": [(1, 1)], "pB": []},
             flushed={"pA": 1, "pB": 0}, epochFile={"pA": [(1, 0)], "pB": []}, confirmOffset={"pA": 1, "pB": 0})
    c.do("Restart", process="pB", addr=ADDR["pB"])
    c.do("CreateTempFile", "SUCCESS", {"nextBrokerId": 3}, process="pB").do("SendApplyBrokerId", "SUCCESS", process="pB", lost=False)
    c.do("WriteMetaFile", process="pB").do("DeleteTempFile", process="pB").do("SendRegister", "SUCCESS", process="pB", lost=False)
    return c.expect(metaFile={"pA": 1, "pB": 3}, regState={"pA": "REGISTERED", "pB": "REGISTERED"}, role={"pA": "MASTER", "pB": "SLAVE"}).s


def reelect_off_failover() -> Scenario:
    c = _pair("reelect-scan-off-no-election-after-failover", "ReelectScan = FALSE (before 5.1.1, #6383): pA, master, "
              "crashes; the controller fails over and forgets every heartbeat, so the master's entry never expires and "
              "nothing starts an election: the scan is not enabled, pB still knows master 1 and does not ask for one. "
              "No master for ever (EventuallyMaster fails)", reelect_scan=False)
    c.do("Crash", process="pA").do("ControllerFailover").expect(alive={}, electTriesLeft=0)
    c.do("SendHeartbeat", "SUCCESS", process="pB").expect(alive={2: {"epoch": 0, "maxOffset": 0, "priority": 0}})
    c.do("ControllerElectScan", "DISABLED").do("SendElectMaster", "DISABLED", process="pB", lost=False)
    c.do("HeartbeatExpire", "DISABLED", brokerId=1).do("SyncReplicaInfo", "SUCCESS", process="pB")
    return c.expect(masterId=1, masterEpoch=1, role={"pA": "NONE", "pB": "SLAVE"}, localMasterId={"pA": -1, "pB": 1}).s


def reelect_off_expiry() -> Scenario:
    c = _pair("reelect-scan-off-expiry-starts-trigger", "ReelectScan = FALSE: only the expiry of the master's heartbeat "
              "starts the election trigger (onBrokerInactive); the expiry of a slave's does not", reelect_scan=False)
    c.do("Crash", process="pB").do("HeartbeatExpire", brokerId=2).expect(electTriesLeft=0)
    c.do("ControllerElectScan", "DISABLED")
    c.back("pB").do("Crash", process="pA").do("HeartbeatExpire", brokerId=1).expect(electTriesLeft=3)
    return c.scan("pB", 2).expect(electTriesLeft=0, masterId=2, role={"pA": "NONE", "pB": "MASTER"}).s


def register_retry_off() -> Scenario:
    c = Cluster("register-retry-off-stuck", "RegisterRetry = FALSE: pA's ApplyBrokerId answer is lost, so pA is "
                "APPLY_FAILED; without the retry it never abandons the temp file and stays there (EventuallyRegistered "
                "fails), although the controller applied its id", ("pA",), register_retry=False)
    c.do("CreateTempFile", "SUCCESS", {"nextBrokerId": 1}, process="pA").do("SendApplyBrokerId", "SUCCESS", process="pA", lost=True)
    c.do("AbandonTempFile", "DISABLED", process="pA").do("LoadTempFile", "DISABLED", process="pA")
    return c.expect(regState={"pA": "APPLY_FAILED"}, tempFile={"pA": {"brokerId": 1, "checkCode": f"{ADDR['pA']};0"}},
                    replicas={1: {"addr": ADDR["pA"], "checkCode": f"{ADDR['pA']};0"}}, nextBrokerId=2).s


FAULT_SCENARIOS: dict[str, Callable[[], Scenario]] = {
    "faults/crash-torn-cuts-last-record": crash_torn,
    "faults/controller-metadata-loss": metadata_loss,
    "faults/controller-metadata-loss-reuses-id": metadata_loss_reuses_id,
    "faults/partition-delays-transfer": partition_delays,
    "faults/partition-breaks-connection": partition_breaks,
    "faults/late-register-after-restart": late_register,
    "faults/late-heartbeat-revives-dead-master": late_heartbeat,
    "faults/wiped-disk-new-id": wipe_disk,
    "faults/reelect-scan-off-no-election-after-failover": reelect_off_failover,
    "faults/reelect-scan-off-expiry-starts-trigger": reelect_off_expiry,
    "faults/register-retry-off-stuck": register_retry_off,
}
