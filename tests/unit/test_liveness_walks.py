"""Liveness walks (conformance/simulation/fair.py, campaign.py): the faults stop at the walk's cut point, the fair
suffix takes only fair, state-changing healing steps and stops at quiescence; a stuck property is the walk's failure,
shrunk over the faulty prefix with the suffix recomputed; the same prefix under the fixed option holds. The drawer's
fault moves build the action table's records."""

from __future__ import annotations

import random
from typing import Any

import attrs
import pytest

from autoswitch.conformance.engines import make_engine
from autoswitch.conformance.simulation.campaign import FAULT_MOVES, LIVENESS_FAILURE, Run, grid, rerun, run_walk, walk_seed
from autoswitch.conformance.simulation.fair import FAIR_BOUND, Stuck, fair_records, is_fault, stuck
from autoswitch.conformance.simulation.generate import fault_action
from autoswitch.conformance.simulation.shrink import shrink
from autoswitch.reference import NotEnabled, cluster
from autoswitch.reference.actions import ACTIONS
from autoswitch.reference.liveness import fairness_of

REENTRY = grid()["reentry-off-rocketmq-2p-live"]


def _quiescent(config: Any, actions: list[dict[str, Any]]) -> bool:
    """No fair record (its guard holding) changes the state the actions end in."""
    ref = make_engine("reference", config)
    for a in actions:
        ref.step(a)
    v = ref.variables()
    for f, a in fair_records(v):
        if f.guard is not None and not f.guard(v, a):
            continue
        try:
            after, _ = cluster.step(ref.cluster, a, config.options)
        except NotEnabled:
            continue
        if after != ref.cluster:
            return False
    return True


def test_a_reentry_off_walk_gets_a_slave_stuck_and_shrinks_to_a_prefix_the_fix_heals() -> None:
    def walk(i: int) -> Run:
        seed = walk_seed(1, REENTRY.name, i)
        return run_walk(REENTRY.config, REENTRY.weights(), seed, 100, REENTRY.tolerated, live=True, control=REENTRY.control)

    i, run = next((i, run) for i in range(40) if (run := walk(i)).failure is not None)  # about one walk in four fails
    assert run == walk(i)
    assert run.failure is not None and (run.failure.kind, run.failure.name) == (LIVENESS_FAILURE, "EventuallyInSync")
    assert run.fair is not None and 0 < len(run.prefix) <= 100 and run.quiescent
    small = shrink(REENTRY.config, run.prefix, run.failure, REENTRY.tolerated, live=True, control=REENTRY.control)
    assert small.failure is not None and small.failure.name == "EventuallyInSync" and len(small.actions) < len(run.actions)
    who = next(s.process for s in small.stuck if s.name == "EventuallyInSync")
    assert small.failure.step == len(small.actions)
    # the suffix: fair healing steps only, then quiescence; the property is false at the end
    ref = make_engine("reference", REENTRY.config)
    for i, a in enumerate(small.actions):
        v = ref.variables()
        if i >= len(small.prefix):
            assert not is_fault(v, a) and fairness_of(v, a) is not None, a
        ref.step(a)
    assert Stuck("EventuallyInSync", who) in stuck(ref.variables())
    assert _quiescent(REENTRY.config, small.actions)
    # the same faulty prefix with the fix: the slave catches up
    fixed = attrs.evolve(REENTRY.config, options=attrs.evolve(REENTRY.config.options, epoch_reentry_fix=True))
    healed = rerun(fixed, small.prefix, live=True)
    assert healed.failure is None and healed.stuck == () and healed.quiescent and _quiescent(fixed, healed.actions)


def test_safe_liveness_walks_end_quiescent_and_clean() -> None:
    sim = grid()["safe-rocketmq-3p-live"]
    for walk in range(12):
        run = run_walk(sim.config, sim.weights(), walk_seed(1, sim.name, walk), 60, live=True)
        assert run.failure is None and run.quiescent and run.stuck == (), walk
        assert run.fair is not None and run.fair <= FAIR_BOUND and len(run.prefix) <= 60


@pytest.mark.parametrize("tag", FAULT_MOVES)
def test_each_fault_move_builds_its_action_tables_record(tag: str) -> None:
    v = make_engine("reference", grid()["safe-rocketmq-2p"].config).variables()
    v = {**v, "regState": {"p1": "DOWN", "p2": "REGISTERED"}, "partitions": frozenset({frozenset({"p1", "p2"})}),
         "metaFile": {"p1": 1, "p2": 2}, "replicas": {1: {"addr": "a", "checkCode": "a;0"}, 2: {"addr": "b", "checkCode": "b;1"}},
         "late": {"p1": {"tag": "BrokerHeartbeat", "brokerId": 1, "epoch": 1, "maxOffset": 0, "priority": 0}}}
    action = fault_action(random.Random(1), v, tag)
    assert action is not None and action["tag"] == tag and set(action) - {"tag"} == set(ACTIONS[tag].params)


