"""What the log search refuses before it searches (conformance/logs/reach.py): every value of every state of every
committed trace the reference replays from Init and of the campaign's sampled walks is in its variable's domain and
within the bounds the steps before it allow, with a count of the checks each bound could have failed, so that none is
vacuous; and no committed event log, nor any log cut from those walks, is refused by it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from committed import replayed

from autoswitch.conformance.engines import Config, make_engine
from autoswitch.conformance.logs import cut
from autoswitch.conformance.logs.bench import SAFETY, sampled_walks
from autoswitch.conformance.logs.events import PROCESS_OBSERVED, read_log
from autoswitch.conformance.logs.merge import merge
from autoswitch.conformance.logs.reach import DOMAINS, RAISERS, outside, unreachable
from autoswitch.conformance.logs.search import MAX_GAP, _Problem
from autoswitch.conformance.simulation.campaign import grid
from autoswitch.reference.invariants import CONTROLLER_VARS
from autoswitch.reference.state import CONTROLLER
from autoswitch.reference.variables import variables

TRACES = Path(__file__).resolve().parents[2] / "traces"


def _check(config: Config, actions: Sequence[Mapping[str, Any]], where: str, checked: Counter[str]) -> None:
    """Each state's values: in their domains (reach.DOMAINS); nextBrokerId at most 1 + the RAISERS steps so far, a temp or
    meta file's id too (or the processes' count in a design that numbers them); every epoch, offset, message id and log
    length at most the steps so far."""
    engine = make_engine("reference", config)
    numbered = len(config.processes) if config.options.design != CONTROLLER else 0
    raised = 0
    for k in range(len(actions) + 1):
        if k:
            engine.step(actions[k - 1])
            raised += actions[k - 1]["tag"] in RAISERS
        v = variables(engine.state)
        for name in CONTROLLER_VARS:
            assert outside(name, v[name]) is None, f"{where}: state {k}: {name} = {v[name]!r}"
        for p in config.processes:
            for name in PROCESS_OBSERVED:
                assert outside(name, v[name][p]) is None, f"{where}: state {k}: {name}[{p}] = {v[name][p]!r}"
        assert v["nextBrokerId"] <= 1 + raised, f"{where}: state {k}"
        checked["nextBrokerId"] += v["nextBrokerId"] == 1 + raised > 1
        for p in config.processes:
            ids = (v["metaFile"][p], v["tempFile"][p]["brokerId"])
            assert max(ids) <= max(1 + raised, numbered), f"{where}: state {k}: {p}'s ids {ids}, {raised} raised"
            checked["ids"] += max(ids) == 1 + raised > 1
            counted = [v[name][p] for name in ("localMasterEpoch", "localSyncStateSetEpoch", "flushed", "confirmOffset")]
            counted += [len(v["log"][p]), *(x for entry in v["log"][p] for x in entry),
                        *(x for entry in v["epochFile"][p] for x in entry)]
            assert max(counted) <= k, f"{where}: state {k}: {p}: {counted}"
            checked["steps"] += max(counted) > 0
        assert max(v["masterEpoch"], v["syncStateSetEpoch"]) <= k, f"{where}: state {k}"
        checked["epochs"] += v["masterEpoch"] > 0


def test_on_every_committed_trace() -> None:
    checked: Counter[str] = Counter()
    traces = sum(1 for _ in replayed(lambda config, actions: _check(config, actions, "trace", checked)))
    assert traces >= 50 and all(checked[k] >= 20 for k in ("nextBrokerId", "ids", "steps", "epochs")), (traces, checked)
    assert set(DOMAINS) == {*CONTROLLER_VARS, *PROCESS_OBSERVED}


def test_on_the_sampled_walks_and_their_cuts(tmp_path: Path) -> None:
    """Walk 0 of each safety configuration at 60 steps: its states, and each of its cuts (cut.FILTERS), whose clock
    counts steps or only orders, under the gap that surely suffices."""
    checked: Counter[str] = Counter()
    for name, walk, actions in sampled_walks(SAFETY, 1, 60, 1):
        config = grid()[name].config
        _check(config, actions, f"{name} walk {walk}", checked)
        full = cut.walk_log(config, actions)
        for label, cut_by in cut.FILTERS.items():
            for log in (cut_by(full), cut.clock_orders_only(cut_by(full))) if cut_by(full).events else ():
                path = log.write(tmp_path / f"{name}-{label}-{len(log.meta)}")
                _not_refused(path, cut.max_gap(log))
    assert checked["nextBrokerId"] and checked["ids"] and checked["steps"] and checked["epochs"], checked


def _not_refused(path: Path, max_gap: int) -> None:
    log = read_log(path)
    merged = merge(log)
    refusal = unreachable(log, merged, _Problem(log, merged).unobserved, max_gap)
    assert refusal is None, refusal.describe()


@pytest.mark.parametrize("name", ["failover", "registration.ndjson"])
def test_no_committed_log_is_refused(name: str) -> None:
    _not_refused(TRACES / "logs" / name, MAX_GAP)
