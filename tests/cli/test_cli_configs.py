"""``autoswitch configs``: the command-line table's rows (the spec configurations written from conformance/cfgs.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_cases import Case, run_case
from cli_files import prepare

CASES = [
    Case("configs-written", ("configs", "--out", "{tmp}/spec"), 0, "MC_data_reg1.cfg"),
    Case("configs-out-is-a-file", ("configs", "--out", "{tmp}/afile"), 2, "is a file"),
    Case("configs-out-under-a-file", ("configs", "--out", "/dev/null/spec"), 2, "--out /dev/null/spec: cannot create"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_cli(case: Case, tmp_path: Path) -> None:
    prepare(tmp_path)
    run_case(case, tmp_path)
