"""The TLA+ spec model-checked with TLC: MC_small holds every invariant and action property, and
deliberately broken copies of the spec are caught by the property they break (the properties have teeth).

Needs ``TLA2TOOLS_JAR`` (path of tla2tools.jar) and ``java``; skipped, saying what was not checked, otherwise.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from autoswitch.conformance.check.checker import Checker, initial_states
from autoswitch.conformance.check.specconfig import SpecConfig, load_spec_config
from autoswitch.conformance.controls import TLC, in_default
from autoswitch.conformance.tla.import_ import import_states, liveness_broken
from autoswitch.conformance.tla.run import OK, VIOLATION, find_tlc, project_state, run_tlc, tlc_missing_reason
from autoswitch.conformance.tla.tlc_output import parse_tlc_lasso
from autoswitch.reference import System
from autoswitch.reference.invariants import SYSTEM_VARS

SPEC = Path(__file__).resolve().parents[2] / "spec"

needs_tlc = pytest.mark.skipif(
    find_tlc() is None,
    reason=f"{tlc_missing_reason()}: spec/MC_small.cfg was NOT model-checked with TLC "
    "(invariants, action properties, the broken-spec controls and the spec/reference cross-check unchecked)",
)

# (module, text in the spec, replacement, the property TLC must report)
BROKEN = {
    "apply-ignores-checkCode": (
        "Controller.tla",
        "ELSE IF c.replicas[id].checkCode = cc",
        "ELSE IF TRUE",
        "UniqueBrokerIds",
    ),
    "elect-keeps-old-set": (
        "Controller.tla",
        "!.syncStateSet = {winner},",
        "!.syncStateSet = c.syncStateSet,",
        "MasterInSyncStateSet",
    ),
    "failover-resets-epoch": (
        "Controller.tla",
        "Result([c EXCEPT !.alive = NoAlive, !.electTriesLeft = 0], Out(OK))",
        "Result([c EXCEPT !.alive = NoAlive, !.electTriesLeft = 0, !.masterEpoch = 0], Out(OK))",
        "EpochsMonotonic",
    ),
}


@needs_tlc
def test_mc_small_holds() -> None:
    result = run_tlc(SPEC / "MC_small.tla", SPEC / "MC_small.cfg", workers=2, timeout=600)
    assert result.verdict == OK, result.output[-3000:]
    assert result.violated is None
    assert result.distinct_states is not None and result.distinct_states > 0
    assert result.states_generated is not None and result.states_generated >= result.distinct_states


@needs_tlc
@pytest.mark.parametrize("name", sorted(BROKEN))
def test_broken_spec_is_caught(name: str, tmp_path: Path) -> None:
    module, old, new, expected = BROKEN[name]
    for f in SPEC.glob("*.tla"):
        shutil.copy(f, tmp_path / f.name)
    shutil.copy(SPEC / "MC_small.cfg", tmp_path / "MC_small.cfg")
    text = (tmp_path / module).read_text()
    assert text.count(old) == 1, f"the mutation anchor {old!r} is no longer in spec/{module}"
    (tmp_path / module).write_text(text.replace(old, new))
    result = run_tlc(tmp_path / "MC_small.tla", tmp_path / "MC_small.cfg", workers=2, timeout=600)
    assert result.verdict == VIOLATION, result.output[-3000:]
    assert result.violated == expected, result.output[-3000:]


# --- the data path (spec/MC_data.tla): the safe settings hold every property; each known-bad option
# gives a counterexample of the property MODEL.md §6 names. Figures in spec/README.md.

needs_tlc_data = pytest.mark.skipif(
    find_tlc() is None,
    reason=f"{tlc_missing_reason()}: spec/MC_data.cfg (data path, safe settings) and the negative controls "
    "spec/MC_neg_*.cfg were NOT model-checked with TLC",
)

# config -> the invariant TLC must report (controls.py, the rows of its "tlc" default set).
# MC_neg_hw (131 s) is left out for time. MC_neg_hw_logmatching, MC_neg_kip101 and MC_neg_kip279_noepoch start from
# InitRegistered (brokers already registered) and check only TypeOK and LogMatching.
DATA_NEGATIVE = {c.cfg: c.invariant for c in in_default(TLC) if c.cfg and c.invariant}  # controls.py
# MC_data_kip279 is left out: its run takes as long again (spec/README.md has its figures)
DATA_IN_TEST = tuple(c.cfg for c in in_default(TLC) if c.cfg and not c.invariant)


@needs_tlc_data
@pytest.mark.parametrize("name", DATA_IN_TEST)
def test_data_path_safe_config_holds(name: str) -> None:
    result = run_tlc(SPEC / "MC_data.tla", SPEC / f"{name}.cfg", workers=2, timeout=900)
    assert result.verdict == OK, result.output[-3000:]
    assert result.distinct_states is not None and result.distinct_states > 0


@needs_tlc_data
@pytest.mark.parametrize("name", sorted(DATA_NEGATIVE))
def test_data_path_negative_control(name: str) -> None:
    result = run_tlc(SPEC / "MC_data.tla", SPEC / f"{name}.cfg", workers=2, timeout=900)
    assert result.verdict == VIOLATION, result.output[-3000:]
    assert (result.violation_kind, result.violated) == ("invariant", DATA_NEGATIVE[name]), result.output[-3000:]


# InitRegistered (AutoSwitch.tla) is a state Next reaches from Init: a run from Init with the
# invariant ~RegisteredVars (and p1's id fixed, for each of the two id orders) must report it violated
# after the 12 registration steps.
MC_REACH = """---- MODULE MC_reach ----
EXTENDS MC_data
NotRegistered == ~(RegisteredVars /\\ metaFile["p1"] = P1Id)
====
"""


@needs_tlc_data
@pytest.mark.parametrize("p1_id", [1, 2])
def test_init_registered_is_reachable(p1_id: int, tmp_path: Path) -> None:
    for f in SPEC.glob("*.tla"):
        shutil.copy(f, tmp_path / f.name)
    (tmp_path / "MC_reach.tla").write_text(MC_REACH.replace("P1Id", str(p1_id)))
    cfg = (SPEC / "MC_neg_hw_logmatching.cfg").read_text()
    for old, new in (("INIT InitRegistered", "INIT Init"), ("MaxMsgs = 3", "MaxMsgs = 0"),
                     ("    LogMatching", "    NotRegistered")):
        assert cfg.count(old) == 1, f"{old!r} not in spec/MC_neg_hw_logmatching.cfg"
        cfg = cfg.replace(old, new)
    (tmp_path / "MC_reach.cfg").write_text(cfg)
    result = run_tlc(tmp_path / "MC_reach.tla", tmp_path / "MC_reach.cfg", workers=2, timeout=300)
    assert result.verdict == VIOLATION, result.output[-3000:]
    assert (result.violation_kind, result.violated) == ("invariant", "NotRegistered"), result.output[-3000:]
    assert result.output.count("\nState 13:") == 1 and "\nState 14:" not in result.output, result.output[-3000:]


# --- the spec and the reference reach the same states and answer the same ------------------------
# A small model (MC_tiny, written by the test: MC_small with one address for p2 and MaxEpoch 2). TLC
# explores it with VIEW <<modelVars, outcome>>, so it counts the distinct (state, response) pairs
# reachable; a breadth-first search of the reference model with the same constants, the same action
# parameter space (Next) and the same state constraint must reach exactly as many pairs at the same
# depth. The same check with EnableElectUncleanMaster = TRUE agrees too (spec/README.md; left out
# here for time).

TINY_BOUNDS = {"MaxEpoch": 2, "MaxClock": 2, "MaxNextBrokerId": 3}
MC_TINY = """---- MODULE MC_tiny ----
EXTENDS AutoSwitch
MC_Processes == {"p1", "p2"}
MC_Addrs == [p \\in MC_Processes |-> IF p = "p1" THEN {"a1"} ELSE {"a2"}]
MC_BrokerIds == 1..2
MC_View == <<modelVars, outcome>>
====
"""
# The spec's outcome record carries every response field; absent ones hold these values.
OUTCOME_PADDING = {"nextBrokerId": -1, "masterId": -1, "masterAddr": "", "masterEpoch": -1,
                   "syncStateSetEpoch": -1, "syncStateSet": frozenset(), "msg": -1, "offset": -1,
                   "truncateOffset": -1, "term": -1}


def _outcome_key(outcome: Mapping[str, Any]) -> tuple:
    return tuple(sorted({**OUTCOME_PADDING, **outcome}.items(), key=lambda kv: kv[0]))


def _reference_pairs(spec: SpecConfig) -> tuple[int, int]:
    """(distinct (state, padded outcome) pairs, depth) of the reference model, explored the way TLC
    explores the spec under VIEW <<modelVars, outcome>>: the actions and the constraint are the
    explicit-state checker's (conformance/check/checker.py), the node is the pair."""
    checker = Checker(spec, invariants=(), properties=())
    expanded: dict[System, list[tuple[System, tuple]]] = {}

    def successors(s: System) -> list[tuple[System, tuple]]:
        if s not in expanded:  # successors depend on the state only, not on how it was reached
            expanded[s] = [(w, _outcome_key(o)) for _, w, o in checker.successors(s)]
        return expanded[s]

    (start,) = initial_states(spec, spec.options)
    seen = {(start.state, _outcome_key({"code": "OK"}))}
    frontier, depth = [start.state], 1
    while frontier:
        nxt = []
        for s in frontier:
            for pair in successors(s):
                if pair not in seen:
                    seen.add(pair)
                    nxt.append(pair[0])
        frontier = nxt
        depth += bool(nxt)
    return len(seen), depth


