"""The scenarios of SCENARIOS.md as traces, written by hand: each step states the action, the response
code and the values the design documents say it must produce. Nothing here is recorded from a model:
``autoswitch scenarios`` writes these files into ``traces/`` and the replay of both models must meet
every stated value (the tests check that the committed files are exactly what this module writes).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from autoswitch.conformance.scenarios.builder import Scenario

A, B, C = "10.0.0.1:30911", "10.0.0.2:30911", "10.0.0.3:30911"
EMPTY_TEMP = {"brokerId": 0, "checkCode": ""}


# --- controller-level building blocks -------------------------------------------------------------

def _cc(addr: str, t: int) -> str:
    return f"{addr};{1700000000000 + t}"


def _join(s: Scenario, broker_id: int, addr: str, master: dict[str, Any]) -> Scenario:
    """A broker takes the next id, registers and heartbeats (controller-level requests)."""
    s.step("GetNextBrokerId", returns={"nextBrokerId": broker_id})
    s.step("ApplyBrokerId", params={"brokerId": broker_id, "checkCode": _cc(addr, broker_id)}, nextBrokerId=broker_id + 1)
    s.step("RegisterBrokerToController", params={"brokerId": broker_id, "addr": addr}, returns=master)
    return s.step("BrokerHeartbeat", params={"brokerId": broker_id, "epoch": 0, "maxOffset": 0, "priority": 0})


NO_LIVE_MASTER = {"masterId": -1, "masterAddr": "", "masterEpoch": -1, "syncStateSetEpoch": -1}
MASTER_1 = {"masterId": 1, "masterAddr": A, "masterEpoch": 1, "syncStateSetEpoch": 1}


def _three_brokers(name: str, about: str, unclean: bool = False) -> Scenario:
    s = Scenario(name, about, unclean=unclean, replicas={}, nextBrokerId=1, masterId=-1, masterEpoch=0,
                 syncStateSet=frozenset(), syncStateSetEpoch=0, alive={})
    _join(s, 1, A, NO_LIVE_MASTER)
    s.step("ElectMaster", params={"trigger": "broker", "brokerId": 1}, returns=MASTER_1,
           masterId=1, masterEpoch=1, syncStateSet=frozenset({1}), syncStateSetEpoch=1)
    _join(s, 2, B, MASTER_1)
    _join(s, 3, C, MASTER_1)
    return s


def c1_controller() -> Scenario:
    s = _three_brokers("C1-first-broker-controller", "C1: the first broker of an empty set gets id 1 and wins the first "
                       "election (epochs 1); brokers 2 and 3 find master 1 alive and stay slaves")
    for broker_id in (2, 3):
        s.step("ElectMaster", "CONTROLLER_MASTER_STILL_EXIST", params={"trigger": "broker", "brokerId": broker_id},
               returns=MASTER_1, masterId=1, masterEpoch=1)
    return s.step("GetReplicaInfo", returns={**MASTER_1, "syncStateSet": frozenset({1})},
                  replicas={1: {"addr": A, "checkCode": _cc(A, 1)}, 2: {"addr": B, "checkCode": _cc(B, 2)},
                            3: {"addr": C, "checkCode": _cc(C, 3)}}, nextBrokerId=4)


def _c2(suffix: str, about: str, params: dict[str, Any], code: str) -> Callable[[], Scenario]:
    def build() -> Scenario:
        s = _three_brokers(f"C2-{suffix}", f"C2: AlterSyncStateSet refused when {about}; nothing changes")
        s.step("AlterSyncStateSet", params={"masterId": 1, "masterEpoch": 1, "newSyncStateSet": frozenset({1, 2}),
                                            "syncStateSetEpoch": 1}, returns={"syncStateSetEpoch": 2},
               syncStateSet=frozenset({1, 2}), syncStateSetEpoch=2)
        if code == "CONTROLLER_BROKER_NOT_ALIVE":
            s.step("HeartbeatExpire", "OK", params={"brokerId": 3}, alive={1: _live0(), 2: _live0()})
        return s.step("AlterSyncStateSet", code, params=params, masterId=1, masterEpoch=1,
                      syncStateSet=frozenset({1, 2}), syncStateSetEpoch=2)
    return build


def _live0() -> dict[str, int]:
    return {"epoch": 0, "maxOffset": 0, "priority": 0}


def _alter(master: int, epoch: int, members: set[int], set_epoch: int) -> dict[str, Any]:
    return {"masterId": master, "masterEpoch": epoch, "newSyncStateSet": frozenset(members), "syncStateSetEpoch": set_epoch}


C2 = [
    _c2("from-slave", "a slave asks", _alter(2, 1, {1, 2, 3}, 2), "CONTROLLER_INVALID_MASTER"),
    _c2("stale-master-epoch", "the master epoch is stale", _alter(1, 0, {1, 2, 3}, 2), "CONTROLLER_FENCED_MASTER_EPOCH"),
    _c2("stale-set-epoch", "the syncStateSet epoch is stale", _alter(1, 1, {1, 2, 3}, 1), "CONTROLLER_FENCED_SYNC_STATE_SET_EPOCH"),
    _c2("member-not-alive", "a member is not alive", _alter(1, 1, {1, 2, 3}, 2), "CONTROLLER_BROKER_NOT_ALIVE"),
    _c2("without-master", "the new set leaves the master out", _alter(1, 1, {2, 3}, 2), "CONTROLLER_ALTER_SYNC_STATE_SET_FAILED"),
]


def _c4(unclean: bool) -> Scenario:
    name = "C4-unclean-election" if unclean else "C4-no-candidate"
    s = _three_brokers(name, "C4: every syncStateSet member is dead; " + (
        "with enableElectUncleanMaster the controller elects the alive replica outside the set" if unclean else
        "no election: the master is cleared and masterEpoch still moves on"), unclean=unclean)
    s.step("AlterSyncStateSet", params=_alter(1, 1, {1, 2}, 1), returns={"syncStateSetEpoch": 2}, syncStateSet=frozenset({1, 2}))
    s.step("HeartbeatExpire", "OK", params={"brokerId": 1})
    s.step("HeartbeatExpire", "OK", params={"brokerId": 2}, alive={3: _live0()})
    if unclean:
        return s.step("ControllerElectScan", returns={"masterId": 3, "masterAddr": C, "masterEpoch": 2, "syncStateSetEpoch": 3},
                      masterId=3, masterEpoch=2, syncStateSet=frozenset({3}), syncStateSetEpoch=3)
    s.step("ControllerElectScan", "CONTROLLER_MASTER_NOT_AVAILABLE", masterId=-1, masterEpoch=2,
           syncStateSet=frozenset({1, 2}), syncStateSetEpoch=2)
    # a member of the set comes back: the broker's own election request succeeds from the set
    s.step("BrokerHeartbeat", params={"brokerId": 2, "epoch": 1, "maxOffset": 0, "priority": 0})
    return s.step("ElectMaster", params={"trigger": "broker", "brokerId": 2},
                  returns={"masterId": 2, "masterAddr": B, "masterEpoch": 3, "syncStateSetEpoch": 3},
                  masterId=2, masterEpoch=3, syncStateSet=frozenset({2}), syncStateSetEpoch=3)


def c7_master_new_address() -> Scenario:
    new_addr = "10.0.1.1:30911"
    s = _three_brokers("C7-master-registers-new-address", "C7: the alive master re-registers under a new address; the "
                       "answer is built before the address update (ReplicasInfoManager.registerBroker), so it names the "
                       "master's OLD address; the next GetReplicaInfo has the new one")
    s.step("RegisterBrokerToController", params={"brokerId": 1, "addr": new_addr},
           returns={**MASTER_1, "syncStateSet": frozenset({1})},
           replicas={1: {"addr": new_addr, "checkCode": _cc(A, 1)}, 2: {"addr": B, "checkCode": _cc(B, 2)},
                     3: {"addr": C, "checkCode": _cc(C, 3)}})
    return s.step("GetReplicaInfo", returns={**MASTER_1, "masterAddr": new_addr, "syncStateSet": frozenset({1})})


NO_ELECTED = {**NO_LIVE_MASTER, "syncStateSet": frozenset()}


def c8_failed_elections() -> Scenario:
    s = _three_brokers("C8-failed-election-answers", "C8: a failed ElectMaster answers no master fields and no "
                       "syncStateSet (an admin designating a non-candidate, the controller finding no candidate); "
                       "GetReplicaInfo without a master still reports both epochs (ReplicasInfoManager.getReplicaInfo)")
    s.step("ElectMaster", "CONTROLLER_ELECT_MASTER_FAILED", params={"trigger": "admin", "brokerId": 3}, returns=NO_ELECTED,
           masterId=1, masterEpoch=1, syncStateSet=frozenset({1}), syncStateSetEpoch=1)
    s.step("AlterSyncStateSet", params=_alter(1, 1, {1, 2}, 1), returns={"syncStateSetEpoch": 2}, syncStateSet=frozenset({1, 2}))
    s.step("HeartbeatExpire", "OK", params={"brokerId": 1})
    s.step("HeartbeatExpire", "OK", params={"brokerId": 2}, alive={3: _live0()})
    s.step("ControllerElectScan", "CONTROLLER_MASTER_NOT_AVAILABLE", returns=NO_ELECTED, masterId=-1, masterEpoch=2,
           syncStateSet=frozenset({1, 2}), syncStateSetEpoch=2)
    return s.step("GetReplicaInfo", returns={"masterId": -1, "masterAddr": "", "masterEpoch": 2, "syncStateSetEpoch": 2,
                                             "syncStateSet": frozenset({1, 2})})


def c9_clean_living() -> Scenario:
    s = _three_brokers("C9-clean-living-removes-set", "C9: CleanBrokerData with cleanLiving ignores the listed ids and "
                       "removes the whole broker set (ReplicasInfoManager.cleanBrokerData leaves the id set null)")
    s.step("CleanBrokerData", params={"brokerIds": frozenset({3}), "cleanLiving": True}, replicas={}, nextBrokerId=1,
           masterId=-1, masterEpoch=0, syncStateSet=frozenset(), syncStateSetEpoch=0)
    return s.step("GetReplicaInfo", "CONTROLLER_BROKER_METADATA_NOT_EXIST")


def c10_trigger_retries() -> Scenario:
    s = _three_brokers("C10-elect-trigger-retries", "C10: the master and the other set member die; the controller's "
                       "election trigger (ControllerManager.triggerElectMaster) tries electMasterMaxRetryCount = 3 times, "
                       "each try finds no candidate and emits ElectMasterEvent(false): masterEpoch rises by 3 while the "
                       "master stays cleared and the syncStateSet is kept")
    s.step("AlterSyncStateSet", params=_alter(1, 1, {1, 2}, 1), returns={"syncStateSetEpoch": 2}, syncStateSet=frozenset({1, 2}))
    s.step("HeartbeatExpire", "OK", params={"brokerId": 1})
    s.step("HeartbeatExpire", "OK", params={"brokerId": 2}, alive={3: _live0()})
    for epoch, left in ((2, 2), (3, 1), (4, 0)):
        s.step("ControllerElectScan", "CONTROLLER_MASTER_NOT_AVAILABLE", returns=NO_ELECTED, masterId=-1, masterEpoch=epoch,
               syncStateSet=frozenset({1, 2}), syncStateSetEpoch=2, electTriesLeft=left)
    return s.step("GetReplicaInfo", returns={"masterId": -1, "masterAddr": "", "masterEpoch": 4, "syncStateSetEpoch": 2,
                                             "syncStateSet": frozenset({1, 2})})


def c11_trigger_without_live_ids() -> Scenario:
    s = _three_brokers("C11-elect-trigger-nobody-alive", "C11: the master's expiry triggers an election even with no "
                       "id alive (onBrokerInactive); the failed try is retried and succeeds once the master heartbeats "
                       "again; a controller failover ends a running trigger (the new leader does not continue it)")
    for broker_id in (1, 2, 3):
        s.step("HeartbeatExpire", "OK", params={"brokerId": broker_id})
    s.step("ControllerElectScan", "CONTROLLER_MASTER_NOT_AVAILABLE", returns=NO_ELECTED, alive={}, masterId=-1,
           masterEpoch=2, electTriesLeft=2)
    s.step("BrokerHeartbeat", params={"brokerId": 1, "epoch": 1, "maxOffset": 0, "priority": 0})
    s.step("ControllerElectScan", returns={"masterId": 1, "masterAddr": A, "masterEpoch": 3, "syncStateSetEpoch": 2,
                                           "syncStateSet": frozenset({1})},
           masterId=1, masterEpoch=3, syncStateSet=frozenset({1}), syncStateSetEpoch=2, electTriesLeft=0)
    s.step("HeartbeatExpire", "OK", params={"brokerId": 1})
    s.step("ControllerElectScan", "CONTROLLER_MASTER_NOT_AVAILABLE", returns=NO_ELECTED, masterId=-1, masterEpoch=4,
           electTriesLeft=2)
    return s.step("ControllerFailover", "OK", alive={}, masterId=-1, masterEpoch=4, electTriesLeft=0)


# --- process-level building blocks ----------------------------------------------------------------

def _first_start(s: Scenario, p: str, broker_id: int, check_code: str, next_id: int) -> Scenario:
    """B1's steps for process ``p``: temp file, apply, meta file, delete temp, register."""
    s.step("CreateTempFile", params={"process": p}, returns={"nextBrokerId": broker_id},
           tempFile={**_temps(s), p: {"brokerId": broker_id, "checkCode": check_code}}, regState={**_regs(s), p: "TEMP_DONE"})
    s.step("SendApplyBrokerId", params={"process": p, "lost": False}, nextBrokerId=next_id, regState={**_regs(s), p: "ID_APPLIED"})
    s.step("WriteMetaFile", "OK", params={"process": p}, metaFile={**_metas(s), p: broker_id}, regState={**_regs(s), p: "META_WRITTEN"})
    s.step("DeleteTempFile", "OK", params={"process": p}, tempFile={**_temps(s), p: EMPTY_TEMP}, regState={**_regs(s), p: "META_DONE"})
    return s


