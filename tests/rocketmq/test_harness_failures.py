"""The harness JVM failing: one that dies, hangs past its bound or answers garbage raises HarnessError naming the step
and showing the tail of its stderr, and is not left running; the rocketmq engine turns that into an ERROR result (exit 3)
naming the trace state. A fake harness (a Python script speaking the protocol) stands in for the JVM where the failure
must be made on purpose; the real one checks that a divergence is found where a trace is wrong."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from autoswitch.conformance.engines import REAL
from autoswitch.conformance.rocketmq import jvm
from autoswitch.conformance.rocketmq.jvm import DEFAULT_VERSION, HarnessError, Session
from autoswitch.conformance.trace.replay import DIVERGENCE, ERROR, replay_file

TRACES = Path(__file__).resolve().parents[2] / "traces"
HELLO = json.dumps({"ok": True, "version": "V" + DEFAULT_VERSION.replace(".", "_")})


def fake(script: str) -> Session:
    """A harness that greets as the default release, then behaves as ``script`` (Python, reading ``line``)."""
    program = f"""import sys
sys.stdin.readline()
print({HELLO!r}, flush=True)
print("a line of stderr from the fake harness", file=sys.stderr, flush=True)
line = sys.stdin.readline()
{script}
"""
    return Session(DEFAULT_VERSION, lambda home: [sys.executable, "-c", program])


@pytest.mark.parametrize(("script", "phrase"), [
    ("sys.exit(7)", "exited with code 7"),
    ("print('this is not json', flush=True)", "not a JSON answer"),
    ("print('[1, 2]', flush=True)", "without 'ok'"),
    ("import time; time.sleep(30)", "no answer within 1 s"),
])
def test_a_failing_harness_is_named_with_its_stderr_and_stopped(script: str, phrase: str) -> None:
    session = fake(script)
    with pytest.raises(HarnessError) as failure:
        session.call({"op": "controller.scan"}, "state 4, controller.scan", seconds=1)
    message = str(failure.value)
    assert phrase in message and "state 4, controller.scan" in message
    assert "a line of stderr from the fake harness" in message
    assert not session.alive()


def test_an_error_answer_is_an_internal_error_and_the_harness_reads_on() -> None:
    session = fake("print(json.dumps({'ok': False, 'error': 'boom'}), flush=True); sys.stdin.readline()"
                   .replace("json.dumps", "__import__('json').dumps"))
    with pytest.raises(HarnessError, match="boom"):
        session.call({"op": "x"}, "state 1, x")
    assert session.alive()
    session.close()
    assert not session.alive()


def test_a_harness_that_dies_mid_trace_is_an_error_naming_the_state(monkeypatch: pytest.MonkeyPatch) -> None:
    dying = fake("sys.exit(1)")
    monkeypatch.setitem(jvm._SESSIONS, DEFAULT_VERSION, dying)
    result = replay_file(str(TRACES / "controller" / "C2-stale-master-epoch.itf.json"), REAL)
    assert result.status == ERROR
    assert "HarnessError" in result.message and "reset" in result.message


def test_a_wrong_expectation_is_a_divergence_on_the_real_code(tmp_path: Path) -> None:
    trace = json.loads((TRACES / "rocketmq" / "next-id-already-taken.itf.json").read_text())
    trace["states"][3]["outcome"]["nextBrokerId"] = {"#bigint": "4"}
    path = tmp_path / "wrong.itf.json"
    path.write_text(json.dumps(trace))
    result = replay_file(str(path), REAL)
    assert (result.status, result.state, result.field) == (DIVERGENCE, 3, "outcome.nextBrokerId")
    assert (result.expected, result.actual) == ("4", "3")


def test_the_real_session_is_the_requested_release_and_closes() -> None:
    session = jvm.session(DEFAULT_VERSION)
    assert session.call({"op": "hello"}, "hello")["version"] == "V" + DEFAULT_VERSION.replace(".", "_")
    process = session.process
    jvm.close_all()
    assert process.poll() is not None
