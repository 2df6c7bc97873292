"""z3 over every controller state and request for broker ids 1..3 (conformance/z3/controller.py): the
invariants of MODEL.md §6 are inductive under IndInv, EpochsMonotonic needs the strengthening, Init and
reachable states satisfy IndInv, the encoding computes the reference's post-state and response code,
and mutated transitions give counterexamples to induction."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import z3
from attrs import evolve
from click.testing import CliRunner
from frozendict import frozendict

from autoswitch.conformance.cli import main
from autoswitch.conformance.trace.replay import trace_files
from autoswitch.conformance.z3 import controller_agreement as agr
from autoswitch.conformance.z3 import controller_encoding as enc
from autoswitch.conformance.z3 import controller_induction as ind
from autoswitch.reference import codes
from autoswitch.reference.invariants import violated_action_properties, violated_invariants
from autoswitch.reference.state import Controller, LiveInfo, Replica
from autoswitch.reference.variables import controller_variables

TRACES = Path(__file__).resolve().parents[2] / "traces"
N = 3


@pytest.fixture(scope="module")
def obligations() -> list[ind.Obligation]:
    return ind.check_induction(N)


def test_every_property_holds_under_ind_inv_for_every_request(obligations: list[ind.Obligation]) -> None:
    under = [o for o in obligations if o.assumed == "IndInv"]
    assert len(under) == len(enc.PROPERTIES) * len(enc.TRANSITIONS) * 2
    assert [o for o in under if not o.holds] == []


def test_each_state_invariant_is_inductive_alone(obligations: list[ind.Obligation]) -> None:
    alone = [o for o in obligations if o.assumed == o.prop]
    assert {o.prop for o in alone} == set(enc.IND_INV)
    assert [o for o in alone if not o.holds] == []


def test_epochs_monotonic_needs_the_strengthening(obligations: list[ind.Obligation]) -> None:
    """Under the MODEL.md invariants alone, ApplyBrokerId on an unknown set with epochs above 0 resets
    them; the reference does the same on z3's state, which satisfies the invariants but not UnknownSetIsFresh."""
    ctis = [o for o in obligations if o.assumed == "Inv" and not o.holds]
    assert {(o.prop, o.tag) for o in ctis} == {("EpochsMonotonic", "ApplyBrokerId")}
    assert {o.unclean for o in ctis} == {False, True}
    pre, action, post = ctis[0].cti
    assert agr.reference_result(pre, action, False) == (post, codes.SUCCESS)
    v, w = controller_variables(pre), controller_variables(post)
    assert violated_invariants(v) == []
    assert violated_action_properties(v, w) == ["EpochsMonotonic"]
    assert ind.failed_ind_inv(pre) == ["UnknownSetIsFresh"]


def test_init_satisfies_ind_inv() -> None:
    assert ind.failed_ind_inv(Controller(), N) == []


def test_ind_inv_evaluation_sees_a_broken_state() -> None:
    registered = Controller(replicas=frozendict({1: Replica("a", "a;1"), 2: Replica("b", "b;1")}), next_broker_id=3)
    assert ind.failed_ind_inv(evolve(registered, master_id=2, master_epoch=1, sync_state_set=frozenset({1}))) == ["MasterInSyncStateSet"]
    assert ind.failed_ind_inv(evolve(registered, sync_state_set=frozenset({3}))) == ["SyncStateSetRegistered"]
    assert ind.failed_ind_inv(Controller(master_epoch=2)) == ["UnknownSetIsFresh"]
    assert ind.failed_ind_inv(evolve(registered, alive=frozendict({2: LiveInfo(-1, 0, 0)}))) == ["TypeOK"]


def test_ind_inv_holds_on_reachable_states() -> None:
    steps = agr.trace_steps(trace_files([str(TRACES)]))
    states = list(dict.fromkeys([*agr.walk_states(5, 100, 1), *(c for c, _ in steps)]))
    assert len(states) > 150
    assert [(c, bad) for c in states if (bad := ind.failed_ind_inv(c))] == []


def test_encoding_agrees_with_the_reference_on_trace_requests() -> None:
    steps = agr.trace_steps(trace_files([str(TRACES)]))
    examples = [(c, a) for c, a in steps if a is not None]
    assert {a["tag"] for _, a in examples} >= {"ApplyBrokerId", "ElectMaster", "AlterSyncStateSet", "BrokerHeartbeat", "CleanBrokerData"}
    compared, problems = agr.agreement(examples)
    assert problems == []
    assert compared == 2 * len(examples)