def _last(s: Scenario, var: str) -> dict[str, Any]:
    for state in reversed(s.states):
        if var in state:
            return dict(state[var])
    raise KeyError(var)


def _regs(s: Scenario) -> dict[str, Any]:
    return _last(s, "regState")


def _temps(s: Scenario) -> dict[str, Any]:
    return _last(s, "tempFile")


def _metas(s: Scenario) -> dict[str, Any]:
    return _last(s, "metaFile")


def _procs(name: str, about: str, processes: dict[str, str]) -> Scenario:
    return Scenario(name, about, processes, metaFile={p: 0 for p in processes}, tempFile={p: EMPTY_TEMP for p in processes},
                    regState={p: "INITIAL" for p in processes}, role={p: "NONE" for p in processes}, replicas={}, nextBrokerId=1)


def _register(s: Scenario, p: str, role: str, returns: dict[str, Any], epoch: int) -> Scenario:
    return s.step("SendRegister", params={"process": p, "lost": False}, returns=returns,
                  regState={**_regs(s), p: "REGISTERED"}, role={**_last(s, "role"), p: role},
                  localMasterEpoch={**_last_or(s, "localMasterEpoch"), p: epoch})


def _last_or(s: Scenario, var: str) -> dict[str, Any]:
    try:
        return _last(s, var)
    except KeyError:
        return {p: 0 for p in s.config.processes}


