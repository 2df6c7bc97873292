"""``autoswitch fuzz``: every option; 0 when every input keeps the contract, 1 when one breaks it, 2 on bad usage."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_cases import CHECKOUT, Case, run_case

from autoswitch.conformance.trace import fuzz
from autoswitch.conformance.trace.replay import trace_files

CASES = [
    Case("some-inputs", ("fuzz", "--inputs", "20", "--seed", "3", "--out", "{tmp}/out"), 0, "fuzz: 20 inputs, seed 3"),
    Case("one-corpus", ("fuzz", "--inputs", "10", "--corpus", "{traces}/z3", "--out", "{tmp}/out"), 0, "fuzz: 10 inputs"),
    Case("only", ("fuzz", "--seed", "3", "--only", "7", "--out", "{tmp}/out"), 0, "fuzz: 1 inputs, seed 3"),
    Case("zero-inputs", ("fuzz", "--inputs", "0", "--out", "{tmp}/out"), 2, "--inputs"),
    Case("negative-only", ("fuzz", "--only", "-1", "--out", "{tmp}/out"), 2, "--only"),
    Case("out-unwritable", ("fuzz", "--inputs", "1", "--out", "/proc/autoswitch-fuzz"), 2, "cannot write in"),
    Case("out-a-file", ("fuzz", "--inputs", "1", "--out", "{traces}/z3/hw-truncation-step.itf.json"), 2, "--out"),
    Case("empty-corpus", ("fuzz", "--inputs", "1", "--corpus", "{tmp}", "--out", "{tmp}/out"), 2, "no trace files"),
    Case("no-such-corpus", ("fuzz", "--corpus", "{tmp}/nothing", "--out", "{tmp}/out"), 2, "does not exist"),
    Case("logs", ("fuzz", "--logs", "--inputs", "20", "--seed", "3", "--out", "{tmp}/out"), 0, "fuzz --logs: 20 inputs, seed 3"),
    Case("logs-only", ("fuzz", "--logs", "--seed", "3", "--only", "7", "--out", "{tmp}/out"), 0, "fuzz --logs: 1 inputs"),
    Case("logs-empty-corpus", ("fuzz", "--logs", "--inputs", "1", "--corpus", "{tmp}", "--out", "{tmp}/out"), 2,
         "no event logs"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_cli(case: Case, tmp_path: Path) -> None:
    run_case(case, tmp_path)


def test_an_input_that_breaks_the_contract_exits_1_and_is_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fuzz, "judge", lambda case, results: "injected" if case.index == 4 else None)
    result = run_case(Case("broken", ("fuzz", "--inputs", "6", "--seed", "2", "--corpus", "{traces}", "--out", "{tmp}/out"), 1,
                           "--only 4"), tmp_path)
    kept = tmp_path / "out" / "seed-2-input-4.itf.json"
    assert kept.read_text() == fuzz.make_case(_corpus(), 2, 4).text
    assert "broke the contract" in result.output + result.stderr


def _corpus() -> list[Path]:
    return [Path(f) for f in trace_files([str(CHECKOUT / "traces")])]


def test_a_new_out_folder_left_empty_is_removed(tmp_path: Path) -> None:
    run_case(Case("clean", ("fuzz", "--inputs", "3", "--corpus", "{traces}", "--out", "{tmp}/new/out"), 0), tmp_path)
    assert not (tmp_path / "new" / "out").exists()


def test_a_log_that_breaks_the_contract_exits_1_and_is_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from autoswitch.conformance.logs import fuzz as log_fuzz

    monkeypatch.setattr(log_fuzz, "judge", lambda case, row, path: "injected" if case.index == 4 else None)
    result = run_case(Case("broken-log", ("fuzz", "--logs", "--inputs", "6", "--seed", "2", "--out", "{tmp}/out"), 1,
                           "--only 4"), tmp_path)
    case = log_fuzz.make_case(log_fuzz.corpus_logs(CHECKOUT / "traces"), 2, 4)
    kept = tmp_path / "out" / ("seed-2-log-4" if case.folder else "seed-2-log-4.ndjson")
    assert kept.exists() and "broke the contract" in result.output + result.stderr
