"""The JVMs of a run. Each runs in a process group of its own (so that a kill reaches all of it and a terminal's Ctrl-C
reaches only this command, which then stops them), with its stdin a pipe from this process: the launchers exit when it
closes, so they die with this process whatever kills it. Every live one is killed at exit (atexit), and on SIGTERM,
SIGINT and SIGHUP (the CLI turns those into an exit). A paused JVM cannot see its stdin close: each pause has a
watchdog (``sh``, its own group) that resumes it when the pause is over, should this process be killed meanwhile."""

from __future__ import annotations

import atexit
import json
import os
import random
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

from autoswitch.conformance.rocketmq.jvm import TAIL_LINES, HarnessError

PORT_RANGE = (12000, 32000)  # below Linux's ephemeral range (32768-60999), so no client socket takes a broker's port
_LIVE: set[subprocess.Popen] = set()


def _kill_all() -> None:
    for process in list(_LIVE):
        _kill_group(process)


def _kill_group(process: subprocess.Popen) -> None:
    """SIGKILL to the group of ``process`` (and SIGCONT, should it be stopped), unless it was already reaped: its
    group id may then be another's."""
    for sig in (signal.SIGCONT, signal.SIGKILL) if process.poll() is None else ():
        try:
            os.killpg(process.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        pass
    if process.stdin is not None:
        try:
            process.stdin.close()
        except OSError:
            pass
    _LIVE.discard(process)


atexit.register(_kill_all)


class Jvm:
    """One process of the cluster, started (and restarted) with the same command, its output appended to ``log``."""

    def __init__(self, name: str, command: list[str], log: Path, cwd: Path):
        self.name, self.command, self.log, self.cwd = name, command, log, cwd
        self.process: subprocess.Popen | None = None
        self.watchdog: subprocess.Popen | None = None
        self.paused = False

    def start(self) -> None:
        self.log.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log, "ab") as out:
            shown = " ".join(a if len(a) < 200 else f"<{a.count(os.pathsep) + 1} classpath entries>" for a in self.command)
            out.write(f"\n=== autoswitch: start {self.name} at {time.time():.3f}: {shown}\n".encode())
            out.flush()
            self.process = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=out, stderr=subprocess.STDOUT,
                                            cwd=self.cwd, start_new_session=True)
        _LIVE.add(self.process)
        self.paused = False

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    def kill9(self) -> None:
        """kill -9 of the whole process group, waited for."""
        if self.process is not None:
            _kill_group(self.process)
        self._end_watchdog()
        self.paused = False

    def pause(self, seconds: float) -> None:
        assert self.process is not None
        os.killpg(self.process.pid, signal.SIGSTOP)
        self.paused = True
        self.watchdog = subprocess.Popen(["sh", "-c", f"sleep {seconds + 5:.0f}; kill -CONT -{self.process.pid} 2>/dev/null"],
                                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                         start_new_session=True)
        _LIVE.add(self.watchdog)

    def resume(self) -> None:
        if self.process is not None and self.alive():
            os.killpg(self.process.pid, signal.SIGCONT)
        self.paused = False
        self._end_watchdog()

    def _end_watchdog(self) -> None:
        if self.watchdog is not None:
            _kill_group(self.watchdog)
            self.watchdog = None

    def send(self, line: str) -> None:
        if self.process is not None and self.process.stdin is not None and self.alive():
            try:
                self.process.stdin.write(line.encode() + b"\n")
                self.process.stdin.flush()
            except OSError:
                pass

    def stop(self, seconds: float = 5.0) -> None:
        """Resume if paused, close stdin (the launcher exits), and kill the group if it has not within ``seconds``."""
        if self.process is None:
            return
        self.resume()
        if self.process.stdin is not None:
            try:
                self.process.stdin.close()
            except OSError:
                pass
        try:
            self.process.wait(seconds)
        except subprocess.TimeoutExpired:
            pass
        _kill_group(self.process)

    def tail(self, lines: int = TAIL_LINES) -> str:
        try:
            text = self.log.read_text(errors="replace").splitlines()
        except OSError:
            return "(no log)"
        useful = [line for line in text if "|-INFO in " not in line and "|-WARN in " not in line]  # logback's own status
        return "\n".join(line[:500] for line in useful[-lines:]) or "(the log is empty)"

    def failed(self, problem: str) -> HarnessError:
        code = self.process.returncode if self.process is not None else None
        return HarnessError(f"{self.name} {problem} (exit code {code}); its log ({self.log}) ends:\n{self.tail()}")


def free_ports(count: int) -> list[int]:
    """``count`` bases P, each with P-2 (a broker's fast server), P and P+1 (its HA port) free on every address now; not
    seeded by the run's seed, so two runs with one seed do not pick the same ports."""
    rng = random.SystemRandom()
    chosen: list[int] = []
    while len(chosen) < count:
        base = rng.randrange(PORT_RANGE[0] + 2, PORT_RANGE[1] - 2)
        wanted = {base - 2, base, base + 1}
        if any(abs(base - other) < 5 for other in chosen):
            continue
        if all(_bindable(port) for port in wanted):
            chosen.append(base)
    return chosen


def _bindable(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind(("0.0.0.0", port))
        except OSError:
            return False
    return True


def wait_listening(jvm: Jvm, port: int, seconds: float) -> None:
    """Until ``port`` on 127.0.0.1 accepts a connection; HarnessError naming ``jvm`` if it exits or ``seconds`` pass."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not jvm.alive():
            raise jvm.failed(f"exited before listening on port {port}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1.0):
                return
        except OSError:
            time.sleep(0.3)
    raise jvm.failed(f"did not listen on port {port} within {seconds:.0f} s")


def run_client(jvm: Jvm, seconds: float) -> dict[str, Any]:
    """Run a one-shot client to its end and return the last JSON line it printed; HarnessError if it fails or hangs."""
    jvm.start()
    assert jvm.process is not None
    try:
        jvm.process.wait(seconds)
    except subprocess.TimeoutExpired:
        jvm.stop(1)
        raise jvm.failed(f"did not finish within {seconds:.0f} s") from None
    jvm.stop(1)
    for line in reversed(jvm.log.read_text(errors="replace").splitlines()):
        if line.startswith("{"):
            try:
                answer = json.loads(line)
            except ValueError:
                continue
            if isinstance(answer, dict):
                return answer
    raise jvm.failed("printed no JSON answer")
