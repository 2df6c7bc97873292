"""A broker's disk (MODEL.md §4): named small files that survive a crash.

``MemoryStorage`` is the fast backend for replay and model checking; ``FileStorage`` writes to a
directory atomically and durably (write a temp name, flush + fsync, ``os.replace``, fsync the directory),
so that a crash leaves either the old content or the new one, never a partial file.
"""

from __future__ import annotations

import os
from typing import Protocol


class Storage(Protocol):
    """Named text files. ``write`` is atomic and durable; ``read`` of a missing file is None.

    ``durable``: the files live outside the process (the file backend), so a recovering broker reads its
    epoch file and confirmOffset checkpoint back. Without it (the memory backend) the broker's objects are
    the disk already: they outlive its volatile state, and the checkpoint file is not written.
    """

    @property
    def durable(self) -> bool: ...

    def read(self, name: str) -> str | None: ...

    def write(self, name: str, content: str) -> None: ...

    def delete(self, name: str) -> None: ...

    def exists(self, name: str) -> bool: ...


class MemoryStorage:
    """Files as a dict; it outlives the broker's volatile state, as a disk does."""

    __slots__ = ("_files", "read", "exists")

    durable = False

    def __init__(self) -> None:
        self._files: dict[str, str] = {}
        self.read = self._files.get
        self.exists = self._files.__contains__

    def write(self, name: str, content: str) -> None:
        self._files[name] = content

    def delete(self, name: str) -> None:
        self._files.pop(name, None)


class FileStorage:
    """Files under ``root``, replaced atomically; deletions are made durable too."""

    __slots__ = ("root",)

    durable = True

    _PARTIAL_SUFFIX = ".writing"

    def __init__(self, root: str) -> None:
        self.root = root
        os.makedirs(root, exist_ok=True)

    def _path(self, name: str) -> str:
        if not name or os.sep in name or name.endswith(self._PARTIAL_SUFFIX) or name in (".", ".."):
            raise ValueError(f"invalid file name {name!r}")
        return os.path.join(self.root, name)

    def _sync_directory(self) -> None:
        fd = os.open(self.root, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    def read(self, name: str) -> str | None:
        try:
            with open(self._path(name), encoding="utf-8") as f:
                return f.read()
        except FileNotFoundError:
            return None

    def write(self, name: str, content: str) -> None:
        path = self._path(name)
        partial = path + self._PARTIAL_SUFFIX
        try:
            with open(partial, "w", encoding="utf-8") as f:
                f.write(content)
                f.flush()
                os.fsync(f.fileno())
            os.replace(partial, path)
        except BaseException:
            if os.path.exists(partial):
                os.unlink(partial)
            raise
        self._sync_directory()

    def delete(self, name: str) -> None:
        try:
            os.unlink(self._path(name))
        except FileNotFoundError:
            return
        self._sync_directory()

    def exists(self, name: str) -> bool:
        return os.path.exists(self._path(name))
