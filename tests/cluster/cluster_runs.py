"""A real ``autoswitch cluster run`` for the tests of tests/cluster/: the command in a child process, its bound, and
the faults it wrote."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

AUTOSWITCH = [sys.executable, "-c", "from autoswitch.conformance.cli import main; main()"]
RUN_SECONDS = 600


def run_ok(out: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:
    """``autoswitch cluster run ARGS --out OUT``, which must exit 0; its output and the faults it injected."""
    done = subprocess.run([*AUTOSWITCH, "cluster", "run", *args, "--out", str(out)], capture_output=True, text=True,
                          timeout=RUN_SECONDS)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done, [json.loads(line) for line in (out / "faults.jsonl").read_text().splitlines()]
