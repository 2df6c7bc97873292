"""The rocketmq engine's tables without a JVM: spec/README.md holds its table of where each variable is read from, and
the settled divergences and refinements are well formed (a trace that exists, a reason, a witness)."""

from __future__ import annotations

from pathlib import Path

from autoswitch.conformance.rocketmq.datawalk import markdown_table as datawalk_table
from autoswitch.conformance.rocketmq.engine import markdown_table
from autoswitch.conformance.rocketmq.findings import DIVERGENCES, MODEL_ERROR, REFINEMENT, REFINEMENTS

ROOT = Path(__file__).resolve().parents[2]


def test_spec_readme_holds_the_engine_table() -> None:
    assert markdown_table() in (ROOT / "spec" / "README.md").read_text()


def test_every_settled_divergence_names_a_committed_trace_and_its_settlement() -> None:
    for d in DIVERGENCES:
        assert (ROOT / "traces" / d.trace).is_file(), d.trace
        assert d.status in (MODEL_ERROR, REFINEMENT) and d.finding


def test_every_refinement_has_a_witness_ending_at_the_refined_request() -> None:
    for r in REFINEMENTS:
        assert r.witness and r.about and r.spec


def test_the_fidelity_page_holds_the_data_walk_table() -> None:
    assert datawalk_table() in (ROOT / "docs" / "fidelity.md").read_text()
