"""Issue 40's hostile inputs, each refused with exit 2 naming the file and the field where it was an internal error
(exit 3) or silently accepted."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from autoswitch.conformance.cli import main
from autoswitch.conformance.trace.replay import MALFORMED, replay_file

TRACES = Path(__file__).resolve().parents[2] / "traces"


def _write(tmp_path: Path, source: str, change) -> Path:
    doc = json.loads((TRACES / source).read_text())
    change(doc)
    path = tmp_path / "hostile.itf.json"
    path.write_text(json.dumps(doc))
    return path


def test_a_liveness_expectation_whose_process_is_a_list_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path, "liveness/retry-off-at-end.itf.json", lambda d: d["#meta"]["expect"].update(process=["p2"]))
    for engine in ("reference", "impl"):
        result = replay_file(str(path), engine)
        assert (result.status, result.field) == (MALFORMED, "#meta.expect.process"), result.describe()
    assert CliRunner().invoke(main, ["explain", str(path)]).exit_code == 2


def test_a_bigint_nested_hundreds_deep_is_refused(tmp_path: Path) -> None:
    value: dict = {"#bigint": "1"}
    for _ in range(500):
        value = {"#bigint": value}
    path = _write(tmp_path, "broker-id/B1-first-start.itf.json", lambda d: d["states"][0].update(nextBrokerId=value))
    result = replay_file(str(path), "reference")
    assert (result.status, result.state, result.field) == (MALFORMED, 0, "nextBrokerId"), result.describe()
    assert CliRunner().invoke(main, ["explain", str(path)]).exit_code == 2


def test_state_0s_outcome_is_init_s_or_refused(tmp_path: Path) -> None:
    path = _write(tmp_path, "broker-id/B1-first-start.itf.json", lambda d: d["states"][0].update(outcome={"code": "ANYTHING"}))
    result = replay_file(str(path), "reference")
    assert (result.status, result.state, result.field) == (MALFORMED, 0, "outcome"), result.describe()


def test_an_output_that_names_an_input_is_refused_and_the_input_kept(tmp_path: Path) -> None:
    trace = tmp_path / "B1.itf.json"
    original = (TRACES / "broker-id" / "B1-first-start.itf.json").read_text()
    trace.write_text(original)
    for args in (["replay", str(trace), "--report", str(trace)], ["explain", str(trace), "--html", str(trace)],
                 ["replay", str(tmp_path), "--report", str(tmp_path / "B1.itf.json")]):
        run = CliRunner().invoke(main, args)
        assert run.exit_code == 2 and "it is an input of the command" in run.output, run.output
        assert trace.read_text() == original


def test_z3_controller_refuses_a_trace_with_an_unknown_tag(tmp_path: Path) -> None:
    folder = tmp_path / "traces"
    folder.mkdir()
    _write(folder, "code/register.itf.json", lambda d: d["states"][2]["action"].update(tag="NoSuchRequest"))
    run = CliRunner().invoke(main, ["z3-controller", "--walks", "1", "--length", "10", "--brokers", "2", "--samples", "1",
                                    "--traces", str(folder)])
    assert run.exit_code == 2 and "state 2" in run.output and "action.tag" in run.output, run.output


def test_a_process_step_on_the_controller_node_without_its_process_is_refused(tmp_path: Path) -> None:
    for name in ("controller", "p1", "p2"):
        (tmp_path / f"{name}.ndjson").write_text((TRACES / "logs" / "failover" / f"{name}.ndjson").read_text())
    lines = (tmp_path / "controller.ndjson").read_text().splitlines()
    lines.insert(2, '{"node": "controller", "ts": 90, "action": {"tag": "SendRegister", "lost": false}}')
    (tmp_path / "controller.ndjson").write_text("\n".join(lines) + "\n")
    run = CliRunner().invoke(main, ["validate", *map(str, sorted(tmp_path.glob("*.ndjson"))), "--out", str(tmp_path / "out")])
    assert run.exit_code == 2 and "line 3" in run.output and "action.process" in run.output, run.output


def test_fuzz_leaves_a_fifo_out_of_its_corpus(tmp_path: Path) -> None:
    import os

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "B1.itf.json").write_text((TRACES / "broker-id" / "B1-first-start.itf.json").read_text())
    os.mkfifo(corpus / "pipe.json")
    run = CliRunner().invoke(main, ["fuzz", "--inputs", "3", "--corpus", str(corpus), "--out", str(tmp_path / "out")])
    assert run.exit_code == 0 and "pipe.json: not a regular file" in run.output, run.output


def test_a_terminated_fuzz_removes_its_temporary_folder(tmp_path: Path) -> None:
    """SIGTERM unwinds the command as an exit does (exit 143): the scratch folder of the mutated inputs goes."""
    import os
    import signal
    import subprocess
    import sys
    import time

    env = {**os.environ, "TMPDIR": str(tmp_path)}
    process = subprocess.Popen([sys.executable, "-c", "from autoswitch.conformance.cli import main; main()", "fuzz", "--inputs", "1000000",
                                "--corpus", str(TRACES / "code"), "--out", str(tmp_path / "out")], env=env,
                               stdout=subprocess.DEVNULL, stderr=(tmp_path / "stderr.txt").open("w"))
    deadline = time.monotonic() + 60
    while not list(tmp_path.glob("autoswitch-fuzz-*")) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert list(tmp_path.glob("autoswitch-fuzz-*")), "the fuzz run made no scratch folder"
    process.send_signal(signal.SIGTERM)
    try:
        code = process.wait(120)
    except subprocess.TimeoutExpired:
        process.kill()
        raise AssertionError((tmp_path / "stderr.txt").read_text()[-2000:]) from None
    assert code == 143, (tmp_path / "stderr.txt").read_text()[-2000:]
    assert not list(tmp_path.glob("autoswitch-fuzz-*"))
