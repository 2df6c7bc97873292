"""The harness JVM: built by Maven from ``pom.xml`` against one RocketMQ release, started once per release and
process, and spoken to in JSON lines (``Harness.java``). Every call has a bound; a JVM that dies, hangs past it or
answers garbage raises :class:`HarnessError` naming the call and showing the tail of its stderr. No JVM outlives the
Python process that started it: it is killed at exit and on SIGTERM, and it exits by itself when its stdin closes
(the parent died, whatever the signal)."""

from __future__ import annotations

import atexit
import fcntl
import hashlib
import json
import os
import selectors
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from attrs import frozen

HERE = Path(__file__).parent
DEFAULT_VERSION = "5.5.1"  # the newest 5.x release on Maven Central
# the releases whose controller, store and event classes the harness compiles against (5.0.0 and 5.1.0 keep the
# address-keyed controller of ROCKETMQ.md §9, another API)
VERSIONS = ("5.1.1", "5.1.4", "5.2.0", "5.3.1", "5.3.3", "5.4.0", "5.5.0", "5.5.1")
# releases the harness runs only its stores on (`autoswitch findings`): the sources left out of their builds
DATA_ONLY = {"5.1.0": "**/ControllerDriver.java"}
DATA_VERSIONS = (*DATA_ONLY, *VERSIONS)
# the releases the data-path walks (simulate --against rocketmq-data) agree with the safe configurations on, and the
# one they run by default: 5.1.0 lacks #6662's freeze (the safe configurations have it), and from 5.4.0 a broken
# connection shrinks the master's local set at once (the finding shrink-before-the-answer), which the model does
# not describe
WALK_VERSIONS = ("5.1.1", "5.1.4", "5.2.0", "5.3.1", "5.3.3")
WALK_DEFAULT = "5.3.3"
WALK_WHY = ("; the data-path walks run these only: 5.1.0 lacks #6662's freeze, and from 5.4.0 a broken connection "
            "shrinks the master's local set before the controller's answer (autoswitch findings --only "
            "shrink-before-the-answer), which the model does not describe")
CALL_SECONDS = 30.0  # one call's bound: the slowest is a first class load, well under a second here
BUILD_SECONDS = 900.0  # a first build resolves RocketMQ's dependencies from Maven Central
CACHE_ENV = "AUTOSWITCH_CACHE"  # where built harnesses are kept (default ~/.cache/autoswitch)
TAIL_LINES = 20


class HarnessError(Exception):
    """The harness failed: it could not be built or started, died, hung or answered garbage (an internal error, exit
    3), with what it printed last."""


class Unavailable(Exception):
    """Java or Maven is not on this machine, or the release cannot be resolved: what cannot be checked here."""


def unavailable_reason() -> str | None:
    """Why the harness cannot run on this machine (no ``java`` or no ``mvn`` on PATH), or None."""
    missing = [tool for tool in ("java", "mvn") if shutil.which(tool) is None]
    return f"{' and '.join(missing)} not on PATH" if missing else None


def _sources_digest(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted([folder / "pom.xml", *(folder / "src").rglob("*.java")]):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


@frozen
class Build:
    """A built harness: its jar and the classpath Maven resolved for the release."""

    version: str
    jar: Path
    classpath: str


def maven_build(folder: Path, artifact: str, version: str, what: str, properties: Mapping[str, str] | None = None) -> Build:
    """``folder``'s pom.xml built against RocketMQ ``version`` (``what`` names it in errors), cached under
    ``$AUTOSWITCH_CACHE/<artifact>/<version>-<source digest>`` and rebuilt when its sources change; a build holds a lock
    so that two processes build it once."""
    problem = unavailable_reason()
    if problem:
        raise Unavailable(problem)
    root = Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "autoswitch") / artifact
    target = root / f"{version}-{_sources_digest(folder)}"
    target.mkdir(parents=True, exist_ok=True)
    jar, classpath = target / f"{artifact}-1.jar", target / "classpath.txt"
    with open(target / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (jar.exists() and classpath.exists()):
            command = ["mvn", "-q", "-B", f"-Drocketmq.version={version}", f"-Dharness.target={target}",
                       *(f"-D{k}={v}" for k, v in (properties or {}).items()), "package", "dependency:build-classpath",
                       f"-Dmdep.outputFile={classpath}"]
            try:
                done = subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=BUILD_SECONDS)
            except subprocess.TimeoutExpired:
                raise HarnessError(f"building the {what} for RocketMQ {version} took over {BUILD_SECONDS:.0f} s") from None
            if done.returncode != 0 or not jar.exists():
                classpath.unlink(missing_ok=True)
                tail = "\n".join((done.stdout + done.stderr).splitlines()[-TAIL_LINES:])
                if "Could not resolve dependencies" in tail or "Could not transfer" in tail:
                    raise Unavailable(f"Maven could not resolve RocketMQ {version}:\n{tail}")
                raise HarnessError(f"building the {what} for RocketMQ {version} failed ({' '.join(command)}):\n{tail}")
    return Build(version, jar, classpath.read_text().strip())


