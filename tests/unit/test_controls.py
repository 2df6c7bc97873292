"""The registry of safe configurations and negative controls (conformance/controls.py) agrees with the files
it names: each spec configuration exists, checks the row's invariant (or liveness property) and sets the row's
options; each trace exists and expects the row's invariant under the row's options; each simulation configuration is
in the grid with the row's options and control. The liveness rows name the contract's configurations; the default
campaign weighs every fault of MODEL.md §9. The options table and the spec's location (specconfig)."""

from __future__ import annotations

import json
from pathlib import Path

import attrs
import pytest
from click.testing import CliRunner

from autoswitch.conformance.check.specconfig import SPEC_DIR_ENV, SpecDirError, load_spec_config, spec_dir, use_spec_dir
from autoswitch.conformance.cli import main
from autoswitch.conformance.controls import (
    CONTROLS,
    DEFAULT_CONFIGS,
    DEFAULT_WEIGHTS,
    SIMULATE,
    by_cfg,
    expected_violation,
    findings,
    grid,
    in_default,
    liveness_breaks,
)
from autoswitch.conformance.engines import OPTION_FIELDS, config_from_meta, spec_constant
from autoswitch.conformance.simulation.campaign import MOVES, Drawer
from autoswitch.reference import Options
from autoswitch.reference.liveness import LIVENESS_BY_NAME, NEW_FAULTS

ROOT = Path(__file__).resolve().parents[2]


def test_names_configurations_and_traces_are_unique() -> None:
    for field in ("name", "cfg", "trace", "simulation"):
        named = [getattr(c, field) for c in CONTROLS if getattr(c, field)]
        assert len(named) == len(set(named)), field


@pytest.mark.parametrize("row", [c for c in CONTROLS if c.cfg], ids=lambda c: c.name)
def test_each_spec_configuration_checks_the_invariant_under_the_options(row) -> None:
    spec = load_spec_config(row.cfg)
    assert spec.options == row.model_options
    if row.invariant is not None:
        assert row.invariant in spec.invariants
    if row.liveness is not None:
        assert row.liveness in spec.liveness


def test_liveness_rows_name_the_contracts_configurations_and_properties() -> None:
    live = {c.cfg: c.liveness for c in CONTROLS if c.cfg and c.cfg.startswith("MC_live")}
    assert live == {"MC_live_reg": None, "MC_live_data": None, "MC_live_neg_retry": "EventuallyRegistered",
                    "MC_live_neg_reelect": "EventuallyMaster", "MC_live_neg_reentry": "EventuallyInSync",
                    "MC_live_meta": "EventuallyRegistered", "MC_live_failover": "EventuallyInSync", "MC_live_ms": "EventuallyMaster",
                    "MC_live_dledger2": "EventuallyMaster", "MC_live_dledger3": None}
    assert all(c.liveness in LIVENESS_BY_NAME for c in CONTROLS if c.liveness)
    assert all(c.invariant is None for c in CONTROLS if c.liveness)  # one property per row: what its cfg must break
    assert expected_violation("MC_live_neg_reentry") == "EventuallyInSync" and expected_violation("MC_live_reg") is None
    assert expected_violation("MC_live_neg_other") == "*" and expected_violation("MC_neg_union") == "NoAckedMessageLost"
    # the options break what their row says; the finding meta-loss is the fault's, no setting's
    assert liveness_breaks("rocketmq", {"epoch_reentry_fix": False}) == ("EventuallyInSync",)
    assert liveness_breaks("kip279", {"reelect_scan": False, "register_retry": False}) == (
        "EventuallyRegistered", "EventuallyInSync", "EventuallyMaster")  # retry-off and reelect-off tolerate the code's finding
    assert liveness_breaks("rocketmq", {}) == ()
    # the code's findings: every liveness walk tolerates the failover one; meta-loss only where the fault is drawn
    assert [c.name for c in CONTROLS if c.finding] == ["meta-loss", "failover"]
    assert findings(["Crash", "Restart"]) == ("EventuallyInSync",)
    assert findings(["ControllerMetadataLoss"]) == ("EventuallyRegistered", "EventuallyInSync")
    assert grid()["safe-rocketmq-2p-live"].control is None and grid()["safe-rocketmq-2p-live"].tolerated == ("EventuallyInSync",)
    assert grid()["safe-rocketmq-2p"].tolerated == ()


@pytest.mark.parametrize("row", [c for c in CONTROLS if c.trace], ids=lambda c: c.name)
def test_each_trace_expects_the_invariant_under_the_options(row) -> None:
    meta = json.loads((ROOT / row.trace).read_text())["#meta"]
    assert meta.get("expect", {}).get("violation") == row.invariant
    config, field, problem = config_from_meta(meta)
    assert config is not None, (field, problem)
    assert config.options == row.model_options