def test_metadata_loss_and_wipes_are_drawn_only_within_their_bounds() -> None:
    """generate.fault_action: no metadata loss while a process has no id (it would be handed a used one), no wipe
    while the controller does not know the set (docs/liveness.md)."""
    v = make_engine("reference", grid()["safe-rocketmq-2p"].config).variables()
    assert fault_action(random.Random(1), v, "ControllerMetadataLoss") is None  # fresh processes: no ids yet
    v = {**v, "regState": {"p1": "DOWN", "p2": "REGISTERED"}}
    assert fault_action(random.Random(1), v, "WipeDisk") is None  # the controller knows no set


def test_liveness_walks_lose_no_controller_metadata_which_the_code_does_not_survive() -> None:
    """controls.py's meta-loss finding: a broker restarted after the controller lost its metadata never registers."""
    assert grid()["safe-rocketmq-2p-live"].weights()["ControllerMetadataLoss"] == 0
    assert grid()["safe-rocketmq-2p"].weights()["ControllerMetadataLoss"] > 0
    if "ControllerMetadataLoss" not in ACTIONS:
        pytest.skip("ControllerMetadataLoss is helper lref's (issue 11), not in the action table on this branch")
    sim = grid()["safe-rocketmq-2p-live"]
    boot = [a for p in ("p1", "p2") for a in (
        {"tag": "CreateTempFile", "process": p}, {"tag": "SendApplyBrokerId", "process": p, "lost": False},
        {"tag": "WriteMetaFile", "process": p}, {"tag": "DeleteTempFile", "process": p},
        {"tag": "SendRegister", "process": p, "lost": False})] + [{"tag": "Crash", "process": "p1"}]
    restart = {"tag": "Restart", "process": "p1", "addr": "10.0.0.1:30911"}
    lost = rerun(sim.config, [*boot, {"tag": "ControllerMetadataLoss"}, restart], live=True)
    assert lost.failure is not None and (lost.failure.kind, lost.failure.name) == (LIVENESS_FAILURE, "EventuallyRegistered")
    assert Stuck("EventuallyRegistered", "p1") in lost.stuck
    kept = rerun(sim.config, [*boot, restart], live=True)
    assert kept.failure is None and kept.stuck == () and kept.quiescent


def test_finding_a_restarted_master_with_an_unreplicated_record_never_syncs_again() -> None:
    """The code's own settings (all fixes on) break EventuallyInSync under two faults (beyond MC_live_data's MaxFaults 1):
    p1, master of {1, 2}, writes a record p2 has not received, the controller fails over, p1 crashes and restarts; its
    election hands the set to p2 (empty log, epoch 2). p1, now p2's slave, holds epoch 1 only: no consistent point, no
    handshake, READY for ever (AutoSwitchHAClient.doTruncate gives up when findConsistentPoint is -1). Without the
    write p1 is stuck the same way: its crash keeps epoch 1's entry at offset 0 (refinement 38), which p2's epoch 2
    at 0 does not match; a slave whose epoch file is empty hand-shakes (no truncation)."""
    sim = grid()["safe-rocketmq-2p-live"]

    def up(p: str) -> list[dict[str, Any]]:
        return [{"tag": "CreateTempFile", "process": p}, {"tag": "SendApplyBrokerId", "process": p, "lost": False},
                {"tag": "WriteMetaFile", "process": p}, {"tag": "DeleteTempFile", "process": p},
                {"tag": "SendRegister", "process": p, "lost": False}]

    prefix = [*up("p1"), {"tag": "SendElectMaster", "process": "p1", "lost": False}, {"tag": "SendHeartbeat", "process": "p1"},
              *up("p2"), {"tag": "Handshake", "process": "p2"}, {"tag": "SendHeartbeat", "process": "p2"},
              {"tag": "Expand", "process": "p1", "brokerId": 2, "lost": False}, {"tag": "ControllerFailover"},
              {"tag": "Write", "process": "p1"}, {"tag": "Crash", "process": "p1"},
              {"tag": "Restart", "process": "p1", "addr": "10.0.0.1:30911"}, {"tag": "LoadMetaFile", "process": "p1"},
              {"tag": "SendHeartbeat", "process": "p2"}, {"tag": "SendRegister", "process": "p1", "lost": False},
              {"tag": "SendElectMaster", "process": "p1", "lost": False}]
    run = rerun(sim.config, prefix, live=True)
    assert len(run.prefix) == len(prefix) and run.quiescent
    assert run.failure is not None and (run.failure.kind, run.failure.name) == (LIVENESS_FAILURE, "EventuallyInSync")
    assert run.stuck == (Stuck("EventuallyInSync", "p1"),)
    without_write = rerun(sim.config, [a for a in prefix if a["tag"] != "Write"], live=True)
    assert without_write.failure is not None and without_write.stuck == (Stuck("EventuallyInSync", "p1"),)
