"""Where a parallel search (parallel.py) keeps what it has seen, as TLC keeps its FPSet and its trace file:

- :class:`FingerprintStore`: fingerprint -> the parent's fingerprint (None: an initial state), in a dict up to a limit,
  then spilled to an SQLite table on disk (the dict is written there and emptied each time it reaches the limit);
  lookups go by batches, one per level.
- :class:`Checkpoint`: a folder holding, after each complete level, every worker's frontier, an append-only log of its
  store's entries and the search's counters, with the identity of the configuration and of the code that fingerprinted
  the states; a search given the same folder resumes from the last complete level. Every file is JSON (the states by
  codec.py: reading one builds data, never runs code), and ``meta.json`` holds each file's length, count and SHA-256:
  a damaged or altered folder is refused, naming the file, before anything is read from it.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from autoswitch.conformance.errors import InputError

FORMAT = 2  # the checkpoint's layout (2: JSON files with digests; 1 was pickled); a folder of another layout is refused
_BATCH = 500  # fingerprints per SQL query (SQLite's default limit is 999 parameters)
_INT64 = 1 << 63


def _sql(fp: int) -> int | bytes:
    """A fingerprint as SQLite stores it: a 64-bit integer, else its bytes."""
    return fp if -_INT64 <= fp < _INT64 else fp.to_bytes((fp.bit_length() + 8) // 8, "big", signed=True)


def _int(value: int | bytes | None) -> int | None:
    return int.from_bytes(value, "big", signed=True) if isinstance(value, bytes) else value


class FingerprintStore:
    """The fingerprints one worker owns, each with its parent's. ``limit``: how many stay in memory (None: all);
    beyond it they go to an SQLite file in ``folder`` (a temporary folder when None), removed by :meth:`close`."""

    def __init__(self, limit: int | None = None, folder: Path | None = None):
        self.limit = limit
        self.folder = folder
        self.memory: dict[int, int | None] = {}
        self.spilled = 0
        self._db: sqlite3.Connection | None = None
        self._path: Path | None = None

    def __len__(self) -> int:
        return len(self.memory) + self.spilled

    def _disk(self) -> sqlite3.Connection:
        if self._db is None:
            fd, name = tempfile.mkstemp(prefix="fingerprints-", suffix=".sqlite", dir=self.folder)
            os.close(fd)
            self._path = Path(name)
            self._db = sqlite3.connect(name)
            self._db.executescript("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
                                   "CREATE TABLE seen (fp PRIMARY KEY, parent) WITHOUT ROWID;")
        return self._db

    def known(self, fps: Iterable[int]) -> set[int]:
        """Those of ``fps`` in the store."""
        found = set()
        rest = []
        for fp in fps:
            if fp in self.memory:
                found.add(fp)
            else:
                rest.append(fp)
        if self.spilled and rest:
            db = self._disk()
            for i in range(0, len(rest), _BATCH):
                keys = {_sql(fp): fp for fp in rest[i:i + _BATCH]}
                query = f"SELECT fp FROM seen WHERE fp IN ({','.join('?' * len(keys))})"
                found.update(keys[row[0]] for row in db.execute(query, list(keys)))
        return found

    def add(self, entries: Iterable[tuple[int, int | None]]) -> None:
        """Add new fingerprints (none already in the store) with their parents'."""
        self.memory.update(entries)
        if self.limit is not None and len(self.memory) > self.limit:
            db = self._disk()
            with db:
                db.executemany("INSERT INTO seen VALUES (?, ?)",
                               ((_sql(fp), None if p is None else _sql(p)) for fp, p in self.memory.items()))
            self.spilled += len(self.memory)
            self.memory.clear()

    def parent(self, fp: int) -> int | None:
        """The parent of a fingerprint in the store (None: an initial state)."""
        if fp in self.memory:
            return self.memory[fp]
        row = self._disk().execute("SELECT parent FROM seen WHERE fp = ?", (_sql(fp),)).fetchone()
        if row is None:
            raise KeyError(fp)
        return _int(row[0])

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
        if self._path is not None:
            self._path.unlink(missing_ok=True)
            self._path = None


# --- the checkpoint -----------------------------------------------------------------------------------

def code_identity(modules: Sequence[Any]) -> str:
    """A digest of the source of ``modules`` (and of every module of a package among them): a checkpoint written by
    other code may hold other fingerprints for the same states."""
    digest = hashlib.sha256()
    for module in modules:
        path = Path(module.__file__)
        files = sorted(path.parent.rglob("*.py")) if path.name == "__init__.py" else [path]
        for f in files:
            digest.update(f.name.encode() + b"\0" + f.read_bytes())
    return digest.hexdigest()