@pytest.mark.parametrize("row", [c for c in CONTROLS if c.simulation], ids=lambda c: c.name)
def test_each_simulation_configuration_is_in_the_grid_with_its_control(row) -> None:
    sim = grid()[row.simulation]
    assert sim.config.options == row.model_options
    assert sim.control == row.expects
    assert sim.live == (row.simulation.endswith("-live"))
    assert set(row.tolerated) <= set(sim.tolerated)
    if sim.live:  # the invariants the options break are tolerated in its liveness walks
        assert set(grid()[row.simulation.removesuffix("-live")].breaks) <= set(sim.tolerated)


def test_the_default_campaign_weighs_every_fault_and_draws_those_of_the_action_table() -> None:
    assert set(NEW_FAULTS) <= {m for m in MOVES if DEFAULT_WEIGHTS.get(m, 0) > 0}
    for name in DEFAULT_CONFIGS:  # the liveness walks draw no ControllerMetadataLoss (controls.LIVE_WEIGHTS)
        weights = grid()[name].weights()
        assert {f for f in NEW_FAULTS if not weights[f] > 0} == ({"ControllerMetadataLoss"} if grid()[name].live else set()), name
    from autoswitch.reference.actions import ACTIONS

    drawer = Drawer(grid()["safe-rocketmq-2p"].config, DEFAULT_WEIGHTS)
    assert set(drawer.moves) == {m for m in MOVES if m in ACTIONS or m in ("process", "request")}


def test_every_negative_spec_configuration_and_negative_trace_is_a_row() -> None:
    assert [cfg.stem for cfg in sorted((ROOT / "spec").glob("MC_neg_*.cfg")) if by_cfg(cfg.stem) is None] == []
    rows = {c.trace for c in CONTROLS}
    assert [str(p.relative_to(ROOT)) for p in sorted((ROOT / "traces/negative").glob("*.json"))
            if str(p.relative_to(ROOT)) not in rows] == []


def test_the_default_grid_is_the_rows_simulations() -> None:
    assert set(DEFAULT_CONFIGS) == {c.simulation for c in in_default(SIMULATE)}
    assert "freeze-off-rocketmq-3p" in grid() and "freeze-off-rocketmq-3p" not in DEFAULT_CONFIGS
    live = {c.liveness for c in in_default(SIMULATE) if c.liveness}
    assert live == {"EventuallyRegistered", "EventuallyMaster", "EventuallyInSync"}  # each liveness control, by default


def test_options_table_is_every_options_field_but_the_policy() -> None:
    assert sorted(OPTION_FIELDS.values()) == sorted(f.name for f in attrs.fields(Options) if f.name != "policy")
    assert OPTION_FIELDS["enableElectUncleanMaster"] == "enable_elect_unclean_master"
    assert spec_constant("asyncLearners") == "AsyncLearners"
    assert set(load_spec_config("MC_data").constants) >= set(map(spec_constant, OPTION_FIELDS))


def test_spec_configuration_with_an_unknown_constant_is_refused(tmp_path: Path) -> None:
    (tmp_path / "MC_data.tla").write_text((ROOT / "spec/MC_data.tla").read_text())
    text = (ROOT / "spec/MC_data.cfg").read_text().replace("CONSTANTS\n", "CONSTANTS\n    NoSuchOption = TRUE\n", 1)
    assert "NoSuchOption" in text
    (tmp_path / "bad.cfg").write_text(text)
    with pytest.raises(Exception, match="unknown constant.*NoSuchOption"):
        load_spec_config(tmp_path / "bad.cfg")


def test_spec_folder_from_option_environment_or_checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert spec_dir() == ROOT / "spec"
    monkeypatch.setenv(SPEC_DIR_ENV, str(tmp_path))
    with pytest.raises(SpecDirError, match=f"pip install -e .*{SPEC_DIR_ENV}"):
        spec_dir()
    for name in ("AutoSwitch.tla", "MC_data.tla", "MC_neg_union.cfg"):
        (tmp_path / name).write_text((ROOT / "spec" / name).read_text())
    assert spec_dir() == tmp_path and load_spec_config("MC_neg_union").name == "MC_neg_union"
    try:
        use_spec_dir(ROOT / "spec")
        assert spec_dir() == ROOT / "spec"
    finally:
        use_spec_dir(None)
    monkeypatch.setenv(SPEC_DIR_ENV, str(tmp_path / "nothing"))
    for command in ("check", "tla"):
        result = CliRunner().invoke(main, [command, "MC_neg_union"])
        assert result.exit_code == 2 and SPEC_DIR_ENV in result.output, result.output
