"""Traces of the designs RIP-44 replaced (reference/designs.py): a walk of each design replays on the reference with
its outcome codes, the vocabulary refuses what a design's Next does not have and bad design options by field, explain
shows how InitDesign set the processes up, and the TLA+ import keeps the new variables and outcome fields.
(The implementation's side of the designs is not this module's: the replays here are the reference's.)"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from design_cfgs import design_cfg

from autoswitch.conformance.engines import Config, trace_states
from autoswitch.conformance.tla.import_ import import_states
from autoswitch.conformance.tla.run import project_outcome
from autoswitch.conformance.trace.explain import explain
from autoswitch.conformance.trace.itf import write_trace
from autoswitch.conformance.trace.replay import MALFORMED, PASS, replay_file
from autoswitch.reference import Options
from autoswitch.reference.state import DLEDGER, MASTER_SLAVE

MS = Config({"p1": "a1", "p2": "a2"}, Options(design=MASTER_SLAVE))
DL = Config({"p1": "a1", "p2": "a2", "p3": "a3"}, Options(design=DLEDGER))
# a SYNC_MASTER with no slave, then a slave in step, then one whose write waits too long
MS_WALK = [{"tag": "MsWrite", "process": "p1"}, {"tag": "MsConnect", "process": "p2"}, {"tag": "MsTransfer", "process": "p2"},
           {"tag": "MsAck", "process": "p2"}, {"tag": "MsWrite", "process": "p1"}, {"tag": "MsSlaveTimeout", "process": "p1"},
           {"tag": "MsTransfer", "process": "p2"}, {"tag": "Consume", "process": "p2"}, {"tag": "Crash", "process": "p1"},
           {"tag": "OperatorFailover", "process": "p2"}, {"tag": "MsRestart", "process": "p1"}]
# a leader of term 1 commits a message on a majority and crashes; the member elected in term 2 keeps it and commits it
# with its own first entry (Raft commits an older term's entry only so); the restarted member follows term 2
DL_WALK = [{"tag": "DlElect", "process": "p1"}, {"tag": "DlWrite", "process": "p1"}, {"tag": "DlPush", "process": "p1", "peer": "p2"},
           {"tag": "Crash", "process": "p1"}, {"tag": "DlElect", "process": "p2"}, {"tag": "DlWrite", "process": "p2"},
           {"tag": "DlPush", "process": "p2", "peer": "p3"}, {"tag": "DlPush", "process": "p2", "peer": "p3"},
           {"tag": "Consume", "process": "p2"}, {"tag": "DlRestart", "process": "p1"}, {"tag": "DlPush", "process": "p2", "peer": "p1"}]


def _write(tmp_path: Path, config: Config, actions: list[dict[str, Any]], name: str = "t") -> Path:
    path = tmp_path / f"{name}.itf.json"
    write_trace(path, config.to_meta(), trace_states(config, actions))
    return path


def _edit(path: Path, change) -> str:
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc))
    return str(path)


@pytest.mark.parametrize(("config", "actions", "codes"), [
    (MS, MS_WALK, {"SLAVE_NOT_AVAILABLE", "FLUSH_SLAVE_TIMEOUT", "SUCCESS", "OK"}),
    (DL, DL_WALK, {"OK", "SUCCESS"}),
], ids=["masterslave", "dledger"])
def test_a_design_walk_replays_on_the_reference(tmp_path: Path, config: Config, actions: list, codes: set) -> None:
    path = _write(tmp_path, config, actions)
    states = json.loads(path.read_text())["states"]
    assert {s["outcome"]["code"] for s in states[1:]} == codes
    assert "brokerRole" in states[0] and "term" in states[0]
    result = replay_file(str(path), "reference")
    assert result.status == PASS and result.consumed == len(actions) + 1, result.describe()


def test_dledger_terms_are_in_the_trace(tmp_path: Path) -> None:
    states = trace_states(DL, DL_WALK)
    assert [s["term"]["p2"] for s in states] == [0, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2]
    assert states[1]["outcome"] == {"code": "OK", "term": 1} and states[3]["outcome"] == {"code": "SUCCESS", "offset": 1}
    assert [s["confirmOffset"]["p2"] for s in states[6:9]] == [0, 0, 2]  # the term-1 entry commits with the term-2 one
    assert (states[10]["term"]["p1"], states[11]["term"]["p1"]) == (1, 2)  # the restarted member follows once pushed to


# (what is changed, the field replay names, what the message says)
REFUSED = {
    "another design's action": (lambda d: d["states"][1]["action"].update(tag="Write"), "action.tag",
                                "Write is not an action of the dledger design (#meta.options.design); its actions: Crash, "),
    "a controller request": (lambda d: d["states"][1].update(action={"tag": "ControllerFailover"}), "action.tag",
                             "ControllerFailover is not an action of the dledger design"),
    "push without a peer": (lambda d: d["states"][3]["action"].pop("peer"), "action.peer", "DlPush needs parameter 'peer'"),
    "push to a stranger": (lambda d: d["states"][3]["action"].update(peer="p9"), "action.peer", "'p9' is not a declared process"),
    "unknown design": (lambda d: d["#meta"]["options"].update(design="raft"), "#meta.options.design",
                       "must be one of controller, masterslave, dledger, got 'raft'"),
    "design not a string": (lambda d: d["#meta"]["options"].update(design=1), "#meta.options.design", "must be a str, got 1"),
    "haMaxGap out of range": (lambda d: d["#meta"]["options"].update(haMaxGap=0), "#meta.options.haMaxGap", "must be in 1..16, got 0"),
}


@pytest.mark.parametrize("case", REFUSED)
@pytest.mark.parametrize("engine", ["reference", "impl"])
def test_a_trace_outside_its_design_is_refused_by_field(tmp_path: Path, case: str, engine: str) -> None:
    change, field, says = REFUSED[case]
    path = _edit(_write(tmp_path, DL, DL_WALK), change)
    result = replay_file(path, engine)
    assert (result.status, result.field) == (MALFORMED, field), result.describe()
    assert says in result.message and path in result.describe()


def test_a_controller_trace_may_not_take_a_designs_action(tmp_path: Path) -> None:
    path = _edit(_write(tmp_path, MS, MS_WALK), lambda d: d["#meta"]["options"].update(design="controller"))
    result = replay_file(path, "reference")
    assert (result.status, result.state, result.field) == (MALFORMED, 1, "action.tag")
    assert "MsWrite is not an action of the controller design" in result.message


def test_explain_shows_how_init_design_set_the_processes_up(tmp_path: Path) -> None:
    lines = list(explain(str(_write(tmp_path, DL, DL_WALK))))
    assert lines[2] == "design dledger (InitDesign): p1 DLEDGER id 1 term 0, p2 DLEDGER id 2 term 0, p3 DLEDGER id 3 term 0"
    assert "  1 DlElect(process='p1') -> OK term=1" in lines
    assert "      term['p2'] = 2" in lines
    ms = list(explain(str(_write(tmp_path, MS, MS_WALK, "ms"))))
    assert ms[2] == "design masterslave (InitDesign): p1 MASTER id 1, p2 SLAVE id 2"
    assert "      brokerRole['p1'] = 'SLAVE'" in ms


def test_the_tla_import_keeps_the_outcome_fields_of_the_designs() -> None:
    padded = {"code": "SUCCESS", "msg": 3, "offset": 2, "term": 0, "nextBrokerId": 0}
    assert project_outcome("MsWrite", {**padded, "code": "SLAVE_NOT_AVAILABLE"}) == {"code": "SLAVE_NOT_AVAILABLE", "msg": 3, "offset": 2}
    assert project_outcome("DlWrite", padded) == {"code": "SUCCESS", "msg": 3, "offset": 2}
    assert project_outcome("DlPush", padded) == {"code": "SUCCESS", "offset": 2}
    assert project_outcome("DlPush", {**padded, "code": "EXPIRED_TERM", "term": 4}) == {"code": "EXPIRED_TERM", "term": 4}
    assert project_outcome("DlElect", {**padded, "code": "OK", "term": 1}) == {"code": "OK", "term": 1}
    assert project_outcome("MsSlaveTimeout", {**padded, "code": "FLUSH_SLAVE_TIMEOUT"}) == {"code": "FLUSH_SLAVE_TIMEOUT"}


def test_a_model_checker_trace_of_a_design_imports_and_replays(tmp_path: Path) -> None:
    """A spec trace from InitDesign (here the reference's states of the 4.x loss, as TLC prints them: every variable,
    brokerRole and term too) imports with no registration prefix and replays to its violation."""
    from autoswitch.conformance.check.specconfig import load_spec_config

    config = load_spec_config(design_cfg(tmp_path, "ms", '"masterslave"', sync_master=False))
    actions = [{"tag": "MsWrite", "process": "p1"}, {"tag": "Crash", "process": "p1"}, {"tag": "OperatorFailover", "process": "p2"}]
    spec_states = trace_states(config.config(), actions)
    imported = import_states(spec_states, config, tool="tlc", violation="NoAckedMessageLost")
    assert imported.prefix == 0 and imported.states[0]["brokerRole"] == {"p1": "MASTER", "p2": "SLAVE"}
    path = imported.write(tmp_path / "imported.itf.json")
    result = replay_file(str(path), "reference")
    assert result.status == PASS and "NoAckedMessageLost fails at state 3, as expected" in result.describe()


ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("engine", ["reference", "impl"])
def test_a_divergence_counterexample_looks_past_the_loss_it_tolerates(tmp_path: Path, engine: str) -> None:
    """4.x's old master back as a slave diverges (LogMatching at state 8) after the write it lost (NoAckedMessageLost at
    state 3): #meta.expect.tolerated lets the replay look past the loss; without it the loss is the first violation."""
    doc = json.loads((ROOT / "traces" / "designs" / "ms-async-LogMatching.itf.json").read_text())
    assert doc["#meta"]["expect"]["tolerated"] == ["NoAckedMessageLost", "NoPhantomRead"]
    path = tmp_path / "t.itf.json"
    path.write_text(json.dumps(doc))
    assert replay_file(path, engine).status == PASS
    del doc["#meta"]["expect"]["tolerated"]
    path.write_text(json.dumps(doc))
    result = replay_file(path, engine)
    assert (result.status, result.field, result.state) == ("violation", "NoAckedMessageLost", 3), result.describe()
    doc["#meta"]["expect"]["tolerated"] = ["NoSuchProperty"]
    path.write_text(json.dumps(doc))
    result = replay_file(path, engine)
    assert (result.status, result.field) == (MALFORMED, "#meta.expect.tolerated"), result.describe()
