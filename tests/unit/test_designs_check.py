"""The explicit-state checker on the designs RIP-44 replaced (reference/designs.py): a configuration's Design is
validated with its initial predicate, symmetry is refused (InitDesign fixes the ids by name), the safety and liveness
searches find the known outcomes, and their counterexamples replay on the reference. The configurations are written
under tmp_path beside a copy of spec/MC_live.tla (two processes: design_cfgs.py), so that these tests do not wait for
spec/'s own."""

from __future__ import annotations

from pathlib import Path

import pytest
from design_cfgs import design_cfg

from autoswitch.conformance.check.checker import Checker, symmetries, violation_trace_meta
from autoswitch.conformance.check.specconfig import CHECKOUT_SPEC_DIR, SpecConfig, SpecConfigError, load_spec_config
from autoswitch.conformance.trace.itf import write_trace
from autoswitch.conformance.trace.replay import PASS, replay_file


def _line(path: Path, needle: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


def test_a_design_configuration_reads(tmp_path: Path) -> None:
    spec = load_spec_config(design_cfg(tmp_path, "ms", '"masterslave"'))
    assert (spec.design, spec.init, spec.options.design) == ("masterslave", "InitDesign", "masterslave")


@pytest.mark.parametrize("value", ['"raft"', '"Controller"', '""'])
def test_a_design_outside_designs_is_refused_naming_file_and_line(tmp_path: Path, value: str) -> None:
    path = design_cfg(tmp_path, "bad", value)
    with pytest.raises(SpecConfigError) as e:
        load_spec_config(path)
    assert f"{path}:{_line(path, 'Design =')}: Design = {value.replace(chr(34), chr(39))}: must be one of " \
           "'controller', 'masterslave', 'dledger'" in str(e.value)


def test_a_design_that_is_not_a_string_is_refused(tmp_path: Path) -> None:
    path = design_cfg(tmp_path, "bad", "TRUE")
    with pytest.raises(SpecConfigError, match=rf"{path}:{_line(path, 'Design =')}: Design = True: must be a string"):
        load_spec_config(path)


@pytest.mark.parametrize(("design", "start", "says"), [
    ("masterslave", "INIT Init", "Init does not start the masterslave design .* use INIT InitDesign or SPECIFICATION LiveSpecDesign"),
    ("dledger", "SPECIFICATION LiveSpecRegistered", "LiveSpecRegistered does not start the dledger design"),
    ("controller", "INIT InitDesign", "InitDesign does not start the controller design .* use INIT Init, INIT InitRegistered"),
    ("controller", "SPECIFICATION LiveSpecDesign", "LiveSpecDesign does not start the controller design"),
])
def test_the_initial_predicate_must_be_the_designs(tmp_path: Path, design: str, start: str, says: str) -> None:
    path = design_cfg(tmp_path, "bad", f'"{design}"', start)
    with pytest.raises(SpecConfigError, match=rf"{path}:{_line(path, start)}: {says}"):
        load_spec_config(path)


def test_the_controller_default_still_needs_init_or_init_registered(tmp_path: Path) -> None:
    path = design_cfg(tmp_path, "bad", None, "INIT InitDesign")
    with pytest.raises(SpecConfigError, match=r"InitDesign does not start the controller design \(Design = 'controller', the default\)"):
        load_spec_config(path)


@pytest.mark.parametrize("design", ["masterslave", "dledger"])
def test_symmetry_is_refused_with_its_reason(tmp_path: Path, design: str) -> None:
    spec = load_spec_config(design_cfg(tmp_path, "d", f'"{design}"'))
    renamings, why = symmetries(spec, spec.options)
    assert renamings == []
    assert why == (f"the processes of the {design} design are not interchangeable: InitDesign fixes each one's broker id "
                   "by its name (ids 1..n in name order; in 4.x the first is the MASTER)")
    checker = Checker(spec, symmetry=True)
    assert checker.renamings == [] and checker.symmetry_note == why
    # the same two processes in controller mode are interchangeable
    controller = load_spec_config(CHECKOUT_SPEC_DIR / "MC_live_reg.cfg")
    assert symmetries(controller, controller.options)[0]


def _replays(spec: SpecConfig, tmp_path: Path) -> tuple[str, int]:
    violation = Checker(spec).run().violation
    assert violation is not None
    path = tmp_path / f"{spec.name}.itf.json"
    write_trace(path, violation_trace_meta(spec, violation), list(violation.states), violation.loop)
    result = replay_file(str(path), "reference")
    assert result.status == PASS, result.describe()
    return violation.name, len(violation.states) - 1


@pytest.mark.parametrize("sync_master", [False, True])
def test_master_slave_loses_an_acked_message_on_failover(tmp_path: Path, sync_master: bool) -> None:
    """ASYNC_MASTER acks at once; SYNC_MASTER answers SLAVE_NOT_AVAILABLE, which producers count as success. Either
    way: write, crash the master, the operator restarts the slave as master: 3 steps."""
    spec = load_spec_config(design_cfg(tmp_path, f"ms_{sync_master}", '"masterslave"', sync_master=sync_master))
    assert _replays(spec, tmp_path) == ("NoAckedMessageLost", 3)


def test_dledger_two_members_are_safe_with_one_message(tmp_path: Path) -> None:
    result = Checker(load_spec_config(design_cfg(tmp_path, "dl", '"dledger"'))).run()
    assert result.violation is None and result.distinct > 100


@pytest.mark.parametrize("design", ["masterslave", "dledger"])
def test_live_spec_design_finds_that_no_master_comes_back(tmp_path: Path, design: str) -> None:
    """SPECIFICATION LiveSpecDesign: one crash of the 4.x master (nothing fails over) or of a DLedger member of two (no
    majority) leaves no master for ever; the lasso replays on the reference."""
    spec = load_spec_config(design_cfg(tmp_path, f"live_{design}", f'"{design}"', "SPECIFICATION LiveSpecDesign", max_msgs=0,
                                       max_faults=1, properties=("EventuallyMaster",)))
    assert spec.liveness == ("EventuallyMaster",) and spec.init == "InitDesign"
    name, _ = _replays(spec, tmp_path)
    assert name == "EventuallyMaster"