def test_encoding_agrees_with_the_reference_on_random_requests() -> None:
    rng = random.Random(7)
    states = list(dict.fromkeys(agr.walk_states(3, 60, 11)))
    examples = [(c, a) for c in states for a in agr.random_requests(rng, N + 1, 1)]
    compared, problems = agr.agreement(examples)
    assert problems == []
    assert compared >= 2 * len(examples) * 0.95  # a few draws fall outside the encoded id range


@pytest.mark.parametrize("unclean", [False, True])
def test_encoding_agrees_with_the_reference_on_z3_chosen_states(unclean: bool) -> None:
    examples = [ex for tag in enc.TRANSITIONS for ex in agr.sample_models(tag, N, unclean, 4)]
    assert len(examples) == 4 * len(enc.TRANSITIONS)
    compared, problems = agr.agreement(examples)
    assert problems == [] and compared == 2 * len(examples)


# ---- teeth: a wrong transition gives a counterexample to induction and disagrees with the reference ----

RIGHT = dict(enc.TRANSITIONS)


def _elect_keeps_the_old_set(c: enc.Ctl, r: enc.Request, unclean: bool) -> enc.Step:
    s = RIGHT["ElectMaster"](c, r, unclean)
    return evolve(s, post=evolve(s.post, sss=c.sss))


def _failover_resets_the_epoch(c: enc.Ctl, r: enc.Request, unclean: bool) -> enc.Step:
    s = RIGHT["ControllerFailover"](c, r, unclean)
    return evolve(s, post=evolve(s.post, master_epoch=z3.IntVal(0)))


def _clean_keeps_the_master(c: enc.Ctl, r: enc.Request, unclean: bool) -> enc.Step:
    s = RIGHT["CleanBrokerData"](c, r, unclean)
    return evolve(s, post=evolve(s.post, master=z3.If(s.post.known, c.master, s.post.master)))


MUTANTS = [
    ("ElectMaster", _elect_keeps_the_old_set, "MasterInSyncStateSet"),
    ("ControllerFailover", _failover_resets_the_epoch, "EpochsMonotonic"),
    ("CleanBrokerData", _clean_keeps_the_master, "MasterInSyncStateSet"),
]


@pytest.mark.parametrize(("tag", "mutant", "prop"), MUTANTS, ids=[m[1].__name__ for m in MUTANTS])
def test_mutated_transition_has_a_counterexample_to_induction(tag: str, mutant, prop: str) -> None:
    transitions = {**enc.TRANSITIONS, tag: mutant}
    found = ind.obligation(prop, enc.IND_INV, "IndInv", tag, N, False, transitions)
    assert not found.holds
    pre, action, post = found.cti
    assert action["tag"] == tag and ind.failed_ind_inv(pre) == []
    v, w = controller_variables(pre), controller_variables(post)
    assert prop in violated_invariants(w) + violated_action_properties(v, w)
    assert agr.reference_result(pre, action, False)[0] != post  # the reference does not do this
    assert ind.obligation(prop, enc.IND_INV, "IndInv", tag, N, False).holds


def test_mutated_encoding_disagrees_with_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    examples = [(c, a) for c, a in agr.trace_steps(trace_files([str(TRACES / "controller")])) if a and a["tag"] == "ElectMaster"]
    assert agr.agreement(examples) == (2 * len(examples), [])
    monkeypatch.setitem(enc.TRANSITIONS, "ElectMaster", _elect_keeps_the_old_set)
    monkeypatch.setattr(agr, "_CACHE", {})
    _, problems = agr.agreement(examples)
    assert problems and "ElectMaster" in problems[0]


def test_cli_reports_the_proof_and_the_strengthening() -> None:
    result = CliRunner().invoke(main, ["z3-controller", "--brokers", "2", "--walks", "1", "--length", "20", "--samples", "1",
                                       "--traces", str(TRACES / "regressions")])
    assert result.exit_code == 0, result.output
    assert "CTI: ApplyBrokerId (under Inv)" in result.output
    assert "IndInv = TypeOK ∧ MasterInSyncStateSet ∧ SyncStateSetRegistered ∧ UnknownSetIsFresh" in result.output
    assert "Init ⇒ IndInv: holds" in result.output
    assert ": agree" in result.output and "IndInv on reachable states" in result.output
