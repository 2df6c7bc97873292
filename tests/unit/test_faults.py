"""The faults of MODEL.md §9 (reference/faults.py) and the liveness options ReelectScan and RegisterRetry: each
action's enabling condition and effect, on the reference model alone."""

from __future__ import annotations

from typing import Any

import pytest
from attrs import evolve
from frozendict import frozendict

from autoswitch.conformance.explore import next_actions
from autoswitch.reference import NotEnabled, Options, System, cluster, initial_system, step
from autoswitch.reference import controller as ctl
from autoswitch.reference.actions import ACTIONS, PEER, REQUEST, tags
from autoswitch.reference.broker import crash_keeping
from autoswitch.reference.faults import LATE_REQUESTS
from autoswitch.reference.invariants import violated_action_properties
from autoswitch.reference.liveness import NEW_FAULTS
from autoswitch.reference.state import Controller
from autoswitch.reference.variables import variables

PROCS = {"pA": "10.0.0.1:1", "pB": "10.0.0.2:1", "pC": "10.0.0.3:1"}
SAFE = Options()


def run(s: System, *actions: dict[str, Any], opts: Options = SAFE) -> tuple[System, Any]:
    out = None
    for a in actions:
        s, out = step(s, a, opts)
    return s, out


def _start(p: str) -> list[dict[str, Any]]:
    return [{"tag": "CreateTempFile", "process": p}, {"tag": "SendApplyBrokerId", "process": p, "lost": False},
            {"tag": "WriteMetaFile", "process": p}, {"tag": "DeleteTempFile", "process": p},
            {"tag": "SendRegister", "process": p, "lost": False}, {"tag": "SendHeartbeat", "process": p}]


def pair(opts: Options = SAFE) -> System:
    """pA master of epoch 1 (id 1), pB its connected slave (id 2) in the syncStateSet {1, 2}, pC just started; nothing
    written."""
    s, _ = run(initial_system(PROCS), *_start("pA"), {"tag": "SendElectMaster", "process": "pA", "lost": False}, *_start("pB"),
               {"tag": "Handshake", "process": "pB"}, {"tag": "Expand", "process": "pA", "brokerId": 2, "lost": False},
               {"tag": "AlterArrives", "process": "pA"}, opts=opts)
    assert s.procs["pB"].ha_state == "TRANSFER" and s.procs["pA"].acks == {2: 0} and s.controller.sync_state_set == {1, 2}
    return s


def written(n: int) -> System:
    """``pair`` with n messages written on pA and copied by pB, who has not acked them: nothing is confirmed."""
    s, _ = run(pair(), *[{"tag": "Write", "process": "pA"}] * n, *[{"tag": "Transfer", "process": "pB"}] * n)
    return s


def refused(s: System, action: dict[str, Any], match: str, opts: Options = SAFE) -> None:
    with pytest.raises(NotEnabled, match=match):
        step(s, action, opts)


# --- CrashTorn ---------------------------------------------------------------------------------------------------

def test_crash_torn_cuts_the_last_flushed_record_as_crash_would_keep_one_less() -> None:
    s = written(2)
    assert s.procs["pB"].confirm_offset == 0 and s.procs["pA"].acks[2] == 0
    after, out = step(s, {"tag": "CrashTorn", "process": "pB"}, SAFE)
    assert out == {"code": "OK"} and after == crash_keeping(s, "pB", 1, SAFE)
    b = after.procs["pB"]
    assert (b.reg_state, b.log, b.flushed, b.epoch_file) == ("DOWN", s.procs["pB"].log[:1], 1, ((1, 0),))
    assert 2 not in after.procs["pA"].acks  # the connection to the crashed slave is gone, as with Crash


def test_crash_torn_needs_an_unconfirmed_record() -> None:
    s = written(2)
    refused(evolve(s, procs=s.procs.set("pB", evolve(s.procs["pB"], confirm_offset=2))), {"tag": "CrashTorn", "process": "pB"},
            "no unconfirmed")
    refused(s, {"tag": "CrashTorn", "process": "pC"}, "no unconfirmed")  # an empty log


