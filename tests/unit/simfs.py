"""A simulated file system for the file backend's tests (``autoswitch.impl.fs.FileSystem``): files in memory
with a page cache and a durable state, every write-like operation numbered and offered to a hook, and the
images a process kill or a power cut leaves.

Model: a directory entry names an inode; an inode has its visible contents (the page cache) and its durable
contents (as of its last ``fsync``); each directory has its visible entries and its durable ones (as of its
last ``fsync_dir``). A kill keeps everything visible (the page cache survives the process); a power cut keeps
the durable entries with the durable contents, and a torn variant also keeps a prefix of what a file grew by
since its last fsync (a write cut in the middle). Directories themselves are created durable (``makedirs``
runs before the first step, when the roots are made).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator

import attrs

# the write-like operations of the seam; a hook sees each before it happens
WRITE_OPS = ("makedirs", "create", "append", "truncate", "fsync", "replace", "unlink", "fsync_dir")


@attrs.define
class Inode:
    data: bytearray = attrs.Factory(bytearray)  # visible (page cache)
    synced: bytes = b""  # durable (as of the last fsync)


@attrs.frozen
class Op:
    """One write-like operation: its number, kind and path."""

    index: int
    kind: str
    path: str


class SimFileSystem:
    """The simulated file system. ``hook(op)`` runs before each write-like operation (it may raise an
    OSError: the operation then fails without effect); ``ops`` counts them."""

    def __init__(self) -> None:
        self.dirs: set[str] = {"/"}
        self.inodes: dict[str, Inode] = {}  # visible entry -> inode
        self.durable: dict[str, Inode] = {}  # durable entry -> inode
        self.ops = 0
        self.hook: Callable[[Op], None] | None = None
        self.last_grown: str | None = None  # the path of the last append

    # ---- the seam ---------------------------------------------------------------------------------------

    def _op(self, kind: str, path: str) -> None:
        op = Op(self.ops, kind, path)
        self.ops += 1
        if self.hook is not None:
            self.hook(op)

    def _inode(self, path: str) -> Inode:
        inode = self.inodes.get(path)
        if inode is None:
            raise FileNotFoundError(path)
        return inode

    def _parent(self, path: str) -> str:
        parent = os.path.dirname(path)
        if parent not in self.dirs:
            raise FileNotFoundError(parent)
        return parent

    def read(self, path: str) -> bytes | None:
        inode = self.inodes.get(path)
        return None if inode is None else bytes(inode.data)

    def exists(self, path: str) -> bool:
        return path in self.inodes or path in self.dirs

    def makedirs(self, path: str) -> None:
        if path in self.dirs:
            return
        self._op("makedirs", path)
        while path not in self.dirs:
            self.dirs.add(path)
            path = os.path.dirname(path)

    def create(self, path: str) -> None:
        self._parent(path)
        self._op("create", path)
        inode = self.inodes.get(path)
        if inode is None:
            self.inodes[path] = Inode()
        else:
            inode.data.clear()

    def append(self, path: str, data: bytes) -> None:
        inode = self._inode(path)
        self._op("append", path)
        inode.data += data
        self.last_grown = path

    def truncate(self, path: str, size: int) -> None:
        inode = self._inode(path)
        self._op("truncate", path)
        del inode.data[size:]

    def fsync(self, path: str) -> None:
        inode = self._inode(path)
        self._op("fsync", path)
        inode.synced = bytes(inode.data)

    def replace(self, src: str, dst: str) -> None:
        inode = self._inode(src)
        self._parent(dst)
        self._op("replace", dst)
        self.inodes[dst] = inode
        del self.inodes[src]

    def unlink(self, path: str) -> None:
        self._inode(path)
        self._op("unlink", path)
        del self.inodes[path]

    def fsync_dir(self, path: str) -> None:
        if path not in self.dirs:
            raise FileNotFoundError(path)
        self._op("fsync_dir", path)
        for name in [n for n in self.durable if os.path.dirname(n) == path]:
            del self.durable[name]
        self.durable.update({n: i for n, i in self.inodes.items() if os.path.dirname(n) == path})

    # ---- images -----------------------------------------------------------------------------------------

    def _image(self, entries: dict[str, bytes]) -> SimFileSystem:
        image = SimFileSystem()
        image.dirs = set(self.dirs)
        image.inodes = {n: Inode(bytearray(data), data) for n, data in entries.items()}
        image.durable = dict(image.inodes)
        return image

    def killed(self) -> SimFileSystem:
        """What a process kill leaves: everything visible, now the disk's state."""
        return self._image({n: bytes(i.data) for n, i in self.inodes.items()})

    def power_cuts(self, under: str) -> Iterator[tuple[str, SimFileSystem]]:
        """What a power cut of the machine holding ``under`` leaves, as (label, image): the durable state, and
        torn variants of the last appended file that keep 1, half, and all but one of the bytes it grew by
        since its last fsync. Files elsewhere keep their visible state (another machine)."""
        elsewhere = {n: bytes(i.data) for n, i in self.inodes.items() if not n.startswith(under + "/")}
        here = {n: i.synced for n, i in self.durable.items() if n.startswith(under + "/")}
        yield "power cut", self._image({**elsewhere, **here})
        path = self.last_grown
        inode = self.durable.get(path) if path is not None else None
        if path is None or inode is None or not path.startswith(under + "/") or inode.data[: len(inode.synced)] != inode.synced:
            return
        grown = len(inode.data) - len(inode.synced)
        for keep in sorted({1, grown // 2, grown - 1} & set(range(1, grown))):
            torn = {**here, path: inode.synced + bytes(inode.data[len(inode.synced) : len(inode.synced) + keep])}
            yield f"power cut, torn write keeping {keep} of {grown} bytes", self._image({**elsewhere, **torn})
