"""The configurations at MaxEpoch = 3 that fit CI, checked with ``--workers 2`` (parallel.py): the safe one reaches
exactly the states TLC reaches, the negative controls give their shortest counterexample (TLC's length). The full
safe configurations at MaxEpoch = 3 (MC_data_reg1_e3, 1,221,844 states; MC_data_reg1_kip279_e3, 991,816) stay out of
CI: ``autoswitch check MC_data_reg1_e3 --workers 2`` runs them, ``autoswitch bench --check`` times one."""

from __future__ import annotations

from pathlib import Path

import pytest

from autoswitch.conformance.check.checker import Checker, initial_states
from autoswitch.conformance.check.parallel import parallel_search
from autoswitch.conformance.check.search import How
from autoswitch.conformance.check.specconfig import load_spec_config
from autoswitch.conformance.controls import expected_violation
from autoswitch.conformance.tla.run import find_tlc, run_tlc

SPEC = Path(__file__).resolve().parents[2] / "spec"

# TLC's distinct states and depth (run_tlc, -workers 1); the last test recomputes them when TLC is present
E3_TLC_COUNTS: dict[str, tuple[int, int]] = {
    "MC_data_reg1_e3_nomsg": (83_848, 24),  # MC_data_reg1_e3 without writes (MaxMsgs = 0)
}
# the negative controls MC_neg_shortcut and MC_neg_zeroack at MaxEpoch 3 (rows of controls.py): the invariant they break
# and the length of TLC's counterexample from InitRegistered (TLC: 3,940 and 8,207 distinct states at the violation)
E3_NEGATIVE: dict[str, tuple[str, int]] = {"MC_neg_shortcut_e3": ("NoPhantomRead", 7), "MC_neg_zeroack_e3": ("NoPhantomRead", 8)}
FULL = ("MC_data_reg1_e3", "MC_data_reg1_kip279_e3")


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(E3_TLC_COUNTS))
def test_safe_e3_config_holds_with_tlc_state_count(name: str) -> None:
    result = parallel_search(Checker(load_spec_config(name)), How(workers=2))
    assert result.violation is None, f"{result.violation.name} after {len(result.violation.states) - 1} steps"
    assert (result.distinct, result.depth) == E3_TLC_COUNTS[name]
    assert load_spec_config(name).bound("MaxEpoch") == 3


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(E3_NEGATIVE))
def test_e3_negative_control_gives_tlcs_shortest_counterexample(name: str) -> None:
    spec = load_spec_config(name)
    invariant, steps = E3_NEGATIVE[name]
    assert spec.bound("MaxEpoch") == 3 and expected_violation(name) == invariant
    result = parallel_search(Checker(spec), How(workers=2))
    v = result.violation
    assert v is not None and (v.name, v.kind) == (invariant, "invariant")
    assert len(v.states) - 1 - len(initial_states(spec, spec.options)[0].prefix) == steps


@pytest.mark.parametrize("name", FULL)
def test_the_full_e3_configs_stay_runnable_by_name(name: str) -> None:
    checker = Checker(load_spec_config(name))
    assert checker.spec.bound("MaxEpoch") == 3 and not checker.goals and checker.initial()


@pytest.mark.slow
@pytest.mark.skipif(find_tlc() is None, reason="TLA2TOOLS_JAR/java not found: the MaxEpoch = 3 counts were NOT recomputed "
                    "with TLC (the recorded E3_TLC_COUNTS were still compared)")
@pytest.mark.parametrize("name", sorted(E3_TLC_COUNTS))
def test_tlc_reaches_the_recorded_e3_states(name: str) -> None:
    result = run_tlc(SPEC / "MC_data.tla", SPEC / f"{name}.cfg", workers=2, timeout=900)
    assert result.ok, result.output[-2000:]
    assert (result.distinct_states, result.depth) == E3_TLC_COUNTS[name]
