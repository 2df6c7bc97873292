"""Hand-written component traces (spec/README.md "Trace kinds"), written from ROCKETMQ.md §8.1-§8.2 and
the policies of MODEL.md §5, not from any engine: ``epoch-file`` operation sequences on one
EpochFileCache, ``handshake`` vectors for every truncation policy and ``retention`` vectors (§8.3).
``autoswitch scenarios`` writes them into ``traces/epoch-file``, ``traces/handshake``, ``traces/retention``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

MAX = 2**63 - 1  # Long.MAX_VALUE: the endOffset of a last entry nothing has bounded


class Vector:
    """A component trace under construction: ``#meta.kind`` and the states."""

    def __init__(self, kind: str, name: str, about: str, **meta: Any):
        self.name, self.about, self.extra = name, about, {"kind": kind, **meta}
        self.states: list[dict[str, Any]] = [{"action": {"tag": "Init"}}]

    def meta(self) -> dict[str, Any]:
        return {**self.extra, "scenario": self.name, "description": self.about, "generator": "autoswitch scenarios (hand-written)"}


# ---- epoch-file ------------------------------------------------------------------------------------

def _e(epoch: int, start: int, end: int = MAX) -> dict[str, int]:
    return {"epoch": epoch, "startOffset": start, "endOffset": end}


class Cache(Vector):
    def __init__(self, name: str, about: str):
        super().__init__("epoch-file", name, about)
        self.states[0].update(entries=[], file=[])

    def op(self, tag: str, outcome: dict[str, Any] | None = None, entries: list | None = None, file: list | None = None,
           **params: Any) -> Cache:
        state: dict[str, Any] = {"action": {"tag": tag, **params}, "outcome": outcome or {}}
        if entries is not None:
            state["entries"] = entries
        if file is not None:
            state["file"] = file
        self.states.append(state)
        return self

    def append(self, epoch: int, start: int, ok: bool = True, **after: Any) -> Cache:
        return self.op("appendEntry", {"returns": ok}, epoch=epoch, startOffset=start, **after)

    def found(self, tag: str, entry: dict[str, int] | None, **params: Any) -> Cache:
        return self.op(tag, {"found": False} if entry is None else {"found": True, "entry": entry}, **params)


def e1() -> Cache:
    c = Cache("E1-append-and-queries", "appendEntry needs both a greater epoch and a greater start (an epoch with no new "
              "data is refused); the old last entry then ends at the new start; the queries on an empty and a full cache")
    c.op("lastEpoch", {"returns": -1}).found("firstEntry", None).found("lastEntry", None).found("findEpochEntryByOffset", None, offset=0)
    c.append(1, 0, entries=[_e(1, 0)], file=["1-0"])
    c.append(2, 100, entries=[_e(1, 0, 100), _e(2, 100)], file=["1-0", "2-100"])
    c.append(2, 150, ok=False, entries=[_e(1, 0, 100), _e(2, 100)], file=["1-0", "2-100"])
    c.append(3, 100, ok=False, entries=[_e(1, 0, 100), _e(2, 100)])
    c.append(4, 250, entries=[_e(1, 0, 100), _e(2, 100, 250), _e(4, 250)], file=["1-0", "2-100", "4-250"])
    c.found("getEntry", _e(2, 100, 250), epoch=2).found("getEntry", None, epoch=3)
    c.found("nextEntry", _e(2, 100, 250), epoch=1).found("nextEntry", _e(4, 250), epoch=2).found("nextEntry", None, epoch=4)
    c.found("firstEntry", _e(1, 0, 100)).found("lastEntry", _e(4, 250)).op("lastEpoch", {"returns": 4})
    c.found("findEpochEntryByOffset", _e(1, 0, 100), offset=99).found("findEpochEntryByOffset", _e(2, 100, 250), offset=100)
    return c.found("findEpochEntryByOffset", _e(4, 250), offset=10**6)


