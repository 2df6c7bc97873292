"""The implementation's faults of MODEL.md §9 and the liveness options (issue 11), each driven through the
adapter (``ImplSystem``) as the conformance suite drives it: a crash tearing the last record (on a real disk
image: the torn record is on the simulated file system and recovery cuts it), the controller losing its
store, a cut HA link, a late controller request, a wiped disk; ``reelect_scan`` and ``register_retry`` off.
The reference runs the same actions once branch lref is merged; these tests check the implementation
against the contract alone."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from simfs import Op, SimFileSystem

from autoswitch.conformance.engines.impl import ImplSystem
from autoswitch.impl.broker import STORE_FILES
from autoswitch.impl.commit_log import COMMIT_LOG_FILE, RECORD_SIZE, TORN_SIZE
from autoswitch.reference.precondition import NotEnabled
from autoswitch.reference.state import Options

TWO = {"p1": "10.0.0.1:30911", "p2": "10.0.0.2:30911"}
THREE = {**TWO, "p3": "10.0.0.3:30911"}
DISKS = "/disks"
REGISTER = ("CreateTempFile", "SendApplyBrokerId", "WriteMetaFile", "DeleteTempFile", "SendRegister")


def step(system: ImplSystem, tag: str, **params: Any) -> dict[str, Any]:
    return system.step({"tag": tag, **params})


def refused(system: ImplSystem, tag: str, **params: Any) -> None:
    """``tag`` is not enabled, and refusing it changed nothing."""
    before = system.variables()
    with pytest.raises(NotEnabled):
        step(system, tag, **params)
    assert system.variables() == before


def registered(processes: dict[str, str], options: Options | None = None, **kwargs: Any) -> ImplSystem:
    """Every process REGISTERED (ids in order) and heartbeating, p1 master, the others its slaves after a handshake."""
    system = ImplSystem(processes, options or Options(), **kwargs)
    for p in processes:
        for tag in REGISTER:
            step(system, tag, process=p, lost=False)
        step(system, "SendHeartbeat", process=p)
    assert step(system, "SendElectMaster", process="p1", lost=False)["code"] == "SUCCESS"
    for p in list(processes)[1:]:
        step(system, "SyncReplicaInfo", process=p)
        step(system, "Handshake", process=p)
    return system


def in_sync_set(processes: dict[str, str], **kwargs: Any) -> ImplSystem:
    """:func:`registered` with every slave in the syncStateSet, asynchronous flush: a write waits for every ack."""
    system = registered(processes, Options(async_flush=True), **kwargs)
    for broker_id in range(2, len(processes) + 1):
        assert step(system, "Expand", process="p1", brokerId=broker_id, lost=False)["code"] == "SUCCESS"
        step(system, "AlterArrives", process="p1")
    return system


def torn_crash_state(v: dict[str, Any], p: str) -> dict[str, Any]:
    """The contract's CrashTorn(p) of state ``v``, for p's disk: Crash with kept - 1 for kept, the epoch file cut to
    it (spec/Broker.tla RecoveredEpochFile: CrashTorn keeps the earlier cut)."""
    keep = min(v["flushed"][p], len(v["log"][p])) - 1
    return {"log": v["log"][p][:keep], "flushed": keep, "epochFile": [e for e in v["epochFile"][p] if e[1] < keep],
            "confirmOffset": min(v["confirmOffset"][p], keep), "regState": "DOWN"}


def disk_of(v: dict[str, Any], p: str) -> dict[str, Any]:
    return {name: v[name][p] for name in ("log", "flushed", "epochFile", "confirmOffset", "regState")}


# ---- CrashTorn ---------------------------------------------------------------------------------------------


def _unconfirmed_write(**kwargs: Any) -> ImplSystem:
    """p1 master of {1, 2}: message 1 confirmed and acked, message 2 written and flushed, not yet transferred."""
    system = in_sync_set(TWO, **kwargs)
    for tag, p in (("Write", "p1"), ("Flush", "p1"), ("Transfer", "p2"), ("Ack", "p2"), ("Write", "p1"), ("Flush", "p1")):
        step(system, tag, process=p)
    v = system.variables()
    assert (v["log"]["p1"], v["flushed"]["p1"], v["confirmOffset"]["p1"], v["acked"]) == ([(1, 1), (2, 1)], 2, 1, {1})
    return system


def test_a_torn_crash_loses_the_last_durable_record_as_the_contract_says() -> None:
    system = _unconfirmed_write()
    before = system.variables()
    assert step(system, "CrashTorn", process="p1") == {"code": "OK"}
    after = system.variables()
    assert disk_of(after, "p1") == torn_crash_state(before, "p1") == {
        "log": [(1, 1)], "flushed": 1, "epochFile": [(1, 0)], "confirmOffset": 1, "regState": "DOWN"}
    assert after["haState"]["p2"] == "READY" and after["acks"]["p1"] == {}  # the crash's connections dropped
    assert after["acked"] == before["acked"] and after["metaFile"] == before["metaFile"]


def test_a_torn_crash_tears_the_record_on_disk_and_recovery_cuts_it() -> None:
    fs = SimFileSystem()
    system = _unconfirmed_write(storage="file", root=DISKS, fs=fs)
    before = system.variables()
    path = f"{DISKS}/p1/{COMMIT_LOG_FILE}"
    ops: list[tuple[Op, bytes | None]] = []
    fs.hook = lambda op: ops.append((op, fs.read(path)))
    step(system, "CrashTorn", process="p1")
    fs.hook = None
    on_log = [(op.kind, data) for op, data in ops if op.path == path]
    # the tear: the file is cut inside its last record; the recovery reads it back, finds the short record, cuts it
    assert [kind for kind, _ in on_log] == ["truncate", "fsync", "truncate", "fsync"]
    torn = on_log[2][1]
    assert torn is not None and len(torn) == RECORD_SIZE + TORN_SIZE
    assert fs.read(path) == torn[:RECORD_SIZE]
    assert disk_of(system.variables(), "p1") == torn_crash_state(before, "p1")
    step(system, "Restart", process="p1", addr=TWO["p1"])
    assert disk_of(system.variables(), "p1") == {**torn_crash_state(before, "p1"), "regState": "INITIAL"}


def test_a_torn_crash_recovers_whatever_point_it_is_cut_at() -> None:
    """A kill or a power cut at each write of the torn crash (a crash during the crash): the disk reopens with the
    log as it was before the tear (kept records) or after it (kept - 1), never anything else."""
    fs = SimFileSystem()
    system = _unconfirmed_write(storage="file", root=DISKS, fs=fs)
    before = system.variables()
    images: list[tuple[str, SimFileSystem]] = []
    fs.hook = lambda op: images.extend([("kill", fs.killed()), *fs.power_cuts(f"{DISKS}/p1")])
    step(system, "CrashTorn", process="p1")
    fs.hook = None
    images.extend([("kill", fs.killed()), *fs.power_cuts(f"{DISKS}/p1")])
    allowed = {(tuple(before["log"]["p1"][:k]), tuple(e for e in before["epochFile"]["p1"] if e[1] < k)) for k in (1, 2)}
    seen = set()
    for label, image in images:
        reopened = ImplSystem(TWO, Options(async_flush=True), storage="file", root=DISKS, fs=image)
        v = reopened.variables()
        got = (tuple(v["log"]["p1"]), tuple(v["epochFile"]["p1"]))
        assert got in allowed, (label, got)
        seen.add(got)
    assert seen == allowed  # both ends are reached


def _slave_holding(processes: dict[str, str], options: Options, *, ack: bool) -> ImplSystem:
    """p2 holds message 1, transferred and flushed, with confirmOffset as the transfer set it; ``ack``: reported."""
    system = in_sync_set(processes) if options == Options(async_flush=True) else registered(processes, options)
    for tag, p in (("Write", "p1"), ("Flush", "p1"), ("Transfer", "p2"), ("Flush", "p2")) + ((("Ack", "p2"),) if ack else ()):
        step(system, tag, process=p)
    return system


def _promised(case: str) -> tuple[ImplSystem, str]:
    """A state where exactly one of CrashTorn's guards fails for the process returned."""
    synced = Options(async_flush=True)
    if case == "confirmed":  # a master that confirms at once and acks after one slave: p2's copy is confirmed, not acked
        system = _slave_holding(TWO, Options(async_flush=True, all_ack_in_sync_state_set=False, in_sync_replicas=2), ack=False)
        assert system.variables()["confirmOffset"]["p2"] == 1 and not system.variables()["acked"]
    elif case == "acked":  # p2 acked message 1 to a master that crashed since: no ack holds it, p2's confirmOffset is 0
        system = _slave_holding(TWO, synced, ack=True)
        step(system, "Crash", process="p1")
        v = system.variables()
        assert (v["acked"], v["confirmOffset"]["p2"], v["acks"]["p1"]) == ({1}, 0, {})
    elif case == "reported":  # p2 reported message 1 (acks[p1][2] = 1); p3 did not, so it is not confirmed nor acked
        system = _slave_holding(THREE, synced, ack=True)
        v = system.variables()
        assert (v["acks"]["p1"], v["confirmOffset"]["p2"], v["acked"]) == ({2: 1, 3: 0}, 0, frozenset())
    elif case == "down":
        system = _slave_holding(TWO, synced, ack=False)
        step(system, "Crash", process="p2")
    else:  # nothing flushed
        system = in_sync_set(TWO)
        step(system, "Write", process="p1")
        return system, "p1"
    return system, "p2"


