"""``autoswitch explain``: a walk step by step; bad input (malformed, a step not enabled, not a walk) exits 2."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from cli_cases import CHECKOUT, Case, run_case

B1 = CHECKOUT / "traces/broker-id/B1-first-start.itf.json"


def hostile_files(tmp: Path) -> None:
    doc = json.loads(B1.read_text())
    doc["states"][3]["action"] = {"tag": "Write", "process": "p1"}  # p1 is no master: Write is not enabled
    (tmp / "not-enabled.itf.json").write_text(json.dumps(doc))
    doc = json.loads(B1.read_text())
    del doc["states"][2]["action"]
    (tmp / "malformed.itf.json").write_text(json.dumps(doc))
    doc = json.loads(B1.read_text())
    doc["#meta"]["description"] = "look\x1b[2J\r"
    (tmp / "escaped.itf.json").write_text(json.dumps(doc))
    os.mkfifo(tmp / "fifo.itf.json")


CASES = [
    Case("walk", ("explain", "{traces}/broker-id/B1-first-start.itf.json"), 0, "every invariant holds on every state"),
    Case("counterexample", ("explain", "{traces}/negative/unclean-election-loses-acked.itf.json"), 0, "!!! NoAckedMessageLost"),
    Case("refused-step", ("explain", "{traces}/regressions/D1-refused-actions.itf.json"), 0, "as the trace says"),
    Case("escaped", ("explain", "{tmp}/escaped.itf.json"), 0, "look\\x1b[2J\\r"),
    Case("not-enabled", ("explain", "{tmp}/not-enabled.itf.json"), 2, "is not enabled here"),
    Case("malformed", ("explain", "{tmp}/malformed.itf.json"), 2, "state 2: field 'action'"),
    Case("not-a-walk", ("explain", "{traces}/z3/hw-truncation-step.itf.json"), 2, "is not a walk"),
    Case("fifo", ("explain", "{tmp}/fifo.itf.json"), 2, "a FIFO"),
    Case("a-folder", ("explain", "{traces}"), 2, "is a directory"),
    Case("no-such-file", ("explain", "{tmp}/nothing.itf.json"), 2, "does not exist"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_cli(case: Case, tmp_path: Path) -> None:
    hostile_files(tmp_path)
    run_case(case, tmp_path)
