"""The file-system seam of the file backend (MODEL.md §4): every operation of
:class:`~autoswitch.impl.storage.FileStorage` and :class:`~autoswitch.impl.commit_log.FileCommitLog` on the disk
goes through one :class:`FileSystem`, so that a test can fail, stop or power-cut the backend at any single
write-like operation (tests/unit/test_crash_points.py runs it on a simulated file system).

The operations are by path, one system call each (``append`` loops on short writes): the write-like ones are
``makedirs``, ``create``, ``append``, ``truncate``, ``fsync``, ``replace``, ``unlink`` and ``fsync_dir``.
:data:`OS_FILE_SYSTEM` makes the real calls. ``fsync`` opens the file read-only: on Linux fsync flushes the
inode's dirty pages whatever descriptor it is called on.
"""

from __future__ import annotations

import os
from typing import Protocol


class FileSystem(Protocol):
    """Files by path. Durability is explicit: file contents survive a power cut as of their last ``fsync``,
    directory entries (creates, renames, unlinks) as of the last ``fsync_dir`` of their directory."""

    def read(self, path: str) -> bytes | None:
        """The file's contents, None if it does not exist."""
        ...

    def exists(self, path: str) -> bool: ...

    def makedirs(self, path: str) -> None:
        """Create ``path`` and its missing parents, each made durable in its parent directory."""
        ...

    def create(self, path: str) -> None:
        """Create an empty file, or empty an existing one (``O_CREAT | O_TRUNC``)."""
        ...

    def append(self, path: str, data: bytes) -> None:
        """Write ``data`` at the end of an existing file."""
        ...

    def truncate(self, path: str, size: int) -> None:
        """Cut an existing file to ``size`` bytes."""
        ...

    def fsync(self, path: str) -> None:
        """Make the file's contents durable."""
        ...

    def replace(self, src: str, dst: str) -> None:
        """Rename ``src`` to ``dst`` atomically, replacing ``dst`` (``os.replace``)."""
        ...

    def unlink(self, path: str) -> None:
        """Remove the file; FileNotFoundError if there is none."""
        ...

    def fsync_dir(self, path: str) -> None:
        """Make the directory's entries durable."""
        ...


class OsFileSystem:
    """The real file system."""

    __slots__ = ()

    def read(self, path: str) -> bytes | None:
        try:
            with open(path, "rb") as f:
                return f.read()
        except FileNotFoundError:
            return None

    def exists(self, path: str) -> bool:
        return os.path.exists(path)

    def makedirs(self, path: str) -> None:
        if os.path.isdir(path):
            return
        parent = os.path.dirname(os.path.abspath(path))
        self.makedirs(parent)
        os.mkdir(path)
        self.fsync_dir(parent)

    def create(self, path: str) -> None:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644))

    def append(self, path: str, data: bytes) -> None:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)

    def truncate(self, path: str, size: int) -> None:
        os.truncate(path, size)

    def fsync(self, path: str) -> None:
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    def replace(self, src: str, dst: str) -> None:
        os.replace(src, dst)

    def unlink(self, path: str) -> None:
        os.unlink(path)

    def fsync_dir(self, path: str) -> None:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


OS_FILE_SYSTEM: FileSystem = OsFileSystem()
