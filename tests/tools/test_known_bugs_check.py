"""The known-bugs traces found by the checker are its counterexamples: the checker, run again on the row's
configuration, writes a trace that ``known_bugs.adopt`` turns into the committed file byte for byte. Rows whose
configuration takes the checker over half a minute (MC_neg_hw_logmatching, MC_neg_union, MC_neg_allack) are left to
tests/tools/test_check.py, which checks the length of their shortest counterexample against controls.py, and to
tests/unit/test_known_bugs.py, which checks the committed trace has that length and replays to the violation."""

from __future__ import annotations

from pathlib import Path

import pytest

from autoswitch.conformance.check.checker import Checker, violation_trace_meta
from autoswitch.conformance.check.specconfig import load_spec_config
from autoswitch.conformance.known_bugs import BY_ID, CHECKOUT, adopt
from autoswitch.conformance.trace.itf import write_trace

QUICK = ("kafka-1211-loss", "kafka-7415", "rocketmq-unclean-election", "rocketmq-confirm-shortcut", "rocketmq-confirm-zero-ack")


@pytest.mark.parametrize("bug_id", QUICK)
def test_the_committed_trace_is_the_checkers_counterexample(bug_id: str, tmp_path: Path) -> None:
    bug = BY_ID[bug_id]
    spec = load_spec_config(bug.config)
    violation = Checker(spec).run().violation
    assert violation is not None and violation.name == bug.property
    write_trace(tmp_path / "fresh.itf.json", violation_trace_meta(spec, violation), list(violation.states))
    written = adopt(bug, tmp_path / "fresh.itf.json", tmp_path)
    assert written.read_bytes() == (CHECKOUT / bug.trace).read_bytes()
