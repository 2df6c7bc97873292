"""The commit log (MODEL.md §4-§5): ``(msg, epoch)`` entries, offsets counting messages, and the flushed
position: the prefix that is durable. A crash keeps the flushed prefix only; with synchronous flush every
append is flushed at once.

The memory backend is the list itself (the object outlives the broker's volatile state, as a disk does,
and recovery cuts it to the flushed prefix). The file backend also writes the flushed prefix to a file,
one ``msg epoch`` line per message, appended and fsynced on flush, rewritten atomically when a
truncation reaches below it, and recovery reads that file back.
"""

from __future__ import annotations

import os

from .storage import FileStorage

COMMIT_LOG_FILE = "commitlog"


class CorruptCommitLog(RuntimeError):
    """A commit log line does not parse."""


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


class FileCommitLog(CommitLog):
    """The file backend: the flushed prefix is also in ``commitlog`` under the storage root."""

    __slots__ = ("_path",)

    def __init__(self, storage: FileStorage) -> None:
        super().__init__()
        self._path = os.path.join(storage.root, COMMIT_LOG_FILE)
        self.recover()

    def flush(self) -> None:
        entries, start = self.entries, self.flushed
        if start < len(entries):
            with open(self._path, "a", encoding="utf-8") as f:
                f.write("".join(f"{m} {e}\n" for m, e in entries[start:]))
                f.flush()
                os.fsync(f.fileno())
        self.flushed = len(entries)

    def truncate(self, offset: int) -> None:
        rewrite = offset < self.flushed
        super().truncate(offset)
        if rewrite:
            partial = self._path + ".writing"
            with open(partial, "w", encoding="utf-8") as f:
                f.write("".join(f"{m} {e}\n" for m, e in self.entries[:offset]))
                f.flush()
                os.fsync(f.fileno())
            os.replace(partial, self._path)

    def recover(self) -> None:
        """Read the durable prefix back from the file."""
        entries: list[tuple[int, int]] = []
        try:
            with open(self._path, encoding="utf-8") as f:
                for line in f:
                    parts = line.split()
                    if len(parts) != 2 or not all(p.lstrip("-").isdigit() for p in parts):
                        raise CorruptCommitLog(f"{COMMIT_LOG_FILE}: cannot parse {line!r}")
                    entries.append((int(parts[0]), int(parts[1])))
        except FileNotFoundError:
            pass
        self.entries = entries
        self.flushed = len(entries)


def open_commit_log(storage: object) -> CommitLog:
    """The commit log of a broker's disk: file-backed on a :class:`FileStorage`, else in memory."""
    return FileCommitLog(storage) if isinstance(storage, FileStorage) else CommitLog()
