"""``autoswitch bench --check`` (conformance/check/bench.py): the checker and TLC side by side on one small
configuration (MC_dledger2, safe: every engine explores every state); the table's rows and counts, and the verdict when runs disagree."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from autoswitch.conformance.check.bench import ConfigBench, Run
from autoswitch.conformance.cli import main
from autoswitch.conformance.tla.run import find_tlc, tlc_missing_reason


@pytest.mark.slow  # TLC twice when present
def test_bench_check_prints_every_engine_with_the_same_counts() -> None:
    result = CliRunner().invoke(main, ["bench", "--check", "MC_dledger2"], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    rows = {m.group(1).strip(): m.group(2) for m in re.finditer(r"│ MC_dledger2\s+│ ([^│]+)│\s+([\d,]+) │", result.output)}
    engines = ["checker", "checker --workers 2"] + (["TLC -workers 1", "TLC -workers 2"] if find_tlc() else [])
    assert sorted(rows) == sorted(engines), result.output
    assert set(rows.values()) == {"7,282"}
    assert "counts agree: MC_dledger2 7,282 distinct states, depth 18" in result.output
    if find_tlc() is None:
        assert f"TLC skipped: {tlc_missing_reason()}" in result.output
    else:
        assert re.search(r"│ MC_dledger2\s+│ TLC -workers 1\s+│.*│\s+1\.00x │", result.output), result.output


def test_bench_check_refuses_an_unknown_configuration_and_configs_without_check() -> None:
    assert CliRunner().invoke(main, ["bench", "--check", "MC_nothing"]).exit_code == 2
    assert CliRunner().invoke(main, ["bench", "MC_ms_sync"]).exit_code == 2


def test_runs_disagree_on_counts_or_verdicts() -> None:
    def run(engine: str, distinct: int, violated: str | None = None, problem: str = "") -> Run:
        return Run("MC_x", engine, distinct, 5, 1.0, violated, violated is None and not problem, problem)

    assert ConfigBench("MC_x", (run("checker", 10), run("TLC -workers 1", 10))).disagreement is None
    assert "differ" in ConfigBench("MC_x", (run("checker", 10), run("TLC -workers 1", 11))).disagreement
    # at a violation the engines stop at different counts: only the verdicts are compared
    assert ConfigBench("MC_x", (run("checker", 10, "Inv"), run("TLC -workers 1", 12, "Inv"))).disagreement is None
    assert "verdicts differ" in ConfigBench("MC_x", (run("checker", 10), run("TLC -workers 1", 12, "Inv"))).disagreement
    assert "timed out" in ConfigBench("MC_x", (run("checker", 10), run("TLC -workers 1", 0, None, "TLC timed out"))).disagreement