class Checkpoint:
    """The checkpoint folder of one search: ``meta.json`` (written last, atomically: the level it names is complete),
    per worker ``w<i>.log`` (its store's entries, appended level by level: ``meta.json`` records each log's length) and
    ``w<i>-<depth>.frontier`` (the states at that depth, not yet expanded)."""

    def __init__(self, folder: Path):
        self.folder = folder

    @property
    def meta_path(self) -> Path:
        return self.folder / "meta.json"

    def log(self, worker: int) -> Path:
        return self.folder / f"w{worker}.log"

    def frontier(self, worker: int, depth: int) -> Path:
        return self.folder / f"w{worker}-{depth}.frontier"

    def load(self, identity: Mapping[str, Any]) -> dict[str, Any] | None:
        """The saved search (None: the folder holds none yet); InputError if it was saved for another identity."""
        if not self.meta_path.exists():
            return None
        try:
            meta = json.loads(self.meta_path.read_text())
            saved = meta["identity"]
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise InputError(f"{self.meta_path}: not a checkpoint of autoswitch check ({e}); give another --checkpoint "
                             "folder or remove this one") from None
        if not isinstance(saved, dict) or saved.get("format") != FORMAT:
            raise InputError(f"{self.folder}: a checkpoint of layout {saved.get('format')}, this version writes layout "
                             f"{FORMAT}: give another --checkpoint folder or remove this one")
        differ = [k for k in identity if saved.get(k) != identity[k]]
        if differ:
            why = {"config": "another configuration", "source": "another text of the configuration",
                   "properties": "other properties", "symmetry": "another --symmetry", "code": "another version of the model",
                   "workers": f"--workers {saved.get('workers')}",
                   "initial": "other fingerprints of the initial states (another Python build or another encoding of the states: "
                              "conformance/check/fingerprint.py)"}
            raise InputError(f"{self.folder}: this checkpoint was saved by a search with "
                             f"{', '.join(why.get(k, k) for k in differ)} ({saved.get('config')}): resume it with the same "
                             "arguments, or give another --checkpoint folder")
        self._verify(meta, identity)
        return meta

    def _verify(self, meta: Mapping[str, Any], identity: Mapping[str, Any]) -> None:
        """Every file the saved level needs is there, as long as meta.json says and with its digest."""
        def damaged(path: Path, why: str) -> InputError:
            return InputError(f"{path}: a damaged checkpoint ({why}); remove the folder {self.folder} or give another --checkpoint")

        counters = ("depth", "distinct", "generated", "queue")
        if not all(type(meta.get(k)) is int and meta[k] >= 0 for k in counters) or not isinstance(meta.get("logs"), list) \
                or len(meta["logs"]) != identity.get("workers"):
            raise damaged(self.meta_path, "its counters or its list of worker files are not what a search writes")
        for i, record in enumerate(meta["logs"]):
            if not isinstance(record, dict) or not all(type(record.get(k)) is int and record[k] >= 0 for k in ("log", "frontier")) \
                    or not all(isinstance(record.get(k), str) for k in ("logDigest", "frontierDigest")):
                raise damaged(self.meta_path, f"worker {i}'s record is not what a search writes")
            for path, length, digest in ((self.log(i), record["log"], record["logDigest"]),
                                         (self.frontier(i, meta["depth"]), None, record["frontierDigest"])):
                if not path.is_file():
                    raise damaged(path, "missing")
                if length is not None and path.stat().st_size < length:
                    raise damaged(path, f"{path.stat().st_size} bytes, meta.json says at least {length}")
                if file_digest(path, length) != digest:
                    raise damaged(path, "its content is not what was saved (SHA-256 differs)")

    def clear_uncommitted(self) -> None:
        """Before a fresh search (no meta.json): remove the worker files a search stopped before its first commit left,
        which no level of this search wrote."""
        for old in (*self.folder.glob("w*.log"), *self.folder.glob("w*-*.frontier")):
            old.unlink(missing_ok=True)

    def save(self, identity: Mapping[str, Any], state: Mapping[str, Any]) -> None:
        """Commit a level: meta.json replaced atomically, then the older frontiers removed."""
        tmp = self.meta_path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"identity": dict(identity), **state}, indent=1))
        os.replace(tmp, self.meta_path)
        depth = state["depth"]
        for old in self.folder.glob("w*-*.frontier"):
            if int(old.stem.rpartition("-")[2]) != depth:
                old.unlink(missing_ok=True)


def prefix_hash(path: Path, length: int | None = None) -> Any:
    """The SHA-256 object of ``path``'s first ``length`` bytes (None: all of it), to read or to go on with."""
    digest = hashlib.sha256()
    left = path.stat().st_size if length is None else length
    with path.open("rb") as f:
        while left > 0 and (chunk := f.read(min(left, 1 << 20))):
            digest.update(chunk)
            left -= len(chunk)
    return digest


def file_digest(path: Path, length: int | None = None) -> str:
    """The SHA-256 of ``path``'s first ``length`` bytes (None: all of it), in hex."""
    return str(prefix_hash(path, length).hexdigest())


def append_log(path: Path, entries: Sequence[tuple[int, int | None]], digest: Any) -> int:
    """Append one level's store entries to a worker's log, one JSON line, and to ``digest`` (the log's running SHA-256:
    the whole log is not read again at each level); the log's new length."""
    line = json.dumps([[fp, parent] for fp, parent in entries]).encode() + b"\n"
    digest.update(line)
    with path.open("ab") as f:
        f.write(line)
        return f.tell()


def read_log(path: Path, length: int) -> Iterator[list[tuple[int, int | None]]]:
    """The entries of a worker's log up to ``length`` (what a committed level wrote), level by level; the log is cut
    to that length first (a level interrupted after its worker wrote). A line that is not a level's entries is an
    InputError naming the file and the line."""
    if not path.exists():
        return
    with path.open("r+b") as f:
        f.truncate(length)
        f.seek(0)
        for number, line in enumerate(f, 1):
            try:
                entries = json.loads(line)
            except ValueError:
                entries = None
            if not isinstance(entries, list) or not all(
                    isinstance(e, list) and len(e) == 2 and type(e[0]) is int and (e[1] is None or type(e[1]) is int)
                    for e in entries):
                raise InputError(f"{path}: line {number}: not a level's [fingerprint, parent] entries")
            yield [(fp, parent) for fp, parent in entries]
