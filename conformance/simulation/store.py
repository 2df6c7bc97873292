"""A campaign's output folder on disk: its layout, the checks before any work, atomic writes, and the
chunk markers that make a campaign resumable.

Layout of a campaign's output folder (every path built by :func:`inside`, so nothing lands outside it)::

    campaign.json                          the campaign's parameters (a re-run must match them)
    rows/config=<name>/chunk=<k>/part.parquet, _DONE   per-walk rows; _DONE marks a finished chunk
    failures/<name>/walk-<i>.itf.json      shrunk failing walks (ITF, #meta.expect for a violation or a liveness property)
    failures/<name>/walk-<i>.html          each one's explorer page (conformance/html/report.py)
    corpus/<name>/walk-<i>.itf.json        a sample of passing walks (ITF)
    runs.jsonl                             one line per invocation: where it ran, what it did, how long
    report.md, coverage.png, violations.png    the summary
    report.html                            the summary as HTML, the plots inlined, each failure linked to its page

Every file is written under a temporary name in its folder, fsynced and renamed over its final name (then
the folder is fsynced), so a killed run leaves either the old file, the new one, or a ``.*.tmp`` that
nothing reads. A chunk's ``part.parquet`` is written before its marker; the marker ``_DONE`` is JSON::

    {"format": 1, "campaign": "<fingerprint>", "config": "<name>", "chunk": k, "rows": n,
     "steps": s, "seconds": t, "started": unix_time, "ends": [seconds to the end of each walk],
     "parquet": {"bytes": size, "sha256": "<hex>"}}

where the fingerprint is a hash of ``campaign.json``'s parameters. A chunk is done only if its marker
parses, names this campaign, configuration and chunk, and describes the ``part.parquet`` beside it (size
and SHA-256), whose rows have the row schema and are exactly the chunk's walks of its configuration.
Otherwise it is *damaged* (a garbled or truncated marker or Parquet file, a checksum that does not
match) or *foreign* (a marker of another campaign, configuration or chunk; rows of another schema or of
other walks): a resumed campaign says so and runs it again; reading rows skips and reports it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.parquet as pq
from attrs import frozen

from autoswitch.conformance.errors import InputError
from autoswitch.conformance.paths import path_under

if TYPE_CHECKING:
    from autoswitch.conformance.simulation.campaign import Campaign

ROW_SCHEMA = pa.schema([
    ("config", pa.string()), ("walk", pa.int64()), ("seed", pa.int64()), ("length", pa.int64()), ("faults", pa.int64()),
    ("actions", pa.map_(pa.string(), pa.int64())), ("distinct_states", pa.int64()), ("states", pa.list_(pa.int64())),
    ("status", pa.string()), ("failure", pa.string()), ("failure_step", pa.int64()), ("detail", pa.string()),
    ("tolerated", pa.map_(pa.string(), pa.int64())), ("shrunk_length", pa.int64()), ("shrunk_faults", pa.int64()),
    ("trace", pa.string()), ("trace_expects", pa.string()), ("fair_steps", pa.int64()), ("quiescent", pa.bool_()),
    ("parent", pa.int64()),
])
MARKER_FORMAT = 1
# What a campaign folder may hold; a folder with anything else and no campaign.json is not a campaign's.
LAYOUT = frozenset({"campaign.json", "rows", "failures", "corpus", "runs.jsonl", "report.md", "report.html", "coverage.png",
                    "violations.png"})
# The parameters a single walk (--walk) depends on: its trace may replace a campaign's only if these agree.
WALK_FIELDS = ("seed", "length", "weights", "swarm", "guide")  # and "chunk" for a guided walk (guide.py)
PLAIN_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.=-]*")


def inside(out: Path, *parts: str) -> Path:
    """``out/parts...``, where each part is a plain name (no separator, not ``..``, no leading dot or dash)
    and the result, symbolic links resolved, is still under ``out``."""
    for part in parts:
        if not PLAIN_NAME.fullmatch(part) or ".." in part:
            raise InputError(f"{part!r} cannot be a name under {out}: a plain name of letters, digits, '_', '.', '=', '-' only")
    path_under(out, *parts)  # symbolic links resolved, still under out
    return out.joinpath(*parts)


def chunk_dir(out: Path, config: str, k: int) -> Path:
    return inside(out, "rows", f"config={config}", f"chunk={k}")


def trace_path(out: Path, relative: str) -> Path:
    """A row's ``trace`` (``failures/<name>/walk-<i>.itf.json``) under ``out``."""
    return inside(out, *relative.split("/"))


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_FILE_MODE = 0o666 & ~_umask()  # what open() would give a new file (mkstemp's are 0600)


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` durably and atomically: a temporary file in the same folder, fsynced,
    renamed over ``path``, the folder fsynced. The file gets the mode a plain ``open`` would give it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, _FILE_MODE)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def fingerprint(campaign: Campaign) -> str:
    """A hash of the campaign's parameters (``campaign.json``)."""
    return hashlib.sha256(json.dumps(campaign.to_json(), sort_keys=True).encode()).hexdigest()[:16]


def _differences(there: Mapping[str, Any], here: Mapping[str, Any], fields: Sequence[str]) -> list[str]:
    return [f"{k}: {json.dumps(there.get(k))} there, {json.dumps(here.get(k))} here" for k in fields if there.get(k) != here.get(k)]


def _check_folder(out: Path, here: Mapping[str, Any], fields: Sequence[str] | None) -> bool:
    """Check that ``out`` can be a folder of the campaign ``here``: a folder (created if missing) that is
    writable and either a campaign's with the same ``fields`` (None: every parameter) or holding nothing
    but the layout's names (nothing is written in a folder that fails). Returns whether it holds a
    campaign.json."""
    if out.exists() and not out.is_dir():
        raise InputError(f"--out {out}: is a file, not a folder; give a folder (it is created if missing)")
    path = out / "campaign.json"
    there: Any = None
    if path.exists():
        try:
            there = json.loads(path.read_text())
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
            raise InputError(f"{path}: not a campaign description ({e}); give another --out, or remove the folder") from None
        if not isinstance(there, dict):
            raise InputError(f"{path}: not a campaign description (not a JSON object); give another --out, or remove the folder")
        diff = _differences(there, here, sorted(there.keys() | here.keys()) if fields is None else fields)
        if diff:
            raise InputError(f"{path}: holds a campaign with other parameters ({'; '.join(diff)}); give another --out, or the "
                             "same parameters to resume that campaign")
    elif out.is_dir():
        strays = sorted(p.name for p in out.iterdir() if p.name not in LAYOUT and not p.name.startswith("."))
        if strays:
            raise InputError(f"--out {out}: holds {', '.join(strays[:5])}{' ...' if len(strays) > 5 else ''} and no campaign.json: "
                             "not a campaign's folder; give a new or empty folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=out, prefix=".probe.", suffix=".tmp")
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        raise InputError(f"--out {out}: cannot write there ({e.strerror or e}); give a writable folder") from None
    return there is not None


def prepare(campaign: Campaign, out: Path) -> None:
    """Check ``out`` before any work and write ``campaign.json`` there, or check that the campaign there is
    this one (every parameter)."""
    here = campaign.to_json()
    if not _check_folder(out, here, None):
        write_atomic(out / "campaign.json", (json.dumps(here, indent=1) + "\n").encode())


def prepare_walk(campaign: Campaign, out: Path) -> None:
    """Check ``out`` before re-running one walk there: a campaign's folder must agree on WALK_FIELDS, and on the chunk
    size for a guided walk (the walk's trace replaces that campaign's)."""
    _check_folder(out, campaign.to_json(), WALK_FIELDS + (("chunk",) if campaign.guide else ()))


@frozen
class ChunkProblem:
    """Why a chunk is not done: ``unfinished`` (no marker: never run or killed), ``damaged`` or ``foreign``."""

    kind: str
    reason: str

    def __str__(self) -> str:
        return self.reason if self.kind == "unfinished" else f"{self.kind}: {self.reason}"


def chunk_walks(campaign: Campaign, k: int) -> range:
    return range(k * campaign.chunk, min((k + 1) * campaign.chunk, campaign.walks))


def _read_marker(folder: Path) -> dict[str, Any] | ChunkProblem:
    try:
        marker = json.loads((folder / "_DONE").read_text())
    except FileNotFoundError:
        return ChunkProblem("unfinished", "no _DONE marker")
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        return ChunkProblem("damaged", f"_DONE is not a marker ({type(e).__name__}: {e})")
    types = {"format": int, "campaign": str, "config": str, "chunk": int, "rows": int, "steps": int, "parquet": dict}
    if not isinstance(marker, dict) or any(not isinstance(marker.get(k), t) for k, t in types.items()):
        return ChunkProblem("damaged", f"_DONE lacks a field of {', '.join(types)} or has the wrong type")
    parquet = marker["parquet"]
    if not isinstance(parquet.get("bytes"), int) or not isinstance(parquet.get("sha256"), str):
        return ChunkProblem("damaged", "_DONE's parquet entry lacks bytes or sha256")
    return marker


def read_chunk(campaign: Campaign, out: Path, config: str, k: int) -> list[dict[str, Any]] | ChunkProblem:
    """The rows of chunk ``k`` of ``config`` if it is done (module docstring), else why not."""
    folder = chunk_dir(out, config, k)
    marker = _read_marker(folder)
    if isinstance(marker, ChunkProblem):
        return marker
    if marker["format"] != MARKER_FORMAT or marker["campaign"] != fingerprint(campaign):
        return ChunkProblem("foreign", f"_DONE belongs to another campaign (format {marker['format']}, campaign {marker['campaign']})")
    if (marker["config"], marker["chunk"]) != (config, k):
        return ChunkProblem("foreign", f"_DONE is chunk {marker['chunk']} of {marker['config']}")
    try:
        data = (folder / "part.parquet").read_bytes()
    except OSError as e:
        return ChunkProblem("damaged", f"part.parquet unreadable ({e.strerror or e})")
    size, digest = len(data), hashlib.sha256(data).hexdigest()
    if (size, digest) != (marker["parquet"]["bytes"], marker["parquet"]["sha256"]):
        return ChunkProblem("damaged", f"part.parquet ({size} bytes, SHA-256 {digest[:12]}) does not match its marker "
                                       f"({marker['parquet']['bytes']} bytes, SHA-256 {marker['parquet']['sha256'][:12]})")
    try:
        table = pq.read_table(pa.BufferReader(data))
    except Exception as e:  # noqa: BLE001 - pyarrow raises many kinds for a garbled file; each means damaged
        return ChunkProblem("damaged", f"part.parquet unreadable ({type(e).__name__}: {e})")
    if not table.schema.equals(ROW_SCHEMA):
        return ChunkProblem("foreign", "part.parquet has rows of another schema")
    expected = chunk_walks(campaign, k)
    if table.column("walk").to_pylist() != list(expected) or set(table.column("config").to_pylist()) != {config}:
        return ChunkProblem("foreign", f"part.parquet holds rows other than walks {expected.start}..{expected.stop - 1} of {config}")
    if marker["rows"] != len(expected):
        return ChunkProblem("damaged", f"_DONE counts {marker['rows']} rows, part.parquet has {len(expected)}")
    rows = table.to_pylist()
    for row in rows:
        row["actions"], row["tolerated"] = dict(row["actions"]), dict(row["tolerated"])
    return rows


def clear_chunk(folder: Path) -> None:
    """Remove a chunk's files (its marker first) before it runs: what a damaged or killed run left."""
    if not folder.is_dir():
        return
    (folder / "_DONE").unlink(missing_ok=True)
    for path in folder.iterdir():
        if path.is_file() or path.is_symlink():
            path.unlink()


def write_chunk(campaign: Campaign, out: Path, config: str, k: int, rows: list[dict[str, Any]], seconds: float,
                started: float = 0.0, ends: Sequence[float] = ()) -> dict[str, Any]:
    """Write chunk ``k``'s rows as ``part.parquet``, then its marker; returns the marker. The marker also holds the
    chunk's timing (not part of its rows, which depend on the campaign alone): ``started`` (Unix time) and ``ends``
    (seconds from then to the end of each walk)."""
    folder = chunk_dir(out, config, k)
    sink = pa.BufferOutputStream()
    pq.write_table(pa.Table.from_pylist(rows, schema=ROW_SCHEMA), sink)
    data = sink.getvalue().to_pybytes()
    write_atomic(folder / "part.parquet", data)
    marker = {"format": MARKER_FORMAT, "campaign": fingerprint(campaign), "config": config, "chunk": k, "rows": len(rows),
              "steps": sum(r["length"] for r in rows), "seconds": round(seconds, 3), "started": started, "ends": list(ends),
              "parquet": {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}}
    write_atomic(folder / "_DONE", json.dumps(marker).encode())
    return marker


def timings(campaign: Campaign, out: Path) -> dict[tuple[str, int], tuple[float, list[float]]]:
    """Each done chunk's timing from its marker (write_chunk): (configuration, chunk) -> (started, ends)."""
    out_times = {}
    for config, k in campaign.tasks():
        marker = _read_marker(chunk_dir(out, config, k))
        if not isinstance(marker, ChunkProblem) and isinstance(marker.get("ends"), list):
            out_times[(config, k)] = (float(marker.get("started", 0.0)), [float(e) for e in marker["ends"]])
    return out_times


def load_rows(campaign: Campaign, out: Path) -> tuple[list[dict[str, Any]], dict[tuple[str, int], ChunkProblem]]:
    """Every done chunk's rows, in task order (configuration, then walk index), and the chunks that are
    not done with the reason."""
    rows: list[dict[str, Any]] = []
    missing: dict[tuple[str, int], ChunkProblem] = {}
    for config, k in campaign.tasks():
        got = read_chunk(campaign, out, config, k)
        if isinstance(got, ChunkProblem):
            missing[(config, k)] = got
        else:
            rows.extend(got)
    return rows, missing
