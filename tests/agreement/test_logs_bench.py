"""``autoswitch bench --logs`` (conformance/logs/bench.py): its walks are the ones the campaign exports as samples, a log
cut from one is never refused by either mode, and a refusal is the command's failure (exit 1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from autoswitch.conformance.cli import main
from autoswitch.conformance.logs import bench, cut
from autoswitch.conformance.logs.search import EXPLAINED, REFUSED
from autoswitch.conformance.trace.itf import load_trace


def test_the_walks_are_the_campaigns_samples(tmp_path: Path) -> None:
    """``autoswitch simulate`` with the same seed, walks and length writes walk 0 and 2 of safe-rocketmq-2p (``--sample
    2``) as its corpus: the bench's walks are those, action for action."""
    out = tmp_path / "sim"
    result = CliRunner().invoke(main, ["simulate", "--walks", "3", "--length", "15", "--seed", "4", "--sample", "2",
                                       "--configs", "safe-rocketmq-2p", "--master", "none", "--out", str(out)])
    assert result.exit_code == 0, result.output
    exported = {int(p.name.split("-")[1].split(".")[0]): [s["action"] for s in load_trace(p).states[1:]]
                for p in sorted((out / "corpus" / "safe-rocketmq-2p").glob("walk-*.itf.json"))}
    sampled = {walk: actions for _, walk, actions in bench.sampled_walks(["safe-rocketmq-2p"], 3, 15, 4, sample=2)}
    assert sorted(exported) == [0, 2] and json.dumps(sampled, sort_keys=True) == json.dumps(exported, sort_keys=True)


def test_every_cut_of_a_sampled_walk_is_run_in_both_modes() -> None:
    seen: list[bench.LogRun] = []
    runs = bench.bench_logs(["safe-kip279-2p"], 1, 12, 1, 2_000, seen.append)
    assert runs == seen
    cuts = [r for r in runs if not bench.unreachable(r)]
    assert {(r.clock, r.source, r.cut, r.mode) for r in cuts} == {(k, s, c, m) for k in bench.CLOCKS for s in bench.SOURCES
                                                                  for c in cut.FILTERS for m in bench.MODES}
    assert all(r.status != REFUSED for r in cuts)
    assert all(r.status == EXPLAINED for r in runs if r.cut == "full")
    (row, by_mode), *_ = bench.summaries(runs)
    assert row == "clock steps: walk, full" and by_mode["validate"].count(EXPLAINED) == 1


def test_a_refused_log_fails_the_bench(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(bench.RUNNERS, "validate", lambda path, gap, max_states: (REFUSED, 1))
    result = CliRunner().invoke(main, ["bench", "--logs", "--walks", "1", "--length", "8", "--max-states", "500",
                                       "safe-kip279-2p"])
    assert result.exit_code == 1, result.output
    assert "REFUSED safe-kip279-2p walk 0" in result.output


def test_a_log_with_a_value_no_behaviour_reaches_is_refused_before_the_search() -> None:
    """Each unreachable-value log of a walk (an epoch, the id counter or an offset falsified, an identity file past the ids
    handed out) is refused, by reach.py, with no state expanded; its time to a refusal is reported beside the time to an
    explanation."""
    runs = bench.bench_logs(["safe-kip279-2p"], 1, 12, 1, 2_000)
    refusals = [r for r in runs if bench.unreachable(r)]
    made = {(r.clock, r.cut) for r in refusals}  # a mutation of a cut with no value to falsify (a short walk) is left out
    assert made <= {(k, bench.UNREACHABLE + m) for k in bench.CLOCKS for m in bench.MUTATIONS}
    assert {(k, bench.UNREACHABLE + m) for k in bench.CLOCKS for m in ("falsified", "identity file")} <= made, made
    assert all(r.status == REFUSED and r.expanded == 0 and not bench.wrong(r) for r in refusals), refusals
    (steps, order, every) = bench.times(runs)
    assert every.label == "all" and len(every.refused) == len(refusals) == len(steps.refused) + len(order.refused)
    assert len(every.explained) == sum(1 for r in runs if r.mode == "validate" and r.status == EXPLAINED and not bench.unreachable(r))
