"""The committed corpus on RocketMQ's own classes: every trace the real code can answer agrees with the model except the
settled divergences of ``conformance/rocketmq/findings.py``, exactly; the findings under ``traces/rocketmq/`` replay on
the real code as they do on both models."""

from __future__ import annotations

from pathlib import Path

import pytest

from autoswitch.conformance.cli import trace_files
from autoswitch.conformance.engines import REAL
from autoswitch.conformance.rocketmq.findings import DIVERGENCES
from autoswitch.conformance.trace.replay import DIVERGENCE, NOT_ASKED, PASS, replay_file

TRACES = Path(__file__).resolve().parents[2] / "traces"
# the kinds of trace the real engine cannot answer, each for its reason (engine.NOT_ASKED, components.replay_retention)
NOT_ASKED_REASONS = ("design is not RocketMQ 5's controller mode", "truncation policy is Kafka's", "retention drives")


@pytest.fixture(scope="module")
def corpus() -> dict[str, object]:
    return {str(Path(f).relative_to(TRACES)): replay_file(f, REAL) for f in trace_files([str(TRACES)])}


def test_the_corpus_agrees_with_the_real_code_but_the_settled_divergences(corpus: dict) -> None:
    found = {(name, r.state, r.field) for name, r in corpus.items() if r.status == DIVERGENCE}
    assert found == {(d.trace, d.state, d.field) for d in DIVERGENCES}
    others = {name: r for name, r in corpus.items() if r.status not in (PASS, NOT_ASKED, DIVERGENCE)}
    assert not others, "\n".join(r.describe() for r in others.values())


def test_what_the_real_code_is_not_asked_is_only_another_design_policy_or_retention(corpus: dict) -> None:
    asked = [r for r in corpus.values() if r.status == NOT_ASKED]
    assert asked
    strange = [r.describe() for r in asked if not any(reason in r.message for reason in NOT_ASKED_REASONS)]
    assert not strange
    assert sum(r.status == PASS for r in corpus.values()) > 2 * len(asked)


def test_every_controller_trace_runs_the_real_controller(corpus: dict) -> None:
    controller = {name: r for name, r in corpus.items() if name.startswith(("controller/", "code/", "broker-id/", "faults/"))}
    assert controller and all(r.status in (PASS, DIVERGENCE) for r in controller.values())


def test_the_findings_replay_on_the_real_code_and_on_both_models() -> None:
    files = trace_files([str(TRACES / "rocketmq")])
    assert files
    for f in files:
        for engine in ("reference", "impl", REAL):
            result = replay_file(f, engine)
            assert result.status == PASS, result.describe()



@pytest.mark.parametrize(("version", "status"), [("5.1.1", DIVERGENCE), ("5.1.4", PASS)])
def test_alter_with_no_master_throws_before_its_fix_and_refuses_after(version: str, status: str) -> None:
    """apache/rocketmq #7293 (5.1.4): alterSyncStateSet compared a null master id; the trace's refusal is the fix's."""
    result = replay_file(str(TRACES / "code" / "alter-check-order.itf.json"), f"{REAL}@{version}")
    assert result.status == status, result.describe()
    if status == DIVERGENCE:
        assert result.field == "outcome.code" and result.actual == "'THROWS NullPointerException'"