def _master_process(name: str, about: str, processes: dict[str, str]) -> Scenario:
    """p1 starts first, registers, heartbeats and wins the first election."""
    s = _procs(name, about, processes)
    _first_start(s, "p1", 1, f"{A};0", 2)
    _register(s, "p1", "NONE", NO_LIVE_MASTER, 0)
    s.step("SendHeartbeat", params={"process": "p1"})
    return s.step("SendElectMaster", params={"process": "p1", "lost": False}, returns=MASTER_1,
                  role={**_last(s, "role"), "p1": "MASTER"}, localMasterEpoch={**_last_or(s, "localMasterEpoch"), "p1": 1},
                  masterHistory=frozenset({(1, "p1")}))


def c1_processes() -> Scenario:
    s = _master_process("C1-first-broker-processes", "C1 with broker processes: p1 becomes master in epoch 1, p2 and p3 "
                        "take ids 2 and 3 and adopt the slave role from the registration answer",
                        {"p1": A, "p2": B, "p3": C})
    s.step("SendHeartbeat", params={"process": "p1"})
    for p, broker_id, addr in (("p2", 2, B), ("p3", 3, C)):
        _first_start(s, p, broker_id, f"{addr};{broker_id - 1}", broker_id + 1)
        _register(s, p, "SLAVE", {**MASTER_1, "syncStateSet": frozenset({1})}, 1)
    return s.step("GetReplicaInfo", returns={"masterId": 1, "syncStateSet": frozenset({1})},
                  metaFile={"p1": 1, "p2": 2, "p3": 3}, masterHistory=frozenset({(1, "p1")}))


