"""The known-bugs traces found by the checker are its counterexamples: the checker, run again on the row's
configuration, writes the same states (and the same ``#meta`` but the row's description and names). Rows whose
configuration takes the checker over half a minute (MC_neg_hw_logmatching, MC_neg_union, MC_neg_allack) are left to
tests/tools/test_check.py, which checks the length of their shortest counterexample against controls.py, and to
tests/unit/test_known_bugs.py, which checks the committed trace has that length and replays to the violation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from autoswitch.conformance.check.checker import Checker, violation_trace_meta
from autoswitch.conformance.check.specconfig import load_spec_config
from autoswitch.conformance.known_bugs import BY_ID, CHECKOUT
from autoswitch.conformance.trace.itf import write_trace

QUICK = ("kafka-1211-loss", "kafka-7415", "rocketmq-unclean-election", "rocketmq-confirm-shortcut", "rocketmq-confirm-zero-ack")
ROW_META = ("description", "bug", "reference")


@pytest.mark.parametrize("bug_id", QUICK)
def test_the_committed_trace_is_the_checkers_counterexample(bug_id: str, tmp_path: Path) -> None:
    bug = BY_ID[bug_id]
    spec = load_spec_config(bug.config)
    violation = Checker(spec).run().violation
    assert violation is not None and violation.name == bug.property
    write_trace(tmp_path / "fresh.itf.json", violation_trace_meta(spec, violation), list(violation.states))
    fresh, committed = (json.loads(p.read_text()) for p in (tmp_path / "fresh.itf.json", CHECKOUT / bug.trace))
    assert fresh["states"] == committed["states"]
    assert {k: v for k, v in fresh["#meta"].items() if k not in ROW_META} == \
        {k: v for k, v in committed["#meta"].items() if k not in ROW_META}