@pytest.mark.parametrize("case", ["confirmed", "acked", "reported", "down", "nothing flushed"])
def test_a_torn_crash_is_refused_when_the_last_record_may_have_been_promised(case: str) -> None:
    system, p = _promised(case)
    refused(system, "CrashTorn", process=p)


def test_a_torn_crash_of_a_slave_record_reported_to_no_one() -> None:
    system = _slave_holding(TWO, Options(async_flush=True), ack=False)
    before = system.variables()
    assert before["acks"]["p1"] == {2: 0} and before["log"]["p2"] == [(1, 1)]
    step(system, "CrashTorn", process="p2")
    assert disk_of(system.variables(), "p2") == torn_crash_state(before, "p2")
    assert system.variables()["log"]["p2"] == [] and system.variables()["acks"]["p1"] == {}


# ---- ControllerMetadataLoss --------------------------------------------------------------------------------

INITIAL_CONTROLLER = {"replicas": {}, "nextBrokerId": 1, "masterId": -1, "masterEpoch": 0, "syncStateSet": frozenset(),
                      "syncStateSetEpoch": 0, "alive": {}, "electTriesLeft": 0}


def test_the_controller_loses_its_store_and_the_brokers_notice_nothing() -> None:
    system = registered(TWO)
    step(system, "Crash", process="p2")
    before = system.variables()
    assert step(system, "ControllerMetadataLoss") == {"code": "OK"}
    after = system.variables()
    assert {k: after[k] for k in INITIAL_CONTROLLER} == INITIAL_CONTROLLER
    assert {k: v for k, v in after.items() if k not in INITIAL_CONTROLLER} == {
        k: v for k, v in before.items() if k not in INITIAL_CONTROLLER}
    assert system._controller.event_log.entries == []  # the replicated log is gone, not only its state machine
    refused(system, "ControllerMetadataLoss")  # nothing left to lose
    # the registered master polls: the set is unknown, it stays as it is
    assert step(system, "SyncReplicaInfo", process="p1")["code"] == "CONTROLLER_BROKER_METADATA_NOT_EXIST"
    assert system.variables()["role"]["p1"] == "MASTER"
    # the restarted slave has its id on disk: it never applies for one again, and its register is refused for ever
    step(system, "Restart", process="p2", addr=TWO["p2"])
    step(system, "LoadMetaFile", process="p2")
    for _ in range(3):
        assert step(system, "SendRegister", process="p2", lost=False)["code"] == "CONTROLLER_BROKER_NEED_TO_BE_REGISTERED"
    assert system.variables()["regState"]["p2"] == "META_DONE"
    refused(system, "CreateTempFile", process="p2")