def c3() -> Scenario:
    s = c1_processes()
    s.name, s.about = "C3-master-expires", ("C3: the master's heartbeat expires; the controller elects an alive member of "
                                            "the syncStateSet (tie -> lowest id); its set is itself; the old master returns as a slave")
    for p in ("p2", "p3"):
        s.step("SendHeartbeat", params={"process": p})
    s.step("SendAlterSyncStateSet", params={"process": "p1", "newSyncStateSet": frozenset({1, 2, 3}), "lost": False},
           returns={"syncStateSetEpoch": 2}, syncStateSet=frozenset({1, 2, 3}), syncStateSetEpoch=2)
    s.step("Crash", "OK", params={"process": "p1"}, regState={**_regs(s), "p1": "DOWN"}, role={"p1": "NONE", "p2": "SLAVE", "p3": "SLAVE"})
    s.step("HeartbeatExpire", "OK", params={"brokerId": 1})
    s.step("ControllerElectScan", returns={"masterId": 2, "masterAddr": B, "masterEpoch": 2, "syncStateSetEpoch": 3},
           masterId=2, masterEpoch=2, syncStateSet=frozenset({2}), syncStateSetEpoch=3)
    s.step("SyncReplicaInfo", params={"process": "p2"}, role={"p1": "NONE", "p2": "MASTER", "p3": "SLAVE"},
           localMasterEpoch={"p1": 0, "p2": 2, "p3": 1}, masterHistory=frozenset({(1, "p1"), (2, "p2")}))
    s.step("SendHeartbeat", params={"process": "p2"})
    s.step("Restart", "OK", params={"process": "p1", "addr": A}, regState={**_regs(s), "p1": "INITIAL"})
    s.step("LoadMetaFile", "OK", params={"process": "p1"}, regState={**_regs(s), "p1": "META_DONE"})
    return _register(s, "p1", "SLAVE", {"masterId": 2, "masterAddr": B, "masterEpoch": 2, "syncStateSetEpoch": 3,
                                        "syncStateSet": frozenset({2})}, 2)