def test_crash_torn_keeps_an_acknowledged_record() -> None:
    s = written(2)
    refused(evolve(s, acked=frozenset({2})), {"tag": "CrashTorn", "process": "pB"}, "acknowledged")


def test_crash_torn_keeps_a_record_reported_to_a_master() -> None:
    s, _ = run(written(2), {"tag": "Ack", "process": "pB"})
    assert s.procs["pA"].acks[2] == 2
    refused(evolve(s, acked=frozenset()), {"tag": "CrashTorn", "process": "pB"}, "reported to pA")


def test_crash_torn_needs_an_up_process() -> None:
    s, _ = run(written(2), {"tag": "Crash", "process": "pB"})
    refused(s, {"tag": "CrashTorn", "process": "pB"}, "DOWN")


# --- ControllerMetadataLoss --------------------------------------------------------------------------------------

def test_metadata_loss_makes_the_controller_initial_and_leaves_the_brokers() -> None:
    s = pair()
    after, out = step(s, {"tag": "ControllerMetadataLoss"}, SAFE)
    assert out == {"code": "OK"} and after.controller == Controller() and after.procs == s.procs


def test_metadata_loss_needs_a_known_set() -> None:
    refused(initial_system(PROCS), {"tag": "ControllerMetadataLoss"}, "does not know")


# --- PartitionLink, HealLink and the guard of Handshake, Transfer, Ack --------------------------------------------

def _cut(s: System, p: str, q: str, lost: bool) -> System:
    return step(s, {"tag": "PartitionLink", "process": p, "peer": q, "lost": lost}, SAFE)[0]


def test_partition_without_loss_only_cuts_the_link() -> None:
    s = written(1)
    after = _cut(s, "pA", "pB", False)
    assert after == evolve(s, partitions=frozenset({frozenset({"pA", "pB"})}))


def test_partition_with_loss_breaks_the_connection_both_ways() -> None:
    s = written(1)
    after = _cut(s, "pB", "pA", True)
    assert after.procs["pB"].ha_state == "READY" and 2 not in after.procs["pA"].acks
    assert after.procs["pC"] == s.procs["pC"] and after.partitions == {frozenset({"pA", "pB"})}


def test_partition_needs_two_processes_and_an_uncut_link() -> None:
    s = pair()
    refused(s, {"tag": "PartitionLink", "process": "pA", "peer": "pA", "lost": False}, "to itself")
    refused(s, {"tag": "PartitionLink", "process": "pA", "peer": "pZ", "lost": False}, "unknown process")
    refused(_cut(s, "pA", "pB", False), {"tag": "PartitionLink", "process": "pB", "peer": "pA", "lost": True}, "already cut")


@pytest.mark.parametrize("tag", ["Transfer", "Ack"])
def test_a_cut_link_disables_the_slaves_transfer_and_ack(tag: str) -> None:
    s = run(pair(), {"tag": "Write", "process": "pA"})[0] if tag == "Transfer" else written(1)
    step(s, {"tag": tag, "process": "pB"}, SAFE)  # enabled before the cut
    refused(_cut(s, "pA", "pB", False), {"tag": tag, "process": "pB"}, "is cut")
    step(_cut(s, "pB", "pC", False), {"tag": tag, "process": "pB"}, SAFE)  # another link: no effect


def test_a_cut_link_disables_the_handshake_until_healed() -> None:
    s = _cut(written(1), "pA", "pB", True)
    refused(s, {"tag": "Handshake", "process": "pB"}, "is cut")
    healed, out = step(s, {"tag": "HealLink", "process": "pB", "peer": "pA"}, SAFE)
    assert out == {"code": "OK"} and healed.partitions == frozenset()
    assert step(healed, {"tag": "Handshake", "process": "pB"}, SAFE)[1]["truncateOffset"] == 1


def test_heal_needs_a_cut_link() -> None:
    refused(pair(), {"tag": "HealLink", "process": "pA", "peer": "pB"}, "not cut")


# --- SendLate, DeliverLate ---------------------------------------------------------------------------------------

