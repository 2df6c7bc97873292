"""Swarm testing and coverage guidance (conformance/simulation/swarm.py, guide.py): swarm draws are reproducible from
the walk's seed; a guided walk replays a prefix of an earlier walk of its chunk and re-runs alone to the same row; the
bounded abstraction's coverage of a spec configuration is computed against the checker's exhaustive set; failing walks
of a campaign with both on still shrink, replay, and re-run from the printed command."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from autoswitch.conformance.cli import main
from autoswitch.conformance.engines import make_engine
from autoswitch.conformance.simulation.campaign import abstract_state, grid, run_walk, walk_seed
from autoswitch.conformance.simulation.coverage import Coverage, coverage, exhaustive_abstract
from autoswitch.conformance.simulation.guide import Guide
from autoswitch.conformance.simulation.report import saturated
from autoswitch.conformance.simulation.spark import Campaign, pick_master, run_campaign, walk_row
from autoswitch.conformance.simulation.store import load_rows
from autoswitch.conformance.simulation.swarm import FAULT_KINDS, swarm_weights
from autoswitch.conformance.trace.replay import replay_file


def test_swarm_weights_are_a_function_of_the_seed() -> None:
    weights = grid()["safe-rocketmq-2p"].weights()
    draws = [swarm_weights(seed, weights) for seed in range(40)]
    assert draws == [swarm_weights(seed, weights) for seed in range(40)]
    assert len({tuple(sorted(d.items())) for d in draws}) == 40  # each walk its own swarm
    for d in draws:
        assert d["process"] == weights["process"] and {k for k in d if k not in FAULT_KINDS and k != "lost"} == {
            k for k in weights if k not in FAULT_KINDS and k != "lost"}
        assert all(d[k] == weights[k] for k in weights if k not in FAULT_KINDS and k != "lost")  # steps untouched
    omitted = sum(d[k] == 0 for d in draws for k in FAULT_KINDS if weights.get(k, 0) > 0)
    kinds = sum(weights.get(k, 0) > 0 for k in FAULT_KINDS) * len(draws)
    assert 0.3 * kinds < omitted < 0.7 * kinds  # about half the fault kinds left out


def test_a_swarm_walk_is_reproducible_and_differs_from_the_plain_one() -> None:
    sim = grid()["safe-rocketmq-2p"]
    seed = walk_seed(3, sim.name, 5)
    one = run_walk(sim.config, sim.weights(), seed, 60, with_impl=False, swarm=True)
    two = run_walk(sim.config, sim.weights(), seed, 60, with_impl=False, swarm=True)
    plain = run_walk(sim.config, sim.weights(), seed, 60, with_impl=False)
    assert one.actions == two.actions and one.states == two.states
    assert one.actions != plain.actions


def test_the_abstraction_is_bounded() -> None:
    """Epochs, log lengths and ids do not enter the abstraction: a longer walk does not keep adding abstract states for
    ever (the number of abstract states of a small configuration stays far below its steps)."""
    sim = grid()["dledger-2p"]
    seen: set[int] = set()
    steps = 0
    for w in range(40):
        run = run_walk(sim.config, sim.weights(), walk_seed(1, sim.name, w), 200, with_impl=False, swarm=True)
        seen.update(run.states)
        steps += len(run.actions)
    assert len(seen) < steps / 20


def test_saturation_is_no_new_state_in_the_last_quarter() -> None:
    assert saturated([1, 2, 3] + [3] * 60)
    assert not saturated([1, 2, 3] + [3] * 60 + [4])
    assert not saturated([5] * 30)  # too few walks to say


def test_guided_walks_start_from_an_earlier_walk_and_rerun_alone() -> None:
    campaign = Campaign(seed=2, walks=12, length=25, configs=("dledger-2p",), chunk=12, sample=0, guide=True)
    sim = grid()["dledger-2p"]
    guide = Guide()
    rows = [walk_row(campaign, sim, w, None, set(), guide) for w in range(12)]
    guided = [r for r in rows if r["parent"] is not None]
    assert guided, "no walk started from the corpus"
    for r in guided:
        assert r["parent"] < r["walk"] and r["length"] > 0
    last = guided[-1]
    assert walk_row(campaign, sim, last["walk"], None, set()) == last  # its chunk's corpus rebuilt (spark.prime)


def test_coverage_is_computed_against_the_checkers_exhaustive_set() -> None:
    concrete, space = exhaustive_abstract("MC_ms_async")
    assert concrete == 2782 and 0 < len(space) < concrete  # the states of autoswitch check MC_ms_async
    sim = grid()["ms-async-2p"]
    init = abstract_state(make_engine("reference", sim.config).variables())
    assert init in space  # a walk's states and the checker's map to the same abstract states
    reached = set()
    for w in range(5):
        reached.update(run_walk(sim.config, sim.weights(), walk_seed(1, sim.name, w), 30, sim.tolerated, with_impl=False).states)
    foreign = {12345, -678}  # hashes no state of the space has: not counted
    got = coverage("ms-async-2p", reached | foreign)
    assert got == Coverage("MC_ms_async", concrete, len(space), len(reached & space))
    assert 0 < got.fraction < 1 and got.fraction == len(reached & space) / len(space)
    assert coverage("ms-async-2p", space).fraction == 1.0


def test_a_pairing_of_another_setting_is_refused() -> None:
    with pytest.raises(Exception, match="not the same setting"):
        coverage("dledger-2p", set(), "MC_ms_async")


def test_failing_walks_of_a_swarm_and_guided_campaign_shrink_replay_and_rerun(tmp_path: Path) -> None:
    campaign = Campaign(seed=1, walks=8, length=60, configs=("unclean-rocketmq-2p",), chunk=4, sample=0, guide=True)
    out = tmp_path / "out"
    run_campaign(campaign, out, "none")
    rows, missing = load_rows(campaign, out)
    assert missing == {}
    shrunk = [r for r in rows if r["trace"]]
    assert shrunk and all(r["failure"] == "NoAckedMessageLost" for r in shrunk)
    for r in shrunk:
        assert r["shrunk_length"] <= r["length"]
        for engine in ("reference", "impl"):
            assert replay_file(out / r["trace"], engine).status == "pass"
    row = max((r for r in rows if r["status"] != "pass"), key=lambda r: r["walk"] % campaign.chunk)
    command = shlex.split(campaign.reproduce(row["config"], row["walk"]))
    assert command[:2] == ["autoswitch", "simulate"] and "--guide" in command
    result = CliRunner().invoke(main, [*command[1:], "--out", str(tmp_path / "again")])
    assert result.exit_code == 0, result.output
    printed = dict(line.split(None, 1) for line in result.output.splitlines() if line and not line.startswith("replay"))
    assert printed["status"] == row["status"] and printed["failure"] == row["failure"]
    assert printed["length"] == str(row["length"]) and printed["parent"] == str(row["parent"])


def test_a_small_campaign_runs_in_this_process_unless_a_master_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PYSPARK_GATEWAY_PORT", raising=False)
    small = Campaign(walks=1000, configs=("safe-hw-2p", "unclean-rocketmq-2p"))
    large = Campaign(walks=1001, configs=("safe-hw-2p", "unclean-rocketmq-2p"))
    assert (pick_master(small, None), pick_master(large, None), pick_master(small, "local[2]")) == ("none", None, "local[2]")
    monkeypatch.setenv("PYSPARK_GATEWAY_PORT", "1")  # under spark-submit: its master
    assert pick_master(small, None) is None


def test_bench_campaigns_prints_the_strategies_side_by_side() -> None:
    result = CliRunner().invoke(main, ["bench", "--campaigns", "--walks", "3", "--length", "40", "unclean-rocketmq-2p"])
    assert result.exit_code == 0, result.output
    assert "before per 1,000" in result.output and "swarm per 1,000" in result.output and "unclean-rocketmq-2p" in result.output
    bad = CliRunner().invoke(main, ["bench", "--campaigns", "--walks", "1", "nope"])
    assert bad.exit_code == 2 and "no configuration matches 'nope'" in bad.output
