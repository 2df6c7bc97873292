"""``autoswitch cluster run`` and ``cluster table``: their bad arguments, refused before any JVM starts (the runs themselves are
tests/cluster/)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_cases import Case, run_case

CASES = [
    Case("unknown-settings", ("cluster", "run", "--settings", "fast"), 2, "'safe', 'allack-off', 'unclean'"),
    Case("too-many-brokers", ("cluster", "run", "--brokers", "4"), 2, "--brokers"),
    Case("too-short", ("cluster", "run", "--duration", "5"), 2, "--duration"),
    Case("bad-seed", ("cluster", "run", "--seed", "x"), 2, "--seed"),
    Case("release-not-on-central", ("cluster", "run", "--rocketmq-version", "5.5.1"), 2, "not on Maven Central"),
    Case("unsupported-release", ("cluster", "run", "--rocketmq-version", "4.9.8"), 2, "supported: 5.3.3, 5.4.0, 5.5.0"),
    Case("metadata-loss-unsupported-release", ("cluster", "run", "--metadata-loss", "--rocketmq-version", "4.9.8"), 2,
         "supported: 5.3.3"),
    Case("out-not-empty", ("cluster", "run", "--out", "{spec}"), 2, "not an empty folder"),
    Case("two-controllers", ("cluster", "run", "--controllers", "2"), 2, "--controllers"),
    Case("metadata-loss-with-wipe", ("cluster", "run", "--metadata-loss", "--wipe"), 2, "--wipe"),
    Case("table-no-runs", ("cluster", "table", "--runs", "0"), 2, "--runs"),
    Case("table-unknown-settings", ("cluster", "table", "--settings", "safe,fast"), 2, "fast"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_cli(case: Case, tmp_path: Path) -> None:
    run_case(case, tmp_path)