def test_send_late_computes_each_request_on_the_process_view() -> None:
    s, _ = run(written(1), {"tag": "Ack", "process": "pB"})
    for request, want in [
        ("BrokerHeartbeat", {"brokerId": 2, "epoch": 1, "maxOffset": 1, "priority": 0}),
        ("RegisterBrokerToController", {"brokerId": 2, "addr": PROCS["pB"]}),
    ]:
        after, out = step(s, {"tag": "SendLate", "process": "pB", "request": request}, SAFE)
        assert out == {"code": "OK"} and after == evolve(s, late=frozendict(pB=frozendict(tag=request, **want)))
    refused(s, {"tag": "SendLate", "process": "pB", "request": "ElectMaster"}, "live master")


def test_send_late_elect_master_when_the_process_wants_an_election() -> None:
    s, _ = run(initial_system(PROCS), *_start("pA"))
    after, _ = step(s, {"tag": "SendLate", "process": "pA", "request": "ElectMaster"}, SAFE)
    assert after.late == {"pA": {"tag": "ElectMaster", "trigger": "broker", "brokerId": 1}}


def test_send_late_needs_the_process_to_send_it_and_no_request_in_flight() -> None:
    s = pair()
    refused(s, {"tag": "SendLate", "process": "pC", "request": "BrokerHeartbeat"}, "INITIAL")
    refused(s, {"tag": "SendLate", "process": "pC", "request": "RegisterBrokerToController"}, "INITIAL")
    refused(s, {"tag": "SendLate", "process": "pA", "request": "GetReplicaInfo"}, "not a request")
    late, _ = step(s, {"tag": "SendLate", "process": "pA", "request": "BrokerHeartbeat"}, SAFE)
    refused(late, {"tag": "SendLate", "process": "pA", "request": "RegisterBrokerToController"}, "in flight")


def test_deliver_late_applies_the_request_as_the_controller_action_does() -> None:
    s, _ = run(pair(), {"tag": "SendLate", "process": "pB", "request": "RegisterBrokerToController"},
               {"tag": "Crash", "process": "pB"}, {"tag": "Restart", "process": "pB", "addr": "10.0.0.9:1"},
               {"tag": "LoadMetaFile", "process": "pB"}, {"tag": "SendRegister", "process": "pB", "lost": False})
    assert s.controller.replicas[2].addr == "10.0.0.9:1"
    after, out = step(s, {"tag": "DeliverLate", "process": "pB"}, SAFE)
    direct, want = step(s, {"tag": "RegisterBrokerToController", "brokerId": 2, "addr": PROCS["pB"]}, SAFE)
    assert out == want and after == evolve(direct, late=frozendict()) and after.procs == s.procs
    assert after.controller.replicas[2].addr == PROCS["pB"]
    refused(after, {"tag": "DeliverLate", "process": "pB"}, "no request in flight")


def test_a_late_heartbeat_makes_a_dead_master_alive() -> None:
    s, _ = run(pair(), {"tag": "SendLate", "process": "pA", "request": "BrokerHeartbeat"}, {"tag": "Crash", "process": "pA"},
               {"tag": "HeartbeatExpire", "brokerId": 1})
    assert 1 not in s.controller.alive and s.controller.elect_tries_left == 3
    after, _ = step(s, {"tag": "DeliverLate", "process": "pA"}, SAFE)
    assert 1 in after.controller.alive
    for _ in range(3):  # the trigger the expiry started hears MASTER_STILL_EXIST on each try; no scan after it
        after, out = step(after, {"tag": "ControllerElectScan"}, SAFE)
        assert out["code"] == "CONTROLLER_MASTER_STILL_EXIST"
    assert not ctl.needs_reelect(after.controller, SAFE)


# --- WipeDisk ----------------------------------------------------------------------------------------------------

def test_wipe_disk_empties_a_down_process_disk_and_it_registers_as_a_new_broker() -> None:
    s, _ = run(written(1), {"tag": "Crash", "process": "pB"})
    after, out = step(s, {"tag": "WipeDisk", "process": "pB"}, SAFE)
    b = after.procs["pB"]
    assert out == {"code": "OK"} and (b.meta_file, b.temp_file, b.log, b.flushed, b.epoch_file, b.confirm_offset) == (0, None, (), 0, (), 0)
    assert violated_action_properties(variables(s), variables(after)) == []
    again, _ = run(after, {"tag": "Restart", "process": "pB", "addr": PROCS["pB"]}, *_start("pB")[:5])
    assert again.procs["pB"].meta_file == 3 and again.procs["pB"].reg_state == "REGISTERED"