def _p2_joins_the_set(s: Scenario) -> None:
    """p1 (master 1) heartbeats; p2 takes id 2, registers as a slave, heartbeats; p1 adds it to the set."""
    s.step("SendHeartbeat", params={"process": "p1"})
    _first_start(s, "p2", 2, f"{B};1", 3)
    _register(s, "p2", "SLAVE", MASTER_1, 1)
    s.step("SendHeartbeat", params={"process": "p2"})
    s.step("SendAlterSyncStateSet", params={"process": "p1", "newSyncStateSet": frozenset({1, 2}), "lost": False},
           returns={"syncStateSetEpoch": 2}, syncStateSet=frozenset({1, 2}), syncStateSetEpoch=2)

def c12_broker_elects_after_poll() -> Scenario:
    s = _master_process("C12-broker-elects-after-poll", "C12: the master crashes while no other member is alive; the "
                        "controller's try clears the master (epoch 2); the slave p2 comes back, its poll names no master "
                        "in a newer epoch, so it asks ElectMaster itself and wins (ReplicasManager."
                        "schedulingSyncBrokerMetadata); the controller's trigger keeps trying and hears MASTER_STILL_EXIST, "
                        "which it retries too", {"p1": A, "p2": B})
    _p2_joins_the_set(s)
    s.step("Crash", "OK", params={"process": "p1"}, regState={"p1": "DOWN", "p2": "REGISTERED"})
    s.step("HeartbeatExpire", "OK", params={"brokerId": 1})
    s.step("HeartbeatExpire", "OK", params={"brokerId": 2}, alive={})
    s.step("ControllerElectScan", "CONTROLLER_MASTER_NOT_AVAILABLE", returns=NO_ELECTED, masterId=-1, masterEpoch=2,
           electTriesLeft=2)
    s.step("SendHeartbeat", params={"process": "p2"})
    master_2 = {"masterId": 2, "masterAddr": B, "masterEpoch": 3, "syncStateSetEpoch": 3, "syncStateSet": frozenset({2})}
    s.step("SendElectMaster", params={"process": "p2", "lost": False}, returns=master_2, masterId=2, masterEpoch=3,
           role={"p1": "NONE", "p2": "MASTER"}, localMasterEpoch={"p1": 0, "p2": 3},
           masterHistory=frozenset({(1, "p1"), (3, "p2")}))
    s.step("ControllerElectScan", "CONTROLLER_MASTER_STILL_EXIST", returns=master_2, masterEpoch=3, electTriesLeft=1)
    return s.step("ControllerElectScan", "CONTROLLER_MASTER_STILL_EXIST", returns=master_2, masterEpoch=3, electTriesLeft=0)


