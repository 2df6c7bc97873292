"""Liveness in the explicit-state checker (conformance/check/liveness.py): the fault budget, fair cycles on hand-made
graphs and on small configurations built from spec/MC_data_reg1.cfg, the lasso trace and its replay on both engines,
and the refusal of corrupted lassos (naming the state and the field)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from attrs import evolve
from click.testing import CliRunner
from lassos import SEVERAL, write_several

from autoswitch.conformance.check.checker import Checker, CheckResult, violation_trace_meta
from autoswitch.conformance.check.liveness import Graph, components, fair, fair_cycle, goals
from autoswitch.conformance.check.specconfig import load_spec_config
from autoswitch.conformance.check.verdict import TLC_TEMPORAL, CheckVerdict, expected
from autoswitch.conformance.cli import main
from autoswitch.conformance.tla.check import ConfigCheck
from autoswitch.conformance.tla.run import OK, VIOLATION
from autoswitch.conformance.trace.itf import write_trace
from autoswitch.conformance.trace.replay import MALFORMED, MISSING_VIOLATION, PASS, replay_file
from autoswitch.reference.liveness import LIVENESS_BY_NAME

SPEC = Path(__file__).resolve().parents[2] / "spec"
ENGINES = ("reference", "impl")


def live_config(folder: Path, name: str, reentry_fix: bool = True, max_epoch: int = 1,
                properties: tuple[str, ...] = ("EventuallyInSync",)) -> Path:
    """MC_data_reg1 as a liveness configuration: LiveSpecRegistered, every fault charged (BoundAllFaults), one fault,
    MaxEpoch ``max_epoch`` (1: a few thousand states), the liveness ``properties`` after the action properties."""
    text = (SPEC / "MC_data_reg1.cfg").read_text()
    changes = {r"INIT InitRegistered": "SPECIFICATION LiveSpecRegistered", r"NEXT Next\n": "",
               r"BoundAllFaults = FALSE": "BoundAllFaults = TRUE", r"MaxFaults = 0": "MaxFaults = 1",
               r"MaxEpoch = 2": f"MaxEpoch = {max_epoch}", r"EpochReentryFix = TRUE": f"EpochReentryFix = {str(reentry_fix).upper()}",
               r"(    BrokerIdStable\n)": r"\1" + "".join(f"    {p}\n" for p in properties)}
    for old, new in changes.items():
        text, n = re.subn(old, new, text)
        assert n == 1, f"spec/MC_data_reg1.cfg changed: {old!r} is not there once"
    (folder / "MC_data.tla").write_text((SPEC / "MC_data.tla").read_text())
    path = folder / f"{name}.cfg"
    path.write_text(text)
    return path


_runs: dict[tuple, CheckResult] = {}


def run(folder: Path, reentry_fix: bool) -> CheckResult:
    """The checker's result on the liveness configuration (one run per setting for the whole module)."""
    if reentry_fix not in _runs:
        _runs[reentry_fix] = Checker(load_spec_config(live_config(folder, "MC_live_t", reentry_fix))).run()
    return _runs[reentry_fix]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("live")


@pytest.fixture(scope="module")
def lasso(folder: Path) -> Path:
    """The lasso of EpochReentryFix = FALSE, written as ``autoswitch check`` writes it."""
    spec = load_spec_config(live_config(folder, "MC_live_neg_t", reentry_fix=False))
    v = run(folder, reentry_fix=False).violation
    assert v is not None
    path = folder / "lasso.itf.json"
    write_trace(path, violation_trace_meta(spec, v), list(v.states), v.loop)
    return path


# --- the fault budget ---------------------------------------------------------------------------------

