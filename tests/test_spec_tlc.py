"""The TLA+ spec model-checked with TLC: MC_small holds every invariant and action property, and
deliberately broken copies of the spec are caught by the property they break (the properties have teeth).

Needs ``TLA2TOOLS_JAR`` (path of tla2tools.jar) and ``java``; skipped, saying what was not checked, otherwise.
"""

from __future__ import annotations

import itertools
import re
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from autoswitch.conformance.tlatools import OK, VIOLATION, find_tlc, run_tlc, tlc_missing_reason
from autoswitch.reference import NotEnabled, Options, initial_system, step
from autoswitch.reference.variables import variables

SPEC = Path(__file__).resolve().parent.parent / "spec"

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
        "Result([c EXCEPT !.alive = NoAlive], Out(OK))",
        "Result([c EXCEPT !.alive = NoAlive, !.masterEpoch = 0], Out(OK))",
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

DATA_SAFE = ("MC_data", "MC_data_kip279")
# config -> the invariant TLC must report
# MC_neg_hw (131 s) is left out for time. MC_neg_hw_logmatching and MC_neg_kip101 start from
# InitRegistered (brokers already registered) and check only TypeOK and LogMatching.
DATA_NEGATIVE = {
    "MC_neg_union": "NoAckedMessageLost",
    "MC_neg_unclean": "NoAckedMessageLost",
    "MC_neg_allack": "NoAckedMessageLost",
    "MC_neg_hw_logmatching": "LogMatching",
    "MC_neg_kip101": "LogMatching",
}
DATA_IN_TEST = ("MC_data",)  # the kip279 run takes as long again: spec/README.md has its figures


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

PROCESS_ADDRS = {"p1": ("a1",), "p2": ("a2",)}
BROKER_IDS = (1, 2)
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
                   "truncateOffset": -1}


def _freeze(x: Any) -> Any:
    if isinstance(x, Mapping):
        return tuple(sorted((k, _freeze(v)) for k, v in x.items()))
    if isinstance(x, set | frozenset):
        return tuple(sorted(_freeze(v) for v in x))
    if isinstance(x, list | tuple):  # logs and epoch files
        return tuple(_freeze(v) for v in x)
    return x


def _next_actions(data_path: bool = False, any_set_alter: bool = True) -> list[dict[str, Any]]:
    """Every action record of AutoSwitch's Next for PROCESS_ADDRS and BROKER_IDS (no CleanBrokerData);
    with ``data_path`` the actions of Replication.tla (DataNext) too. Write's MaxMsgs bound is a
    condition on the state: ``_reference_bfs`` applies it."""
    subsets = [frozenset(c) for r in range(len(BROKER_IDS) + 1) for c in itertools.combinations(BROKER_IDS, r)]
    actions: list[dict[str, Any]] = []
    for p, addrs in PROCESS_ADDRS.items():
        for tag in ("LoadMetaFile", "LoadTempFile", "CreateTempFile", "AbandonTempFile", "WriteMetaFile",
                    "DeleteTempFile", "SyncReplicaInfo", "SendHeartbeat", "Crash"):
            actions.append({"tag": tag, "process": p})
        for tag in ("SendApplyBrokerId", "SendRegister", "SendElectMaster"):
            actions += [{"tag": tag, "process": p, "lost": lost} for lost in (False, True)]
        if any_set_alter:
            actions += [{"tag": "SendAlterSyncStateSet", "process": p, "newSyncStateSet": s, "lost": lost}
                        for s in subsets for lost in (False, True)]
        actions += [{"tag": "Restart", "process": p, "addr": a} for a in addrs]
        if data_path:
            for tag in ("Write", "Handshake", "Transfer", "Ack", "AlterArrives", "Flush", "Consume"):
                actions.append({"tag": tag, "process": p})
            actions += [{"tag": tag, "process": p, "brokerId": i, "lost": lost}
                        for tag in ("Expand", "Shrink") for i in BROKER_IDS for lost in (False, True)]
    actions.append({"tag": "ControllerElectScan"})
    actions += [{"tag": "ElectMaster", "trigger": "admin", "brokerId": i} for i in BROKER_IDS]
    actions += [{"tag": "HeartbeatExpire", "brokerId": i} for i in BROKER_IDS]
    actions.append({"tag": "ControllerFailover"})
    return actions


def _reference_bfs(bounds: dict[str, int], unclean: bool, *, data_path: bool = False, any_set_alter: bool = True,
                   opts: Options | None = None) -> tuple[int, int]:
    """(distinct (state, padded outcome) pairs, depth) of the reference model, explored the way TLC
    explores the spec under VIEW <<modelVars, outcome>>."""
    opts = opts or Options(enable_elect_unclean_master=unclean)
    actions = _next_actions(data_path, any_set_alter)
    max_msgs = bounds.get("MaxMsgs", 0)

    def in_model(s: Any) -> bool:
        c = s.controller
        return (c.master_epoch <= bounds["MaxEpoch"] and c.sync_state_set_epoch <= bounds["MaxEpoch"]
                and s.clock <= bounds["MaxClock"] and c.next_broker_id <= bounds["MaxNextBrokerId"])

    expanded: dict[Any, list[tuple[Any, Any, Any]]] = {}

    def successors(s: Any, key: Any) -> list[tuple[Any, Any, Any]]:
        if key not in expanded:  # successors depend on the state only, not on how it was reached
            found = []
            for action in actions:
                if action["tag"] == "Write" and s.next_msg > max_msgs:
                    continue  # Next's bound (DataNext: nextMsg <= MaxMsgs)
                try:
                    w, outcome = step(s, action, opts)
                except NotEnabled:
                    continue
                if in_model(w):
                    found.append((w, _freeze(variables(w)), _freeze({**OUTCOME_PADDING, **outcome})))
            expanded[key] = found
        return expanded[key]

    s0 = initial_system({p: addrs[0] for p, addrs in PROCESS_ADDRS.items()})
    k0 = _freeze(variables(s0))
    seen = {(k0, _freeze({**OUTCOME_PADDING, "code": "OK"}))}
    frontier = [(s0, k0)]
    depth = 1
    while frontier:
        nxt = []
        for s, key in frontier:
            for w, wkey, okey in successors(s, key):
                if (wkey, okey) not in seen:
                    seen.add((wkey, okey))
                    nxt.append((w, wkey))
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
    (tmp_path / "MC_tiny.cfg").write_text(cfg)
    result = run_tlc(tmp_path / "MC_tiny.tla", tmp_path / "MC_tiny.cfg", workers=2, timeout=300)
    assert result.verdict == OK, result.output[-3000:]
    assert (result.distinct_states, result.depth) == _reference_bfs(TINY_BOUNDS, unclean=False)
