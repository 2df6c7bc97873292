"""``autoswitch scenarios``: the command-line table's rows."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_cases import Case, run_case
from cli_files import prepare

CASES = [
    Case("scenarios-written", ("scenarios", "--out", "{tmp}/s"), 0, "C1-first-broker-controller.itf.json"),
    Case("scenarios-out-is-a-file", ("scenarios", "--out", "{tmp}/afile"), 2, "is a file"),
    Case("scenarios-out-under-a-file", ("scenarios", "--out", "/dev/null/s"), 2, "--out /dev/null/s: cannot create"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_cli(case: Case, tmp_path: Path) -> None:
    prepare(tmp_path)
    run_case(case, tmp_path)
