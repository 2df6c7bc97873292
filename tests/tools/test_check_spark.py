"""Exhaustive checking on Spark (spark_search.py): on local[2] and on a standalone Spark cluster started here (a master
and a worker on 127.0.0.1 from the installed pyspark), the counts (distinct, generated, depth) are Checker.run's, on
safe configurations and on negative controls (stopped at the same point of the same level, with the same shortest
counterexample), with and without symmetry, with the first levels in one task or every level a Spark job."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from autoswitch.conformance.check.checker import Checker
from autoswitch.conformance.check.spark_search import spark_search
from autoswitch.conformance.check.specconfig import load_spec_config
from autoswitch.conformance.errors import InputError

_runs: dict[tuple[str, bool], object] = {}


def _run(name: str, symmetry: bool = False):
    if (name, symmetry) not in _runs:
        _runs[name, symmetry] = Checker(load_spec_config(name), symmetry=symmetry).run()
    return _runs[name, symmetry]


# (configuration, symmetry, head_limit): every level a Spark job (0), or the first ones in one task
CASES = [("MC_dledger2", False, 0), ("MC_neg_shortcut", False, 0), ("MC_neg_shortcut", True, 100)]


@pytest.mark.parametrize(("name", "symmetry", "head_limit"), CASES)
def test_local_spark_counts_as_the_checker(name: str, symmetry: bool, head_limit: int) -> None:
    checker = Checker(load_spec_config(name), symmetry=symmetry)
    progress = []
    got = spark_search(checker, "local[2]", progress.append, 0.0, head_limit=head_limit)
    want = _run(name, symmetry)
    assert (got.distinct, got.generated, got.depth) == (want.distinct, want.generated, want.depth)
    assert got.symmetry == want.symmetry == symmetry
    assert got.violation == want.violation  # None, or the same shortest counterexample
    assert [p.depth for p in progress] == sorted(p.depth for p in progress) and progress[-1].distinct <= got.distinct


def test_liveness_is_refused_before_spark_starts() -> None:
    checker = Checker(load_spec_config("MC_live_neg_reelect"))
    with pytest.raises(InputError, match="liveness properties"):
        spark_search(checker, "local[2]")


def test_a_bad_master_is_refused() -> None:
    with pytest.raises(InputError, match="--master"):
        spark_search(Checker(load_spec_config("MC_ms_sync")), "spark:/nowhere")


# --- a standalone cluster ------------------------------------------------------------------------------

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _stop(procs: list[subprocess.Popen]) -> list[int]:
    """Kill each process group (the worker's holds the executors it launched); the groups that still have a process."""
    for proc in reversed(procs):
        for sig in (signal.SIGTERM, signal.SIGKILL):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, sig)
            try:
                proc.wait(timeout=30)
                break
            except subprocess.TimeoutExpired:
                continue
    left = []
    for proc in procs:
        deadline = time.monotonic() + 30
        while _alive(proc.pid):
            if time.monotonic() > deadline:
                os.killpg(proc.pid, signal.SIGKILL)
                left.append(proc.pid)
                break
            time.sleep(0.5)
    return left


def _alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """spark://127.0.0.1:PORT: a master and a worker (2 cores, 1g) of the installed pyspark, stopped at the end."""
    import pyspark

    home = Path(pyspark.__file__).parent
    scratch = tmp_path_factory.mktemp("spark-cluster")
    env = {**os.environ, "SPARK_HOME": str(home), "SPARK_LOG_DIR": str(scratch), "SPARK_LOCAL_DIRS": str(scratch),
           "SPARK_LOCAL_IP": "127.0.0.1", "PYSPARK_PYTHON": sys.executable}
    port, ui, worker_ui = _free_port(), _free_port(), _free_port()
    spark_class = [str(home / "bin" / "spark-class")]
    procs: list[subprocess.Popen] = []
    try:
        for name, args in (("master", ["org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(port),
                                       "--webui-port", str(ui)]),
                           ("worker", ["org.apache.spark.deploy.worker.Worker", f"spark://127.0.0.1:{port}", "--cores", "2",
                                       "--memory", "1g", "--host", "127.0.0.1", "--webui-port", str(worker_ui),
                                       "--work-dir", str(scratch / "work")])):
            with open(scratch / f"{name}.log", "wb") as log:
                procs.append(subprocess.Popen(spark_class + args, env=env, stdout=log, stderr=subprocess.STDOUT,
                                              start_new_session=True))
        deadline = time.monotonic() + 180
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{ui}/json/", timeout=5) as answer:
                    if json.load(answer).get("aliveworkers", 0) >= 1:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline or any(p.poll() is not None for p in procs):
                logs = "\n".join((scratch / f"{n}.log").read_text(errors="replace")[-2000:] for n in ("master", "worker"))
                pytest.fail(f"the standalone Spark cluster did not start (no worker registered):\n{logs}")
            time.sleep(1)
        yield f"spark://127.0.0.1:{port}"
    finally:
        left = _stop(procs)
    assert not left, f"process groups {left} (the cluster's JVMs and their executors) outlived SIGTERM"


def _row(output: str, name: str) -> tuple[int, int, int]:
    """(distinct, generated, depth) from ``autoswitch check``'s table row of ``name``."""
    cells = next([c.strip() for c in re.split("[│|]", line)] for line in output.splitlines() if re.search(f"[│|] {name} ", line))
    return int(cells[4].replace(",", "")), int(cells[5].replace(",", "")), int(cells[6])


def test_standalone_cluster_counts_as_the_checker(cluster: str, tmp_path: Path) -> None:
    names = ["MC_dledger3", "MC_neg_shortcut"]  # a safe one past the first levels' task, and a negative control
    done = subprocess.run([str(Path(sys.executable).parent / "autoswitch"), "check", *names, "--master", cluster,
                           "--out", str(tmp_path)], capture_output=True, text=True, timeout=900,
                          env={**os.environ, "COLUMNS": "200"})
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    for name in names:
        want = _run(name)
        assert _row(done.stdout, name) == (want.distinct, want.generated, want.depth), done.stdout
    assert (tmp_path / "MC_neg_shortcut.itf.json").exists()