def test_budget_charges_a_fault_and_disables_it_when_spent(folder: Path) -> None:
    checker = Checker(load_spec_config(live_config(folder, "MC_budget")))
    s = _initial(checker)
    crashes = [w for a, w, _, _ in checker.steps(s) if a["tag"] == "Crash"]
    assert len(crashes) == 2 and all(w.faults == 1 for w in crashes)
    assert all(w.faults == 0 for a, w, _, _ in checker.steps(s) if a["tag"] == "SendHeartbeat")
    spent = evolve(s, faults=1)
    assert not [a for a, *_ in checker.steps(spent) if a["tag"] == "Crash"]
    assert [w.faults for a, w, _, _ in checker.steps(spent) if a["tag"] == "SendHeartbeat"] == [1, 1]  # healing goes on


def test_no_budget_without_faults_or_bound_all() -> None:
    checker = Checker(load_spec_config("MC_data_reg1"))
    assert not checker.budget
    s = evolve(_initial(checker), faults=5)
    assert [w.faults for a, w, _, _ in checker.steps(s) if a["tag"] == "Crash"] == [5, 5]


def _initial(checker: Checker):
    from autoswitch.conformance.check.checker import initial_states

    return initial_states(checker.spec, checker.opts)[0].state


# --- fair cycles on hand-made graphs --------------------------------------------------------------------

def _graph(edges: dict[int, list[tuple[int, int, bool]]], enabled: dict[int, set[int]], bad: set[int]) -> Graph:
    """A graph of one goal: ``bad`` are the states where ok is false; discovery order = the state's number."""
    g = Graph(goals(["EventuallyMaster"], ["p1"]))
    for u in sorted(enabled):
        g.order[u], g.bad[u] = u, int(u in bad)
        g.add_steps(u, edges.get(u, []), enabled[u])
    return g


def test_a_fair_cycle_takes_every_instance_enabled_throughout() -> None:
    # 0 -> 1 <-> 2; instance 7 enabled in 1 and 2, taken on 2 -> 1; instance 8 enabled in 1 only
    g = _graph({0: [(3, 1, False)], 1: [(4, 2, False)], 2: [(7, 1, True)]}, {0: set(), 1: {7, 8}, 2: {7}}, {0, 1, 2})
    entry, cycle = g.find(0)
    assert entry == 0 or entry == 1
    assert fair({1, 2}, g.edges, g.enabled)
    assert (7, 1) in fair_cycle(1, {1, 2}, g.edges, g.enabled)


def test_an_instance_enabled_throughout_and_never_taken_makes_the_cycle_unfair() -> None:
    g = _graph({1: [(4, 2, False)], 2: [(5, 1, False)]}, {1: {9}, 2: {9}}, {1, 2})
    assert not fair({1, 2}, g.edges, g.enabled)
    assert g.find(0) is None


def test_an_instance_disabled_in_one_state_of_the_cycle_does_not_exclude_it() -> None:
    g = _graph({1: [(4, 2, False)], 2: [(5, 1, False)]}, {1: {9}, 2: set()}, {1, 2})
    entry, cycle = g.find(0)
    assert entry == 1 and cycle == [(4, 2), (5, 1)]  # passes through 2, where 9 is disabled


def test_the_cycle_leaves_the_states_where_ok_holds_out() -> None:
    # the only way back to 1 passes through 3, where ok holds: no cycle of bad states; 1 may not stutter (9 enabled)
    g = _graph({1: [(4, 3, False)], 3: [(5, 1, False)]}, {1: {9}, 3: set()}, {1})
    assert g.find(0) is None


def test_a_state_stutters_for_ever_when_nothing_fair_is_enabled() -> None:
    """A self-loop is a stuttering step, as every state's implicit one: the lasso's loop is empty."""
    g = _graph({1: [(4, 2, False)]}, {1: {4}, 2: set()}, {1, 2})
    assert g.find(0) == (2, [])
    g = _graph({1: [(4, 2, False)]}, {1: {4}, 2: {6}}, {1, 2})  # 2 has an enabled instance: no stutter there
    assert g.find(0) is None


def test_components_need_no_recursion_on_a_long_cycle() -> None:
    n = 200_000
    comps = components(range(n), lambda u: [(u + 1) % n])
    assert len(comps) == 1 and sorted(comps[0]) == list(range(n))
    assert sorted(map(sorted, components([1, 2, 3, 4], {1: [2], 2: [1, 3], 3: [4], 4: []}.__getitem__))) == [[1, 2], [3], [4]]


