"""The implementation's data path (``autoswitch.impl``: epoch file, commit log, truncation policies, HA):
unit tests, and a differential test against the reference model on random enabled action sequences rich
in writes, handshakes, transfers, acks, syncStateSet changes, flushes, consumption, crashes and
elections, for every truncation policy and option variant."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest

from autoswitch.impl.commit_log import COMMIT_LOG_FILE, CommitLog, FileCommitLog, encode_record, open_commit_log
from autoswitch.impl.epoch_file import EPOCH_FILE, CorruptEpochFile, EpochFile
from autoswitch.impl.storage import FileStorage, MemoryStorage
from autoswitch.impl.truncation import TRUNCATE as IMPL_TRUNCATE
from autoswitch.reference import epoch_file as ref_epoch_file
from autoswitch.reference.truncation import TRUNCATE as REF_TRUNCATE

# ---- epoch file --------------------------------------------------------------------------------------


def _epoch_file(entries: list[tuple[int, int]], storage: Any = None) -> EpochFile:
    f = EpochFile(storage)
    for epoch, start in entries:
        assert f.append(epoch, start)
    return f


def test_epoch_file_append_is_strict() -> None:
    f = _epoch_file([(1, 0), (3, 5)])
    assert not f.append(3, 7)  # same epoch
    assert not f.append(4, 5)  # same start: an epoch bump with no new data is not recorded
    assert not f.append(2, 9)  # older epoch
    assert f.entries() == [(1, 0), (3, 5)]
    assert f.append(4, 6) and f.entries() == [(1, 0), (3, 5), (4, 6)]
    assert f.last_epoch() == 4 and f.last_start() == 6 and EpochFile().last_epoch() == 0


def test_epoch_file_truncate_suffix_by_offset() -> None:
    f = _epoch_file([(1, 0), (2, 3), (4, 7)])
    f.truncate_suffix_by_offset(8)
    assert f.entries() == [(1, 0), (2, 3), (4, 7)]
    f.truncate_suffix_by_offset(7)  # an entry starting at the offset goes
    assert f.entries() == [(1, 0), (2, 3)]
    f.truncate_suffix_by_offset(0)
    assert f.entries() == []


@pytest.mark.parametrize(
    ("entries", "epoch", "leo", "after"),
    [
        ([(1, 0), (3, 5)], 3, 8, [(1, 0), (3, 8)]),  # re-entering the last epoch moves its start (ROCKETMQ.md §8.6)
        ([(1, 0), (3, 5)], 4, 8, [(1, 0), (3, 5), (4, 8)]),
        ([(1, 0), (3, 5)], 4, 5, [(1, 0), (3, 5)]),  # no new data: the strict rule refuses (4, 5)
        ([(1, 0), (3, 5)], 3, 5, [(1, 0), (3, 5)]),  # removed, then appended again at the same start
        ([(1, 0), (3, 5)], 2, 8, [(1, 0), (3, 5)]),  # below the last epoch: refused, file unchanged
        ([], 1, 4, [(1, 4)]),
    ],
)
def test_epoch_file_change_to_master(entries: list, epoch: int, leo: int, after: list) -> None:
    f = _epoch_file(entries)
    assert f.change_to_master(epoch, leo) == (not entries or epoch >= entries[-1][0])
    assert f.entries() == after
    assert list(ref_epoch_file.change_to_master(tuple(entries), epoch, leo)) == after


def test_epoch_file_truncate_suffix_by_epoch_and_entry_at_offset() -> None:
    f = _epoch_file([(1, 0), (2, 3), (4, 7)])
    assert [f.entry_at_offset(o) for o in (0, 2, 3, 6, 7, 99)] == [0, 0, 1, 1, 2, 2]
    assert [ref_epoch_file.entry_at_offset(tuple(f.entries()), o) for o in (2, 7)] == [(1, 0), (4, 7)]
    assert _epoch_file([(2, 3)]).entry_at_offset(2) == -1 and ref_epoch_file.entry_at_offset(((2, 3),), 2) is None
    f.truncate_suffix_by_epoch(3)  # epochs >= 3 go, even without an entry of epoch 3
    assert f.entries() == [(1, 0), (2, 3)] == list(ref_epoch_file.truncate_suffix_by_epoch(((1, 0), (2, 3), (4, 7)), 3))


@pytest.mark.parametrize(
    ("local", "leo", "remote", "remote_leo", "point"),
    [
        ([(1, 0), (2, 4)], 6, [(1, 0), (2, 4)], 9, 6),  # same history, the slave is behind
        ([(1, 0), (2, 4)], 9, [(1, 0), (2, 4)], 6, 6),  # the slave is ahead in the same epoch
        ([(1, 0), (2, 4)], 8, [(1, 0), (3, 4)], 9, 4),  # epoch 2 never reached the master: back to epoch 1's end
        ([(1, 0), (2, 5)], 8, [(1, 0), (2, 4)], 9, 4),  # epoch 2 starts elsewhere: epoch 1 decides
        ([(2, 0)], 3, [(1, 0), (3, 2)], 5, -1),  # nothing in common
        ([(1, 0), (3, 6)], 7, [(1, 0), (2, 3), (3, 6)], 10, 7),
    ],
)
def test_find_consistent_point(local: list, leo: int, remote: list, remote_leo: int, point: int) -> None:
    assert _epoch_file(local).consistent_point(_epoch_file(remote), leo, remote_leo) == point
    assert ref_epoch_file.find_consistent_point(tuple(local), leo, tuple(remote), remote_leo) == point


def test_epoch_file_line_format_round_trip(tmp_path: Any) -> None:
    store = FileStorage(str(tmp_path))
    f = _epoch_file([(1, 0), (2, 3), (5, 17)], store)
    assert (tmp_path / EPOCH_FILE).read_text() == "1-0\n2-3\n5-17\n"
    assert EpochFile.load(FileStorage(str(tmp_path))).entries() == [(1, 0), (2, 3), (5, 17)]
    f.truncate_suffix_by_offset(3)
    assert (tmp_path / EPOCH_FILE).read_text() == "1-0\n"
    assert EpochFile.load(store).entries() == [(1, 0)]
    store.write(EPOCH_FILE, "1-0\n1-4\n")
    with pytest.raises(CorruptEpochFile):
        EpochFile.load(store)
    store.write(EPOCH_FILE, "1:0\n")
    with pytest.raises(CorruptEpochFile):
        EpochFile.load(store)
    assert EpochFile.load(MemoryStorage()).entries() == []


def _random_epochs(rng: random.Random, leo: int) -> tuple[tuple[int, int], ...]:
    entries, epoch, start = [], 0, 0
    while start < leo and rng.random() < 0.7:
        epoch += rng.randint(1, 2)
        entries.append((epoch, start))
        start += rng.randint(1, 3)
    return tuple(entries)


def test_truncation_policies_agree_with_the_reference_on_random_files() -> None:
    rng = random.Random(7)
    for _ in range(3000):
        leo, remote_leo = rng.randint(0, 9), rng.randint(0, 9)
        local, remote = _random_epochs(rng, leo), _random_epochs(rng, remote_leo)
        if rng.random() < 0.4 and remote:  # share a prefix of history
            k = rng.randint(1, len(remote))
            local = tuple(e for e in remote[:k] if e[1] < leo) or local
        hw = rng.randint(0, leo)
        for (policy, truncate), v21 in itertools.product(IMPL_TRUNCATE.items(), (False, True)):
            expected = REF_TRUNCATE[policy](local, leo, hw, remote, remote_leo, v21)
            got = truncate(_epoch_file(list(local)), leo, hw, _epoch_file(list(remote)), remote_leo, v21)
            assert got == expected, (policy, v21, local, leo, hw, remote, remote_leo)


# ---- commit log ----------------------------------------------------------------------------------------


def test_commit_log_recovery_keeps_the_flushed_prefix() -> None:
    log = open_commit_log(MemoryStorage())
    assert type(log) is CommitLog
    log.append((1, 1), sync=True)
    log.append((2, 1), sync=False)
    log.append((3, 1), sync=False)
    assert (len(log), log.flushed) == (3, 1)
    log.recover()
    assert log.entries == [(1, 1)] and log.flushed == 1
    log.append((4, 2), sync=False)
    log.flush()
    log.truncate(0)
    assert (log.entries, log.flushed) == ([], 0)


def test_file_commit_log_recovers_from_disk(tmp_path: Any) -> None:
    store = FileStorage(str(tmp_path))
    log = open_commit_log(store)
    assert isinstance(log, FileCommitLog)
    for msg in (1, 2, 3):
        log.append((msg, 1), sync=True)
    log.append((4, 2), sync=False)
    assert (tmp_path / COMMIT_LOG_FILE).read_bytes() == b"".join(encode_record((m, 1)) for m in (1, 2, 3))
    assert FileCommitLog(FileStorage(str(tmp_path))).entries == [(1, 1), (2, 1), (3, 1)]  # a fresh reader
    log.truncate(2)  # below the flushed prefix: the file is rewritten
    assert (tmp_path / COMMIT_LOG_FILE).read_bytes() == encode_record((1, 1)) + encode_record((2, 1)) and log.flushed == 2
    log.append((5, 3), sync=False)
    log.recover()
    assert (log.entries, log.flushed) == ([(1, 1), (2, 1)], 2)


def test_kafka_assign_agrees_with_the_reference_on_random_files() -> None:
    """LeaderEpochFileCache.assign, both versions, on ordered files and any (epoch, start)."""
    rng = random.Random(11)
    for _ in range(2000):
        entries = _random_epochs(rng, rng.randint(0, 9))
        epoch, start, v21 = rng.randint(1, 8), rng.randint(0, 12), rng.random() < 0.5
        f = _epoch_file(list(entries))
        f.kafka_assign(epoch, start, v21)
        assert tuple(f.entries()) == ref_epoch_file.kafka_assign(entries, epoch, start, v21), (entries, epoch, start, v21)


# Kafka's fallbacks, worked by hand from the cited code (spec/README.md, "Kafka's truncation in this model"):
# (policy, local file, LEO, high watermark, leader's file, leader's LEO) -> point without / with KAFKA-7415.
KAFKA_FALLBACKS = {
    # 0.11.0.0: epoch 1 is below the leader's first epoch: UNDEFINED -> the high watermark; 2.1.0: (1, 0)
    "kip101-below-first-epoch": (("kip101", ((1, 0),), 2, 1, ((2, 0),), 3), (1, 0)),
    # asks 4, the leader answers (3, 4); the follower names 2: truncates to 3, asks 2, both name 1: min(2, 2, 3)
    "kip279-intermediate-round": (("kip279", ((1, 0), (2, 2), (4, 3)), 5, 0, ((1, 0), (3, 2), (5, 4)), 6), (2, 2)),
    # the leader answers (1, 1); the follower has nothing at or below 1: 2.0.0 -> min(1, LEO), 2.1.0 -> (1, 0)
    "kip279-follower-undefined": (("kip279", ((2, 0),), 2, 0, ((1, 0), (3, 1)), 3), (1, 0)),
    # round 1 truncates to 2; round 2 asks 1, below the leader's first epoch: 2.0.0 UNDEFINED -> the fetch offset 2
    "kip279-undefined-after-a-round": (("kip279", ((1, 0), (3, 2)), 4, 0, ((2, 0), (4, 1)), 3), (2, 0)),
}


@pytest.mark.parametrize("case", sorted(KAFKA_FALLBACKS))
def test_kafka_fallbacks_on_both_engines(case: str) -> None:
    (policy, local, leo, hw, remote, remote_leo), expected = KAFKA_FALLBACKS[case]
    for v21, want in zip((False, True), expected, strict=True):
        assert REF_TRUNCATE[policy](local, leo, hw, remote, remote_leo, v21) == want, (case, v21)
        got = IMPL_TRUNCATE[policy](_epoch_file(list(local)), leo, hw, _epoch_file(list(remote)), remote_leo, v21)
        assert got == want, (case, v21)


def _spec_kip279(local: tuple, leo: int, hw: int, remote: tuple, remote_leo: int, v21: bool) -> int:
    """TruncateKIP279.tla as written: the round of the largest stopping prefix (Kip279Round)."""
    version = "2.1" if v21 else "2.0"
    if not local:
        return min(hw, leo)

    def round_(i: int) -> int:
        li = ref_epoch_file.end_of(local, i - 1, leo)
        epoch, end = ref_epoch_file.kafka_end_offset_for(remote, remote_leo, local[i - 1][0], version)
        own_epoch, own_end = ref_epoch_file.kafka_end_offset_for(local[:i], li, epoch, version)
        if end == -1:
            return min(hw, leo) if i == len(local) else li
        if own_end == -1:
            return min(end, li)
        return min(own_end, end, li) if own_epoch == epoch else -1

    return round_(max(i for i in range(1, len(local) + 1) if round_(i) != -1))


def test_kip279_spec_prefix_walk_is_the_fetcher_loop() -> None:
    """The spec's recursion-free TruncKIP279 and the reference's rounds agree on random ordered files."""
    rng = random.Random(3)
    for _ in range(20000):
        leo, remote_leo = rng.randint(0, 9), rng.randint(0, 9)
        local, remote = _random_epochs(rng, leo), _random_epochs(rng, remote_leo)
        hw, v21 = rng.randint(0, leo), rng.random() < 0.5
        args = (local, leo, hw, remote, remote_leo, v21)
        assert REF_TRUNCATE["kip279"](*args) == _spec_kip279(*args), args
