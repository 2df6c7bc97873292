"""The file backend's crash safety (issue 10, deliverable 3), case by case: the commit log's directory fsync,
a torn or garbled record cut on recovery, a durable truncation, recovery on every open, an I/O error that
leaves the old file, and process names that cannot become directories. ``test_crash_points.py`` runs the
same backend through every write of the committed walks."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from simfs import Op, SimFileSystem

from autoswitch.conformance.engines.impl import DEFAULT_CONFIG, ImplSystem
from autoswitch.conformance.errors import InputError
from autoswitch.impl.broker import CONFIRM_OFFSET_FILE, BrokerProcess, CheckCodeClock
from autoswitch.impl.client import ControllerClient
from autoswitch.impl.commit_log import COMMIT_LOG_FILE, RECORD_SIZE, FileCommitLog, encode_record
from autoswitch.impl.epoch_file import EPOCH_FILE
from autoswitch.impl.ha import BrokerSet
from autoswitch.impl.storage import FileStorage, MemoryStorage, Storage, UnsafeName, safe_dir_name

ROOT = "/disk"


def _cut(fs: SimFileSystem) -> SimFileSystem:
    """The disk after a power cut (only what was fsynced)."""
    return next(fs.power_cuts(ROOT))[1]


def _log_on(fs: SimFileSystem) -> FileCommitLog:
    return FileCommitLog(FileStorage(ROOT, fs))


def _open(storage: Storage) -> BrokerProcess:
    return BrokerProcess("p1", DEFAULT_CONFIG, storage, "addr", ControllerClient(None),  # type: ignore[arg-type]
                         CheckCodeClock(), lambda *_: None, BrokerSet())


# ---- the commit log's writes ----------------------------------------------------------------------------


def test_the_commit_log_fsyncs_its_directory_when_it_creates_the_file() -> None:
    fs = SimFileSystem()
    ops: list[Op] = []
    log = _log_on(fs)
    fs.hook = ops.append
    log.append((1, 1), sync=True)
    path = f"{ROOT}/{COMMIT_LOG_FILE}"
    assert [(op.kind, op.path) for op in ops] == [("create", path), ("fsync_dir", ROOT), ("append", path), ("fsync", path)]
    assert _log_on(_cut(fs)).entries == [(1, 1)]  # durable once the step returns


def test_a_truncation_is_durable_after_a_power_cut() -> None:
    fs = SimFileSystem()
    log = _log_on(fs)
    for msg in (1, 2, 3):
        log.append((msg, 1), sync=True)
    log.truncate(1)
    assert _log_on(_cut(fs)).entries == [(1, 1)]
    log.append((9, 2), sync=True)
    assert _log_on(_cut(fs)).entries == [(1, 1), (9, 2)]


def test_an_unflushed_suffix_is_not_on_disk() -> None:
    fs = SimFileSystem()
    log = _log_on(fs)
    log.append((1, 1), sync=True)
    log.append((2, 1), sync=False)
    assert _log_on(fs.killed()).entries == [(1, 1)]
    log.flush()
    assert _log_on(_cut(fs)).entries == [(1, 1), (2, 1)]


# ---- recovery ------------------------------------------------------------------------------------------


def _three_records(tmp_path: Path) -> Path:
    log = FileCommitLog(FileStorage(str(tmp_path)))
    for msg in (1, 2, 3):
        log.append((msg, 1), sync=True)
    return tmp_path / COMMIT_LOG_FILE


@pytest.mark.parametrize("keep", [1, RECORD_SIZE // 2, RECORD_SIZE - 1])
def test_a_torn_last_record_is_cut_on_recovery(tmp_path: Path, keep: int) -> None:
    path = _three_records(tmp_path)
    with open(path, "ab") as f:
        f.write(encode_record((4, 2))[:keep])
    log = FileCommitLog(FileStorage(str(tmp_path)))
    assert (log.entries, log.flushed) == ([(1, 1), (2, 1), (3, 1)], 3)
    assert path.stat().st_size == 3 * RECORD_SIZE  # the tail is cut on disk, not only skipped
    log.append((5, 2), sync=True)
    assert FileCommitLog(FileStorage(str(tmp_path))).entries == [(1, 1), (2, 1), (3, 1), (5, 2)]


@pytest.mark.parametrize("byte", [0, 5, 9, 20, RECORD_SIZE - 1])  # size, magic code, msg, epoch, CRC
def test_a_garbled_record_is_cut_with_everything_after_it(tmp_path: Path, byte: int) -> None:
    path = _three_records(tmp_path)
    data = bytearray(path.read_bytes())
    data[RECORD_SIZE + byte] ^= 0x40  # the second record
    path.write_bytes(bytes(data))
    log = FileCommitLog(FileStorage(str(tmp_path)))
    assert log.entries == [(1, 1)]
    assert path.stat().st_size == RECORD_SIZE


def test_opening_a_disk_recovers_it(tmp_path: Path) -> None:
    """A broker opened from its disk (not only after crash()) clamps a confirmOffset checkpoint above its log
    end, on disk too, and keeps the epoch entries starting at or beyond it (RocketMQ's recovery on start never
    cuts the epoch file: spec/README.md, refinement 38)."""
    _three_records(tmp_path)
    storage = FileStorage(str(tmp_path))
    storage.write(CONFIRM_OFFSET_FILE, "5")
    storage.write(EPOCH_FILE, "1-0\n2-3\n3-4\n")
    broker = _open(storage)
    assert (len(broker.commit_log.entries), broker.confirm_offset) == (3, 3)
    assert broker.epoch_file.entries() == [(1, 0), (2, 3), (3, 4)]
    assert (storage.read(CONFIRM_OFFSET_FILE), storage.read(EPOCH_FILE)) == ("3", "1-0\n2-3\n3-4\n")


def test_opening_a_memory_disk_keeps_its_epoch_file() -> None:
    """The memory backend keeps no log in its storage: a broker opened on it has an empty log and its epoch file."""
    storage = MemoryStorage()
    storage.write(EPOCH_FILE, "1-0\n2-3\n")
    broker = _open(storage)
    assert (broker.commit_log.entries, broker.epoch_file.entries()) == ([], [(1, 0), (2, 3)])


def test_a_failed_write_leaves_the_old_file_and_no_partial() -> None:
    fs = SimFileSystem()
    storage = FileStorage(ROOT, fs)
    storage.write(EPOCH_FILE, "1-0\n")

    def fail_on_append(op: Op) -> None:
        if op.kind == "append":
            raise OSError(28, "No space left on device")

    fs.hook = fail_on_append
    with pytest.raises(OSError):
        storage.write(EPOCH_FILE, "1-0\n2-5\n")
    assert storage.read(EPOCH_FILE) == "1-0\n" and sorted(fs.inodes) == [f"{ROOT}/{EPOCH_FILE}"]


def test_an_atomic_write_survives_a_power_cut_whole_or_not_at_all() -> None:
    fs = SimFileSystem()
    storage = FileStorage(ROOT, fs)
    storage.write(EPOCH_FILE, "1-0\n")
    images: list[SimFileSystem] = []
    fs.hook = lambda op: images.append(_cut(fs))
    storage.write(EPOCH_FILE, "1-0\n2-5\n")
    images.append(_cut(fs))
    contents = [FileStorage(ROOT, image).read(EPOCH_FILE) for image in images]
    assert set(contents) == {"1-0\n", "1-0\n2-5\n"} and contents[-1] == "1-0\n2-5\n"


# ---- process names as directory names -------------------------------------------------------------------

UNSAFE = ["", ".", "..", "a/b", "../escape", "a\\b", "a\x00b", "a\nb", "\x1b[31mred", "x" * 256, "é" * 128]


@pytest.mark.parametrize("name", UNSAFE, ids=repr)
def test_unsafe_process_names_are_refused(name: str, tmp_path: Path) -> None:
    with pytest.raises(UnsafeName, match="process name"):
        safe_dir_name(name)
    root = tmp_path / "disks"
    with pytest.raises(InputError, match="process name") as refused:
        ImplSystem({"p1": "addr1", name: "addr2"}, storage="file", root=str(root))
    assert repr(name[:80]) in str(refused.value)
    assert sorted(os.listdir(tmp_path)) == (["disks"] if root.exists() else [])  # nothing made outside the root


@pytest.mark.parametrize("name", ["p1", "broker-a_0", "é" * 127, "x" * 255, "a b"])
def test_plain_process_names_are_directories(name: str, tmp_path: Path) -> None:
    assert safe_dir_name(name) == name
    ImplSystem({name: "addr"}, storage="file", root=str(tmp_path))
    assert os.listdir(tmp_path) == [name]
