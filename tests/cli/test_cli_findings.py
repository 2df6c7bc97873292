"""``autoswitch findings``: its bad arguments (the runs on RocketMQ's stores are tests/rocketmq/test_datapath.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_cases import Case, run_case

CASES = [
    Case("unknown-finding", ("findings", "--only", "no-such-finding"), 2, "the findings are handshake-keeps-the-old-epoch"),
    Case("unknown-release", ("findings", "--rocketmq-version", "4.9.8"), 2, "the harness runs 5.1.0, 5.1.1"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_cli(case: Case, tmp_path: Path) -> None:
    run_case(case, tmp_path)
