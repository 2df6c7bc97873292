"""The model's findings about RocketMQ's data path, run on RocketMQ's own ``DefaultMessageStore`` and
``AutoSwitchHAService`` (the harness's ``DataDriver``: several stores in one JVM replicating over real HA connections,
set up as RocketMQ's AutoSwitchHATest sets them up). The caller plays the controller: which store is master in which
epoch, and with which syncStateSet. Each finding is a scenario and a verdict on what the stores show; ``autoswitch
findings`` runs them on a release and prints both.

Offsets from the stores are bytes; every message has the same size, so within the first commit-log file ``offset //
size`` is the model's offset (a message count). A file ends with a blank where the next message does not fit, so a
scenario over several files reads the messages' byte offsets (the view's ``bytes``)."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from attrs import frozen

from autoswitch.conformance.rocketmq.jvm import DEFAULT_VERSION, HarnessError, Session, session

WAIT_MS = 15_000  # the bound of one wait for a store to reach an offset
STUCK_S = 5  # how long a slave that never copies is watched (its handshake is retried about every second)
COPY_S = 20  # how long a slave that will copy is waited for (its handshake retries, on a loaded machine)
SETTLE_S = 3  # how long a store is watched for a change that a report every 200 ms would bring
HANDSHAKE_ANSWER = 20 + 12  # the master's handshake answer: AutoSwitchHAConnection.HANDSHAKE_HEADER_SIZE, one epoch entry


class DataPath:
    """The stores of one scenario: ``open``/``close`` a broker id's store, make it ``master`` or ``slave``, ``put`` a
    message, wait for a store to reach a number of messages, ``view`` it (offsets in messages)."""

    def __init__(self, jvm: Session, name: str):
        self.jvm, self.name = jvm, name
        self.size = -1
        self.call("reset")

    def call(self, op: str, **fields: Any) -> dict[str, Any]:
        return self.jvm.call({"op": f"data.{op}", **fields}, f"finding {self.name}, data.{op}", seconds=60)

    def open(self, broker: int, **config: Any) -> None:
        self.call("open", id=broker, **config)

    def close(self, broker: int) -> None:
        self.call("close", id=broker)

    def master(self, broker: int, epoch: int, sync_state_set: list[int], sync: bool = True) -> bool:
        return bool(self.call("master", id=broker, epoch=epoch, syncStateSet=sync_state_set, sync=sync)["returns"])

    def slave(self, broker: int, master: int, epoch: int, link: bool = False, passing: int | None = None) -> bool:
        """``link``: over a forwarder that ``hold`` can stop on the master's side; ``passing``: it lets that many of the
        master's bytes through and holds the rest."""
        extra = {} if passing is None else {"pass": passing}
        return bool(self.call("slave", id=broker, master=master, epoch=epoch, link=link, **extra)["returns"])

    def hold(self, broker: int, held: bool = True) -> None:
        """Hold (or release) the master's bytes to slave ``broker``: it stays connected and keeps acking what it has."""
        self.call("hold", id=broker, hold=held)

    def sync_state_set(self, broker: int, members: list[int]) -> dict[str, Any]:
        """The controller's syncStateSet reaching master ``broker`` (``setSyncStateSet``)."""
        return self.view(broker, self.call("syncStateSet", id=broker, syncStateSet=members))

    def put(self, broker: int) -> str:
        answer = self.call("put", id=broker)
        self.size = answer["view"]["messageSize"]
        return str(answer["status"])

    def reach(self, broker: int, messages: int) -> dict[str, Any]:
        """Wait (bounded) until ``broker`` holds ``messages`` messages of the first file (reach_bytes)."""
        return self.reach_bytes(broker, messages * self.size)

    def reach_bytes(self, broker: int, offset: int) -> dict[str, Any]:
        """Wait (bounded) until ``broker``'s maxPhyOffset is ``offset`` bytes; a HarnessError if it does not get there."""
        view = self.call("await", id=broker, field="maxPhyOffset", atLeast=offset, timeoutMs=WAIT_MS)
        if not view["reached"]:
            raise HarnessError(f"finding {self.name}: broker {broker} did not reach byte {offset} within {WAIT_MS} ms "
                               f"(it is at {view['maxPhyOffset']})")
        return self.view(broker, view)

    def until(self, broker: int, holds: Callable[[dict[str, Any]], bool], seconds: float = WAIT_MS / 1000) -> dict[str, Any]:
        """``broker``'s view once ``holds`` is true of it, or after ``seconds`` (the scenario's verdict reads which)."""
        deadline = time.monotonic() + seconds
        view = self.view(broker)
        while not holds(view) and time.monotonic() < deadline:
            time.sleep(0.05)
            view = self.view(broker)
        return view

    def acked(self, master: int, slave: int) -> dict[str, Any]:
        """Wait (bounded) until ``master`` has a report from ``slave``'s connection; a HarnessError if none comes."""
        view = self.until(master, lambda v: v["acks"].get(slave, -1) >= 0)
        if view["acks"].get(slave, -1) < 0:
            raise HarnessError(f"finding {self.name}: broker {master} has no report from {slave} within {WAIT_MS} ms")
        return view

    def view(self, broker: int, raw: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """What ``broker``'s store shows, offsets in messages."""
        v = raw if raw is not None else self.call("view", id=broker)
        size = max(self.size, 1)
        return {"leo": v["maxPhyOffset"] // size, "confirmOffset": v["confirmOffset"] // size,
                "epochs": [(e, start // size) for e, start in v["epochs"]], "log": list(v["bodies"]),
                "syncStateSet": v["syncStateSet"], "localSyncStateSet": v["localSyncStateSet"], "client": v["client"],
                "acks": {int(b): a // size if a > 0 else a for b, a in v["acks"].items()}, "proposed": v["proposed"],
                "bytes": {
                    "maxPhyOffset": v["maxPhyOffset"], "minPhyOffset": v["minPhyOffset"], "offsets": v["offsets"],
                    "fileSize": v["fileSize"], "messageSize": self.size}}


@frozen
class Finding:
    """A finding: its scenario (``run``: what the stores showed, by name), whether the observations show it
    (``shows``), and what the model says of it."""

    name: str
    about: str
    model: str
    run: Callable[[DataPath], dict[str, Any]]
    shows: Callable[[dict[str, Any]], bool]


def _epoch_not_cut(d: DataPath) -> dict[str, Any]:
    """Three stores. A, master in epoch 1 then 2, gives m0 m1 to B and C and m2 (epoch 2) to C only; B, master in epoch 3
    (A and C down), writes m3 m4; A comes back as B's slave: its handshake cuts its log to 2 and refetches m3 m4. Then A,
    master in epoch 4, takes C (m0 m1 m2) back as its slave."""
    for broker in (1, 2, 3):
        d.open(broker, ackTimeoutMs=1000)
    d.master(1, 1, [1])
    d.slave(2, 1, 1)
    d.slave(3, 1, 1)
    d.put(1)
    d.put(1)
    d.reach(2, 2)
    d.reach(3, 2)
    d.close(2)
    d.master(1, 2, [1])
    d.slave(3, 1, 2)
    d.put(1)
    d.reach(3, 3)
    d.close(1)
    d.close(3)
    d.open(2, ackTimeoutMs=500)
    d.master(2, 3, [2], sync=False)
    d.put(2)
    d.put(2)
    d.open(1, ackTimeoutMs=500)
    d.slave(1, 2, 3)
    a_after_handshake = d.reach(1, 4)
    d.close(2)
    d.open(3, ackTimeoutMs=500)
    d.master(1, 4, [1], sync=False)
    d.slave(3, 1, 4)
    c_after = d.reach(3, 4)
    time.sleep(0.5)  # a last transfer would only add; the handshake is what differs
    return {"A after its handshake with B": a_after_handshake, "A as master": d.view(1), "C after its handshake with A": c_after}


def _divergent(seen: dict[str, Any]) -> bool:
    return seen["A as master"]["log"] != seen["C after its handshake with A"]["log"]


def _confirm_during_expansion(d: DataPath) -> dict[str, Any]:
    """Two stores, allAckInSyncStateSet. A, master of {A}, takes B as its slave; B catches up, so A proposes {A, B}
    (maybeExpandInSyncStateSet) and, the controller's answer not yet back, acks are counted against {A, B}. B goes down;
    A's next put is not acknowledged (B's ack is missing) but is it shown to consumers?"""
    d.open(1, ackTimeoutMs=1000, allAck=True)
    d.open(2, ackTimeoutMs=1000, allAck=True)
    d.master(1, 1, [1])
    d.slave(2, 1, 1)
    d.put(1)
    b = d.reach(2, 1)
    expanding = d.view(1)
    deadline = time.monotonic() + WAIT_MS / 1000
    while expanding["syncStateSet"] == expanding["localSyncStateSet"] and time.monotonic() < deadline:
        time.sleep(0.05)
        expanding = d.view(1)
    d.close(2)
    status = d.put(1)
    return {"B": b, "A while the expansion is in flight": expanding, "put while B is down": status, "A after": d.view(1)}


def _shown_unacked(seen: dict[str, Any]) -> bool:
    after = seen["A after"]
    return (seen["put while B is down"] != "PUT_OK" and len(after["syncStateSet"]) == 2 and len(after["localSyncStateSet"]) == 1
            and after["confirmOffset"] > seen["B"]["leo"])


def _held_empty_slave(d: DataPath) -> dict[str, Any]:
    """Two empty stores with allAckInSyncStateSet: A master of {A}, B its slave over a link, held once B has reported
    offset 0 (caught up: A proposes {A, B}). A's view then."""
    d.open(1, ackTimeoutMs=500, allAck=True)
    d.open(2, ackTimeoutMs=500, allAck=True)
    d.master(1, 1, [1])
    d.slave(2, 1, 1, link=True)
    d.acked(1, 2)
    connected = d.until(1, lambda v: 2 in v["proposed"], SETTLE_S)  # the proposal follows the report's ack
    d.hold(2)
    return connected


def _zero_ack(d: DataPath) -> dict[str, Any]:
    """Two empty stores, allAckInSyncStateSet. B, A's slave over a held link, reports offset 0 and nothing more. A puts
    m0 (not acknowledged: B's ack is missing), then learns the set {A, B}: is m0 shown to consumers? Then A puts m1 and
    B reports 0 again: does an unchanged ack recompute confirmOffset?"""
    connected = _held_empty_slave(d)
    first = d.put(1)
    learnt = d.sync_state_set(1, [1, 2])
    second = d.put(1)
    again = d.until(1, lambda v: v["confirmOffset"] >= 2, SETTLE_S)  # B's reports of 0, every 200 ms
    return {"A with B connected": connected, "put m0": first, "A after learning {A, B}": learnt, "put m1": second,
            "A after B reports 0 again": again, "B": d.view(2)}


def _zero_ack_skipped(seen: dict[str, Any]) -> bool:
    learnt = seen["A after learning {A, B}"]
    return (seen["put m0"] != "PUT_OK" and learnt["localSyncStateSet"] == [1, 2] and learnt["acks"] == {2: 0}
            and learnt["confirmOffset"] == 1 and seen["B"]["leo"] == 0)


def _repeated_ack_recomputes(seen: dict[str, Any]) -> bool:
    after = seen["A after B reports 0 again"]
    return seen["A after learning {A, B}"]["confirmOffset"] == 1 and after["acks"] == {2: 0} and after["confirmOffset"] == 2


def _from_last_file(d: DataPath) -> dict[str, Any]:
    """Commit-log files hold three messages each (on every store, as a set's brokers share their settings). A writes six (two full files), then B, a new slave with
    isSyncFromLastFile, asks from 0; A writes a seventh (a third file) and C asks the same."""
    d.open(9)
    d.master(9, 1, [9])
    d.put(9)  # the message size, for the file size below
    d.close(9)
    file_size = 3 * d.size + 8 + d.size // 2  # three messages and a blank (CommitLog keeps 8 bytes for it) per file
    d.open(1, mappedFileSize=file_size)
    d.master(1, 1, [1], sync=False)
    for _ in range(6):
        d.put(1)
    d.open(2, mappedFileSize=file_size, syncFromLastFile=True)
    d.slave(2, 1, 1)
    b = d.reach_bytes(2, d.view(1)["bytes"]["maxPhyOffset"])
    d.put(1)
    d.open(3, mappedFileSize=file_size, syncFromLastFile=True)
    d.slave(3, 1, 1)
    c = d.reach_bytes(3, d.view(1)["bytes"]["maxPhyOffset"])
    return {"A": d.view(1), "B after six messages": b, "C after seven": c}


def _starts_at_the_full_last_file(seen: dict[str, Any]) -> bool:
    log = seen["A"]["log"]
    return seen["B after six messages"]["log"] == log[3:6] and seen["C after seven"]["log"] == log[6:7]


def _failover_before_first_copy(d: DataPath, first_transfer: bool) -> dict[str, Any]:
    """Two empty stores. A, master in epoch 1, takes B as its slave and the controller's set becomes {A, B}; no message
    is written. Before (or, ``first_transfer``, after) A's first transfer packet reaches B, B is made master in epoch 2
    (an admin election, or the expiry of A's heartbeat) and A its slave; B writes m0. Does A copy it?"""
    d.open(1)
    d.open(2)
    d.master(1, 1, [1])
    d.slave(2, 1, 1, link=True, passing=None if first_transfer else HANDSHAKE_ANSWER)
    d.acked(1, 2)
    b_slave = d.until(2, lambda v: bool(v["epochs"])) if first_transfer else d.view(2)  # A's heartbeats: every 200 ms
    d.sync_state_set(1, [1, 2])
    d.master(2, 2, [2], sync=False)
    d.slave(1, 2, 2)
    d.put(2)
    if first_transfer:  # A follows B once its handshake finds (1, 0) on both sides: wait for the copy (a loaded machine)
        a = d.until(1, lambda v: bool(v["log"]), seconds=COPY_S)
    else:  # A never copies: watched for STUCK_S
        time.sleep(STUCK_S)
        a = d.view(1)
    return {"B as A's slave": b_slave, "A": a, "B": d.view(2)}


def _never_copies(seen: dict[str, Any]) -> bool:
    a, b = seen["A"], seen["B"]
    return (seen["B as A's slave"]["epochs"] == [] and a["epochs"] == [(1, 0)] and b["epochs"] == [(2, 0)] and b["log"]
            and not a["log"] and a["client"] != "TRANSFER")


def _learns_from_a_heartbeat(seen: dict[str, Any]) -> bool:
    a, b = seen["A"], seen["B"]
    return seen["B as A's slave"]["epochs"] == [(1, 0)] and b["epochs"] == [(1, 0)] and a["log"] == b["log"] != []


def _epoch_reentry(d: DataPath) -> dict[str, Any]:
    """Two stores. A, master in epoch 1 with B in its set, gives m0 to B. B is elected (epoch 2; A's heartbeat expired
    while A runs) and writes m1; A, master in its own view, writes m2 (not acknowledged). B restarts at once and, still
    the controller's live master, re-enters epoch 2 (changeToMaster(2) again). A becomes B's slave; B writes m3."""
    d.open(1, ackTimeoutMs=300)
    d.open(2, ackTimeoutMs=300)
    d.master(1, 1, [1])
    d.slave(2, 1, 1)
    d.put(1)
    d.reach(2, 1)
    d.sync_state_set(1, [1, 2])
    d.master(2, 2, [2], sync=False)
    d.put(2)
    d.put(1)
    b_first = d.view(2)
    d.close(2)
    d.open(2, ackTimeoutMs=300)
    d.master(2, 2, [2], sync=False)
    b_again = d.view(2)
    d.slave(1, 2, 2)
    d.put(2)
    a = d.reach(1, 3)
    return {"B in epoch 2": b_first, "B re-entered epoch 2": b_again, "A after its handshake with B": a, "B": d.view(2)}


def _diverges(seen: dict[str, Any]) -> bool:
    a, b = seen["A after its handshake with B"]["log"], seen["B"]["log"]
    return len(a) == len(b) == 3 and a[1] != b[1] and a[2] == b[2]


def _expand_without_union(d: DataPath) -> dict[str, Any]:
    """Two empty stores, allAckInSyncStateSet. B, A's slave over a held link, reports 0: caught up, so A proposes
    {A, B}, which the controller may apply at once. Before A learns the answer, A puts m0: against which set is it
    acknowledged?"""
    proposing = _held_empty_slave(d)
    status = d.put(1)
    return {"A proposing": proposing, "put m0": status, "A": d.view(1), "B": d.view(2)}


def _acked_without_the_new_member(seen: dict[str, Any]) -> bool:
    return seen["put m0"] == "PUT_OK" and 2 in seen["A proposing"]["proposed"] and seen["B"]["log"] == []


def _member_gone(d: DataPath) -> dict[str, Any]:
    """Three stores, allAckInSyncStateSet, the set {A, B, C}; m0 reaches both slaves. B goes down (it stays in the set
    until a shrink is applied); A puts m1, which C acknowledges. Does A's confirmOffset pass what B holds?"""
    for broker in (1, 2, 3):
        d.open(broker, ackTimeoutMs=300, allAck=True)
    d.master(1, 1, [1, 2, 3])
    d.slave(2, 1, 1)
    d.slave(3, 1, 1)
    d.put(1)
    b = d.reach(2, 1)
    d.reach(3, 1)
    d.close(2)
    status = d.put(1)
    c = d.reach(3, 2)
    a = d.until(1, lambda v: v["confirmOffset"] >= 2, SETTLE_S)  # C's reports of its offset
    return {"B when it went down": b, "put m1": status, "C": c, "A": a}


def _confirm_past_a_gone_member(seen: dict[str, Any]) -> bool:
    a = seen["A"]
    return seen["put m1"] != "PUT_OK" and a["syncStateSet"] == [1, 2, 3] and a["confirmOffset"] == 2 > seen["B when it went down"]["leo"]


def _shrink_before_the_answer(d: DataPath) -> dict[str, Any]:
    """Two stores, allAckInSyncStateSet, the set {A, B}; m0 reaches B. B goes down: A proposes {A} (removeConnection),
    the controller's answer not yet back. A puts m1. Then A goes down and the controller, whose set still holds B,
    elects B (epoch 2): does B hold every acknowledged message?"""
    d.open(1, ackTimeoutMs=500, allAck=True)
    d.open(2, ackTimeoutMs=500, allAck=True)
    d.master(1, 1, [1, 2])
    d.slave(2, 1, 1)
    d.put(1)
    d.reach(2, 1)
    d.close(2)
    status = d.put(1)
    a = d.view(1)
    d.close(1)
    d.open(2, ackTimeoutMs=500, allAck=True)
    d.master(2, 2, [2])
    return {"put m1 with B down": status, "A": a, "B elected": d.view(2)}


def _acked_lost(seen: dict[str, Any]) -> bool:
    a, b = seen["A"], seen["B elected"]
    return seen["put m1 with B down"] == "PUT_OK" and a["proposed"] == [1] and a["log"][1] not in b["log"]


def _second_expansion(d: DataPath) -> dict[str, Any]:
    """Three stores, allAckInSyncStateSet, A master of the set {A}. B catches up: A proposes {A, B}, which the controller
    may apply at once. Before A learns the answer, C catches up: A proposes again. Then B gets nothing more (held), and
    A puts m1. A goes down before the answer to {A, B} reaches it; the controller, whose set is {A, B}, elects B: does B
    hold every acknowledged message?"""
    for broker in (1, 2, 3):
        d.open(broker, ackTimeoutMs=500, allAck=True)
    d.master(1, 1, [1])
    d.put(1)
    d.slave(2, 1, 1, link=True)
    d.reach(2, 1)
    first = d.until(1, lambda v: 2 in v["proposed"])
    d.slave(3, 1, 1)
    d.reach(3, 1)
    second = d.until(1, lambda v: 3 in v["proposed"])
    d.hold(2)
    status = d.put(1)
    a = d.view(1)
    d.close(1)
    d.master(2, 2, [2])
    return {"A proposes first": first["proposed"], "A proposes second": second["proposed"], "put m1": status, "A": a,
            "B elected": d.view(2)}


def _second_replaces_the_first(seen: dict[str, Any]) -> bool:
    a, b = seen["A"], seen["B elected"]
    return (seen["put m1"] == "PUT_OK" and 2 in seen["A proposes first"] and 2 not in seen["A proposes second"]
            and a["log"][1] not in b["log"])


FINDINGS: tuple[Finding, ...] = (
    Finding("handshake-keeps-the-old-epoch",
            "AutoSwitchHAClient.doTruncate cuts the slave's epoch file only if the point is below maxPhyOffset, read after "
            "the log was cut to the point: never (5.4.0 on). A truncated slave keeps its old epoch's entry, refuses the "
            "new master's (appendEntry needs a greater start), and as master lets another replica keep a divergent "
            "message at the same offset",
            "the model cuts the slave's epoch file with its log (MODEL.md §5, 5.1.1-5.3.x): LogMatching holds",
            _epoch_not_cut, _divergent),
    Finding("confirm-offset-during-expansion",
            "with allAckInSyncStateSet, getConfirmOffset() is maxPhyOffset while the master's local syncStateSet has one "
            "member, also while an expansion to two is in flight and acks are counted against both: a message the new "
            "member lacks, not acknowledged, is shown to consumers; the controller may already list that member",
            "MC_neg_shortcut (option confirmShortcutFix = false): NoPhantomRead fails",
            _confirm_during_expansion, _shown_unacked),
    Finding("zero-ack-skipped",
            "computeConfirmOffset takes the minimum only over acks above 0, so a set member that has reported offset 0 "
            "(an empty log) is skipped: once the master's local syncStateSet holds it, confirmOffset is the LEO and a "
            "message it lacks, not acknowledged, is shown to consumers",
            "MC_neg_zeroack (option confirmZeroAckFix = false): NoPhantomRead fails",
            _zero_ack, _zero_ack_skipped),
    Finding("repeated-ack-recomputes",
            "every report of a slave's offset, also an unchanged one (a heartbeat every haSendHeartbeatInterval), "
            "recomputes confirmOffset (updateConfirmOffsetWhenSlaveAck): with the zero-ack skip it follows every write",
            "the model takes no step for an unchanged ack (spec/README.md, refinement 32): with the fixes on, a recompute "
            "over unchanged acks gives the value it had; with confirmZeroAckFix = false the model's confirmOffset lags "
            "the code's, and MC_neg_zeroack breaks NoPhantomRead all the same",
            _zero_ack, _repeated_ack_recomputes),
    Finding("slave-stuck-after-failover-before-first-copy",
            "a slave that has hand-shaken with an empty master (its own epoch file empty) and has not yet received a "
            "transfer packet cannot follow a master elected after it: the new master writes <<2, 0>>, the old one holds "
            "<<1, 0>>, findConsistentPoint finds no common epoch, doTruncate fails and is retried, and the old master "
            f"copies nothing (watched for {STUCK_S} s; nothing else moves it)",
            "MC_live_failover: EventuallyInSync fails (the code's liveness finding)",
            lambda d: _failover_before_first_copy(d, first_transfer=False), _never_copies),
    Finding("slave-learns-the-epoch-from-a-heartbeat",
            "any transfer packet, a heartbeat with no message too, appends the master's epoch to the slave's epoch file "
            "(AutoSwitchHAClient: masterEpoch != currentReceivedEpoch): a slave that has had one holds <<1, 0>>; as "
            "master it cannot append <<2, 0>> (appendEntry needs a greater start offset) and writes epoch 2's messages "
            "under epoch 1, and the old master follows it",
            "the model's slave learns an epoch only from a transferred message (refinement 31), so the model's window "
            "for the stuck slave is wider than the code's: any time before the first message, not only before the first "
            "heartbeat (haSendHeartbeatInterval, 5 s by default)",
            lambda d: _failover_before_first_copy(d, first_transfer=True), _learns_from_a_heartbeat),
    Finding("epoch-reentry-diverges",
            "a master that restarts before its heartbeat expires is answered as the live master of its own epoch, and "
            "changeToMaster on that epoch moves the epoch's start to its LEO: a deposed master's unacknowledged message "
            "then sits inside the common epoch, the handshake keeps it, and the next transfer appends after it: two "
            "replicas differ at one offset",
            "traces/negative/rocketmq-epoch-reentry-diverges (option epochReentryFix = false): LogMatching fails",
            _epoch_reentry, _diverges),
    Finding("second-expansion-replaces-the-first",
            "maybeExpandInSyncStateSet does not look at isSynchronizingSyncStateSet: a second slave that catches up "
            "while an expansion is in flight is proposed as the local set plus it, and that proposal replaces the "
            "remote set, so acks are counted against the local set plus the second member while the controller may "
            "already list the first, which lacks what is then acknowledged",
            "the model's Expand waits for the answer to the alter in flight (pendingAlter): NoAckedMessageLost holds",
            _second_expansion, _second_replaces_the_first),
    Finding("expand-without-union",
            "#5663, before 5.1.1: an expansion is only proposed (ReplicasManager sends AlterSyncStateSet) and acks are "
            "counted against the local set, so a put is acknowledged without the member the controller may already "
            "list, which lacks it; 5.1.1 counts the union of the local and the proposed set while the answer is out",
            "MC_neg_union (option unionAckFix = false; traces/negative/rocketmq-5663-expand-without-union): "
            "NoAckedMessageLost fails",
            _expand_without_union, _acked_without_the_new_member),
    Finding("confirm-offset-past-a-gone-member",
            "#6662, before 5.1.1: computeConfirmOffset takes the minimum over the connected members only, so with a set "
            "member down the others' acks move confirmOffset past what it holds, and consumers read a message the "
            "member lacks; 5.1.1 keeps confirmOffset while a member has no connection",
            "freeze-off (option confirmFreezeFix = false): NoPhantomRead, when the gone member is elected later",
            _member_gone, _confirm_past_a_gone_member),
    Finding("shrink-before-the-answer",
            "5.4.0 on: a slave's lost connection (removeConnection) removes it from the master's LOCAL syncStateSet at "
            "once, before the controller accepts the shrink, so acks and confirmOffset stop counting it while the "
            "controller still lists it: a put acknowledged by the master alone is lost if the master dies before the "
            "shrink is applied and the controller elects that member (5.1.1-5.3.x count it until the answer)",
            "the model counts the union of the local and the proposed set until the answer (MODEL.md §5, 5.1.1-5.3.x): "
            "NoAckedMessageLost holds; the 5.4.0 code would be a model option",
            _shrink_before_the_answer, _acked_lost),
    Finding("sync-from-last-file-at-a-full-file",
            "a new slave with isSyncFromLastFile starts at maxOffset - maxOffset % mappedFileSize in bytes: the start of "
            "the file holding the last message, also when that file is full (a message never ends exactly at a file's "
            "end: CommitLog keeps 8 bytes for the blank)",
            "the model starts at the file holding offset LEO - 1 (reference/retention.py last_file_start; "
            "traces/retention/R4)",
            _from_last_file, _starts_at_the_full_last_file),
)
BY_NAME = {f.name: f for f in FINDINGS}


def run_finding(finding: Finding, version: str = DEFAULT_VERSION) -> tuple[bool, dict[str, Any]]:
    """Whether ``finding`` shows on RocketMQ ``version``, and what its stores showed."""
    seen = finding.run(DataPath(session(version), finding.name))
    return finding.shows(seen), seen