# --- configurations ------------------------------------------------------------------------------------

def test_in_sync_holds_with_the_epoch_reentry_fix(folder: Path) -> None:
    result = run(folder, reentry_fix=True)
    assert result.violation is None and result.liveness == ("EventuallyInSync",)
    assert result.distinct > 1000 and not result.symmetry


def test_in_sync_fails_without_the_fix_with_a_lasso(folder: Path) -> None:
    v = run(folder, reentry_fix=False).violation
    assert v is not None and (v.kind, v.name) == ("liveness", "EventuallyInSync") and v.process in ("p1", "p2")
    assert 0 <= v.loop < len(v.states)
    variables = [{k: x for k, x in s.items() if k not in ("action", "outcome")} for s in v.states]
    assert variables[v.loop] == variables[-1]
    ok = LIVENESS_BY_NAME["EventuallyInSync"].ok
    assert not any(ok(s, v.process) for s in variables[v.loop:])


def test_symmetry_is_off_with_liveness(folder: Path) -> None:
    checker = Checker(load_spec_config(live_config(folder, "MC_sym")), symmetry=True)
    assert checker.renamings == [] and "liveness" in checker.symmetry_note


# --- the lasso trace and its replay ---------------------------------------------------------------------

def test_the_lasso_replays_on_both_engines(lasso: Path) -> None:
    doc = json.loads(lasso.read_text())
    assert doc["loop"] == doc["#meta"]["expect"]["loop"] and set(doc["#meta"]["expect"]) == {"liveness", "process", "loop"}
    for engine in ENGINES:
        result = replay_file(str(lasso), engine)
        assert result.status == PASS, result.describe()
        assert "liveness violation EventuallyInSync of p" in result.message and "reproduced" in result.message


@pytest.fixture(scope="module")
def several(folder: Path) -> Path:
    return write_several(folder / "several.itf.json", load_spec_config(live_config(folder, "MC_x")))


def test_a_loop_of_several_steps_replays(several: Path, tmp_path: Path) -> None:
    for engine in ENGINES:
        result = replay_file(str(several), engine)
        assert result.status == PASS and "a fair loop of 4 steps from state 10" in result.message, result.describe()
    # stuttering for ever after the expiry is no counterexample: p1's heartbeat (fair) is enabled there and never taken
    path = _rewrite(several, tmp_path, _set_loop(14))
    for engine in ENGINES:
        result = replay_file(str(path), engine)
        assert (result.status, result.state, result.field) == (MISSING_VIOLATION, 14, "loop"), result.describe()
        assert "'SendHeartbeat'" in result.message and "never taken" in result.message


def _rewrite(lasso: Path, tmp_path: Path, change) -> Path:
    doc = json.loads(lasso.read_text())
    change(doc)
    path = tmp_path / "bad.itf.json"
    path.write_text(json.dumps(doc))
    return path


def _set_loop(i: int):
    def change(doc: dict) -> None:
        doc["loop"] = doc["#meta"]["expect"]["loop"] = i
    return change


def _last_state(doc: dict) -> None:
    doc["states"][-1]["clock"] = {"#bigint": "7"}


@pytest.mark.parametrize(("change", "field"), [(_set_loop(3), "epochFile"), (_set_loop(11), "alive"), (_last_state, "clock")])
def test_a_lasso_whose_last_state_is_not_its_loop_state_is_refused(several: Path, tmp_path: Path, change, field: str) -> None:
    """The first variable (by name) where the last state differs from state ``loop`` is named, at the last state."""
    path = _rewrite(several, tmp_path, change)
    for engine in ENGINES:
        result = replay_file(str(path), engine)
        assert (result.status, result.state, result.field) == (MALFORMED, len(SEVERAL), field), result.describe()
        assert "closes the loop" in result.message


