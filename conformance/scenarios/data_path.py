"""The data-path scenarios of SCENARIOS.md (T1-T7, K1-K3, C5, C6) and the negative controls of MODEL.md
§6 as hand-written traces. Each names the truncation point, the response, or the invariant that must
first fail and where; offsets count messages (RIP-44's byte offsets divided by 100), epochs start at 1.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from autoswitch.conformance.scenarios.builder import ADDR, Cluster, Scenario


def _pair(name: str, about: str, **options: Any) -> Cluster:
    """pA master in epoch 1 with pB connected and in the syncStateSet {1, 2}."""
    c = Cluster(name, about, **options)
    c.start("pA").elect("pA", 1).start("pB").follow("pB", 0).join("pA", "pB")
    return c.expect(syncStateSet=frozenset({1, 2}))


def t1() -> Scenario:
    c = _pair("T1-epoch-end-differs", "T1: epoch 1 ends at 9 on the new master and at 12 on the old one: truncate to 9")
    c.write("pA", 9).replicate("pB", 9).write("pA", 3).die("pA").scan("pB", 2).write("pB", 2)
    c.back("pA").expect(epochFile={"pA": [(1, 0)], "pB": [(1, 0), (2, 9)]})
    after = _log(9, [(13, 2), (14, 2)])
    return c.follow("pA", 9).replicate("pA", 2).expect(log={"pA": after, "pB": after}).s


def _log(first_epoch_msgs: int, later: list[tuple[int, int]]) -> list[tuple[int, int]]:
    return [(m, 1) for m in range(1, first_epoch_msgs + 1)] + later


def t2() -> Scenario:
    c = _pair("T2-async-flush-loss", "T2: A (master) flushed only 9 of its 11 messages and crashed; B has all 11 and is "
              "elected; A truncates to 9 and copies 9..10 back from B, so the acked messages survive. NoAckedMessageLost "
              "still fails at the crash (expected): a set member lost acked messages, and had A restarted before its "
              "heartbeat expired it would have been master again without them", async_flush=True)
    c.write("pA", 9).do("Flush", process="pA").write("pA", 2).replicate("pB", 11).expect(acked=frozenset(range(1, 12)))
    c.do("Crash", process="pA").expect(log={"pA": _log(9, []), "pB": _log(11, [])})
    c.violation("NoAckedMessageLost")  # a member of the set lost acked messages: the window async flush opens
    c.do("HeartbeatExpire", brokerId=1).scan("pB", 2).back("pA").follow("pA", 9).replicate("pA", 2)
    return c.expect(log={"pA": _log(11, []), "pB": _log(11, [])}, acked=frozenset(range(1, 12))).s


def t3() -> Scenario:
    c = _pair("T3-nothing-to-truncate", "T3: epoch 1 ends at 12 on both sides: nothing to truncate")
    c.write("pA", 12).replicate("pB", 12).die("pA").scan("pB", 2).back("pA")
    return c.expect(epochFile={"pA": [(1, 0)], "pB": [(1, 0), (2, 12)]}).follow("pA", 12).s


def t4() -> Scenario:
    c = _pair("T4-epoch-not-on-master", "T4: A, master again in epoch 3 (entry (3, 9)), wrote 3 messages no one copied; B, "
              "master in epoch 2 with no message of it, keeps its (2, 9) entry across its crash (recovery never cuts the epoch "
              "file: spec/README.md, refinement 38) and, elected (unclean) in epoch 4, cannot file (4, 9) (appendEntry "
              "refuses a start that is not greater): it holds (1, 0), (2, 9), and its message of epoch 4 counts as epoch "
              "2's; the newest entry both have is epoch 1: A truncates to 9",
              enable_elect_unclean_master=True, all_ack_in_sync_state_set=False, in_sync_replicas=2)
    c.write("pA", 9).replicate("pB", 9).die("pA").scan("pB", 2).back("pA").follow("pA", 9).join("pB", "pA")
    c.die("pB").scan("pA", 3).write("pA", 3).die("pA").back("pB")
    c.do("SendElectMaster", "SUCCESS", {"masterId": 2, "masterEpoch": 4}, process="pB", lost=False).write("pB", 1)
    c.back("pA").expect(epochFile={"pA": [(1, 0), (3, 9)], "pB": [(1, 0), (2, 9)]})
    return c.follow("pA", 9).s


def t5() -> Scenario:
    c = Cluster("T5-two-slaves-same-point", "T5: B (epoch 2) wrote 2 messages that C copied; A, which never saw them, is "
                "elected (unclean) in epoch 3; B and C both truncate to 8, the end of epoch 1 that all share",
                ("pA", "pB", "pC"), enable_elect_unclean_master=True, all_ack_in_sync_state_set=False, in_sync_replicas=3)
    c.start("pA").elect("pA", 1).start("pB").follow("pB", 0).start("pC").follow("pC", 0)
    c.write("pA", 8).replicate("pB", 8).replicate("pC", 8).join("pA", "pB")
    c.die("pA").scan("pB", 2).write("pB", 2).do("SyncReplicaInfo", "SUCCESS", process="pC").follow("pC", 8).replicate("pC", 2)
    c.back("pA").do("HeartbeatExpire", brokerId=2).do("Crash", process="pB").do("HeartbeatExpire", brokerId=3)
    c.do("Crash", process="pC").scan("pA", 3).write("pA", 1)
    c.back("pB").back("pC").expect(epochFile={"pA": [(1, 0), (3, 8)], "pB": [(1, 0), (2, 8)], "pC": [(1, 0), (2, 8)]})
    return c.follow("pB", 8).follow("pC", 8).s


def t6() -> Scenario:
    c = _pair("T6-slave-behind", "T6: A wrote 12 in epoch 1 but B, in the set, copied only 10 (the last 2 were never "
              "acked); B is elected; A truncates to 10, the end of epoch 1 on B")
    c.write("pA", 12).replicate("pB", 10).expect(acked=frozenset(range(1, 11)), confirmOffset={"pA": 10, "pB": 0})
    c.die("pA").scan("pB", 2).write("pB", 1).back("pA")
    return c.follow("pA", 10).replicate("pA", 1).expect(log={"pA": _log(10, [(13, 2)]), "pB": _log(10, [(13, 2)])}).s


def t7() -> Scenario:
    c = Cluster("T7-no-common-epoch", "T7: B never copied anything of epoch 1 and was elected (unclean) in epoch 2 with an "
                "empty log; A's only epoch is not on B: A cannot find a consistent point and says so",
                enable_elect_unclean_master=True, all_ack_in_sync_state_set=False, in_sync_replicas=2)
    c.start("pA").elect("pA", 1).write("pA", 3).start("pB").die("pA").scan("pB", 2).write("pB", 2)
    c.back("pA").expect(epochFile={"pA": [(1, 0)], "pB": [(2, 0)]})
    return c.follow("pA", -1, "NO_CONSISTENT_POINT").expect(haState={"pA": "READY", "pB": "NONE"}).s


def t8() -> Scenario:
    c = _pair("T8-same-epoch-restart", "T8 (ROCKETMQ.md §8.6): B, master of epoch 2 with entries (1, 0), (2, 5) and 8 "
              "messages that A copied, restarts before its heartbeat expires; the controller still names it master of "
              "epoch 2, so changeToMaster(2) passes (equal to its last epoch), drops its entry of epoch 2 and appends "
              "(2, 8): messages 5..7 now count as epoch 1. A finds no match at epoch 2, truncates to 5, the end of epoch "
              "1 on its side, and copies 5..7 again (the master's entry for them is (1, 0)): nothing is lost. "
              "RocketMQ's rule (epochReentryFix off); the same move makes logs diverge in "
              "negative/rocketmq-epoch-reentry-diverges", epoch_reentry_fix=False)
    c.write("pA", 5).replicate("pB", 5).die("pA").scan("pB", 2).write("pB", 3).back("pA").follow("pA", 5).replicate("pA", 3)
    c.expect(epochFile={"pA": [(1, 0), (2, 5)], "pB": [(1, 0), (2, 5)]})
    c.do("Crash", process="pB").do("Restart", process="pB", addr=ADDR["pB"]).do("LoadMetaFile", process="pB")
    c.do("SendRegister", "SUCCESS", process="pB", lost=False)
    c.expect(epochFile={"pA": [(1, 0), (2, 5)], "pB": [(1, 0), (2, 8)]}, role={"pA": "SLAVE", "pB": "MASTER"})
    log = _log(5, [(6, 2), (7, 2), (8, 2)])
    c.follow("pA", 5).replicate("pA", 3).expect(log={"pA": log, "pB": log}, epochFile={"pA": [(1, 0)], "pB": [(1, 0), (2, 8)]})
    c.write("pB", 1).replicate("pA", 1)
    return c.expect(epochFile={"pA": [(1, 0), (2, 8)], "pB": [(1, 0), (2, 8)]}).s


def _k1(policy: str) -> Scenario:
    hw = policy == "hw"
    c = Cluster(f"K1-{policy}", "K1 (Kafka): B leads, A follows, both have m1, m2 and m2 is acked, but A's high "
                "watermark is 1; A restarts and " + ("truncates to its HW, dropping the acked m2 (NoAckedMessageLost "
                "fails there); B dies and A is elected without m2" if hw else "asks for the end of epoch 1: B answers 2, A keeps m2"),
                ("pA", "pB"), policy=policy)
    c.start("pB").elect("pB", 1).start("pA").follow("pA", 0).join("pB", "pA")
    c.write("pB", 2).do("Transfer", process="pA").do("Ack", process="pA").do("Transfer", process="pA").do("Ack", process="pA")
    c.expect(acked=frozenset({1, 2}), confirmOffset={"pA": 1, "pB": 2})
    c.do("Crash", process="pA").do("Restart", process="pA", addr=ADDR["pA"]).do("LoadMetaFile", process="pA")
    c.do("SendRegister", "SUCCESS", process="pA", lost=False).follow("pA", 1 if hw else 2)
    if hw:
        c.violation("NoAckedMessageLost")  # A, a member of the set, dropped the acked m2
    c.die("pB").do("SendHeartbeat", "SUCCESS", process="pA").scan("pA", 2)
    return c.expect(log={"pA": [(1, 1)] if hw else [(1, 1), (2, 1)], "pB": [(1, 1), (2, 1)]}).s


def _k2(policy: str) -> Scenario:
    hw = policy == "hw"
    c = Cluster(f"K2-{policy}", "K2 (Kafka): A leads with m1, m2 (HW 2), B has only m1; both crash; B comes back, leads "
                "epoch 2 and writes m3, m4; A returns: " + ("its HW says no truncation, it copies m4 and offset 1 is m2 on "
                "A but m3 on B (LogMatching)" if hw else "it asks for epoch 1, B answers 1, A truncates to 1 and copies m3, m4"),
                ("pA", "pB"), policy=policy, all_ack_in_sync_state_set=False, in_sync_replicas=2)
    c.start("pA").elect("pA", 1).start("pB").follow("pB", 0).join("pA", "pB")
    c.write("pA", 1).replicate("pB", 1).write("pA", 1).expect(confirmOffset={"pA": 2, "pB": 1}, acked=frozenset({1}))
    c.die("pA").die("pB").do("Restart", process="pB", addr=ADDR["pB"]).do("LoadMetaFile", process="pB")
    c.do("SendRegister", "SUCCESS", process="pB", lost=False).do("SendHeartbeat", "SUCCESS", process="pB").elect("pB", 2).write("pB", 2)
    c.back("pA").expect(confirmOffset={"pA": 2, "pB": 3}).follow("pA", 2 if hw else 1)
    if hw:
        return c.do("Transfer", process="pA").expect(log={"pA": [(1, 1), (2, 1), (4, 2)], "pB": [(1, 1), (3, 2), (4, 2)]}).violation("LogMatching")
    return c.replicate("pA", 2).expect(log={"pA": [(1, 1), (3, 2), (4, 2)], "pB": [(1, 1), (3, 2), (4, 2)]}).s


def _k3(policy: str) -> Scenario:
    broken = policy == "kip101"
    c = Cluster(f"K3-{policy}", "K3 (KIP-279): A leads epoch 1 and writes m1, m2, only m1 reaches B; B leads epoch 2 and "
                "writes m3; A leads epoch 3 and writes m4; B follows and asks about epoch 2, which A never had: " + (
                    "A answers the start of epoch 3 (2) and B keeps m3 at offset 1 (LogMatching)" if broken else
                    "B truncates to 1, the end of epoch 1"),
                ("pA", "pB"), policy=policy, enable_elect_unclean_master=True, all_ack_in_sync_state_set=False, in_sync_replicas=2)
    c.start("pA").elect("pA", 1).start("pB").follow("pB", 0).join("pA", "pB")
    c.write("pA", 1).replicate("pB", 1).write("pA", 1)
    c.die("pA").scan("pB", 2).write("pB", 1).back("pA").die("pB").scan("pA", 3).write("pA", 1)
    c.back("pB").expect(epochFile={"pA": [(1, 0), (3, 2)], "pB": [(1, 0), (2, 1)]}).follow("pB", 2 if broken else 1)
    if broken:
        return c.do("Transfer", process="pB").expect(
            log={"pA": [(1, 1), (2, 1), (4, 3)], "pB": [(1, 1), (3, 2), (4, 3)]}).violation("LogMatching")
    return c.replicate("pB", 2).expect(log={"pA": [(1, 1), (2, 1), (4, 3)], "pB": [(1, 1), (2, 1), (4, 3)]}).s


def _k4(v21: bool) -> Scenario:
    c = Cluster("K4-kip279-2.1" if v21 else "K4-kip279", "K4 (KAFKA-7415): A leads epoch 1 and writes m1; B, with an empty "
                "log, is elected (unclean) in epoch 2; A follows and asks about epoch 1: " + (
                    "B's cache holds (2, 0) from its election and answers (1, 0): A truncates to 0 and copies m2, m3"
                    if v21 else "B's cache is empty, it answers UNDEFINED and A keeps its high watermark 1, m1; B writes "
                    "m2, m3 and A copies m3 after m1: offset 1 is the same entry on both, offset 0 is not (LogMatching)"),
                ("pA", "pB"), policy="kip279", enable_elect_unclean_master=True, all_ack_in_sync_state_set=False,
                in_sync_replicas=2, kafka_leader_epoch_on_election=v21)
    c.start("pA").start("pB").elect("pA", 1).write("pA", 1).expect(confirmOffset={"pA": 1, "pB": 0})
    c.do("ElectMaster", "SUCCESS", {"masterId": 2, "masterEpoch": 2}, trigger="admin", brokerId=2).notify("pA", "pB")
    c.expect(epochFile={"pA": [(1, 0)], "pB": [(2, 0)] if v21 else []}).follow("pA", 0 if v21 else 1).write("pB", 2)
    if v21:
        return c.replicate("pA", 2).expect(log={"pA": [(2, 2), (3, 2)], "pB": [(2, 2), (3, 2)]}).s
    return c.replicate("pA", 1, ack=False).expect(log={"pA": [(1, 1), (3, 2)], "pB": [(2, 2), (3, 2)]}).violation("LogMatching")


def c5() -> Scenario:
    c = Cluster("C5-async-learner", "C5: pC is an async learner: it replicates everything but is never added to the "
                "syncStateSet, so when the master dies the controller elects pB although pC is as far along",
                ("pA", "pB", "pC"), async_learners=frozenset({"pC"}))
    c.start("pA").elect("pA", 1).start("pB").follow("pB", 0).start("pC").follow("pC", 0).join("pA", "pB")
    c.write("pA", 3).replicate("pB", 3).replicate("pC", 3)
    c.expect(log={"pA": _log(3, []), "pB": _log(3, []), "pC": _log(3, [])}, acks={"pA": {2: 3, 3: 3}, "pB": {}, "pC": {}}, syncStateSet=frozenset({1, 2}))
    c.do("Expand", "DISABLED", process="pA", brokerId=3, lost=False)  # caught up, but a learner (MODEL.md §5)
    c.die("pA").do("SendHeartbeat", "SUCCESS", process="pC").scan("pB", 2)
    return c.expect(syncStateSet=frozenset({2})).s


def c6() -> Scenario:
    c = _pair("C6-shrink-waits-for-controller", "C6: allAckInSyncStateSet with A (master) and B; B goes down; A proposes "
              "{A}; until the controller's SUCCESS reaches A, writes needing B's ack are not acked; after it, A alone acks")
    c.write("pA", 1).replicate("pB", 1).expect(acked=frozenset({1}), confirmOffset={"pA": 1, "pB": 0})
    c.do("Crash", process="pB").write("pA", 1).expect(acked=frozenset({1}), confirmOffset={"pA": 1, "pB": 0})
    c.do("Shrink", "SUCCESS", {"syncStateSetEpoch": 3}, process="pA", brokerId=2, lost=False)
    c.expect(syncStateSet=frozenset({1}), localSyncStateSet={"pA": frozenset({1, 2}), "pB": frozenset()})
    c.write("pA", 1).expect(acked=frozenset({1}), confirmOffset={"pA": 1, "pB": 0})
    c.do("AlterArrives", "SUCCESS", process="pA").expect(acked=frozenset({1, 2, 3}), confirmOffset={"pA": 3, "pB": 0})
    return c.write("pA", 1).expect(acked=frozenset({1, 2, 3, 4})).s


def c7() -> Scenario:
    c = Cluster("C13-confirm-moves-on-rocketmq-events", "C13: confirmOffset moves only where RocketMQ recomputes it: "
                "A (master, set {A, B}) expands to C; while that is in flight B's ack recomputes it over {A, B, C} "
                "(C still at 2), C's ack recomputes nothing (C is not in the local set), so message 3 is acked to "
                "the producer but not yet visible; the controller's answer (setSyncStateSet) moves it to 3",
                ("pA", "pB", "pC"))
    c.start("pA").elect("pA", 1).start("pB").follow("pB", 0).start("pC").follow("pC", 0).join("pA", "pB")
    c.write("pA", 2).replicate("pB", 2).replicate("pC", 2).expect(confirmOffset={"pA": 2, "pB": 0, "pC": 2})
    c.do("Expand", "SUCCESS", process="pA", brokerId=3, lost=False)
    c.write("pA", 1).replicate("pB", 1).expect(confirmOffset={"pA": 2, "pB": 2, "pC": 2}, acked=frozenset({1, 2}))
    c.replicate("pC", 1).expect(confirmOffset={"pA": 2, "pB": 2, "pC": 2}, acked=frozenset({1, 2, 3}))
    return c.do("AlterArrives", "SUCCESS", process="pA").expect(confirmOffset={"pA": 3, "pB": 2, "pC": 2}).s


def _c14(union: bool) -> Scenario:
    name = "C14-write-counts-proposed-set" if union else "C14-write-counts-local-set"
    about = ("C14: minInSyncReplicas 2; A (master, local set {A}) refuses a write (IN_SYNC_REPLICAS_NOT_ENOUGH); while its "
             "Expand of B is in flight the in-sync count is " + ("max(|{A}|, |{A, B}|) = 2 (synchronizing flag, #5798) and the "
             "write is accepted" if union else "|{A}| = 1 without the union fix and the write is still refused") +
             "; after the answer both are accepted (ROCKETMQ.md §8.3, §8.5)")
    c = Cluster(name, about, min_in_sync_replicas=2, union_ack_fix=union)
    c.start("pA").elect("pA", 1).start("pB").follow("pB", 0)
    c.do("Write", "IN_SYNC_REPLICAS_NOT_ENOUGH", process="pA")
    c.do("Expand", "SUCCESS", process="pA", brokerId=2, lost=False)
    if union:
        c.do("Write", "SUCCESS", {"msg": 1, "offset": 0}, process="pA")
    else:
        c.do("Write", "IN_SYNC_REPLICAS_NOT_ENOUGH", process="pA")
    c.do("AlterArrives", "SUCCESS", process="pA").expect(localSyncStateSet={"pA": frozenset({1, 2}), "pB": frozenset()})
    return c.do("Write", "SUCCESS", {"msg": 2 if union else 1}, process="pA").s

def _reentry(fix: bool) -> Scenario:
    name = "T9-epoch-reentry-fixed" if fix else "rocketmq-epoch-reentry-diverges"
    about = ("Epoch re-entry (ROCKETMQ.md §8.6, §10.12): A master of epoch 1 with B in the set, both hold m1; A's heartbeat "
             "expires while A keeps running; the controller elects B (epoch 2), B writes m2 at offset 1 while A, still master "
             "in its own view, writes m3 at offset 1 (never acked); B restarts at once and, still the controller's live "
             "master, re-enters epoch 2: " + ("with the hypothetical fix its entry <<2, 1>> stays, A's handshake truncates "
             "to 1 and the logs agree" if fix else "changeToMaster(2) moves its entry to <<2, 2>>, so epoch 1 ends at 2 on "
             "both sides and A's handshake keeps m3 at offset 1; the next transfer puts m4 after it: LogMatching fails"))
    c = Cluster(name, about, epoch_reentry_fix=fix)
    c.start("pA").elect("pA", 1).start("pB").follow("pB", 0).join("pA", "pB")
    c.write("pA", 1).replicate("pB", 1)
    c.do("HeartbeatExpire", brokerId=1).scan("pB", 2).expect(epochFile={"pA": [(1, 0)], "pB": [(1, 0), (2, 1)]})
    c.write("pB", 1).write("pA", 1).expect(log={"pA": [(1, 1), (3, 1)], "pB": [(1, 1), (2, 2)]})
    c.do("Crash", process="pB").do("Restart", process="pB", addr=ADDR["pB"]).do("LoadMetaFile", process="pB")
    c.do("SendRegister", "SUCCESS", {"masterId": 2, "masterEpoch": 2}, process="pB", lost=False)
    c.expect(epochFile={"pA": [(1, 0)], "pB": [(1, 0), (2, 1) if fix else (2, 2)]})
    c.notify("pA").follow("pA", 1 if fix else 2).write("pB", 1)
    if fix:
        c.replicate("pA", 2).expect(log={"pA": [(1, 1), (2, 2), (4, 2)], "pB": [(1, 1), (2, 2), (4, 2)]})
        return c.s
    c.replicate("pA", 1, ack=False).expect(log={"pA": [(1, 1), (3, 1), (4, 2)], "pB": [(1, 1), (2, 2), (4, 2)]})
    return c.violation("LogMatching")

def d1() -> Scenario:
    c = _pair("D1-refused-actions", "a slave cannot Write, a master cannot Handshake, AlterArrives needs an alter in "
              "flight, Expand needs a member outside the set: each is refused (DISABLED) and changes nothing")
    c.do("Write", "DISABLED", process="pB").do("Handshake", "DISABLED", process="pA").do("AlterArrives", "DISABLED", process="pA")
    c.do("Expand", "DISABLED", process="pA", brokerId=2, lost=False)
    return c.write("pA", 1).replicate("pB", 1).expect(acked=frozenset({1}), log={"pA": [(1, 1)], "pB": [(1, 1)]}).s


def union_ack_fix_off() -> Scenario:
    c = Cluster("rocketmq-5663-expand-without-union", "RocketMQ #5663: while the expansion to {A, B} is in flight the "
                "controller already has B in the set, but A counts acks against {A} alone: a write is acked that B "
                "does not have (NoAckedMessageLost). With the fix A waits for B's ack.", union_ack_fix=False)
    c.start("pA").elect("pA", 1).start("pB").follow("pB", 0).write("pA", 1).replicate("pB", 1)
    c.do("Expand", "SUCCESS", process="pA", brokerId=2, lost=False).write("pA", 1)
    return c.violation("NoAckedMessageLost")


def unclean_election() -> Scenario:
    c = Cluster("unclean-election-loses-acked", "enableElectUncleanMaster: the only set member dies and a replica that "
                "never copied the acked messages is elected (NoAckedMessageLost)", enable_elect_unclean_master=True)
    c.start("pA").elect("pA", 1).start("pB").write("pA", 2).die("pA").scan("pB", 2)
    return c.violation("NoAckedMessageLost", back=1)


def all_ack_off() -> Scenario:
    c = Cluster("all-ack-off-loses-acked", "allAckInSyncStateSet = false: a write is acked with inSyncReplicas = 1 copy "
                "while pB, a member of the syncStateSet that could be elected next, does not have it (NoAckedMessageLost)",
                all_ack_in_sync_state_set=False)
    c.start("pA").elect("pA", 1).start("pB").follow("pB", 0).join("pA", "pB").write("pA", 1)
    return c.expect(acked=frozenset({1}), log={"pA": [(1, 1)], "pB": []}).violation("NoAckedMessageLost")


DATA_SCENARIOS: dict[str, Callable[[], Scenario]] = {
    "truncation/T1-epoch-end-differs": t1,
    "truncation/T2-async-flush-loss": t2,
    "truncation/T3-nothing-to-truncate": t3,
    "truncation/T4-epoch-not-on-master": t4,
    "truncation/T5-two-slaves-same-point": t5,
    "truncation/T6-slave-behind": t6,
    "truncation/T7-no-common-epoch": t7,
    "truncation/T8-same-epoch-restart": t8,
    **{f"kafka/K1-{p}": (lambda p=p: _k1(p)) for p in ("hw", "kip101")},
    **{f"kafka/K2-{p}": (lambda p=p: _k2(p)) for p in ("hw", "kip101")},
    **{f"kafka/K3-{p}": (lambda p=p: _k3(p)) for p in ("kip101", "kip279", "rocketmq")},
    "kafka/K4-kip279": lambda: _k4(False),
    "kafka/K4-kip279-2.1": lambda: _k4(True),
    "controller/C5-async-learner": c5,
    "controller/C6-shrink-waits-for-controller": c6,
    "controller/C13-confirm-moves-on-rocketmq-events": c7,
    "controller/C14-write-counts-proposed-set": lambda: _c14(True),
    "controller/C14-write-counts-local-set": lambda: _c14(False),
    "regressions/D1-refused-actions": d1,
    "negative/rocketmq-epoch-reentry-diverges": lambda: _reentry(False),
    "truncation/T9-epoch-reentry-fixed": lambda: _reentry(True),
    "negative/rocketmq-5663-expand-without-union": union_ack_fix_off,
    "negative/unclean-election-loses-acked": unclean_election,
    "negative/all-ack-off-loses-acked": all_ack_off,
}