# ---- PartitionLink / HealLink ------------------------------------------------------------------------------


def test_a_cut_link_holds_the_replication_between_the_two_brokers_only() -> None:
    system = in_sync_set(THREE)
    step(system, "Write", process="p1")
    assert step(system, "PartitionLink", process="p2", peer="p1", lost=False) == {"code": "OK"}
    v = system.variables()
    assert v["partitions"] == {frozenset(("p1", "p2"))} and v["haState"]["p2"] == "TRANSFER" and v["acks"]["p1"] == {2: 0, 3: 0}
    refused(system, "Transfer", process="p2")
    refused(system, "Ack", process="p2")
    step(system, "Transfer", process="p3")  # the other link carries on
    step(system, "SendHeartbeat", process="p2")  # controller traffic flows
    refused(system, "PartitionLink", process="p1", peer="p2", lost=True)  # already cut, either way round
    refused(system, "PartitionLink", process="p1", peer="p1", lost=False)
    refused(system, "HealLink", process="p1", peer="p3")
    assert step(system, "HealLink", process="p1", peer="p2") == {"code": "OK"}
    assert system.variables()["partitions"] == frozenset()
    step(system, "Transfer", process="p2")
    assert system.variables()["log"]["p2"] == system.variables()["log"]["p1"]


def test_a_cut_link_with_the_connection_lost_sends_the_slave_back_to_handshake() -> None:
    system = in_sync_set(THREE)
    step(system, "PartitionLink", process="p1", peer="p2", lost=True)
    v = system.variables()
    assert v["haState"] == {"p1": "NONE", "p2": "READY", "p3": "TRANSFER"} and v["acks"]["p1"] == {3: 0}
    refused(system, "Handshake", process="p2")
    step(system, "HealLink", process="p2", peer="p1")
    assert step(system, "Handshake", process="p2")["code"] == "OK"
    assert system.variables()["acks"]["p1"] == {2: 0, 3: 0}


