"""Running a simulation campaign: one task per (configuration, chunk of walk indices), on Spark or in
one process, each task writing its rows as Parquet with a completion marker.

Layout of a campaign's output folder::

    campaign.json                          the campaign's parameters (a re-run must match them)
    rows/config=<name>/chunk=<k>/part.parquet, _DONE   per-walk rows; _DONE marks a finished chunk
    failures/<name>/walk-<i>.itf.json      shrunk failing walks (ITF, #meta.expect for a violation)
    corpus/<name>/walk-<i>.itf.json        a sample of passing walks (ITF)
    runs.jsonl                             one line per invocation: where it ran, what it did, how long

A task's rows depend only on the campaign and the chunk, never on where it runs: a re-run with the same
seed gives identical rows, and a campaign killed midway and re-run skips the chunks that have ``_DONE``.
In each chunk the first failing walk of each kind of failure is shrunk and written; later ones with the
same failure keep their row (and the command that re-runs them) but no trace.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from attrs import asdict, field, frozen

from autoswitch.conformance.engines import trace_states
from autoswitch.conformance.simulation.campaign import (
    DEFAULT_CONFIGS,
    PASS,
    SimConfig,
    action_counts,
    fault_count,
    grid,
    rerun,
    run_walk,
    walk_seed,
)
from autoswitch.conformance.simulation.shrink import shrink
from autoswitch.conformance.trace.itf import write_trace

ROW_SCHEMA = pa.schema([
    ("config", pa.string()), ("walk", pa.int64()), ("seed", pa.int64()), ("length", pa.int64()), ("faults", pa.int64()),
    ("actions", pa.map_(pa.string(), pa.int64())), ("distinct_states", pa.int64()), ("states", pa.list_(pa.int64())),
    ("status", pa.string()), ("failure", pa.string()), ("failure_step", pa.int64()), ("detail", pa.string()),
    ("tolerated", pa.map_(pa.string(), pa.int64())), ("shrunk_length", pa.int64()), ("shrunk_faults", pa.int64()),
    ("trace", pa.string()), ("trace_expects", pa.string()),
])


@frozen
class Campaign:
    """What a campaign runs: ``walks`` walks of ``length`` steps per configuration, ``chunk`` walks per
    task, weights overriding the configurations' own, every ``sample``-th passing walk exported."""

    seed: int = 1
    walks: int = 1000
    length: int = 100
    configs: tuple[str, ...] = DEFAULT_CONFIGS
    chunk: int = 100
    weights: Mapping[str, float] = field(factory=dict)
    sample: int = 250

    def tasks(self) -> list[tuple[str, int]]:
        return [(c, k) for c in self.configs for k in range((self.walks + self.chunk - 1) // self.chunk)]

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "configs": list(self.configs), "weights": dict(sorted(self.weights.items()))}

    def reproduce(self, config: str, walk: int | str) -> str:
        """The command that re-runs one walk alone."""
        weights = ",".join(f"{k}={v:g}" for k, v in sorted(self.weights.items()))
        return (f"autoswitch simulate --seed {self.seed} --length {self.length} --configs {config} --walk {walk}"
                + (f" --weights {weights}" if weights else ""))


def chunk_dir(out: Path, config: str, k: int) -> Path:
    return out / "rows" / f"config={config}" / f"chunk={k}"


def walk_row(campaign: Campaign, sim: SimConfig, walk: int, out: Path | None, shrunk: set[tuple[str, str]]) -> dict[str, Any]:
    """Run, check and (if it is the first of its failure in ``shrunk``'s chunk) shrink one walk; write
    its trace under ``out`` when it is shrunk or sampled. Returns its row."""
    seed = walk_seed(campaign.seed, sim.name, walk)
    config = sim.config
    run = run_walk(config, sim.weights(campaign.weights), seed, campaign.length, sim.tolerated)
    failure = run.failure
    row: dict[str, Any] = {
        "config": sim.name, "walk": walk, "seed": seed, "length": len(run.actions), "faults": fault_count(run.actions),
        "actions": action_counts(run.actions), "distinct_states": len(set(run.states)), "states": run.states,
        "status": PASS if failure is None else failure.kind, "failure": failure and failure.name,
        "failure_step": failure and failure.step, "detail": failure and failure.detail, "tolerated": run.tolerated,
        "shrunk_length": None, "shrunk_faults": None, "trace": None, "trace_expects": None,
    }
    meta = {"generator": "autoswitch simulate", "campaign": {"seed": campaign.seed, "config": sim.name, "walk": walk,
            "walkSeed": seed, "length": campaign.length}, "reproduce": campaign.reproduce(sim.name, walk), **config.to_meta()}
    if failure is not None and (failure.kind, failure.name) not in shrunk:
        shrunk.add((failure.kind, failure.name))
        small = shrink(config, run.actions, failure, sim.tolerated)
        row["shrunk_length"], row["shrunk_faults"] = len(small.actions), fault_count(small.actions)
        first = rerun(config, small.actions, with_impl=False).failure  # what a replay sees first: nothing tolerated
        if first is not None:
            meta["expect"] = {"violation": first.name, "state": first.step}
            row["trace_expects"] = f"{first.name} at state {first.step}"
        row["trace"] = f"failures/{sim.name}/walk-{walk}.itf.json"
        if out is not None:
            write_trace(out / row["trace"], meta, trace_states(config, small.actions))
    elif failure is None and walk % campaign.sample == 0:
        row["trace"] = f"corpus/{sim.name}/walk-{walk}.itf.json"
        if out is not None:
            write_trace(out / row["trace"], meta, trace_states(config, run.actions))
    return row


def walk_as_expected(row: Mapping[str, Any], sim: SimConfig) -> bool:
    """A walk's verdict: it passes, or it finds its configuration's negative control."""
    return row["status"] == PASS or row["failure"] == sim.control


def run_chunk(campaign: Campaign, out: str, config: str, k: int) -> dict[str, Any]:
    """Run chunk ``k`` of ``config``: its rows as Parquet, then the ``_DONE`` marker (walks, steps,
    seconds). Files are written under temporary names and renamed, so a killed task leaves no marker."""
    start = time.perf_counter()
    sim = grid()[config]
    folder = chunk_dir(Path(out), config, k)
    folder.mkdir(parents=True, exist_ok=True)
    shrunk: set[tuple[str, str]] = set()
    rows = [walk_row(campaign, sim, w, Path(out), shrunk)
            for w in range(k * campaign.chunk, min((k + 1) * campaign.chunk, campaign.walks))]
    tmp = folder / "part.parquet.tmp"
    pq.write_table(pa.Table.from_pylist(rows, schema=ROW_SCHEMA), tmp)
    os.replace(tmp, folder / "part.parquet")
    done = {"config": config, "chunk": k, "walks": len(rows), "steps": sum(r["length"] for r in rows),
            "seconds": round(time.perf_counter() - start, 3)}
    (folder / "_DONE.tmp").write_text(json.dumps(done))
    os.replace(folder / "_DONE.tmp", folder / "_DONE")
    return done


def load_rows(campaign: Campaign, out: Path) -> list[dict[str, Any]]:
    """Every finished chunk's rows, in task order (configuration, then walk index)."""
    rows: list[dict[str, Any]] = []
    for config, k in campaign.tasks():
        folder = chunk_dir(out, config, k)
        if (folder / "_DONE").exists():
            for row in pq.read_table(folder / "part.parquet").to_pylist():
                row["actions"], row["tolerated"] = dict(row["actions"]), dict(row["tolerated"])
                rows.append(row)
    return rows


def prepare(campaign: Campaign, out: Path) -> None:
    """Create ``out`` with ``campaign.json``, or check that the campaign there is this one."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / "campaign.json"
    if path.exists():
        there = json.loads(path.read_text())
        if there != campaign.to_json():
            diff = sorted(k for k in there.keys() | campaign.to_json().keys() if there.get(k) != campaign.to_json().get(k))
            raise ValueError(f"{path}: holds a campaign with other parameters ({', '.join(diff)}); use another --out")
    else:
        path.write_text(json.dumps(campaign.to_json(), indent=1) + "\n")


def spark_session(master: str | None) -> Any:
    """A quiet Spark session (no UI, warehouse and Derby files in a temporary folder): ``master``, or the
    one spark-submit configured, or ``local[*]``. Workers run this interpreter."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    if (master or "local").startswith("local"):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")  # one machine: no warning about the host's address
    from pyspark import SparkConf
    from pyspark.sql import SparkSession

    scratch = tempfile.mkdtemp(prefix="autoswitch-spark-")
    conf = SparkConf()
    if master is not None or not conf.contains("spark.master"):
        conf.setMaster(master or "local[*]")
    conf.setAppName("autoswitch-simulate").set("spark.ui.enabled", "false").set("spark.sql.warehouse.dir", f"{scratch}/warehouse")
    conf.set("spark.driver.extraJavaOptions", f"-Dderby.system.home={scratch}").set("spark.python.worker.reuse", "true")
    conf.set("spark.ui.showConsoleProgress", "false")
    spark = SparkSession.builder.config(conf=conf).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