@needs_tlc
def test_spec_and_reference_reach_the_same_states_and_outcomes(tmp_path: Path) -> None:
    cfg = (SPEC / "MC_small.cfg").read_text()
    for name, value in TINY_BOUNDS.items():
        cfg, n = re.subn(rf"{name} = \w+", f"{name} = {value}", cfg)
        assert n == 1, f"{name} not set in spec/MC_small.cfg"
    for f in SPEC.glob("*.tla"):
        shutil.copy(f, tmp_path / f.name)
    (tmp_path / "MC_tiny.tla").write_text(MC_TINY)
    (tmp_path / "MC_tiny.cfg").write_text(cfg.replace("configuration of MC_small.tla", "configuration of MC_tiny.tla"))
    result = run_tlc(tmp_path / "MC_tiny.tla", tmp_path / "MC_tiny.cfg", workers=2, timeout=300)
    assert result.verdict == OK, result.output[-3000:]
    assert (result.distinct_states, result.depth) == _reference_pairs(load_spec_config(tmp_path / "MC_tiny.cfg"))


# --- liveness (spec/Liveness.tla, spec/MC_live.tla): a configuration that holds and a control that must fail.
# Figures in spec/README.md ("Liveness", "Measured results").


@needs_tlc
def test_liveness_config_holds() -> None:
    result = run_tlc(SPEC / "MC_live.tla", SPEC / "MC_live_reg.cfg", workers=2, timeout=900)
    assert result.verdict == OK, result.output[-3000:]
    assert load_spec_config(SPEC / "MC_live_reg.cfg").liveness == ("EventuallyRegistered", "EventuallyMaster")


