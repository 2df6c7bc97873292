"""Many logs at once (``autoswitch validate LOG...``): each searched alone (search.validate), in this process or on
Spark, one row each; a bad log is a row of its own (exit 2) while the others run. The exit code is the worst row's
(errors.batch_exit: an internal error, then a refused log, then a bad one)."""

from __future__ import annotations

import functools
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from attrs import frozen

from autoswitch.conformance.errors import EXIT_INPUT, EXIT_INTERNAL, EXIT_OK, EXIT_VERDICT, InputError, batch_exit
from autoswitch.conformance.logs.events import log_name
from autoswitch.conformance.logs.search import EXPLAINED, GAVE_UP, MAX_STATES, REFUSED, Progress, validate
from autoswitch.conformance.trace.itf import printable

MALFORMED, ERROR = "malformed", "error"
EXIT = {EXPLAINED: EXIT_OK, REFUSED: EXIT_VERDICT, GAVE_UP: EXIT_VERDICT, MALFORMED: EXIT_INPUT, ERROR: EXIT_INTERNAL}
SMALL_BATCH = 64  # logs: a batch this small runs in this process unless a Spark master is named


@frozen
class Settings:
    """What every log of a batch is searched with: the configuration of a log without a header (a simulation
    configuration's name), the gap, the skew, the engine and the search's budget."""

    config: str | None = None
    max_gap: int | None = None  # search.validate's default: MAX_GAP, or the clock's where it counts steps
    skew: int = 0
    engine: str = "reference"
    max_states: int = MAX_STATES


@frozen
class Row:
    """One log's outcome: its verdict's status (or ``malformed``, ``error``), size and text (Verdict.describe, or the
    error), and the explanation as ITF text when explained."""

    path: str
    name: str
    status: str
    events: int = 0
    expanded: int = 0
    memo: int = 0
    seconds: float = 0.0
    text: str = ""
    itf: str | None = None

    @property
    def code(self) -> int:
        return EXIT[self.status]


def sim_config(name: str | None) -> Any:
    """The Config of the simulation configuration ``name`` (controls.grid()), or None; an unknown name is bad input."""
    if name is None:
        return None
    from autoswitch.conformance.controls import grid

    configs = grid()
    if name not in configs:
        raise InputError(f"--config {name!r}: not a simulation configuration; e.g. safe-rocketmq-3p "
                         "(autoswitch simulate --help lists the grid)")
    return configs[name].config


def validate_one(path: str, settings: Settings, progress: Callable[[Progress], None] | None = None, every: float = 2.0) -> Row:
    """Search one log; never raises (a bad log is a ``malformed`` row, anything else an ``error`` row). ``progress``
    and ``every``: search.validate's."""
    name = log_name(path)
    try:
        verdict = validate(path, settings.max_gap, settings.engine, settings.skew, settings.max_states, sim_config(settings.config),
                           progress, every)
    except InputError as e:
        text = str(e) if str(e).startswith(printable(path)) else f"{printable(path)}: {e}"
        return Row(path, name, MALFORMED, text=f"malformed: {text}")
    except Exception as e:  # noqa: BLE001 - one log's bug must not stop the batch; reported as exit 3
        return Row(path, name, ERROR, text=printable(f"{path}: internal error: {type(e).__name__}: {e}"))
    return Row(path, verdict.name, verdict.status, verdict.events, verdict.expanded, verdict.memo, verdict.seconds,
               verdict.describe(), verdict.itf() if verdict.ok else None)


def pick_master(logs: int, master: str | None) -> str | None:
    """Where a batch runs (spark.pick_master's rule for logs): ``master`` when named (or when spark-submit started this
    process), else in this process (``none``) for at most SMALL_BATCH logs, else None (local[*])."""
    import os

    if master is not None or "PYSPARK_GATEWAY_PORT" in os.environ:
        return master
    return "none" if logs <= SMALL_BATCH else None


def validate_many(paths: Sequence[str], settings: Settings, master: str | None = None,
                  progress: Callable[[Row], None] = lambda row: None,
                  searching: Callable[[str, Progress], None] | None = None, every: float = 2.0) -> tuple[list[Row], float, str]:
    """Every log of ``paths``, in order: in this process, or on Spark ``master`` (spark.spark_context); returns the
    rows, the wall time and where they ran. ``progress`` is told of each row as it is known; ``searching``, in this
    process, of each log's search under way (its path, and search.validate's progress every ``every`` seconds)."""
    from autoswitch.conformance.simulation.spark import check_master, spark_context

    check_master(master)
    sim_config(settings.config)  # an unknown --config is a usage error before any work
    where = pick_master(len(paths), master)
    start = time.perf_counter()
    if where == "none":
        rows = []
        for p in paths:
            told = None if searching is None else functools.partial(searching, p)
            rows.append(validate_one(p, settings, told, every))
            progress(rows[-1])
        return rows, time.perf_counter() - start, "this process"
    with spark_context(where, "autoswitch-validate") as sc:
        resolved = [str(Path(p).resolve()) for p in paths]
        found = sc.parallelize(list(enumerate(resolved)), max(1, min(len(resolved), 256))) \
            .map(lambda item: (item[0], validate_one(item[1], settings))).collect()
        rows = [_as_given(row, paths[i]) for i, row in sorted(found, key=lambda pair: pair[0])]
        for row in rows:
            progress(row)
        return rows, time.perf_counter() - start, f"Spark {sc.master}"


def _as_given(row: Row, path: str) -> Row:
    """A row computed on the resolved path, named by the path as given."""
    import attrs

    return attrs.evolve(row, path=path, text=row.text.replace(str(Path(path).resolve()), printable(path)))


def exit_code(rows: Sequence[Row]) -> int:
    return batch_exit(row.code for row in rows)


def write_out(rows: Sequence[Row], out: str | Path) -> list[Path]:
    """``OUT/<log>.itf.json`` for each explained log, ``OUT/<log>.refusal.txt`` for each refused one (and one that gave
    up); two logs of one name get ``-2``, ``-3``... Returns the files written."""
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    written, taken = [], set()
    for row in rows:
        if row.status not in (EXPLAINED, REFUSED, GAVE_UP):
            continue
        name, k = row.name, 1
        while name in taken:
            k += 1
            name = f"{row.name}-{k}"
        taken.add(name)
        if row.status == EXPLAINED:
            assert row.itf is not None
            path = folder / f"{name}.itf.json"
            path.write_text(row.itf)
        else:
            path = folder / f"{name}.refusal.txt"
            path.write_text(row.text + "\n")
        written.append(path)
    return written


@frozen
class Figures:
    """A batch's figures: logs per second (wall time), the median and the worst search size (states expanded)."""

    logs: int
    seconds: float
    median: float
    worst: int

    @property
    def per_second(self) -> float:
        return self.logs / self.seconds if self.seconds else 0.0


def figures(rows: Sequence[Row], seconds: float) -> Figures:
    sizes = [r.expanded for r in rows if r.status in (EXPLAINED, REFUSED, GAVE_UP)] or [0]
    return Figures(len(rows), seconds, statistics.median(sizes), max(sizes))
