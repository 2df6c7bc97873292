"""The comparison of the designs RIP-44 replaced (conformance/compare.py): docs/designs.md's table is the one the committed
results render; those results are what controls.py expects; a search per violated property gives what a check of each
property alone gives; the registry does not mix designs; the campaign report's Designs section."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pytest

from autoswitch.conformance import compare
from autoswitch.conformance.check.checker import Checker
from autoswitch.conformance.check.specconfig import load_spec_config
from autoswitch.conformance.check.verdict import LIVENESS_VIOLATION, expected, load_checker
from autoswitch.conformance.controls import CONTROLS, breaks, by_name, config_breaks, liveness_breaks
from autoswitch.conformance.simulation import report
from autoswitch.reference.state import CONTROLLER, DLEDGER, MASTER_SLAVE

ROOT = Path(__file__).resolve().parents[2]
CHEAP = ("ms-async", "ms-sync", "dledger-2", "dledger-3")  # seconds each; controller mode's take minutes


def test_the_designs_page_shows_the_table_of_the_committed_results() -> None:
    cells = compare.load()
    assert compare.markdown_table(cells) in (ROOT / compare.TABLE_PAGE).read_text()


def test_committed_results_cover_every_design_and_property_as_controls_expects() -> None:
    cells = compare.load()
    assert Counter((c.design, c.prop) for c in cells) == Counter((d, p) for d in compare.DESIGN_NAMES for p in compare.PROPERTIES)
    wrong = [(c.design, c.prop, c.status, c.expected) for c in cells if not c.as_expected]
    assert not wrong
    for c in cells:  # a checked cell names its command and carries an expectation; n/a cells the design's reason
        design = next(d for d in compare.DESIGNS if d.name == c.design)
        kind = by_name(design.safety).design
        if c.status in (compare.HOLDS, compare.VIOLATED):
            assert c.command is not None and c.expected is not None
            assert (c.states is not None) == (c.status == compare.HOLDS) and (c.steps is not None) == (c.status == compare.VIOLATED)
        assert (c.status == compare.NA) == (c.prop in compare.NOT_APPLICABLE.get(kind, {}))
    violated = {(c.design, c.prop) for c in cells if c.status == compare.VIOLATED}
    # the known outcomes: 4.x loses acknowledged data, DLedger with two replicas stops; controller mode and
    # DLedger with three hold
    assert {("ms-async", "NoAckedMessageLost"), ("ms-sync", "NoAckedMessageLost"), ("dledger-2", "EventuallyMaster")} <= violated
    assert not [v for v in violated if v[0] in ("dledger-3", "controller-2", "controller-3")]
    # 4.x's old master back as a slave: the logs diverge and it never catches up
    assert {("ms-async", "LogMatching"), ("ms-sync", "LogMatching"), ("ms-sync", "EventuallyInSync")} <= violated


def test_the_cell_command_checks_one_property() -> None:
    cell = compare.Cell("ms-sync", "EpochsMonotonic", compare.HOLDS, compare.HOLDS, "MC_x", states=3)
    assert cell.command == "autoswitch check MC_x --property EpochsMonotonic" and cell.text == "holds (3 states)"
    cell = compare.Cell("d", "NoPhantomRead", compare.VIOLATED, compare.HOLDS, "MC_y", steps=4)
    assert cell.command == "autoswitch check MC_y --invariant NoPhantomRead" and not cell.as_expected
    assert compare.Cell("d", "EventuallyMaster", compare.VIOLATED, cfg="MC_z", steps=1, loop=1).text == "**violated**, lasso of 1 step"
    assert compare.Cell.from_json(cell.to_json()) == cell


def test_designs_do_not_inherit_each_others_rows() -> None:
    assert {c.name: c.design for c in CONTROLS if c.design != CONTROLLER} == {
        "ms-async": MASTER_SLAVE, "ms-sync": MASTER_SLAVE, "dledger-2": DLEDGER, "dledger-3": DLEDGER, "live-ms": MASTER_SLAVE,
        "live-dledger-2": DLEDGER, "live-dledger-3": DLEDGER}
    ms_async = {"design": MASTER_SLAVE, "sync_master": False}
    assert breaks("rocketmq", ms_async) == ("NoAckedMessageLost", "NoPhantomRead", "LogMatching")
    # a controller row's option on another design brings nothing of the controller row (union-off, reelect-off)
    assert breaks("rocketmq", {"design": DLEDGER, "union_ack_fix": False}) == ()
    assert breaks("rocketmq", {"union_ack_fix": False}) == ("NoAckedMessageLost",)
    assert liveness_breaks("rocketmq", {"design": DLEDGER, "reelect_scan": False}, 3) == ()
    # DLedger: the verdict depends on the members; 4.x SYNC_MASTER by its defaults (sync_master, slave_not_available_ok)
    assert liveness_breaks("rocketmq", {"design": DLEDGER}, 2) == ("EventuallyMaster", "EventuallyAnswered")
    assert liveness_breaks("rocketmq", {"design": DLEDGER}) == ()
    assert liveness_breaks("rocketmq", {"design": MASTER_SLAVE}) == ("EventuallyMaster", "EventuallyInSync")
    assert liveness_breaks("rocketmq", ms_async) == ()


def test_check_with_a_subset_expects_what_the_configuration_breaks_among_it() -> None:
    assert config_breaks("MC_neg_union") == ("NoAckedMessageLost",) and config_breaks("MC_neg_other") is None
    assert config_breaks("MC_ms_sync") == ("NoAckedMessageLost", "NoPhantomRead", "LogMatching")
    assert config_breaks("MC_live_ms") == ("EventuallyMaster", "EventuallyInSync")
    assert expected("MC_neg_union", ("TypeOK",)) == "ok" and expected("MC_neg_union", ("TypeOK", "NoAckedMessageLost")) == "violation"
    assert expected("MC_live_neg_retry", ("EventuallyRegistered",)) == LIVENESS_VIOLATION
    assert expected("MC_live_neg_retry", ("EventuallyMaster",)) == "ok"
    assert expected("MC_live_failover", ("EventuallyInSync",)) == LIVENESS_VIOLATION  # the code's finding
    # a design's liveness row: its cfg must give a lasso of its property (not an invariant's counterexample)
    assert expected("MC_live_ms") == expected("MC_live_dledger2") == LIVENESS_VIOLATION and expected("MC_live_dledger3") == "ok"
    checker = load_checker("MC_live_data", False, ("LogMatching", "EpochsMonotonic", "EventuallyAnswered"))
    assert [i.name for i in checker.invariants] == ["LogMatching"] and [p.name for p in checker.properties] == ["EpochsMonotonic"]
    assert checker.spec.liveness == ("EventuallyAnswered",)


def test_a_search_per_violated_property_is_a_check_of_each_alone() -> None:
    spec = load_spec_config("MC_ms_sync")
    props = [p for p in compare.SAFETY if p not in compare.NOT_APPLICABLE[MASTER_SLAVE]]
    for prop, states, v in compare.search(spec, props):
        alone = Checker(spec, invariants=[] if prop in compare.ACTION else [prop], properties=[prop] if prop in compare.ACTION else [])
        result = alone.run()
        if v is None:
            assert result.violation is None and result.distinct == states, prop
        else:
            assert result.violation is not None and len(result.violation.states) == len(v.states), prop


@pytest.mark.slow
def test_a_fresh_run_reproduces_the_committed_results(tmp_path: Path) -> None:
    fresh = compare.run(CHEAP, tmp_path)
    committed = [c for c in compare.load() if c.design in CHEAP]
    assert [c.to_json() | {"trace": None} for c in fresh] == [c.to_json() | {"trace": None} for c in committed]
    copied = compare.copy_traces(fresh, tmp_path / "traces")
    kept = {path.name for _, path, ok, _ in copied if ok}
    assert kept == {p.name for p in (ROOT / compare.TRACES).glob("*.itf.json")}


def _summary(name: str, failures: Counter, first: dict) -> report.ConfigSummary:
    return report.ConfigSummary(name, "NoAckedMessageLost", 200, 20_000, Counter(), 0, [], failures, Counter(), None,
                                first=first)


def test_the_campaign_report_lists_the_designs_walks(monkeypatch: pytest.MonkeyPatch) -> None:
    designs = {"ms-async-2p": MASTER_SLAVE, "safe-rocketmq-2p": CONTROLLER}
    monkeypatch.setattr(report, "grid", lambda: {n: SimpleNamespace(config=SimpleNamespace(options=SimpleNamespace(design=d)))
                                                 for n, d in designs.items()})
    stats = SimpleNamespace(steps_per_second=1000.0)
    ms = _summary("ms-async-2p", Counter({("violation", "NoAckedMessageLost"): 30}), {("violation", "NoAckedMessageLost"): (4, 350)})
    lines = report._designs_section([ms, _summary("safe-rocketmq-2p", Counter(), {})], stats)
    assert lines[0] == "## Designs"
    assert "| ms-async-2p | masterslave | NoAckedMessageLost | 200 | 150.0 | NoAckedMessageLost: walk 4, 350 steps, ~0.3 s |" in lines
    assert not any("safe-rocketmq-2p" in line for line in lines)
    assert compare.markdown_table(compare.load()) in lines  # the exhaustive comparison beside the walks
    assert report._designs_section([_summary("safe-rocketmq-2p", Counter(), {})], stats) == []