def test_wipe_disk_needs_a_down_process() -> None:
    refused(pair(), {"tag": "WipeDisk", "process": "pB"}, "REGISTERED")


def test_broker_id_stable_allows_losing_the_id_only_down() -> None:
    v = variables(pair())
    lost_up = {**v, "metaFile": {**v["metaFile"], "pB": 0}}
    lost_down = {**lost_up, "regState": {**v["regState"], "pB": "DOWN"}}
    assert violated_action_properties(v, lost_up) == ["BrokerIdStable"]
    assert violated_action_properties(v, lost_down) == []


# --- the options ReelectScan and RegisterRetry -------------------------------------------------------------------

NO_SCAN = Options(reelect_scan=False)


def test_without_reelect_scan_a_dead_master_needs_a_trigger() -> None:
    s, _ = run(pair(NO_SCAN), {"tag": "Crash", "process": "pA"}, {"tag": "ControllerFailover"}, opts=NO_SCAN)
    assert s.controller.master_id == 1 and not s.controller.alive
    assert not ctl.needs_reelect(s.controller, SAFE), "the scan waits for a live id of the set"
    s, _ = step(s, {"tag": "SendHeartbeat", "process": "pB"}, NO_SCAN)
    assert ctl.needs_reelect(s.controller, SAFE) and not ctl.needs_reelect(s.controller, NO_SCAN)
    refused(s, {"tag": "ControllerElectScan"}, "no re-election", NO_SCAN)


def test_the_masters_expiry_starts_the_trigger_with_or_without_the_scan() -> None:
    s = pair(NO_SCAN)
    slave, _ = step(s, {"tag": "HeartbeatExpire", "brokerId": 2}, NO_SCAN)
    master, _ = step(s, {"tag": "HeartbeatExpire", "brokerId": 1}, NO_SCAN)
    with_scan, _ = step(s, {"tag": "HeartbeatExpire", "brokerId": 1}, SAFE)
    assert (slave.controller.elect_tries_left, master.controller.elect_tries_left, with_scan.controller.elect_tries_left) == (0, 3, 3)
    elected, out = step(master, {"tag": "ControllerElectScan"}, NO_SCAN)
    assert (out["code"], elected.controller.master_id, elected.controller.elect_tries_left) == ("SUCCESS", 2, 0)


def test_the_scan_waits_for_a_live_id_of_the_set() -> None:
    """scanNeedReelectBrokerSets: a master that is not alive while some registered id is (a new controller leader's
    empty table starts nothing; refinement 7)."""
    s, _ = run(pair(), {"tag": "ControllerFailover"})
    assert s.controller.master_id == 1 and not s.controller.alive and not ctl.needs_reelect(s.controller, SAFE)
    refused(s, {"tag": "ControllerElectScan"}, "no re-election")
    s, _ = step(s, {"tag": "BrokerHeartbeat", "brokerId": 9, "epoch": 0, "maxOffset": 0, "priority": 0}, SAFE)
    assert not ctl.needs_reelect(s.controller, SAFE), "an id the set does not hold is not one of its brokers"
    s, _ = step(s, {"tag": "SendHeartbeat", "process": "pB"}, SAFE)
    assert ctl.needs_reelect(s.controller, SAFE)


def test_without_register_retry_a_failed_apply_stays_failed() -> None:
    s, _ = run(initial_system(PROCS), {"tag": "CreateTempFile", "process": "pA"},
               {"tag": "SendApplyBrokerId", "process": "pA", "lost": True})
    assert s.procs["pA"].reg_state == "APPLY_FAILED"
    refused(s, {"tag": "AbandonTempFile", "process": "pA"}, "does not retry", Options(register_retry=False))
    assert step(s, {"tag": "AbandonTempFile", "process": "pA"}, SAFE)[0].procs["pA"].reg_state == "INITIAL"


# --- the action table and Next -----------------------------------------------------------------------------------