def test_a_cut_link_between_two_slaves_breaks_no_connection() -> None:
    system = in_sync_set(THREE)
    before = system.variables()
    step(system, "PartitionLink", process="p2", peer="p3", lost=True)
    after = system.variables()
    assert {k: v for k, v in after.items() if k != "partitions"} == {k: v for k, v in before.items() if k != "partitions"}


# ---- SendLate / DeliverLate --------------------------------------------------------------------------------


def test_a_late_heartbeat_reports_the_view_it_was_built_on() -> None:
    system = in_sync_set(TWO)
    assert step(system, "SendLate", process="p2", request="BrokerHeartbeat") == {"code": "OK"}
    late = {"tag": "BrokerHeartbeat", "brokerId": 2, "epoch": 0, "maxOffset": 0, "priority": 0}  # p2 has nothing yet
    assert system.variables()["late"] == {"p2": late}
    refused(system, "SendLate", process="p2", request="RegisterBrokerToController")  # one request in flight a process
    step(system, "HeartbeatExpire", brokerId=2)
    for tag in ("Write", "Flush"):
        step(system, tag, process="p1")
    step(system, "Transfer", process="p2")
    before = system.variables()
    assert step(system, "DeliverLate", process="p2") == {"code": "SUCCESS"}
    after = system.variables()
    assert before["epochFile"]["p2"] == [(1, 0)] and before["log"]["p2"] == [(1, 1)]
    assert after["alive"][2] == {"epoch": 0, "maxOffset": 0, "priority": 0}  # not p2's epoch 1 and LEO 1 of now
    assert after["late"] == {}
    unchanged = set(before) - {"alive", "late"}
    assert {k: after[k] for k in unchanged} == {k: before[k] for k in unchanged}
    refused(system, "DeliverLate", process="p2")