@needs_tlc
def test_liveness_control_gives_a_lasso() -> None:
    cfg = load_spec_config(SPEC / "MC_live_neg_retry.cfg")
    result = run_tlc(SPEC / "MC_live.tla", cfg.source, workers=2, timeout=900)
    assert (result.verdict, result.violation_kind) == (VIOLATION, "temporal property"), result.output[-3000:]
    spec_states, loop = parse_tlc_lasso(result.output)
    projected = [project_state(s) for s in spec_states]
    assert liveness_broken(projected, loop, cfg.liveness) == "EventuallyRegistered"
    imported = import_states(spec_states, cfg, tool="TLC", violation="EventuallyRegistered", loop=loop)
    assert imported.meta["expect"] == {"liveness": "EventuallyRegistered", "process": imported.meta["expect"]["process"],
                                       "loop": imported.loop}
    assert set(imported.meta["next"]) == {"brokerIds", "switches", "faults"}
    last, back = imported.states[-1], imported.states[imported.loop]
    assert all(last[name] == back[name] for name in SYSTEM_VARS)
    assert all("faults" not in s for s in imported.states)
    # the process that never registers: APPLY_FAILED throughout the loop (RegisterRetry = FALSE)
    assert any(all(s["regState"][p] == "APPLY_FAILED" for s in imported.states[imported.loop:]) for p in cfg.processes)


@needs_tlc
@pytest.mark.parametrize("name", ["MC_live_data", "MC_live_neg_retry"])
def test_checker_and_tlc_agree_on_the_liveness_verdict(name: str, tmp_path: Path) -> None:
    """autoswitch check --tlc: the same liveness verdict from both (and the same counts where TLC explores the whole
    graph: a configuration that holds); the checker's lasso replays on both engines."""
    from autoswitch.conformance.check.verdict import check_config, compare_with_tlc, load_checker

    verdict = compare_with_tlc(check_config(load_checker(name, False), tmp_path, True), tmp_path)
    assert verdict.liveness_compared and verdict.same_liveness_as_tlc, verdict
    assert verdict.ok, verdict
    if name == "MC_live_data":
        assert verdict.same_as_tlc and verdict.result.distinct == 3342
    else:
        assert verdict.result.violation is not None and verdict.result.violation.kind == "liveness"


# --- the designs RIP-44 replaced (spec/Designs.tla, spec/MC_designs.tla): the checker and TLC give the same verdict
# and, where both explore every state, the same counts (spec/README.md, "The designs RIP-44 replaced"). The small
# configurations only: MC_dledger3 and MC_live_dledger3 take longer (their figures are in spec/README.md).
DESIGNS_IN_TEST = {
    # config -> what both must find: an invariant, a liveness property, or None (everything holds) with the count
    "MC_ms_async": ("NoAckedMessageLost", None),
    "MC_ms_sync": ("NoAckedMessageLost", None),
    "MC_dledger2": (None, 7282),
    "MC_live_ms": ("EventuallyMaster", None),
    "MC_live_dledger2": ("EventuallyMaster", None),
}


@needs_tlc
@pytest.mark.parametrize("name", sorted(DESIGNS_IN_TEST))
def test_checker_and_tlc_agree_on_the_designs(name: str, tmp_path: Path) -> None:
    from autoswitch.conformance.check.verdict import check_config, compare_with_tlc, load_checker

    violated, distinct = DESIGNS_IN_TEST[name]
    verdict = compare_with_tlc(check_config(load_checker(name, False), tmp_path, False), tmp_path)
    assert verdict.tlc is not None
    found = verdict.result.violation
    assert (found.name if found else None, verdict.tlc.violated) == (violated, violated), verdict
    if violated is None:
        assert verdict.same_as_tlc and verdict.result.distinct == distinct, verdict
    elif verdict.result.liveness:
        assert found is not None and found.kind == "liveness" and verdict.same_liveness_as_tlc, verdict
    else:
        assert verdict.tlc.depth == len(found.states), verdict  # the same shortest counterexample length
