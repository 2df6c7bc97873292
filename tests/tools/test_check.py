"""The explicit-state checker (`autoswitch check`) on the small configurations: the safe ones hold every
property on every reachable state and reach exactly the distinct states TLC reaches on the spec with the
same bounds; each negative control of MODEL.md §6 gives a shortest counterexample whose trace replays to
the same violation on the reference and on the implementation."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from click.testing import CliRunner

from autoswitch.conformance.check.checker import Checker, initial_states, symmetries, violation_trace_meta
from autoswitch.conformance.check.specconfig import SpecConfigError, load_spec_config
from autoswitch.conformance.cli import main
from autoswitch.conformance.controls import CHECK, SMALL_CONFIGS, in_default
from autoswitch.conformance.explore import next_actions
from autoswitch.conformance.tla.run import find_tlc, run_tlc
from autoswitch.conformance.trace.itf import write_trace
from autoswitch.conformance.trace.replay import PASS, replay_file
from autoswitch.reference import NotEnabled, step

SPEC = Path(__file__).resolve().parents[2] / "spec"

# TLC's figures on the spec for the safe small configurations (VIEW modelVars, `run_tlc` with -fp 1 and one
# worker; spec/README.md, "The explicit-state checker"): distinct states and depth. When TLC is present
# the last test below recomputes them.
TLC_COUNTS: dict[str, tuple[int, int]] = {
    "MC_data_reg1": (163_272, 25),
    "MC_data_reg1_kip279": (124_832, 25),  # fewer than rocketmq: a Kafka leader files no epoch until it writes
    "MC_data_reg1_kip101": (124_832, 25),
    "MC_dledger2": (7_282, 18),  # the designs RIP-44 replaced (controls.py): DLedger, two and three members
    "MC_dledger3": (16_469, 16),
}
# negative control -> (the property it must break, the length of the shortest counterexample TLC finds): controls.py
NEGATIVE: dict[str, tuple[str, int]] = {c.cfg: (c.invariant, c.steps) for c in in_default(CHECK) if c.cfg and c.invariant and c.steps}


def test_the_small_set_is_every_safe_config_and_negative_control_here() -> None:
    assert set(SMALL_CONFIGS) == set(TLC_COUNTS) | set(NEGATIVE)


_results: dict[str, object] = {}


def _check(name: str):
    if name not in _results:
        _results[name] = Checker(load_spec_config(name)).run()
    return _results[name]


@pytest.mark.parametrize("name", sorted(TLC_COUNTS))
def test_safe_config_holds_with_tlc_state_count(name: str) -> None:
    result = _check(name)
    assert result.violation is None, f"{result.violation.name} after {len(result.violation.states) - 1} steps"
    assert (result.distinct, result.depth) == TLC_COUNTS[name]
    assert result.generated > result.distinct


@pytest.mark.parametrize("name", sorted(NEGATIVE))
def test_negative_control_gives_a_counterexample_that_replays(name: str, tmp_path: Path) -> None:
    spec = load_spec_config(name)
    result = _check(name)
    invariant, steps = NEGATIVE[name]
    assert result.violation is not None, f"{name}: no counterexample within the bounds ({result.distinct} states)"
    v = result.violation
    assert (v.name, v.kind) == (invariant, "invariant")
    prefix = len(initial_states(spec, spec.options)[0].prefix)
    assert len(v.states) - 1 - prefix == steps  # the shortest trace TLC prints (from InitRegistered where the config starts there)
    path = tmp_path / f"{name}.itf.json"
    write_trace(path, violation_trace_meta(spec, v), list(v.states))
    for engine in ("reference", "impl"):
        replayed = replay_file(str(path), engine)
        assert replayed.status == PASS, replayed.describe()
        assert f"{invariant} fails at state {len(v.states) - 1}" in replayed.message


def test_symmetry_commutes_with_every_action_on_reachable_states() -> None:
    """Renaming the processes of a reachable state and of an action gives the renamed successor: the
    reduction identifies only states that behave alike."""
    spec = load_spec_config("MC_neg_union")
    opts = spec.options
    (renaming,), _ = symmetries(spec, opts)
    rng = random.Random(7)
    actions = next_actions(spec)
    rename_action = {**renaming.procs, **renaming.addrs}
    checked = 0
    for start in initial_states(spec, opts):
        s = start.state
        for _ in range(300):
            for a in actions:
                b = {k: rename_action.get(x, x) if k in ("process", "addr") else x for k, x in a.items()}
                try:
                    w, out = step(s, a, opts)
                except NotEnabled:
                    with pytest.raises(NotEnabled):
                        step(renaming.system(s), b, opts)
                    continue
                w2, out2 = step(renaming.system(s), b, opts)
                renamed_out = {k: renaming.addrs.get(x, x) if isinstance(x, str) else x for k, x in out.items()}
                assert renaming.system(w) == w2 and renamed_out == out2, (a, b)
                checked += 1
            enabled = [w for a in actions for w in _try(s, a, opts)]
            s = rng.choice(enabled)
    assert checked > 1000


def _try(s, a, opts):
    try:
        return [step(s, a, opts)[0]]
    except NotEnabled:
        return []


def test_symmetry_reduces_states_and_keeps_the_shortest_counterexample() -> None:
    plain, reduced = _check("MC_neg_unclean"), Checker(load_spec_config("MC_neg_unclean"), symmetry=True).run()
    assert reduced.symmetry and reduced.distinct < plain.distinct
    assert reduced.violation.name == plain.violation.name
    assert len(reduced.violation.states) == len(plain.violation.states)


def test_asymmetric_config_says_why_not() -> None:
    checker = Checker(load_spec_config("MC_small"), symmetry=True)
    assert checker.renamings == [] and "address" in checker.symmetry_note


def test_bad_configs_name_file_and_problem(tmp_path: Path) -> None:
    with pytest.raises(SpecConfigError, match="no such configuration"):
        load_spec_config("MC_nothing")
    text = (SPEC / "MC_neg_union.cfg").read_text()
    (tmp_path / "MC_data.tla").write_text((SPEC / "MC_data.tla").read_text())
    (tmp_path / "bad.cfg").write_text(text.replace("MaxEpoch = 3", "MaxEpoch = three"))
    with pytest.raises(SpecConfigError, match=r"bad\.cfg:\d+: cannot read the value 'three'"):
        load_spec_config(tmp_path / "bad.cfg")
    (tmp_path / "bad.cfg").write_text(text.replace("    NoPhantomRead\n", "    NoSuchInvariant\n"))
    with pytest.raises(SpecConfigError, match="no property NoSuchInvariant"):
        Checker(load_spec_config(tmp_path / "bad.cfg"))


def test_cli_check_writes_and_replays_the_counterexample(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["check", "MC_neg_unclean", "--out", str(out)])
    assert result.exit_code == 0, result.output
    trace = out / "MC_neg_unclean.itf.json"
    assert trace.is_file()
    assert "invariant NoAckedMessageLost violated; counterexample of 14 steps" in result.output
    assert "NoAckedMessageLost, 14 steps" in result.output
    assert "autoswitch replay" in result.output and "as expected" in result.output
    bad = CliRunner().invoke(main, ["check", "MC_nothing", "--out", str(out)])
    assert bad.exit_code == 2 and "no such configuration" in bad.output


@pytest.mark.skipif(find_tlc() is None, reason="TLA2TOOLS_JAR/java not found: the small configurations' state counts "
                    "were NOT recomputed with TLC (the recorded TLC_COUNTS were still compared)")
@pytest.mark.parametrize("name", sorted(TLC_COUNTS))
def test_tlc_reaches_the_same_distinct_states(name: str) -> None:
    module = load_spec_config(name).module  # MC_data, or MC_designs for the designs RIP-44 replaced
    result = run_tlc(SPEC / f"{module}.tla", SPEC / f"{name}.cfg", workers=1, timeout=900)
    assert result.ok, result.output[-2000:]
    assert (result.distinct_states, result.depth) == (_check(name).distinct, _check(name).depth)


def test_every_configuration_assigns_the_same_constants() -> None:
    """TLC refuses a configuration that leaves a CONSTANT unassigned (the checker would take the default):
    every spec/MC_*.cfg assigns the same set of constants."""
    assigned = {cfg.stem: set(load_spec_config(cfg.stem).constants) for cfg in sorted(SPEC.glob("MC_*.cfg"))}
    every = set().union(*assigned.values())
    assert {name: every - names for name, names in assigned.items() if every - names} == {}
