"""A broker's disk (MODEL.md §4): named small files that survive a crash.

``MemoryStorage`` is the fast backend for replay and model checking; ``FileStorage`` writes to a
directory atomically and durably (write a temp name, fsync it, ``os.replace``, fsync the directory), so
that a crash or a power cut leaves either the old content or the new one, never a partial file. Its disk
operations go through a :class:`~autoswitch.impl.fs.FileSystem` (the real one by default), the seam the
crash-point test cuts at every write.
"""

from __future__ import annotations

import os
from typing import Protocol

from .fs import OS_FILE_SYSTEM, FileSystem

NAME_MAX = 255  # bytes of one directory entry's name (Linux NAME_MAX)


class UnsafeName(ValueError):
    """A name that cannot be one directory entry under a root (empty, ``.``, ``..``, a separator, a
    control character, too long)."""


def safe_dir_name(name: str) -> str:
    """``name`` if it is one plain directory entry, else :class:`UnsafeName` naming it: a process name
    becomes its disk's directory under the storage root, and must not reach outside it."""
    problem = None
    if not isinstance(name, str) or not name:
        problem = "is empty" if name == "" else "is not a string"
    elif name in (".", ".."):
        problem = "is a relative directory"
    elif "/" in name or "\\" in name or os.sep in name or (os.altsep and os.altsep in name):
        problem = "holds a path separator"
    elif not name.isprintable():
        problem = "holds a control or non-printable character"
    else:
        try:
            if len(name.encode("utf-8")) > NAME_MAX:
                problem = f"is longer than {NAME_MAX} bytes"
        except UnicodeEncodeError:
            problem = "is not valid Unicode"
    if problem is not None:
        raise UnsafeName(f"process name {name[:80]!r} {problem}: it cannot name a directory")
    return name


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
    """Files under ``root`` (created durably), replaced atomically; deletions are made durable too."""

    __slots__ = ("root", "fs")

    durable = True

    PARTIAL_SUFFIX = ".writing"

    def __init__(self, root: str, fs: FileSystem = OS_FILE_SYSTEM) -> None:
        self.root = root
        self.fs = fs
        fs.makedirs(root)

    def path(self, name: str) -> str:
        """The path of file ``name``; ValueError unless it is a plain name (not a temp name)."""
        if not name or os.sep in name or name.endswith(self.PARTIAL_SUFFIX) or name in (".", ".."):
            raise ValueError(f"invalid file name {name!r}")
        return os.path.join(self.root, name)

    def read(self, name: str) -> str | None:
        data = self.fs.read(self.path(name))
        return None if data is None else data.decode("utf-8")

    def write(self, name: str, content: str) -> None:
        fs = self.fs
        path = self.path(name)
        partial = path + self.PARTIAL_SUFFIX
        try:
            fs.create(partial)
            fs.append(partial, content.encode("utf-8"))
            fs.fsync(partial)
            fs.replace(partial, path)
        except BaseException:
            if fs.exists(partial):
                fs.unlink(partial)
            raise
        fs.fsync_dir(self.root)

    def delete(self, name: str) -> None:
        try:
            self.fs.unlink(self.path(name))
        except FileNotFoundError:
            return
        self.fs.fsync_dir(self.root)

    def exists(self, name: str) -> bool:
        return self.fs.exists(self.path(name))