@pytest.mark.parametrize(("change", "field"), [
    (lambda doc: doc.update(loop=10_000), "loop"),
    (lambda doc: doc.update(loop=True), "loop"),
    (lambda doc: doc["#meta"]["expect"].update(loop=2), "#meta.expect.loop"),
    (lambda doc: doc["#meta"].update(expect={"violation": "LogMatching", "state": 3}), "loop"),
    (lambda doc: doc["#meta"]["expect"].pop("process"), "#meta.expect"),
    (lambda doc: doc["#meta"]["expect"].update(process="p9"), "#meta.expect.process"),
    (lambda doc: doc["#meta"]["expect"].update(liveness="EventuallyRich"), "#meta.expect.liveness"),
    (lambda doc: doc["#meta"]["next"].update(switches=["Warp"]), "#meta.next.switches"),
    (lambda doc: doc["#meta"]["next"].update(brokerIds=[0]), "#meta.next.brokerIds"),
    (lambda doc: doc["#meta"].pop("next"), "#meta.next"),
    (lambda doc: doc.pop("loop"), "loop"),
])
def test_a_corrupted_lasso_is_refused_naming_the_field(lasso: Path, tmp_path: Path, change, field: str) -> None:
    path = _rewrite(lasso, tmp_path, change)
    for engine in ENGINES:
        result = replay_file(str(path), engine)
        assert (result.status, result.state, result.field) == (MALFORMED, None, field), result.describe()


def test_a_lasso_of_a_process_whose_property_holds_is_a_failed_verdict(lasso: Path, tmp_path: Path) -> None:
    other = {"p1": "p2", "p2": "p1"}
    path = _rewrite(lasso, tmp_path, lambda doc: doc["#meta"]["expect"].update(process=other[doc["#meta"]["expect"]["process"]]))
    for engine in ENGINES:
        result = replay_file(str(path), engine)
        assert (result.status, result.field) == (MISSING_VIOLATION, "EventuallyInSync"), result.describe()


def test_cli_check_expects_a_liveness_violation_of_the_live_controls(folder: Path, tmp_path: Path) -> None:
    """MC_live_neg_*: a lasso is the expected verdict (written, replayed); the same name on a setting that holds fails."""
    neg = live_config(tmp_path, "MC_live_neg_reentry_t", reentry_fix=False)
    fixed = live_config(tmp_path, "MC_live_neg_fixed_t", reentry_fix=True)
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["check", str(neg), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "liveness violation" in result.output and "EventuallyInSync" in result.output
    assert replay_file(str(out / "MC_live_neg_reentry_t.itf.json"), "impl").status == PASS
    result = CliRunner().invoke(main, ["check", str(fixed), "--out", str(out)])
    assert result.exit_code == 1 and "EventuallyInSync holds" in result.output, result.output


def test_tlc_liveness_verdict_is_compared(folder: Path) -> None:
    """--tlc: TLC's temporal violation (it names no property) must meet the checker's lasso, and TLC's "ok" its holding."""
    neg, held = run(folder, reentry_fix=False), run(folder, reentry_fix=True)
    temporal = ConfigCheck("MC_live_neg_t", "tlc", VIOLATION, VIOLATION, problem=f"{TLC_TEMPORAL}: no trace to import")
    fine = ConfigCheck("MC_live_t", "tlc", OK, OK, distinct_states=held.distinct, depth=held.depth)
    source = folder / "MC_live_t.cfg"
    assert CheckVerdict("MC_live_neg_t", expected("MC_live_neg_t"), neg, source, tlc=temporal).ok
    assert not CheckVerdict("MC_live_neg_t", expected("MC_live_neg_t"), neg, source, tlc=evolve(fine, config="MC_live_neg_t")).ok
    assert CheckVerdict("MC_live_t", expected("MC_live_t"), held, source, tlc=fine).ok
    assert not CheckVerdict("MC_live_t", expected("MC_live_t"), held, source, tlc=evolve(temporal, config="MC_live_t")).ok