def e2() -> Cache:
    c = Cache("E2-truncate-suffix-keeps-end", "doTruncateSuffix resets the endOffset of a COPY of the new last entry "
              "(ROCKETMQ.md §8.1, §10.2): in memory it keeps the removed entry's start until the next append or a reload; "
              "the file holds no endOffset")
    c.append(1, 0).append(2, 100).append(3, 200)
    c.op("truncateSuffixByOffset", offset=150, entries=[_e(1, 0, 100), _e(2, 100, 200)], file=["1-0", "2-100"])
    c.found("findEpochEntryByOffset", None, offset=250).found("lastEntry", _e(2, 100, 200))
    c.op("reload", entries=[_e(1, 0, 100), _e(2, 100)], file=["1-0", "2-100"])
    c.found("findEpochEntryByOffset", _e(2, 100), offset=250)
    c.op("truncateSuffixByEpoch", epoch=2, entries=[_e(1, 0, 100)], file=["1-0"])
    c.op("truncateSuffixByEpoch", epoch=5, entries=[_e(1, 0, 100)], file=["1-0"])
    return c.append(3, 120, entries=[_e(1, 0, 120), _e(3, 120)], file=["1-0", "3-120"])


def e3() -> Cache:
    c = Cache("E3-truncate-prefix", "truncatePrefixByOffset drops the entries ending at or before the offset; a last entry "
              "ending at MAX stays, one bounded by setLastEpochEntryEndOffset (not persisted) can go")
    c.append(1, 0).append(2, 100).append(3, 200)
    c.op("truncatePrefixByOffset", offset=150, entries=[_e(2, 100, 200), _e(3, 200)], file=["2-100", "3-200"])
    c.op("truncatePrefixByOffset", offset=200, entries=[_e(3, 200)], file=["3-200"])
    c.op("truncatePrefixByOffset", offset=10**9, entries=[_e(3, 200)]).found("firstEntry", _e(3, 200))
    c.op("setLastEpochEntryEndOffset", offset=150, entries=[_e(3, 200)])
    c.op("setLastEpochEntryEndOffset", offset=260, entries=[_e(3, 200, 260)], file=["3-200"])
    c.found("findEpochEntryByOffset", _e(3, 200, 260), offset=259).found("findEpochEntryByOffset", None, offset=260)
    c.op("truncatePrefixByOffset", offset=260, entries=[], file=[]).op("lastEpoch", {"returns": -1})
    return c.op("reload", entries=[], file=[])


def e4() -> Cache:
    c = Cache("E4-prefix-after-suffix", "after a suffix truncation the last entry's in-memory end is the removed start, so a "
              "prefix trim at that offset empties the cache; after a reload the same trim keeps the last entry")
    c.append(1, 0).append(2, 100).append(3, 200).op("truncateSuffixByOffset", offset=200, entries=[_e(1, 0, 100), _e(2, 100, 200)])
    c.op("truncatePrefixByOffset", offset=200, entries=[], file=[])
    c.append(1, 0).append(2, 100).append(3, 200).op("truncateSuffixByOffset", offset=200).op("reload")
    return c.op("truncatePrefixByOffset", offset=200, entries=[_e(2, 100)], file=["2-100"])


def e5() -> Cache:
    c = Cache("E5-find-consistent-point", "findConsistentPoint walks this cache's epochs from the newest; the first epoch "
              "the other cache has with the same start gives min of both endOffsets; epochs only the other has are not "
              "looked at; none gives -1. Unbounded last entries answer MAX, which is why the handshake bounds them first")
    c.append(1, 0).append(2, 100).append(3, 200)
    c.op("findConsistentPoint", {"returns": MAX}, other=[_e(1, 0, 100), _e(2, 100, 200), _e(3, 200)])
    c.op("setLastEpochEntryEndOffset", offset=300, entries=[_e(1, 0, 100), _e(2, 100, 200), _e(3, 200, 300)])
    c.op("findConsistentPoint", {"returns": 280}, other=[_e(1, 0, 100), _e(2, 100, 200), _e(3, 200, 280)])
    c.op("findConsistentPoint", {"returns": 200}, other=[_e(1, 0, 100), _e(2, 100, 250)])
    c.op("findConsistentPoint", {"returns": 50}, other=[_e(1, 0, 50), _e(2, 50)])
    c.op("findConsistentPoint", {"returns": -1}, other=[_e(4, 0)])
    return c.op("findConsistentPoint", {"returns": -1}, other=[])


# ---- handshake -------------------------------------------------------------------------------------

KAFKA_NOTE = "; the leader has every epoch the follower asks for, so the fallback for a missing epoch plays no part"


