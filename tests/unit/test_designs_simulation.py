"""The simulation of the designs RIP-44 replaced (controls.DESIGN_SETS): their configurations in the grid, walks that
start from InitDesign and draw only the design's actions, the known outcomes found and shrunk, the safe ones clean.
The walks run on the reference alone (``with_impl=False``): the implementation of the designs is not this module's."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from autoswitch.conformance.controls import DEFAULT_WEIGHTS, grid, select
from autoswitch.conformance.engines import make_engine, trace_states
from autoswitch.conformance.errors import InputError
from autoswitch.conformance.simulation.campaign import Drawer, check_weights, rerun, run_walk, walk_seed
from autoswitch.conformance.simulation.fair import fair_records
from autoswitch.conformance.simulation.shrink import shrink
from autoswitch.conformance.trace.itf import write_trace
from autoswitch.conformance.trace.replay import PASS, replay_file
from autoswitch.reference.actions import DATA, PROCESS_GROUP, tags
from autoswitch.reference.designs import CONFIGURED_DLEDGER
from autoswitch.reference.state import DLEDGER, MASTER, MASTER_SLAVE, SLAVE

DESIGN_CONFIGS = ("ms-async-2p", "ms-sync-2p", "dledger-2p", "dledger-3p")


def _walk(name: str, walk: int, length: int = 100):
    sim = grid()[name]
    return run_walk(sim.config, sim.weights(), walk_seed(1, name, walk), length, sim.tolerated, with_impl=False, live=sim.live,
                    control=sim.control)


def test_the_design_configurations_are_in_the_grid_and_selectable() -> None:
    names = [*DESIGN_CONFIGS, *(f"{n}-live" for n in DESIGN_CONFIGS)]
    assert [c.name for c in select(names)] == [n for n in grid() if n in names]
    options = {n: grid()[n].config.options for n in DESIGN_CONFIGS}
    assert (options["ms-async-2p"].design, options["ms-async-2p"].sync_master) == (MASTER_SLAVE, False)
    assert (options["ms-sync-2p"].design, options["ms-sync-2p"].sync_master) == (MASTER_SLAVE, True)
    assert {options["dledger-2p"].design, options["dledger-3p"].design} == {DLEDGER}
    assert [len(grid()[n].config.processes) for n in DESIGN_CONFIGS] == [2, 2, 2, 3]
    assert grid()["dledger-3p-live"].live and not grid()["dledger-3p"].live
    with pytest.raises(InputError, match="the designs RIP-44 replaced: ms-async-2p, ms-sync-2p, dledger-2p, dledger-3p"):
        select(["ms-async-3p"])


@pytest.mark.parametrize("name", DESIGN_CONFIGS)
def test_a_walk_starts_from_init_design_and_takes_only_the_designs_actions(name: str) -> None:
    sim = grid()[name]
    design = sim.config.options.design
    v = make_engine("reference", sim.config).variables()
    roles = [v["brokerRole"][p] for p in sorted(v["brokerRole"])]
    assert roles == ([MASTER, SLAVE] if design == MASTER_SLAVE else [CONFIGURED_DLEDGER] * len(roles))
    assert sorted(v["metaFile"].values()) == list(range(1, len(roles) + 1))
    allowed = set(tags(PROCESS_GROUP, DATA, design=design))
    taken = [a["tag"] for w in range(10) for a in _walk(name, w).actions]
    assert set(taken) <= allowed and "Crash" in taken
    writes = {MASTER_SLAVE: "MsWrite", DLEDGER: "DlWrite"}[design]
    assert writes in taken


def test_a_liveness_walk_of_a_design_crashes_one_process_at_a_time() -> None:
    sim = grid()["dledger-3p-live"]
    drawer = Drawer(sim.config, {**sim.weights(), "process": 0}, max_down=1)
    v = make_engine("reference", sim.config).variables()
    assert drawer.moves == ["Crash"] and drawer.draw(random.Random(1), v)["tag"] == "Crash"
    v = {**v, "regState": {**v["regState"], "p2": "DOWN"}}
    assert drawer.draw(random.Random(1), v) is None
    assert Drawer(sim.config, {**sim.weights(), "process": 0}).draw(random.Random(1), v)["tag"] == "Crash"


def test_the_fair_suffix_of_a_design_takes_only_its_fair_actions() -> None:
    v = make_engine("reference", grid()["dledger-3p"].config).variables()
    assert {f.tag for f, _ in fair_records(v)} == {"DlElect", "DlPush", "Flush"}
    v = make_engine("reference", grid()["ms-sync-2p"].config).variables()
    assert {f.tag for f, _ in fair_records(v)} == {"MsConnect", "MsTransfer", "MsAck", "MsSlaveTimeout", "Flush"}


def test_the_weights_of_a_design_must_leave_a_step_of_each_role() -> None:
    check_weights("dledger-2p", grid()["dledger-2p"].weights())
    with pytest.raises(InputError, match="every step a running SLAVE process of ms-async-2p takes weighs 0"):
        check_weights("ms-async-2p", {**DEFAULT_WEIGHTS, **dict.fromkeys(
            ("MsConnect", "MsTransfer", "MsAck", "OperatorFailover", "Flush", "Consume"), 0)})
    with pytest.raises(InputError, match=r"every move of dledger-2p weighs 0 \(process, Crash\)"):
        check_weights("dledger-2p", {**DEFAULT_WEIGHTS, "process": 0, "Crash": 0})


def test_an_ms_async_walk_loses_an_acked_message_and_shrinks_to_the_failover(tmp_path: Path) -> None:
    """ASYNC_MASTER: an acked write the slave never got is lost when the operator fails over to the slave."""
    name = "ms-async-2p"
    run = next(r for r in (_walk(name, w) for w in range(20)) if r.failure is not None)
    assert (run.failure.kind, run.failure.name) == ("violation", "NoAckedMessageLost")
    config = grid()[name].config
    small = shrink(config, run.actions, run.failure)
    assert [a["tag"] for a in small.actions] == ["MsWrite", "Crash", "OperatorFailover"]
    assert rerun(config, small.actions, with_impl=False).failure.name == "NoAckedMessageLost"
    path = tmp_path / "loss.itf.json"
    write_trace(path, {**config.to_meta(), "expect": {"violation": "NoAckedMessageLost", "state": 3}},
                trace_states(config, small.actions))
    result = replay_file(str(path), "reference")
    assert result.status == PASS, result.describe()


@pytest.mark.parametrize("name", ["dledger-3p", "dledger-3p-live"])
def test_dledger_three_members_walks_are_clean(name: str) -> None:
    runs = [_walk(name, w, 60) for w in range(15)]
    assert [r.failure for r in runs] == [None] * len(runs)
    assert sum(a["tag"] == "Crash" for r in runs for a in r.actions) > 5


def test_dledger_two_members_stop_answering_writes_after_a_crash() -> None:
    """With two members one failure leaves no majority: a liveness walk ends with no leader or a write never
    answered."""
    found = {r.failure.name for r in (_walk("dledger-2p-live", w) for w in range(60)) if r.failure is not None}
    assert found and found <= {"EventuallyMaster", "EventuallyAnswered"}