def test_every_new_fault_has_its_actions_and_none_is_drawn_unless_asked() -> None:
    by_fault = {a.fault for a in ACTIONS.values() if a.fault is not None}
    assert by_fault == set(NEW_FAULTS)
    assert not {t for t in tags("controller", "process", "data") if ACTIONS[t].fault}
    assert {"CrashTorn", "PartitionLink", "HealLink", "SendLate", "DeliverLate", "WipeDisk"} <= set(tags("process", with_faults=True))


class _Domains:
    processes = ("pA", "pB")
    addrs = {"pA": ("a",), "pB": ("b",)}
    broker_ids = (1, 2)
    design = "controller"

    def __init__(self, faults: frozenset[str]):
        self.faults = faults

    def switch(self, name: str) -> bool:
        return False

    def bound(self, name: str) -> int:
        return 0


def test_next_has_a_faults_actions_only_when_faults_names_it() -> None:
    assert not any(ACTIONS[a["tag"]].fault for a in next_actions(_Domains(frozenset())))
    records = next_actions(_Domains(frozenset({"PartitionLink", "SendLate"})))
    faulty = [a for a in records if ACTIONS[a["tag"]].fault]
    assert {a["tag"] for a in faulty} == {"PartitionLink", "HealLink", "SendLate", "DeliverLate"}
    assert {(a["process"], a["peer"]) for a in faulty if a["tag"] == "HealLink"} == {("pA", "pB"), ("pB", "pA")}
    assert {a["request"] for a in faulty if a["tag"] == "SendLate" and a["process"] == "pA"} == set(LATE_REQUESTS)
    assert len([a for a in faulty if a["tag"] == "PartitionLink"]) == 4  # two peers, lost or not
    assert [a["tag"] for a in next_actions(_Domains(frozenset({"ControllerMetadataLoss"})))][-1] == "ControllerMetadataLoss"
    assert PEER.type == REQUEST.type == "str"


# --- the trace layer (reference/cluster.py): leadership and other broker sets ---------------------------------------

def test_a_late_request_reaching_a_node_that_is_not_the_leader() -> None:
    c = cluster.initial_cluster(pair())
    c, _ = cluster.step(c, {"tag": "SendLate", "process": "pB", "request": "RegisterBrokerToController"}, SAFE)
    c, _ = cluster.step(c, {"tag": "SendLate", "process": "pA", "request": "BrokerHeartbeat"}, SAFE)
    c, _ = cluster.step(c, {"tag": "ControllerLeaderLost"}, SAFE)
    refused_c, out = cluster.step(c, {"tag": "DeliverLate", "process": "pB"}, SAFE)
    assert out == {"code": "CONTROLLER_NOT_LEADER"} and refused_c.system == evolve(c.system, late=c.system.late.delete("pB"))
    taken, out = cluster.step(c, {"tag": "DeliverLate", "process": "pA"}, SAFE)  # every node takes heartbeats
    assert out["code"] == "SUCCESS" and "pA" not in taken.system.late


def test_a_process_configured_for_another_set_still_suffers_the_faults() -> None:
    c = cluster.initial_cluster(pair())
    for a in ({"tag": "Crash", "process": "pC"}, {"tag": "Restart", "process": "pC", "addr": "x", "brokerName": "broker-b"}):
        c, _ = cluster.step(c, a, SAFE)
    c, out = cluster.step(c, {"tag": "PartitionLink", "process": "pC", "peer": "pA", "lost": False}, SAFE)
    assert out == {"code": "OK"} and c.system.partitions == {frozenset({"pA", "pC"})}
    with pytest.raises(NotEnabled, match="configured for"):
        cluster.step(c, {"tag": "SendLate", "process": "pC", "request": "RegisterBrokerToController"}, SAFE)


def test_crash_torn_keeps_a_masters_record_a_slave_copied() -> None:
    """A master's last record that a slave already holds is not torn (the slave's copy would outlive it); the
    slave itself may tear its copy (its master has the record)."""
    s = written(2)
    assert s.procs["pA"].role == "MASTER" and s.procs["pB"].log == s.procs["pA"].log
    refused(evolve(s, procs=s.procs.set("pA", evolve(s.procs["pA"], confirm_offset=0))), {"tag": "CrashTorn", "process": "pA"},
            "already in the log of pB")
