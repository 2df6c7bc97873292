"""The spec configurations (spec/MC_*.cfg) are written from one table (conformance/cfgs.py): the committed files are
exactly what ``autoswitch configs`` writes, every one is a row, a row named by controls.py takes its setting from it,
and each file reads back (check/specconfig.py) as its row says."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from autoswitch.conformance import cfgs
from autoswitch.conformance.check.specconfig import load_spec_config
from autoswitch.conformance.cli import main
from autoswitch.conformance.controls import CONTROLS, by_cfg

SPEC = Path(__file__).resolve().parents[2] / "spec"


def test_committed_spec_configurations_are_what_the_table_writes(tmp_path: Path) -> None:
    """Regenerate and compare byte for byte; a difference names the file (``autoswitch configs`` rewrites spec/)."""
    result = CliRunner().invoke(main, ["configs", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    committed = sorted(p.name for p in SPEC.glob("MC_*.cfg"))
    assert committed == sorted(p.name for p in tmp_path.glob("*.cfg")), "spec/MC_*.cfg and cfgs.CFGS name different files"
    differ = [name for name in committed if (tmp_path / name).read_bytes() != (SPEC / name).read_bytes()]
    assert not differ, f"spec/{', spec/'.join(differ)} differ from what `autoswitch configs` writes (conformance/cfgs.py)"


def test_every_configuration_a_control_names_is_a_row() -> None:
    assert [c.cfg for c in CONTROLS if c.cfg and c.cfg not in cfgs.BY_NAME] == []


@pytest.mark.parametrize("row", cfgs.CFGS, ids=lambda r: r.name)
def test_the_file_reads_back_as_its_row(row: cfgs.SpecCfg) -> None:
    spec = load_spec_config(SPEC / f"{row.name}.cfg")
    assert spec.module == row.module and spec.options == row.setting and spec.init == row.initial_predicate
    assert (spec.bound("MaxEpoch"), spec.bound("MaxClock"), spec.bound("MaxNextBrokerId"), spec.bound("MaxMsgs")) == row.bounds
    assert (spec.faults, spec.max_faults, spec.bound_all_faults) == (row.faults, row.max_faults, row.bound_all_faults)
    assert spec.invariants == row.invariants and (*spec.properties, *spec.liveness) == row.properties
    control = by_cfg(row.name)
    if control is not None:
        assert (row.policy, dict(row.options)) == (None, {})  # the setting is stated once, in controls.py
        assert spec.options == control.model_options


def test_a_row_restating_its_controls_setting_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    row = cfgs.BY_NAME["MC_neg_union"]
    restated = cfgs.SpecCfg(row.name, row.module, row.bounds, row.about, options={"union_ack_fix": False})
    monkeypatch.setattr(cfgs, "CFGS", (restated,))
    monkeypatch.setattr(cfgs, "BY_NAME", {restated.name: restated})
    with pytest.raises(ImportError, match="MC_neg_union restate the setting"):
        cfgs._check_table()