@frozen
class RunStats:
    """One invocation: where it ran, the chunks it ran and skipped, and its wall time."""

    master: str
    ran: int
    skipped: int
    walks: int
    steps: int
    seconds: float

    @property
    def walks_per_second(self) -> float:
        return self.walks / self.seconds if self.seconds else 0.0

    @property
    def steps_per_second(self) -> float:
        return self.steps / self.seconds if self.seconds else 0.0


def run_campaign(campaign: Campaign, out: str | Path, master: str | None = "local[*]",
                 progress: Callable[[int, int], None] = lambda done, total: None) -> RunStats:
    """Run every chunk of ``campaign`` without a ``_DONE`` marker under ``out``: with Spark (``master``:
    a Spark master URL, or None for spark-submit's), or in this process when ``master`` is ``"none"``.
    ``progress(done, total)`` is called as chunks finish."""
    out = Path(out).resolve()
    prepare(campaign, out)
    tasks = campaign.tasks()
    pending = [t for t in tasks if not (chunk_dir(out, *t) / "_DONE").exists()]
    start = time.perf_counter()
    if master == "none":
        done = []
        for i, (config, k) in enumerate(pending):
            done.append(run_chunk(campaign, str(out), config, k))
            progress(i + 1, len(pending))
    else:
        done, master = _run_spark(campaign, out, master, pending, progress)
    stats = RunStats(master, len(pending), len(tasks) - len(pending), sum(d["walks"] for d in done),
                     sum(d["steps"] for d in done), round(time.perf_counter() - start, 3))
    with open(out / "runs.jsonl", "a") as f:
        f.write(json.dumps(asdict(stats)) + "\n")
    return stats