def test_a_late_register_applies_like_the_raw_request() -> None:
    system = registered(TWO)
    step(system, "SendLate", process="p1", request="RegisterBrokerToController")
    assert system.variables()["late"] == {"p1": {"tag": "RegisterBrokerToController", "brokerId": 1, "addr": TWO["p1"]}}
    twin = registered(TWO)
    step(system, "ControllerMetadataLoss")
    step(twin, "ControllerMetadataLoss")
    assert step(system, "DeliverLate", process="p1") == step(twin, "RegisterBrokerToController", brokerId=1, addr=TWO["p1"])
    assert system.variables() == twin.variables()


def test_a_late_election_is_built_when_wanted_and_applied_like_the_raw_request() -> None:
    system = in_sync_set(TWO)
    refused(system, "SendLate", process="p2", request="ElectMaster")  # p2 follows a live master: no election wanted
    step(system, "Crash", process="p1")
    step(system, "HeartbeatExpire", brokerId=1)
    assert step(system, "ControllerElectScan")["code"] == "SUCCESS"  # p2 becomes master
    step(system, "HeartbeatExpire", brokerId=2)
    step(system, "Restart", process="p1", addr=TWO["p1"])
    for tag in ("LoadMetaFile", "SendRegister"):
        step(system, tag, process="p1", lost=False)
    assert system.variables()["localMasterId"]["p1"] == -1  # the register named no live master: p1 wants an election
    step(system, "SendLate", process="p1", request="ElectMaster")
    assert system.variables()["late"] == {"p1": {"tag": "ElectMaster", "trigger": "broker", "brokerId": 1}}
    step(system, "SendHeartbeat", process="p2")
    twin = copy.deepcopy(system)
    outcome = step(system, "DeliverLate", process="p1")
    assert outcome == step(twin, "ElectMaster", trigger="broker", brokerId=1)
    assert outcome["code"] == "CONTROLLER_MASTER_STILL_EXIST"
    assert {**system.variables(), "late": {}} == {**twin.variables(), "late": {}}
    refused(system, "SendLate", process="p1", request="Consume")


# ---- WipeDisk ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("storage", ["memory", "file"])
def test_a_wiped_disk_comes_back_as_a_new_broker(storage: str) -> None:
    fs = SimFileSystem()
    kwargs: dict[str, Any] = {"storage": "file", "root": DISKS, "fs": fs} if storage == "file" else {}
    system = in_sync_set(TWO, **kwargs)
    for tag, p in (("Write", "p1"), ("Flush", "p1"), ("Transfer", "p2"), ("Flush", "p2"), ("Ack", "p2")):
        step(system, tag, process=p)
    refused(system, "WipeDisk", process="p2")  # up
    step(system, "Crash", process="p2")
    before = system.variables()
    assert before["log"]["p2"] == [(1, 1)] and before["metaFile"]["p2"] == 2
    assert step(system, "WipeDisk", process="p2") == {"code": "OK"}
    after = system.variables()
    assert {k: after[k]["p2"] for k in ("metaFile", "tempFile", "log", "flushed", "epochFile", "confirmOffset", "regState")} == {
        "metaFile": 0, "tempFile": {"brokerId": 0, "checkCode": ""}, "log": [], "flushed": 0, "epochFile": [],
        "confirmOffset": 0, "regState": "DOWN"}
    if storage == "file":
        assert [name for name in STORE_FILES if fs.exists(f"{DISKS}/p2/{name}")] == []
    step(system, "Restart", process="p2", addr="10.0.0.9:30911")
    refused(system, "LoadMetaFile", process="p2")
    assert step(system, "CreateTempFile", process="p2")["nextBrokerId"] == 3
    for tag in REGISTER[1:]:
        step(system, tag, process="p2", lost=False)
    v = system.variables()
    assert (v["metaFile"]["p2"], v["regState"]["p2"], sorted(v["replicas"])) == (3, "REGISTERED", [1, 2, 3])


# ---- options: reelect_scan, register_retry ------------------------------------------------------------------


