"""A JVM of the cluster that does not start: ``autoswitch cluster run`` exits 3 naming it, with its log's tail, and
leaves no process behind."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from autoswitch.conformance.cluster.build import build

AUTOSWITCH = [sys.executable, "-c", "from autoswitch.conformance.cli import main; main()"]


def test_a_jvm_that_does_not_start_is_named_with_its_log_and_exits_3(tmp_path: Path) -> None:
    build()  # built (or from the cache) with a sound Java, so that only the cluster's JVMs get the option below
    out = tmp_path / "run"
    env = {**os.environ, "JAVA_TOOL_OPTIONS": "-XX:MaxMetaspaceSize=4m"}  # every JVM dies before it listens
    done = subprocess.run([*AUTOSWITCH, "cluster", "run", "--duration", "20", "--out", str(out)], capture_output=True,
                          text=True, timeout=300, env=env)
    assert done.returncode == 3, done.stdout[-2000:] + done.stderr[-2000:]
    assert "verdict: harness failure (exit 3): namesrv exited before listening" in done.stdout
    assert "OutOfMemoryError" in done.stdout  # the tail of its log
    assert "harness failure" in (out / "report.md").read_text()
    left = subprocess.run(["pgrep", "-f", str(out)], capture_output=True, text=True).stdout.split()
    assert not left, f"processes left: {left}"