def build(version: str = DEFAULT_VERSION) -> Build:
    """The harness built against ``version`` (maven_build)."""
    if version not in DATA_VERSIONS:
        raise Unavailable(f"RocketMQ {version} is not a release the harness supports; supported: {', '.join(DATA_VERSIONS)}")
    return maven_build(HERE, "rocketmq-harness", version, "harness", {"harness.excludes": DATA_ONLY.get(version, "none")})


def java_command(built: Build, home: Path, main: str = "autoswitch.harness.Harness", *args: str, heap: str = "256m",
                 options: Sequence[str] = ()) -> list[str]:
    """A JVM running ``main`` of a build on RocketMQ's classes (the harness; the cluster's launchers): a small heap, C1
    only (quick to start on a shared 2-core machine), then ``options``. user.home: RocketMQ's logback writes
    ${user.home}/logs/rocketmqlogs; the module flags: hessian, which the controller's classes load, reads java.lang's
    fields, and a store before 5.2 unmaps its files through sun.nio.ch.DirectBuffer (UtilAll.cleanBuffer), as
    RocketMQ's own start scripts allow on Java 9+."""
    return ["java", f"-Xmx{heap}", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", *options, f"-Duser.home={home}",
            "--add-opens", "java.base/java.lang=ALL-UNNAMED", "--add-opens", "java.base/java.nio=ALL-UNNAMED",
            "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED", "--add-exports", "java.base/sun.nio.ch=ALL-UNNAMED",
            "-cp", f"{built.jar}{os.pathsep}{built.classpath}", main, *args]


class Session:
    """One harness JVM (``command`` started in a fresh folder, :func:`java_command` of a build). :meth:`call` sends a
    request and returns its answer."""

    def __init__(self, version: str, command: Callable[[Path], list[str]]):
        self.version = version
        self.home = Path(tempfile.mkdtemp(prefix="autoswitch-rocketmq-"))
        self.stderr_path = self.home / "stderr.txt"
        with open(self.stderr_path, "wb") as err:
            self.process = subprocess.Popen(command(self.home), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err)
        self.selector = selectors.DefaultSelector()
        assert self.process.stdout is not None
        self.selector.register(self.process.stdout, selectors.EVENT_READ)
        self.buffer = b""
        hello = self.call({"op": "hello"}, "start")
        expected = "V" + self.version.replace(".", "_")
        if hello.get("version") != expected:
            self.close(keep_logs=True)
            raise HarnessError(f"the harness runs RocketMQ {hello.get('version')}, not {expected}")

    def alive(self) -> bool:
        return self.process.poll() is None

    def tail(self) -> str:
        try:
            lines = self.stderr_path.read_text(errors="replace").splitlines()
        except OSError:
            return "(no stderr)"
        return "\n".join(lines[-TAIL_LINES:]) or "(stderr is empty)"

    def _fail(self, what: str, problem: str) -> HarnessError:
        self.close(keep_logs=True)
        return HarnessError(f"RocketMQ {self.version} harness, {what}: {problem}\n--- the JVM's stderr, last lines "
                            f"({self.stderr_path}) ---\n{self.tail()}")

    def call(self, request: Mapping[str, Any], what: str, seconds: float = CALL_SECONDS) -> dict[str, Any]:
        """The answer to ``request``; ``what`` names the step for an error."""
        if not self.alive():
            raise self._fail(what, f"the JVM exited with code {self.process.returncode}")
        assert self.process.stdin is not None and self.process.stdout is not None
        try:
            self.process.stdin.write(json.dumps(request).encode() + b"\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError) as e:
            raise self._fail(what, f"could not send the request ({e})") from None
        deadline = time.monotonic() + seconds
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not self.selector.select(left):
                raise self._fail(what, f"no answer within {seconds:.0f} s to {json.dumps(request)[:200]}")
            chunk = os.read(self.process.stdout.fileno(), 1 << 16)
            if not chunk:
                self.process.wait(5)
                raise self._fail(what, f"the JVM exited with code {self.process.returncode} before answering")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        try:
            answer = json.loads(line)
        except ValueError:
            raise self._fail(what, f"not a JSON answer: {line[:200]!r}") from None
        if not isinstance(answer, dict) or not isinstance(answer.get("ok"), bool):
            raise self._fail(what, f"an answer without 'ok': {line[:200]!r}")
        if not answer["ok"]:
            raise HarnessError(f"RocketMQ {self.version} harness, {what}: {answer.get('error')}\n{answer.get('stack', '')}")
        return answer

    def close(self, keep_logs: bool = False) -> None:
        if self.alive():
            try:
                assert self.process.stdin is not None
                self.process.stdin.write(b'{"op": "exit"}\n')
                self.process.stdin.close()
                self.process.wait(5)
            except (OSError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait()
        self.selector.close()
        if not keep_logs:
            shutil.rmtree(self.home, ignore_errors=True)
        if _SESSIONS.get(self.version) is self:
            del _SESSIONS[self.version]


_SESSIONS: dict[str, Session] = {}


def session(version: str = DEFAULT_VERSION) -> Session:
    """This process's live harness JVM for ``version``, started (and built) on first use."""
    live = _SESSIONS.get(version)
    if live is not None and live.alive():
        return live
    built = build(version)
    started = Session(version, lambda home: java_command(built, home))
    _SESSIONS[version] = started
    return started


def close_all() -> None:
    for live in list(_SESSIONS.values()):
        live.close()


atexit.register(close_all)