def _hs(name: str, policy: str, about: str, master: list, master_leo: int, slave: list, slave_leo: int, confirm: int,
        point: int, after: list | None = None) -> Callable[[], Vector]:
    """A handshake vector: the slave truncates at ``point`` (-1: no consistent point, nothing changes)."""
    def build() -> Vector:
        v = Vector("handshake", name, about + (KAFKA_NOTE if policy in ("kip101", "kip279") else ""), policy=policy)
        v.states[0].update(masterEpochs=master, masterLeo=master_leo, slaveEpochs=slave, slaveLeo=slave_leo, slaveConfirmOffset=confirm)
        kept = slave_leo if point < 0 else point
        code = "NO_CONSISTENT_POINT" if point < 0 else "OK"
        v.states.append({"action": {"tag": "Handshake"}, "outcome": {"code": code, "truncateOffset": point},
                         "slaveEpochs": slave if after is None else after, "slaveLeo": kept, "slaveConfirmOffset": min(confirm, kept)})
        return v
    return build


OLD_MASTER = [(1, 0), (2, 100)]  # a former master of epoch 2 that wrote past the new master's epoch 3 start
NEW_MASTER = [(1, 0), (2, 100), (3, 150)]
SHIFTED = ([(1, 0), (2, 50), (3, 80)], [(1, 0), (2, 60)])  # both have epoch 2, starting at different offsets

HANDSHAKES: dict[str, Callable[[], Vector]] = {
    "handshake/H1-rocketmq-epoch-end": _hs(
        "H1-rocketmq-epoch-end", "rocketmq", "the highest common epoch 2 ends at 150 on the master: the slave cuts its 180 to 150",
        NEW_MASTER, 200, OLD_MASTER, 180, 120, 150),
    "handshake/H2-rocketmq-start-differs": _hs(
        "H2-rocketmq-start-differs", "rocketmq", "epoch 2 starts at 50 on the master, 60 on the slave: not consistent; epoch 1 "
        "gives min(60, 50) = 50, and the epoch-2 entry goes", SHIFTED[0], 120, SHIFTED[1], 90, 40, 50, [(1, 0)]),
    "handshake/H3-rocketmq-no-consistent-point": _hs(
        "H3-rocketmq-no-consistent-point", "rocketmq", "no epoch of the slave is on the master with the same start: -1, the "
        "slave stays in HANDSHAKE and keeps everything", [(1, 0), (3, 40)], 90, [(2, 0)], 50, 30, -1),
    "handshake/H4-rocketmq-empty-cache-skips": _hs(
        "H4-rocketmq-empty-cache-skips", "rocketmq", "doTruncate skips truncation when the local epoch cache is empty (ROCKETMQ.md "
        "§8.2), even with 70 messages in the log and a master at 40: an unsafe outcome, written as RocketMQ behaves",
        [(1, 0)], 40, [], 70, 0, 70),
    "handshake/H5-hw-to-confirm-offset": _hs(
        "H5-hw-to-confirm-offset", "hw", "before KIP-101 the follower truncates to its own high watermark, 120",
        [(1, 0), (3, 150)], 200, OLD_MASTER, 180, 120, 120),
    "handshake/H6-hw-keeps-divergent": _hs(
        "H6-hw-keeps-divergent", "hw", "the high watermark 20 covers epoch-2 entries the leader never had (it wrote epoch 3 "
        "from 10): the follower keeps them, an unsafe outcome", [(1, 0), (3, 10)], 30, [(1, 0), (2, 10)], 20, 20, 20),
    "handshake/H7-kip101-leader-moved-on": _hs(
        "H7-kip101-leader-moved-on", "kip101", "the follower asks for epoch 2; the leader's next epoch 3 starts at 150",
        NEW_MASTER, 200, OLD_MASTER, 180, 120, 150),
    "handshake/H8-kip101-same-last-epoch": _hs(
        "H8-kip101-same-last-epoch", "kip101", "epoch 2 is the leader's last too: its LEO 160 bounds the follower's 180",
        OLD_MASTER, 160, OLD_MASTER, 180, 100, 160),
    "handshake/H9-kip101-start-differs": _hs(
        "H9-kip101-start-differs", "kip101", "KIP-101 compares no start offsets: the end of epoch 2 on the leader (80) is kept "
        "although the follower's offsets 50-59 hold epoch 1 where the leader has epoch 2, an unsafe outcome",
        SHIFTED[0], 120, SHIFTED[1], 90, 40, 80),
    "handshake/H10-kip279-leader-moved-on": _hs(
        "H10-kip279-leader-moved-on", "kip279", "the leader answers epoch 2 ending at 150; the follower's epoch 2 ends at 180",
        NEW_MASTER, 200, OLD_MASTER, 180, 120, 150),
    "handshake/H11-kip279-nothing-to-truncate": _hs(
        "H11-kip279-nothing-to-truncate", "kip279", "the follower's LEO 120 is before the end of epoch 2 on the leader (150)",
        NEW_MASTER, 200, OLD_MASTER, 120, 120, 120),
}