def _run_spark(campaign: Campaign, out: Path, master: str | None, pending: list[tuple[str, int]],
               progress: Callable[[int, int], None]) -> tuple[list[dict[str, Any]], str]:
    """Run the pending chunks as one Spark job; returns their markers and the master that ran them."""
    if not pending:
        return [], master or "spark (nothing to run)"
    sc = spark_session(master).sparkContext
    target = str(out)
    rdd = sc.parallelize(pending, len(pending)).map(lambda task: run_chunk(campaign, target, *task))
    result: dict[str, Any] = {}

    def collect() -> None:
        try:
            result["done"] = rdd.collect()
        except BaseException as e:  # noqa: BLE001 - re-raised in the caller's thread
            result["error"] = e

    worker = threading.Thread(target=collect, daemon=True)
    worker.start()
    while worker.is_alive():
        worker.join(0.5)
        progress(sum((chunk_dir(out, *t) / "_DONE").exists() for t in pending), len(pending))
    if "error" in result:
        raise result["error"]
    return result["done"], sc.master


def bench(campaign: Campaign, master: str) -> list[RunStats]:
    """Run ``campaign`` afresh in one process, then on Spark ``master``, each into a temporary folder.
    The Spark session is started (and one job run) before the clock starts: the figures compare the
    campaign's work, not the JVM's start-up."""
    spark = spark_session(master)
    spark.sparkContext.parallelize(range(4), 4).map(lambda x: x).collect()  # start the Python workers
    results = []
    for where in ("none", master):
        with tempfile.TemporaryDirectory(prefix="autoswitch-bench-") as out:
            results.append(run_campaign(campaign, out, where))
    return results