@pytest.mark.parametrize("scan", [True, False])
def test_the_masters_expiry_starts_an_election_with_or_without_the_scan(scan: bool) -> None:
    system = registered(TWO, Options(reelect_scan=scan))
    step(system, "HeartbeatExpire", brokerId=2)
    assert system.variables()["electTriesLeft"] == 0
    step(system, "Crash", process="p1")
    refused(system, "ControllerElectScan")  # the master's heartbeat has not expired yet
    step(system, "HeartbeatExpire", brokerId=1)
    assert system.variables()["electTriesLeft"] == 3
    tries = 0
    while True:
        try:
            outcome = step(system, "ControllerElectScan")
        except NotEnabled:
            break
        tries += 1
        assert outcome["code"] == "CONTROLLER_MASTER_NOT_AVAILABLE"  # the only member, p1, is down
    assert tries == 3 and system.variables()["electTriesLeft"] == 0


@pytest.mark.parametrize("scan", [True, False])
def test_without_the_scan_a_dead_master_forgotten_by_a_failover_is_never_replaced(scan: bool) -> None:
    system = registered(TWO, Options(reelect_scan=scan))
    step(system, "Crash", process="p1")
    step(system, "ControllerFailover")  # the new leader has no heartbeat of p1 to expire
    step(system, "SendHeartbeat", process="p2")
    if scan:
        assert step(system, "ControllerElectScan")["code"] == "CONTROLLER_MASTER_NOT_AVAILABLE"
    else:
        refused(system, "ControllerElectScan")


@pytest.mark.parametrize("retry", [True, False])
def test_a_broker_whose_apply_failed_starts_again_only_with_register_retry(retry: bool) -> None:
    system = ImplSystem(TWO, Options(register_retry=retry))
    for p in TWO:
        step(system, "CreateTempFile", process=p)  # both ask for id 1
    step(system, "SendApplyBrokerId", process="p1", lost=False)
    assert step(system, "SendApplyBrokerId", process="p2", lost=False)["code"] == "CONTROLLER_BROKER_ID_INVALID"
    assert system.variables()["regState"]["p2"] == "APPLY_FAILED"
    if retry:
        step(system, "AbandonTempFile", process="p2")
        assert system.variables()["regState"]["p2"] == "INITIAL"
    else:
        refused(system, "AbandonTempFile", process="p2")


def test_a_wipe_cut_short_recovers_to_before_or_after_it() -> None:
    """A kill or a power cut at each write of WipeDisk: the disk reopens as before the wipe or as after it (its marker
    is written first and a store opened with it finishes the wipe), never with part of its data, nor with its data and
    no identity (issue 40: a new broker holding the old log)."""
    fs = SimFileSystem()
    system = in_sync_set(TWO, storage="file", root=DISKS, fs=fs)
    for tag, p in (("Write", "p1"), ("Flush", "p1"), ("Transfer", "p2"), ("Flush", "p2"), ("Ack", "p2"), ("Crash", "p2")):
        step(system, tag, process=p)
    before = system.variables()
    data = (before["log"]["p2"], before["epochFile"]["p2"], before["confirmOffset"]["p2"])
    assert data[0] == [(1, 1)] and before["metaFile"]["p2"] == 2
    images: list[tuple[str, SimFileSystem]] = []
    fs.hook = lambda op: images.extend([("kill", fs.killed()), *fs.power_cuts(f"{DISKS}/p2")])
    step(system, "WipeDisk", process="p2")
    fs.hook = None
    images.extend([("kill", fs.killed()), *fs.power_cuts(f"{DISKS}/p2")])
    seen = set()
    for _, image in images:
        v = ImplSystem(TWO, Options(async_flush=True), storage="file", root=DISKS, fs=image).variables()
        got = (v["log"]["p2"], v["epochFile"]["p2"], v["confirmOffset"]["p2"])
        seen.add((v["metaFile"]["p2"], got == data, not v["log"]["p2"]))
    assert seen == {(2, True, False), (0, False, True)}, seen  # before, all gone
