"""Running a simulation campaign: one task per (configuration, chunk of walk indices), on Spark or in
one process, each task writing its rows as Parquet with a completion marker (the folder's layout and the
marker: store.py).

A task's rows depend only on the campaign and the chunk, never on where it runs: a re-run with the same
seed gives identical rows, and a campaign killed midway and re-run skips the chunks that are done and
runs again those that are unfinished, damaged or foreign (store.read_chunk). In each chunk the first
failing walk of each kind of failure is shrunk and written; later ones with the same failure keep their
row (and the command that re-runs them) but no trace.

Spark's scratch (its local dirs, and the JVM's temporary folder when the campaign starts the JVM) is one
``autoswitch-spark-*`` folder under the system's temporary folder (``TMPDIR``), removed with the session
when the campaign ends, fails or is interrupted.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from attrs import asdict, frozen

from autoswitch.conformance.controls import SimConfig, grid
from autoswitch.conformance.engines import real_version, trace_states
from autoswitch.conformance.errors import InputError
from autoswitch.conformance.simulation import store
from autoswitch.conformance.simulation.campaign import (
    LIVENESS_FAILURE,
    PASS,
    Campaign,
    Run,
    action_counts,
    fault_count,
    rerun,
    run_walk,
    walk_seed,
)
from autoswitch.conformance.simulation.guide import Guide
from autoswitch.conformance.simulation.shrink import NotReproduced, shrink
from autoswitch.conformance.trace.itf import dumps_trace


def checked_walk(campaign: Campaign, sim: SimConfig, walk: int, guide: Guide | None) -> tuple[int, Run, int | None]:
    """Run and check one walk (its seed, its run, the walk of its chunk's corpus it starts from), guided by ``guide`` (the
    corpus of its chunk's walks before it: guide.py) when the campaign is guided: its ``length`` steps are drawn after
    the prefix it replays. The walk then joins the corpus."""
    seed = walk_seed(campaign.seed, sim.name, walk)
    parent, prefix = guide.prefix(seed) if guide is not None and campaign.guide and not sim.live else (None, [])
    run = run_walk(sim.config, sim.weights(campaign.weights), seed, len(prefix) + campaign.length, sim.tolerated, live=sim.live,
                   control=sim.control, warm=sim.warm, swarm=campaign.swarm, prefix=prefix, against=campaign.against)
    if guide is not None:
        guide.update(walk, run)
    return seed, run, parent


def prime(campaign: Campaign, sim: SimConfig, walk: int) -> Guide:
    """The guide of ``walk`` (its chunk's corpus of the walks before it), by re-running those walks (no shrinking)."""
    guide = Guide()
    if campaign.guide and not sim.live:
        for w in range(walk - walk % campaign.chunk, walk):
            checked_walk(campaign, sim, w, guide)
    return guide


def walk_row(campaign: Campaign, sim: SimConfig, walk: int, out: Path | None, shrunk: set[tuple[str, str]],
             guide: Guide | None = None) -> dict[str, Any]:
    """Run, check and (if it is the first of its failure in ``shrunk``'s chunk) shrink one walk; write
    its trace under ``out`` when it is shrunk or sampled. ``guide``: its chunk's (None: prime it). Returns its row."""
    seed, run, parent = checked_walk(campaign, sim, walk, prime(campaign, sim, walk) if guide is None else guide)
    config = sim.config
    failure = run.failure
    row: dict[str, Any] = {
        "config": sim.name, "walk": walk, "seed": seed, "length": len(run.actions), "faults": fault_count(run.actions),
        "actions": action_counts(run.actions), "distinct_states": len(set(run.states)), "states": run.states,
        "status": PASS if failure is None else failure.kind, "failure": failure and failure.name,
        "failure_step": failure and failure.step, "detail": failure and failure.detail, "tolerated": run.tolerated,
        "shrunk_length": None, "shrunk_faults": None, "trace": None, "trace_expects": None,
        "fair_steps": run.fair, "quiescent": run.quiescent if sim.live else None, "parent": parent,
    }
    meta = {"generator": "autoswitch simulate", "campaign": {"seed": campaign.seed, "config": sim.name, "walk": walk,
            "walkSeed": seed, "length": campaign.length}, "reproduce": campaign.reproduce(sim.name, walk), **config.to_meta()}
    if failure is not None and (failure.kind, failure.name) not in shrunk:
        shrunk.add((failure.kind, failure.name))
        live = failure.kind == LIVENESS_FAILURE  # else a safety failure: shrunk as one, fair suffix and all
        try:
            small = shrink(config, run.prefix if live else run.actions, failure, sim.tolerated, live, sim.control,
                           campaign.against)
        except NotReproduced:
            if real_version(campaign.against) is None:
                raise
            small = run  # the real code's timing: the walk is kept whole, and said so
            row["detail"] = f"{failure.detail} (not shrunk: it did not fail again when re-run on the real code)"
        row["shrunk_length"], row["shrunk_faults"] = len(small.actions), fault_count(small.actions)
        expect: dict[str, Any] = {}
        if (first := rerun(config, small.actions, with_impl=False).failure) is not None:  # what a replay sees first: nothing tolerated
            expect = {"violation": first.name, "state": first.step}
        if live:
            expect.update(live_expectation(small))
        if expect:
            meta["expect"] = expect
            row["trace_expects"] = _describe(expect)
        row["trace"] = f"failures/{sim.name}/walk-{walk}.itf.json"
        if out is not None:
            store.write_atomic(store.trace_path(out, row["trace"]), dumps_trace(meta, trace_states(config, small.actions)).encode())
    elif failure is None and campaign.sample and walk % campaign.sample == 0:
        row["trace"] = f"corpus/{sim.name}/walk-{walk}.itf.json"
        if out is not None:
            store.write_atomic(store.trace_path(out, row["trace"]), dumps_trace(meta, trace_states(config, run.actions)).encode())
    return row


def live_expectation(run: Run) -> dict[str, Any]:
    """A liveness failure's ``#meta.expect``: ``{"liveness": NAME, "process": P, "atEnd": true}`` (no ``process`` for a
    property that is not per process): replay finds ``ok`` false at the trace's last state. (A liveness walk of a
    control whose options also break an invariant may break it on the way: then ``violation`` and ``state`` too.)"""
    assert run.failure is not None
    who = next(s.process for s in run.stuck if s.name == run.failure.name)
    return {"liveness": run.failure.name, **({"process": who} if who is not None else {}), "atEnd": True}


def _describe(expect: Mapping[str, Any]) -> str:
    said = [f"{expect['violation']} at state {expect['state']}"] if "violation" in expect else []
    if "liveness" in expect:
        said.append(f"{expect['liveness']}" + (f" of {expect['process']}" if "process" in expect else "") + " at the end")
    return ", ".join(said)


def walk_as_expected(row: Mapping[str, Any], sim: SimConfig) -> bool:
    """A walk's verdict: it passes, or it finds its configuration's negative control."""
    return row["status"] == PASS or row["failure"] == sim.control


def run_chunk(campaign: Campaign, out: str, config: str, k: int) -> dict[str, Any]:
    """Run chunk ``k`` of ``config`` afresh (what a damaged or killed run left is removed first): its rows
    as Parquet, then the ``_DONE`` marker (store.write_chunk), which it returns."""
    started, start = time.time(), time.perf_counter()
    sim = grid()[config]
    store.clear_chunk(store.chunk_dir(Path(out), config, k))
    shrunk: set[tuple[str, str]] = set()
    guide = Guide()
    rows, ends = [], []
    for w in store.chunk_walks(campaign, k):
        rows.append(walk_row(campaign, sim, w, Path(out), shrunk, guide))
        ends.append(round(time.perf_counter() - start, 4))
    return store.write_chunk(campaign, Path(out), config, k, rows, time.perf_counter() - start, started, ends)


LOCAL_MASTER = re.compile(r"local(\[(\*|[1-9]\d*)(,[1-9]\d*)?\])?|local-cluster\[[1-9]\d*,[1-9]\d*,[1-9]\d*\]")
CLUSTER_MASTER = re.compile(r"spark://[^\s:/,]+:\d+(,[^\s:/,]+:\d+)*|yarn|k8s://\S+")


def check_master(master: str | None) -> None:
    """A Spark master URL Spark accepts (local, local[N], local[*], local[N,F], local-cluster[N,C,M],
    spark://host:port, yarn, k8s://...), ``none`` (no Spark), or None (spark-submit's, else local[*])."""
    if master is None or master == "none" or LOCAL_MASTER.fullmatch(master) or CLUSTER_MASTER.fullmatch(master):
        return
    raise InputError(f"--master {master!r}: expected none, local, local[N] (N >= 1), local[*], local[N,F], spark://host:port, "
                     "yarn or k8s://...")


SMALL_WALKS = 2000  # walks in all: a campaign this small runs in this process unless a master is named


def pick_master(campaign: Campaign, master: str | None) -> str | None:
    """The master a campaign runs on: ``master`` when named (or when spark-submit started this process), else ``none``
    (this process) for a campaign of at most SMALL_WALKS walks, whose walks take less time than Spark's start on a
    loaded machine (measured: 8 to 22 s for the JVM and the context), else None (local[*])."""
    if master is not None or "PYSPARK_GATEWAY_PORT" in os.environ:
        return master
    return "none" if campaign.walks * len(campaign.configs) <= SMALL_WALKS else None


def _stop_jvm(context_class: Any) -> None:
    """Stop the JVM this process launched for Spark, and forget it (the next context launches its own)."""
    gateway = context_class._gateway
    proc = getattr(gateway, "proc", None)
    gateway.shutdown()
    if proc is not None:  # the JVM exits when its stdin closes (PythonGatewayServer)
        proc.stdin.close()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    context_class._gateway = context_class._jvm = None


@contextmanager
def _environ(**values: str) -> Iterator[None]:
    before = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in before.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """SIGTERM raises KeyboardInterrupt (in the main thread), so that ``finally`` blocks run on ``kill``."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, _frame: Any) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


STOPPED = ("--master {master}: Spark stopped the application before the work ended (a master that cannot be reached, "
           "or that gave up on it: see Spark's log above); a campaign keeps the chunks done, re-run to finish")


@contextmanager
def spark_context(master: str | None, app: str = "autoswitch-simulate") -> Iterator[Any]:
    """A quiet SparkContext (no UI) named ``app``: ``master``, or the one spark-submit configured, or ``local[*]``;
    workers run this interpreter. Its scratch is a fresh folder: Spark's local dirs, and the JVM's
    ``java.io.tmpdir`` when this starts the JVM. On exit, even on failure, Ctrl-C or SIGTERM, the context
    is stopped, the JVM it started stopped, and the scratch folder removed."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    if (master or "local").startswith("local"):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")  # one machine: no warning about the host's address
    from pyspark import SparkContext

    launches = SparkContext._gateway is None and "PYSPARK_GATEWAY_PORT" not in os.environ
    sc = None
    with _terminate_as_interrupt():
        scratch = tempfile.mkdtemp(prefix="autoswitch-spark-")
        try:
            yield (sc := _start(master, scratch, launches, app))
        except Exception as e:
            if type(e).__module__.startswith("py4j") and (sc is None or _stopped(sc)):
                raise InputError(STOPPED.format(master=sc.master if sc is not None else master)) from None
            raise
        finally:
            # Stopping what Spark already tore down can raise too; that must not hide the error above.
            if sc is not None:
                with suppress(Exception):
                    sc.stop()
            if launches and SparkContext._gateway is not None:
                with suppress(Exception):
                    _stop_jvm(SparkContext)
            shutil.rmtree(scratch, ignore_errors=True)


def _start(master: str | None, scratch: str, launches: bool, app: str) -> Any:
    """A SparkContext whose scratch is ``scratch`` (spark_context)."""
    from pyspark import SparkConf, SparkContext

    conf = SparkConf()
    if master is not None or not conf.contains("spark.master"):
        conf.setMaster(master or "local[*]")
    conf.setAppName(app).set("spark.ui.enabled", "false").set("spark.ui.showConsoleProgress", "false")
    conf.set("spark.python.worker.reuse", "true")
    if launches:  # the JVM's environment: its local dirs (SPARK_LOCAL_DIRS wins over spark.local.dir), no hsperfdata
        java = f"{os.environ.get('SPARK_SUBMIT_OPTS', '')} -Djava.io.tmpdir={scratch} -XX:-UsePerfData".strip()
        with _environ(SPARK_LOCAL_DIRS=scratch, SPARK_SUBMIT_OPTS=java):
            sc = SparkContext(conf=conf)
    else:
        sc = SparkContext(conf=conf.set("spark.local.dir", scratch))
    sc.setLogLevel("ERROR")
    return sc


@frozen
class RunStats:
    """One invocation: where it ran, the chunks it ran and skipped, and its wall time; ``repaired`` names
    the damaged or foreign chunks it ran again."""

    master: str
    ran: int
    skipped: int
    walks: int
    steps: int
    seconds: float
    repaired: tuple[str, ...] = ()
    started: float = 0.0  # Unix time when the run started (before Spark's start)

    @property
    def walks_per_second(self) -> float:
        return self.walks / self.seconds if self.seconds else 0.0

    @property
    def steps_per_second(self) -> float:
        return self.steps / self.seconds if self.seconds else 0.0


def run_campaign(campaign: Campaign, out: str | Path, master: str | None = "local[*]",
                 progress: Callable[[int, int], None] = lambda done, total: None, warn: Callable[[str], None] = lambda message: None,
                 spark: Any = None) -> RunStats:
    """Run every chunk of ``campaign`` that is not done under ``out`` (store.read_chunk): with Spark
    (``master``: a Spark master URL, or None for spark-submit's; ``spark``: a SparkContext to use instead
    of a new one), or in this process when ``master`` is ``"none"``. ``out`` and the master are checked
    before any work (InputError); ``warn`` is told of each damaged or foreign chunk, which runs again;
    ``progress(done, total)`` is called as chunks finish."""
    check_master(master)
    out = Path(out).resolve()
    store.prepare(campaign, out)
    tasks = campaign.tasks()
    problems = {t: p for t in tasks if isinstance(p := store.read_chunk(campaign, out, *t), store.ChunkProblem)}
    repaired = tuple(f"{store.chunk_dir(out, *t).relative_to(out)}: {p}" for t, p in problems.items() if p.kind != "unfinished")
    for message in repaired:
        warn(f"{message}; running it again")
    pending = list(problems)
    for t in pending:
        store.clear_chunk(store.chunk_dir(out, *t))
    started, start = time.time(), time.perf_counter()
    if master == "none":
        done = []
        for i, (config, k) in enumerate(pending):
            done.append(run_chunk(campaign, str(out), config, k))
            progress(i + 1, len(pending))
    elif spark is not None or not pending:
        done, master = _run_spark(campaign, out, spark, pending, progress) if pending else ([], master or "spark (nothing to run)")
    else:
        with spark_context(master) as sc:
            done, master = _run_spark(campaign, out, sc, pending, progress)
    stats = RunStats(master, len(pending), len(tasks) - len(pending), sum(d["rows"] for d in done),
                     sum(d["steps"] for d in done), round(time.perf_counter() - start, 3), repaired, started)
    with open(store.inside(out, "runs.jsonl"), "a") as f:
        f.write(json.dumps(asdict(stats)) + "\n")
    return stats


def _run_spark(campaign: Campaign, out: Path, sc: Any, pending: list[tuple[str, int]],
               progress: Callable[[int, int], None]) -> tuple[list[dict[str, Any]], str]:
    """Run the pending chunks as one Spark job; returns their markers and the master that ran them."""
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
        progress(sum((store.chunk_dir(out, *t) / "_DONE").exists() for t in pending), len(pending))
    if "error" in result:
        if _stopped(sc):
            raise InputError(STOPPED.format(master=sc.master)) from None
        raise result["error"]
    return result["done"], sc.master


def _stopped(sc: Any) -> bool:
    """Whether Spark itself ended the context (its JVM gone too): the cluster's doing, not a task's exception."""
    try:
        return bool(sc._jsc.sc().isStopped())
    except Exception:  # noqa: BLE001 - the gateway to the JVM is closed: stopped as well
        return True


def bench(campaign: Campaign, master: str) -> list[RunStats]:
    """Run ``campaign`` afresh in one process, then on Spark ``master``, each into a temporary folder.
    The Spark context is started (and one job run) before the clock starts: the figures compare the
    campaign's work, not the JVM's start-up."""
    check_master(master)
    results = []
    with spark_context(master) as sc:
        sc.parallelize(range(4), 4).map(lambda x: x).collect()  # start the Python workers
        for where in ("none", master):
            with tempfile.TemporaryDirectory(prefix="autoswitch-bench-") as out:
                results.append(run_campaign(campaign, out, where, spark=sc))
    return results
