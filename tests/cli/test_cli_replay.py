"""``autoswitch replay``: every option, the exit codes (0 pass, 1 a verdict failed, 2 bad input, 3 an engine raised)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from cli_cases import CHECKOUT, Case, run_case

from autoswitch.conformance.trace.replay import DIVERGENCE, ERROR, MALFORMED, PASS, VIOLATION, Result, replay_exit_code

B1 = CHECKOUT / "traces/broker-id/B1-first-start.itf.json"
B1_ROW = "{traces}/broker-id/B1-first-start.itf.json"


def hostile_files(tmp: Path) -> None:
    """The inputs the rows name under ``{tmp}``: a divergent, a malformed, an escaping and a FIFO trace, an empty folder."""
    doc = json.loads(B1.read_text())
    doc["states"][2]["outcome"]["code"] = "SUCCESS\x1b[2J"
    (tmp / "divergent.itf.json").write_text(json.dumps(doc))
    doc = json.loads(B1.read_text())
    doc["states"][0]["nextBrokerId"] = {"#bigint": "+1"}
    (tmp / "malformed.itf.json").write_text(json.dumps(doc))
    os.mkfifo(tmp / "fifo.itf.json")
    (tmp / "empty").mkdir()
    (tmp / "mixed").mkdir()
    for name in ("divergent", "malformed"):
        (tmp / "mixed" / f"{name}.itf.json").write_text((tmp / f"{name}.itf.json").read_text())


CASES = [
    Case("corpus-passes", ("replay", "{traces}", "--quiet"), 0, "replay summary"),
    Case("one-file", ("replay", B1_ROW), 0, "pass (7/7 states)"),
    Case("against-reference", ("replay", B1_ROW, "--against", "reference"), 0, "[reference]: pass"),
    Case("against-impl", ("replay", B1_ROW, "--against", "impl"), 0, "[impl]: pass"),
    Case("against-unknown", ("replay", B1_ROW, "--against", "z3"), 2, "Invalid value for '--against'"),
    Case("report-written", ("replay", B1_ROW, "--report", "{tmp}/report.json"), 0, "report written"),
    Case("report-unwritable", ("replay", B1_ROW, "--report", "/dev/null/report.json"), 2, "is not a folder"),
    Case("report-a-folder", ("replay", B1_ROW, "--report", "{tmp}"), 2, "--report"),
    Case("divergence", ("replay", "{tmp}/divergent.itf.json"), 1, "divergence at state 2"),
    Case("divergence-escaped", ("replay", "{tmp}/divergent.itf.json", "--quiet"), 1, "SUCCESS\\x1b[2J"),
    Case("malformed", ("replay", "{tmp}/malformed.itf.json"), 2, "canonical decimal"),
    Case("malformed-and-divergent", ("replay", "{tmp}/mixed"), 1, "malformed"),
    Case("fifo", ("replay", "{tmp}/fifo.itf.json"), 2, "a FIFO"),
    Case("device", ("replay", "/dev/zero"), 2, "not a regular file"),
    Case("no-trace-files", ("replay", "{tmp}/empty"), 2, "no trace files"),
    Case("no-such-path", ("replay", "{tmp}/nothing.itf.json"), 2, "does not exist"),
    Case("no-path", ("replay",), 2, "Missing argument"),
    Case("rocketmq-version-unknown", ("replay", B1_ROW, "--against", "rocketmq", "--rocketmq-version", "4.9.8"), 2,
         "the harness runs 5.1.1"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_cli(case: Case, tmp_path: Path) -> None:
    hostile_files(tmp_path)
    run_case(case, tmp_path)


def test_report_holds_every_result(tmp_path: Path) -> None:
    hostile_files(tmp_path)
    run_case(Case("report", ("replay", "{tmp}/mixed", "--report", "{tmp}/r.json"), 1), tmp_path)
    report = json.loads((tmp_path / "r.json").read_text())
    assert sorted((r["status"], r["engine"]) for r in report) == sorted(
        [(DIVERGENCE, "impl"), (DIVERGENCE, "reference"), (MALFORMED, "impl"), (MALFORMED, "reference")])


def _result(status: str) -> Result:
    return Result("t.json", "reference", status)


@pytest.mark.parametrize(("statuses", "code"), [([PASS], 0), ([PASS, MALFORMED], 2), ([MALFORMED, VIOLATION], 1),
                                                ([DIVERGENCE, ERROR, MALFORMED], 3), ([], 0)])
def test_exit_code_is_the_worst_result(statuses: list[str], code: int) -> None:
    assert replay_exit_code([_result(s) for s in statuses]) == code


def test_an_engine_that_raises_exits_3(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from autoswitch.conformance.engines import reference

    def broken(self, action):  # noqa: ANN001 - an engine bug, injected
        raise RuntimeError("engine bug")

    monkeypatch.setattr(reference.ReferenceEngine, "step", broken)
    run_case(Case("engine-raises", ("replay", B1_ROW, "--against", "reference"), 3, "RuntimeError: engine bug"), tmp_path)


def test_the_rocketmq_engine_without_java_or_maven_is_a_usage_error_naming_them(monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from autoswitch.conformance.cli import main
    from autoswitch.conformance.rocketmq import jvm

    monkeypatch.setattr(jvm, "unavailable_reason", lambda: "java and mvn not on PATH")
    result = CliRunner().invoke(main, ["replay", str(B1), "--against", "all"])
    assert result.exit_code == 2
    assert "java and mvn not on PATH" in result.output and "nothing was replayed on RocketMQ" in result.output