def b1() -> Scenario:
    s = _procs("B1-first-start", "B1: GetNextBrokerId -> temp file -> ApplyBrokerId -> meta file, temp deleted -> register", {"p1": A})
    _first_start(s, "p1", 1, f"{A};0", 2)
    return _register(s, "p1", "NONE", NO_LIVE_MASTER, 0).step(
        "GetReplicaInfo", returns={"masterId": -1}, replicas={1: {"addr": A, "checkCode": f"{A};0"}})


def b2() -> Scenario:
    s = _master_process("B2-normal-restart", "B2: after a restart the meta file gives the id; registration goes straight "
                        "to RegisterBrokerToController with the same id; the live master id is this broker again", {"p1": A})
    s.step("Crash", "OK", params={"process": "p1"}, regState={"p1": "DOWN"}, role={"p1": "NONE"}, localMasterEpoch={"p1": 0})
    s.step("Restart", "OK", params={"process": "p1", "addr": A}, regState={"p1": "INITIAL"}, metaFile={"p1": 1})
    s.step("LoadMetaFile", "OK", params={"process": "p1"}, regState={"p1": "META_DONE"})
    return _register(s, "p1", "MASTER", MASTER_1, 1).step("GetNextBrokerId", returns={"nextBrokerId": 2}, nextBrokerId=2)


