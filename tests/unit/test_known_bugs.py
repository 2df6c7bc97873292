"""The known-bugs catalogue (conformance/known_bugs.py): each row's trace is its shortest known counterexample with
the row's setting and property, the fixed setting stops it, the rows agree with controls.py and the spec
configurations, and docs/known-bugs.md's table is the catalogue's. Rows that need pieces merged later (the liveness
checker, the MC_live_* configurations, their lassos) are checked for what exists: ``pending`` must name exactly
the files that are missing."""

from __future__ import annotations

import re
from pathlib import Path

import attrs
import pytest

from autoswitch.conformance import controls
from autoswitch.conformance.check.checker import registration_steps
from autoswitch.conformance.check.specconfig import CHECKOUT_SPEC_DIR, load_spec_config
from autoswitch.conformance.engines import config_from_meta
from autoswitch.conformance.known_bugs import (
    BY_ID,
    CHECKER,
    CHECKOUT,
    DERIVED,
    DOCUMENTED,
    INIT_REGISTERED,
    KNOWN_BUGS,
    KNOWN_BUGS_DIR,
    LIVENESS,
    REPORTED,
    SAFETY,
    SCENARIO,
    TABLE_PAGE,
    adopt,
    markdown_table,
    reproduce,
    with_fix,
)
from autoswitch.conformance.simulation.campaign import grid
from autoswitch.conformance.trace.itf import load_trace
from autoswitch.reference import Options
from autoswitch.reference.invariants import STATE_INVARIANTS
from autoswitch.reference.liveness import LIVENESS_BY_NAME, NEW_FAULTS

SAFETY_ROWS = [b for b in KNOWN_BUGS if b.kind == SAFETY]
INVARIANTS = {i.name for i in STATE_INVARIANTS}
# negative controls of controls.py that re-create a row's bug at larger bounds
SAME_BUG = {"hw-data": "kafka-1211-loss", "shortcut-off-e3": "rocketmq-confirm-shortcut", "zeroack-off-e3": "rocketmq-confirm-zero-ack"}


def test_ids_are_unique_and_every_trace_in_the_folder_is_a_row() -> None:
    assert len(BY_ID) == len(KNOWN_BUGS)
    files = {p.name.removesuffix(".itf.json") for p in (CHECKOUT / KNOWN_BUGS_DIR).glob("*.json")}
    assert files <= set(BY_ID), files - set(BY_ID)
    assert {b.id for b in SAFETY_ROWS} <= files  # every safety row is complete


def test_every_row_names_a_property_a_reference_and_a_fix() -> None:
    for b in KNOWN_BUGS:
        assert b.property in INVARIANTS | set(LIVENESS_BY_NAME), b.id
        assert (b.kind == LIVENESS) == (b.property in LIVENESS_BY_NAME)
        assert (b.origin == DERIVED) == b.reference.startswith("derived from the code, ROCKETMQ.md §") == (b.url == ""), b.id
        assert b.origin in (REPORTED, DOCUMENTED, DERIVED) and (b.url == "" or b.url.startswith("https://"))
        assert b.system in ("RocketMQ", "Kafka") and b.id.startswith(b.system.lower()) or b.id.startswith("kip-")
        assert b.fault is None or b.fault in NEW_FAULTS
        assert b.fixed_options != b.model_options or b.fault is not None, f"{b.id}: the fix changes nothing"
        assert b.options or b.policy != "rocketmq" or b.fault, f"{b.id}: the safe defaults are no bug"


@pytest.mark.parametrize("bug", SAFETY_ROWS, ids=lambda b: b.id)
def test_the_trace_is_the_rows_setting_and_breaks_its_property_at_its_last_state(bug) -> None:
    trace = load_trace(CHECKOUT / bug.trace)
    assert (trace.meta["bug"], trace.meta["reference"]) == (bug.id, bug.reference)
    assert trace.meta["expect"] == {"violation": bug.property, "state": len(trace.states) - 1}
    config, _, problem = config_from_meta(trace.meta)
    assert config is not None, problem
    assert config.options == bug.model_options
    actions = [s["action"] for s in trace.states[1:]]
    prefix = 0
    if bug.start == INIT_REGISTERED:
        order = list(dict.fromkeys(a["process"] for a in actions if a["tag"] == "CreateTempFile"))
        prefix = len(registration_steps(order))
        assert sorted(order) == sorted(config.processes) and actions[:prefix] == registration_steps(order)
    assert len(actions) - prefix == bug.steps


@pytest.mark.parametrize("bug", [b for b in KNOWN_BUGS if b.kind == LIVENESS], ids=lambda b: b.id)
def test_a_liveness_rows_lasso_once_merged_names_the_row_and_its_setting(bug) -> None:
    path = CHECKOUT / bug.trace
    if not path.is_file():
        pytest.skip(f"{bug.trace}: the lasso comes with the liveness checker (pending: {', '.join(bug.pending)})")
    trace = load_trace(path)
    assert trace.meta["bug"] == bug.id
    config, _, problem = config_from_meta(trace.meta)
    assert config is not None and config.options == bug.model_options, problem


@pytest.mark.parametrize("bug", SAFETY_ROWS, ids=lambda b: b.id)
def test_the_fixed_setting_stops_the_counterexample(bug) -> None:
    assert bug.property in with_fix(CHECKOUT / bug.trace, bug.model_options)[2]
    assert bug.property not in with_fix(CHECKOUT / bug.trace, bug.fixed_options)[2]


