"""The commit log (MODEL.md §4-§5): ``(msg, epoch)`` entries, offsets counting messages, and the flushed
position: the prefix that is durable. A crash keeps the flushed prefix only; with synchronous flush every
append is flushed at once.

The memory backend is the list itself (the object outlives the broker's volatile state, as a disk does,
and recovery cuts it to the flushed prefix). The file backend also keeps the flushed prefix in the file
``commitlog`` under the storage root, through the storage's :class:`~autoswitch.impl.fs.FileSystem`.

On-disk format: a sequence of fixed-size records, one per message, each 28 bytes big-endian, the shape of
RocketMQ's message header (``CommitLog.calMsgLength``: TOTALSIZE, MAGICCODE, ..., BODYCRC)::

    TOTALSIZE u32 (= 28) | MAGICCODE u32 (0xDAA320A7, RocketMQ's MESSAGE_MAGIC_CODE) | msg i64 | epoch i64 |
    CRC32 u32 of the 24 bytes before it

Durability: the file is created, then its directory is fsynced, before the first record is written; a
flush appends the new records and fsyncs the file (a power cut in the middle of a flush of several records
keeps a prefix of them: more than the flushed prefix, never a hole). A truncation below the flushed prefix cuts the file in
place (``ftruncate`` + ``fsync``), as RocketMQ's ``truncateDirtyFiles`` cuts a mapped file at an offset,
rather than rewriting it under a temp name: the cut is one metadata operation that only shrinks the file
to a record boundary, the step ends only after its fsync, and whatever a power cut leaves of it (the old
length or the new one) is a valid prefix or is cut again by recovery; a rewrite would copy the whole log on
every handshake.

Recovery (on open and on a crash, RocketMQ ``recoverNormally`` / ``recoverAbnormally``) reads the records
from the start and stops at the first one that is short (a torn tail), has a wrong size or magic code, or
a wrong CRC; the file is cut there and the cut fsynced. A garbled record in the middle is cut the same way,
with everything after it (as RocketMQ does: the records behind a bad one cannot be trusted to start at a
record boundary).

A crash may tear the last durable record (CrashTorn, MODEL.md §9): :meth:`FileCommitLog.tear_last_record` cuts
the file inside it, as a write in progress when the power went leaves it, and the recovery above cuts the
torn record off.

An OSError from the file system leaves the list and the file out of step: the broker must crash and recover
from its disk (the crash-point test does), as RocketMQ stops writing on a disk error.
"""

from __future__ import annotations

import os
import struct
import zlib

from .storage import FileStorage

COMMIT_LOG_FILE = "commitlog"
MAGIC_CODE = 0xDAA320A7
_HEAD = struct.Struct(">IIqq")  # TOTALSIZE, MAGICCODE, msg, epoch: what the CRC covers
_CRC = struct.Struct(">I")
RECORD_SIZE = _HEAD.size + _CRC.size
TORN_SIZE = RECORD_SIZE // 2  # the bytes of a torn record that reached the disk


def encode_record(entry: tuple[int, int]) -> bytes:
    """One message's record."""
    head = _HEAD.pack(RECORD_SIZE, MAGIC_CODE, entry[0], entry[1])
    return head + _CRC.pack(zlib.crc32(head))


def decode_records(data: bytes) -> list[tuple[int, int]]:
    """The entries of the valid prefix of ``data``: up to the first short, misshapen or CRC-failing record."""
    entries: list[tuple[int, int]] = []
    for pos in range(0, len(data) - RECORD_SIZE + 1, RECORD_SIZE):
        head = data[pos : pos + _HEAD.size]
        size, magic, msg, epoch = _HEAD.unpack(head)
        (crc,) = _CRC.unpack_from(data, pos + _HEAD.size)
        if size != RECORD_SIZE or magic != MAGIC_CODE or crc != zlib.crc32(head):
            break
        entries.append((msg, epoch))
    return entries


class CommitLog:
    """In-memory commit log with a flushed position (the memory backend)."""

    __slots__ = ("entries", "flushed")

    def __init__(self) -> None:
        self.entries: list[tuple[int, int]] = []
        self.flushed = 0

    def __len__(self) -> int:
        return len(self.entries)

    def append(self, entry: tuple[int, int], sync: bool) -> None:
        """Append one message; with synchronous flush it is durable at once."""
        self.entries.append(entry)
        if sync:
            self.flush()

    def flush(self) -> None:
        """Make the whole log durable."""
        self.flushed = len(self.entries)

    def truncate(self, offset: int) -> None:
        """Drop the messages at or beyond ``offset`` (the handshake's truncation)."""
        if offset < len(self.entries):
            del self.entries[offset:]
        if offset < self.flushed:
            self.flushed = offset

    def recover(self) -> None:
        """After a crash: only the flushed prefix is left."""
        del self.entries[self.flushed :]

    def tear_last_record(self) -> None:
        """CrashTorn's damage (spec/Broker.tla), before the crash's recovery: the last durable record does
        not survive. In memory there are no bytes to tear: the flushed prefix loses its last record."""
        assert self.flushed > 0, "no durable record to tear"
        self.flushed -= 1


class FileCommitLog(CommitLog):
    """The file backend: the flushed prefix is also in ``commitlog`` under the storage root."""

    __slots__ = ("_fs", "_root", "_path")

    def __init__(self, storage: FileStorage) -> None:
        super().__init__()
        self._fs = storage.fs
        self._root = storage.root
        self._path = os.path.join(storage.root, COMMIT_LOG_FILE)
        self.recover()

    def flush(self) -> None:
        entries, start = self.entries, self.flushed
        if start < len(entries):
            fs, path = self._fs, self._path
            if not fs.exists(path):
                fs.create(path)
                fs.fsync_dir(self._root)
            fs.append(path, b"".join(map(encode_record, entries[start:])))
            fs.fsync(path)
        self.flushed = len(entries)

    def truncate(self, offset: int) -> None:
        if offset < self.flushed:
            self._fs.truncate(self._path, offset * RECORD_SIZE)
            self._fs.fsync(self._path)
        super().truncate(offset)

    def tear_last_record(self) -> None:
        """The file ends inside its last record (half of it written): a torn write, cut through the file
        system seam. The in-memory log is left as it was: the crash's :meth:`recover` finds the torn record."""
        assert self.flushed > 0, "no durable record to tear"
        self._fs.truncate(self._path, (self.flushed - 1) * RECORD_SIZE + TORN_SIZE)
        self._fs.fsync(self._path)

    def recover(self) -> None:
        """Read the valid prefix back from the file, and cut the file to it."""
        data = self._fs.read(self._path) or b""
        entries = decode_records(data)
        valid = len(entries) * RECORD_SIZE
        if valid < len(data):
            self._fs.truncate(self._path, valid)
            self._fs.fsync(self._path)
        self.entries = entries
        self.flushed = len(entries)


def open_commit_log(storage: object) -> CommitLog:
    """The commit log of a broker's disk: file-backed on a :class:`FileStorage`, else in memory."""
    return FileCommitLog(storage) if isinstance(storage, FileStorage) else CommitLog()