def b3() -> Scenario:
    s = _procs("B3-crash-before-temp", "B3: a crash before the temp file is written; the restart starts from the beginning "
               "and the controller has assigned nothing", {"p1": A})
    s.step("Crash", "OK", params={"process": "p1"}, regState={"p1": "DOWN"}, tempFile={"p1": EMPTY_TEMP}, replicas={}, nextBrokerId=1)
    s.step("Restart", "OK", params={"process": "p1", "addr": A}, regState={"p1": "INITIAL"})
    _first_start(s, "p1", 1, f"{A};0", 2)
    return _register(s, "p1", "NONE", NO_LIVE_MASTER, 0)


def b4() -> Scenario:
    s = _procs("B4-id-taken", "B4: two brokers ask for the next id together; the second's ApplyBrokerId is refused "
               "(another checkCode holds the id), it deletes its temp file, asks again and gets the next id", {"p1": A, "p2": B})
    s.step("CreateTempFile", params={"process": "p1"}, returns={"nextBrokerId": 1}, tempFile={"p1": {"brokerId": 1, "checkCode": f"{A};0"}, "p2": EMPTY_TEMP})
    s.step("CreateTempFile", params={"process": "p2"}, returns={"nextBrokerId": 1},
           tempFile={"p1": {"brokerId": 1, "checkCode": f"{A};0"}, "p2": {"brokerId": 1, "checkCode": f"{B};1"}})
    s.step("SendApplyBrokerId", params={"process": "p1", "lost": False}, nextBrokerId=2)
    s.step("SendApplyBrokerId", "CONTROLLER_BROKER_ID_INVALID", params={"process": "p2", "lost": False},
           regState={"p1": "ID_APPLIED", "p2": "APPLY_FAILED"}, replicas={1: {"addr": A, "checkCode": f"{A};0"}})
    s.step("AbandonTempFile", "OK", params={"process": "p2"}, regState={"p1": "ID_APPLIED", "p2": "INITIAL"},
           tempFile={"p1": {"brokerId": 1, "checkCode": f"{A};0"}, "p2": EMPTY_TEMP})
    s.step("CreateTempFile", params={"process": "p2"}, returns={"nextBrokerId": 2},
           tempFile={"p1": {"brokerId": 1, "checkCode": f"{A};0"}, "p2": {"brokerId": 2, "checkCode": f"{B};2"}})
    s.step("SendApplyBrokerId", params={"process": "p2", "lost": False}, nextBrokerId=3)
    for p in ("p1", "p2"):
        s.step("WriteMetaFile", "OK", params={"process": p})
        s.step("DeleteTempFile", "OK", params={"process": p})
    return s.step("GetReplicaInfo", metaFile={"p1": 1, "p2": 2},
                  replicas={1: {"addr": A, "checkCode": f"{A};0"}, 2: {"addr": B, "checkCode": f"{B};2"}})


def _b5(lost: bool) -> Scenario:
    name = "B5-lost-apply-response" if lost else "B5-crash-before-meta"
    s = _procs(name, "B5: ApplyBrokerId was applied but " + ("its response was lost" if lost else "the broker crashed before "
               "writing the meta file") + "; the restart finds the temp file and re-applies the same (id, checkCode), "
               "which the controller accepts without counting it again", {"p1": A})
    s.step("CreateTempFile", params={"process": "p1"}, returns={"nextBrokerId": 1})
    s.step("SendApplyBrokerId", params={"process": "p1", "lost": lost}, nextBrokerId=2,
           regState={"p1": "APPLY_FAILED" if lost else "ID_APPLIED"})
    s.step("Crash", "OK", params={"process": "p1"}, tempFile={"p1": {"brokerId": 1, "checkCode": f"{A};0"}}, metaFile={"p1": 0})
    s.step("Restart", "OK", params={"process": "p1", "addr": A})
    s.step("LoadTempFile", "OK", params={"process": "p1"}, regState={"p1": "TEMP_DONE"})
    s.step("SendApplyBrokerId", params={"process": "p1", "lost": False}, nextBrokerId=2, regState={"p1": "ID_APPLIED"},
           replicas={1: {"addr": A, "checkCode": f"{A};0"}})
    s.step("WriteMetaFile", "OK", params={"process": "p1"}, metaFile={"p1": 1})
    s.step("DeleteTempFile", "OK", params={"process": "p1"}, tempFile={"p1": EMPTY_TEMP})
    return _register(s, "p1", "NONE", NO_LIVE_MASTER, 0)