def test_kip101_alone_does_not_fix_the_divergence_and_kip279_alone_fixes_kip279s_case() -> None:
    """Why the Kafka rows' fixed setting is 2.1.0's (kip279 with the epoch entry on election)."""
    divergence, k3 = BY_ID["kafka-1211-divergence"], BY_ID["kip-279-divergence"]
    for policy in ("kip101", "kip279"):
        assert "LogMatching" in with_fix(CHECKOUT / divergence.trace, Options(policy=policy, **divergence.options))[2]
    assert with_fix(CHECKOUT / k3.trace, Options(policy="kip279", **k3.options))[2] == []
    assert "LogMatching" in with_fix(CHECKOUT / k3.trace, Options(policy="kip101", kafka_leader_epoch_on_election=True,
                                                                  **k3.options))[2]


@pytest.mark.parametrize("bug", KNOWN_BUGS, ids=lambda b: b.id)
def test_the_row_takes_its_setting_from_its_control(bug) -> None:
    """The setting, the property and the fault are the control's; the checker's counterexample is its control's (its
    configuration, length and start); a scenario is the control's trace."""
    control = controls.by_name(bug.control)
    assert control is not None
    assert (control.policy, dict(control.options), control.expects) == (bug.policy, dict(bug.options), bug.property)
    assert bug.fault == (control.faults[0] if control.faults else None)
    if bug.found_by == CHECKER:
        assert (bug.config, bug.steps) == (control.cfg, control.steps)
        assert bug.config is None or bug.start == load_spec_config(bug.config).init
    else:
        assert bug.config is None
    assert bug.source == (control.trace if bug.found_by == SCENARIO else None)


def test_a_row_restating_its_controls_counterexample_otherwise_is_refused() -> None:
    row = BY_ID["rocketmq-5663"]
    with pytest.raises(ValueError, match="rocketmq-5663: the checker's counterexample has its control's steps"):
        attrs.evolve(row, steps=row.steps + 1)
    with pytest.raises(ValueError, match="no row of controls.py"):
        attrs.evolve(row, control="no-such-row")


@pytest.mark.parametrize("bug", [b for b in KNOWN_BUGS if b.source], ids=lambda b: b.id)
def test_a_scenario_rows_trace_is_its_scenario_adopted(bug, tmp_path: Path) -> None:
    written = adopt(bug, CHECKOUT / bug.source, tmp_path)
    assert written.read_bytes() == (CHECKOUT / bug.trace).read_bytes()


def test_every_negative_control_is_a_known_bug_or_a_larger_copy_of_one() -> None:
    rows = {b.control for b in KNOWN_BUGS}
    for c in controls.CONTROLS:  # the designs RIP-44 replaced are designs, not bugs (conformance/compare.py)
        if c.invariant in INVARIANTS and c.design == "controller":
            assert c.name in rows or SAME_BUG.get(c.name) in BY_ID, f"{c.name}: no row of the catalogue"


@pytest.mark.parametrize("bug", [b for b in KNOWN_BUGS if b.config], ids=lambda b: b.id)
def test_the_rows_configuration_is_its_setting(bug) -> None:
    path = CHECKOUT_SPEC_DIR / f"{bug.config}.cfg"
    if not path.is_file():
        assert f"spec/{bug.config}.cfg" in bug.pending
        return
    spec = load_spec_config(bug.config)
    assert spec.init == bug.start
    assert spec.config().options == bug.model_options
    assert controls.expected_violation(bug.config) in ("*", bug.property) or bug.kind == LIVENESS


@pytest.mark.parametrize("bug", KNOWN_BUGS, ids=lambda b: b.id)
def test_pending_names_exactly_the_missing_files(bug) -> None:
    for item in bug.pending:
        if item.startswith("spec/"):
            assert not (CHECKOUT / item).is_file(), f"{bug.id}: {item} exists: drop it from pending"
    assert ("the lasso trace" in bug.pending) == (bug.kind == LIVENESS and not (CHECKOUT / bug.trace).is_file())


@pytest.mark.parametrize("bug", KNOWN_BUGS, ids=lambda b: b.id)
def test_the_fixed_configuration_is_a_safe_setting(bug) -> None:
    name = bug.fix.config
    if (CHECKOUT_SPEC_DIR / f"{name}.cfg").is_file():
        assert controls.expected_violation(name) is None
        spec = load_spec_config(name)
        assert bug.property in spec.invariants + spec.liveness
    elif name in grid():
        safe = [c for c in controls.CONTROLS if c.simulation == name]
        assert safe and safe[0].invariant is None
    else:
        assert bug.kind == LIVENESS and bug.pending, f"{bug.id}: {name} is no configuration"


def test_a_row_whose_trace_is_missing_does_not_reproduce() -> None:
    missing = [b for b in KNOWN_BUGS if not (CHECKOUT / b.trace).is_file()]
    for bug in missing:
        first = reproduce(bug, check_fixed=False)[0]
        assert first.ok is False and "is missing" in first.detail


def test_reproduce_a_safety_row_without_the_checker() -> None:
    checks = reproduce(BY_ID["rocketmq-5663"], check_fixed=False)
    assert [c.ok for c in checks] == [True, True, None]
    assert "NoAckedMessageLost fails at state 16, as expected" in checks[0].detail


def test_the_docs_table_is_the_catalogue() -> None:
    text = (CHECKOUT / TABLE_PAGE).read_text()
    section = re.search(r"^# Known bugs the model reproduces\n(.*?)(?=^#{1,2} |\Z)", text, re.S | re.M)
    assert section is not None, f"{TABLE_PAGE} has no section 'Known bugs the model reproduces'"
    assert markdown_table() in section.group(1)


def test_every_trace_path_is_under_the_folder() -> None:
    assert all(Path(b.trace).parent == Path(KNOWN_BUGS_DIR) for b in KNOWN_BUGS)