# ---- retention -------------------------------------------------------------------------------------

class Retention(Vector):
    def __init__(self, name: str, about: str, leo: int, epochs: list, **view: Any):
        super().__init__("retention", name, about, fileSize=10)
        self.states[0].update(leo=leo, epochs=epochs, **view)

    def delete(self, offset: int, **view: Any) -> Retention:
        self.states.append({"action": {"tag": "DeleteFilesBelow", "offset": offset}, "outcome": {}, **view})
        return self

    def start(self, from_last_file: bool, start: int, entry: dict[str, int] | None, code: str = "OK") -> Retention:
        outcome = {"code": code, "fromOffset": start, **({"entry": entry} if entry else {})}
        self.states.append({"action": {"tag": "StartTransfer", "syncFromLastFile": from_last_file}, "outcome": outcome})
        return self


def r1() -> Retention:
    r = Retention("R1-delete-and-start", "files of 10 messages; a slave asking from 0 starts at minOffset, or at the last "
                  "file's start with isSyncFromLastFile; deleting files trims the epoch entries ending at or before the new "
                  "minOffset; the last file is never deleted", 35, [(1, 0), (2, 12), (3, 28)],
                  files=[0, 10, 20, 30], minOffset=0, entries=[_e(1, 0, 12), _e(2, 12, 28), _e(3, 28)])
    r.start(False, 0, _e(1, 0, 12)).start(True, 30, _e(3, 28))
    r.delete(15, files=[10, 20, 30], minOffset=10, entries=[_e(1, 0, 12), _e(2, 12, 28), _e(3, 28)]).start(False, 10, _e(1, 0, 12))
    r.delete(25, files=[20, 30], minOffset=20, entries=[_e(2, 12, 28), _e(3, 28)]).start(False, 20, _e(2, 12, 28))
    return r.delete(100, files=[30], minOffset=30, entries=[_e(3, 28)]).start(False, 30, _e(3, 28))


def r2() -> Retention:
    r = Retention("R2-empty-log", "no commit log file: minOffset is -1 and nothing is sent; from the last file the start "
                  "is 0, but the empty epoch file has no entry for it", 0, [], files=[], minOffset=-1, entries=[])
    return r.start(False, -1, None, "NO_DATA").start(True, 0, None, "NO_EPOCH")


def r3() -> Retention:
    r = Retention("R3-epoch-file-starts-late", "the epoch file starts at 5 while the log starts at 0: a slave served from "
                  "minOffset 0 finds no epoch (logged and retried, nothing sent) until retention moves minOffset past 5",
                  25, [(2, 5)], files=[0, 10, 20], minOffset=0)
    r.start(False, 0, None, "NO_EPOCH").start(True, 20, _e(2, 5))
    return r.delete(10, files=[10, 20], minOffset=10, entries=[_e(2, 5)]).start(False, 10, _e(2, 5))


def r4() -> Retention:
    r = Retention("R4-last-file-boundary", "the LEO 20 fills two files: the last file is the one holding message 19, "
                  "starting at 10 in epoch 1, not the LEO (a message never ends exactly at a file's end in RocketMQ: "
                  "CommitLog keeps room for the end-of-file blank; shown by autoswitch findings); the newest epoch starts "
                  "at 20 with no data yet", 20, [(1, 0), (2, 20)], files=[0, 10])
    return r.start(True, 10, _e(1, 0, 20)).start(False, 0, _e(1, 0, 20)).delete(20, files=[10], minOffset=10, entries=[_e(1, 0, 20), _e(2, 20)])


COMPONENT_SCENARIOS: dict[str, Callable[[], Vector]] = {
    "epoch-file/E1-append-and-queries": e1,
    "epoch-file/E2-truncate-suffix-keeps-end": e2,
    "epoch-file/E3-truncate-prefix": e3,
    "epoch-file/E4-prefix-after-suffix": e4,
    "epoch-file/E5-find-consistent-point": e5,
    **HANDSHAKES,
    "retention/R1-delete-and-start": r1,
    "retention/R2-empty-log": r2,
    "retention/R3-epoch-file-starts-late": r3,
    "retention/R4-last-file-boundary": r4,
}