def b6() -> Scenario:
    new_addr = "10.0.1.2:30911"
    s = _master_process("B6-new-address", "B6: a slave restarts with a new IP address; it keeps its id, the controller "
                        "updates the stored address, syncStateSet membership (by id) is unchanged", {"p1": A, "p2": B})
    _p2_joins_the_set(s)
    s.step("Crash", "OK", params={"process": "p2"})
    s.step("Restart", "OK", params={"process": "p2", "addr": new_addr}, addr={"p1": A, "p2": new_addr})
    s.step("LoadMetaFile", "OK", params={"process": "p2"}, metaFile={"p1": 1, "p2": 2})
    _register(s, "p2", "SLAVE", {**MASTER_1, "syncStateSetEpoch": 2, "syncStateSet": frozenset({1, 2})}, 1)
    return s.step("GetReplicaInfo", returns={"masterId": 1, "syncStateSet": frozenset({1, 2})},
                  replicas={1: {"addr": A, "checkCode": f"{A};0"}, 2: {"addr": new_addr, "checkCode": f"{B};1"}},
                  syncStateSet=frozenset({1, 2}), syncStateSetEpoch=2)


def clean_reuses_id() -> Scenario:
    """A regression trace that must break UniqueBrokerIds: why the spec's safe configs leave CleanBrokerData out."""
    s = _master_process("clean-broker-data-reuses-id", "CleanBrokerData(cleanLiving) removes the whole set while p1's "
                        "meta file keeps id 1; the set starts again from id 1, which p2 is given and persists: two "
                        "processes now hold id 1 (UniqueBrokerIds fails at the last state)", {"p1": A, "p2": B})
    s.step("CleanBrokerData", params={"brokerIds": frozenset(), "cleanLiving": True}, replicas={}, nextBrokerId=1,
           masterId=-1, masterEpoch=0)
    _first_start(s, "p2", 1, f"{B};1", 2)
    s.states[-2].update(metaFile={"p1": 1, "p2": 1})  # WriteMetaFile: the violating state
    return s.expect_violation("UniqueBrokerIds", len(s.states) - 2)


SCENARIOS: dict[str, Callable[[], Scenario]] = {
    "controller/C1-first-broker-controller": c1_controller,
    "controller/C1-first-broker-processes": c1_processes,
    **{f"controller/{f().name}": f for f in C2},
    "controller/C3-master-expires": c3,
    "controller/C4-no-candidate": lambda: _c4(False),
    "controller/C4-unclean-election": lambda: _c4(True),
    "controller/C7-master-registers-new-address": c7_master_new_address,
    "controller/C8-failed-election-answers": c8_failed_elections,
    "controller/C9-clean-living-removes-set": c9_clean_living,
    "controller/C10-elect-trigger-retries": c10_trigger_retries,
    "controller/C11-elect-trigger-nobody-alive": c11_trigger_without_live_ids,
    "controller/C12-broker-elects-after-poll": c12_broker_elects_after_poll,
    "broker-id/B1-first-start": b1,
    "broker-id/B2-normal-restart": b2,
    "broker-id/B3-crash-before-temp": b3,
    "broker-id/B4-id-taken": b4,
    "broker-id/B5-lost-apply-response": lambda: _b5(True),
    "broker-id/B5-crash-before-meta": lambda: _b5(False),
    "broker-id/B6-new-address": b6,
    "regressions/clean-broker-data-reuses-id": clean_reuses_id,
}
