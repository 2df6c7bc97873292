"""No process outlives ``autoswitch cluster run``: the command killed mid-run (SIGINT as Ctrl-C sends it, SIGTERM,
SIGKILL) leaves no JVM of its run behind. Each JVM's command line names its folder under --out, so ``pgrep -f`` on
that folder finds exactly this run's processes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

AUTOSWITCH = [sys.executable, "-c", "from autoswitch.conformance.cli import main; main()"]
START_SECONDS = 400  # until the workload runs (a first build of the launchers included)


def _pids(folder: Path) -> list[int]:
    done = subprocess.run(["pgrep", "-f", str(folder)], capture_output=True, text=True)
    return [int(p) for p in done.stdout.split()]


def _wait_for(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.5)
    return False


def _killed_after_first_fault(faults: Path) -> bool:
    if not faults.exists():
        return False
    return any(json.loads(line)["event"] == "kill -9" for line in faults.read_text().splitlines() if line.strip())


@pytest.mark.parametrize("sig, code, grace, more", [
    (signal.SIGINT, 130, 0, ()), (signal.SIGTERM, 143, 0, ()), (signal.SIGKILL, -9, 20, ()),
    # three controller nodes and the link proxies (threads of the command) as well
    (signal.SIGINT, 130, 0, ("--controllers", "3", "--cut", "--wipe"))],
    ids=["SIGINT", "SIGTERM", "SIGKILL", "SIGINT-controllers-cut"])
def test_the_command_killed_mid_run_leaves_no_process(tmp_path: Path, sig: signal.Signals, code: int, grace: float,
                                                      more: tuple[str, ...]) -> None:
    out = tmp_path / "run"
    command = subprocess.Popen([*AUTOSWITCH, "cluster", "run", "--seed", "3",
                                "--duration", "120", "--out", str(out), *more],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        started = _wait_for(lambda: _killed_after_first_fault(out / "faults.jsonl") or command.poll() is not None,
                            START_SECONDS)
        assert started and command.poll() is None, "the run did not reach its first fault"
        assert len(_pids(out)) >= (7 if more else 4), "the run's JVMs not found by its folder"
        os.kill(command.pid, sig)
        assert command.wait(60) == code
        # SIGKILL: nothing of the command runs; the JVMs see their stdin close and halt
        left = [] if _wait_for(lambda: not _pids(out), grace + 5) else _pids(out)
        assert not left, f"processes left after {sig.name}: " + subprocess.run(
            ["ps", "-o", "pid,stat,args", "-p", ",".join(map(str, left))], capture_output=True, text=True).stdout[:2000]
    finally:
        if command.poll() is None:
            os.killpg(command.pid, signal.SIGKILL)
        for pid in _pids(out):
            os.kill(pid, signal.SIGKILL)
