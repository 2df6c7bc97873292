"""``autoswitch bench``: the command-line table's rows."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_cases import Case, run_case

TINY = ("--walks", "2", "--length", "5", "--rounds", "1")

CASES = [
    Case("bench-controller", ("bench", *TINY, "--processes", "2", "--seed", "3"), 0, "steps/s"),
    Case("bench-data-with-variables", ("bench", *TINY, "--data", "--with-variables"), 0, "data-path corpus"),
    Case("bench-zero-walks", ("bench", "--walks", "0"), 2, "--walks"),
    Case("bench-zero-processes", ("bench", *TINY, "--processes", "0"), 2, "--processes"),
    Case("bench-negative-length", ("bench", "--walks", "1", "--length", "-1"), 2, "--length"),
    Case("bench-zero-rounds", ("bench", "--walks", "1", "--length", "2", "--rounds", "0"), 2, "--rounds"),
    Case("bench-seed-not-a-number", ("bench", *TINY, "--seed", "x"), 2, "--seed"),
    Case("bench-check-unknown-config", ("bench", "--check", "MC_nothing"), 2, "MC_nothing"),
    Case("bench-configs-without-check", ("bench", "MC_ms_sync"), 2, "--check"),
    # bench --logs (conformance/logs/bench.py): the exact search alone beside validate's schedule
    Case("bench-logs", ("bench", "--logs", "--walks", "1", "--length", "12", "safe-kip279-2p"), 0,
         "walk one-node, clock order"),
    Case("bench-logs-max-states", ("bench", "--logs", "--walks", "1", "--length", "12", "--max-states", "300", "safe-rocketmq-2p"),
         0, "at most 300 states a search"),
    Case("bench-logs-refusals", ("bench", "--logs", "--walks", "1", "--length", "12", "--max-states", "500", "safe-rocketmq-2p"),
         0, "unreachable: identity file, clock order"),
    Case("bench-logs-unknown-config", ("bench", "--logs", "--walks", "1", "nope"), 2, "nope"),
    Case("bench-logs-zero-max-states", ("bench", "--logs", "--max-states", "0"), 2, "--max-states"),
    Case("bench-max-states-without-logs", ("bench", "--walks", "1", "--max-states", "10"), 2, "--max-states is for --logs"),
    Case("bench-two-benchmarks", ("bench", "--check", "--logs"), 2, "give one"),
    Case("rocketmq-with-logs", ("bench", "--rocketmq", "--logs"), 2, "--rocketmq is for the corpus benchmark"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_cli(case: Case, tmp_path: Path) -> None:
    run_case(case, tmp_path)
