"""The committed traces replay on both models; wrong or malformed traces fail with a precise location."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from autoswitch.conformance.cli import main
from autoswitch.conformance.controls import CONTROLS
from autoswitch.conformance.scenarios import all_scenarios
from autoswitch.conformance.trace.components import KINDS as COMPONENT_KINDS
from autoswitch.conformance.trace.replay import (
    DIVERGENCE,
    MALFORMED,
    MISSING_VIOLATION,
    PASS,
    VIOLATION,
    replay_file,
    trace_files,
)

ROOT = Path(__file__).resolve().parents[2]
ALL_TRACES = trace_files([str(ROOT / "traces")])
# walks and truncation steps (the component kinds have their own mutations in test_components.py)
SYSTEM_TRACES = [p for p in ALL_TRACES if json.loads(Path(p).read_text())["#meta"].get("kind") not in COMPONENT_KINDS]


def test_corpus_has_every_scenario() -> None:
    names = {Path(f).name.removesuffix(".itf.json") for f in ALL_TRACES}
    for wanted in ["C1", "C2", "C3", "C4", "C5", "C6", "B1", "B2", "B3", "B4", "B5", "B6", "T1", "T2", "T3", "T4", "T5", "T6",
                   "T7", "K1", "K2", "K3"]:
        assert any(n.startswith(wanted + "-") for n in names), wanted
    assert len([n for n in names if n.startswith("C2-")]) == 5


@pytest.mark.parametrize("engine", ["reference", "impl"])
@pytest.mark.parametrize("path", ALL_TRACES, ids=lambda p: Path(p).name)
def test_committed_trace_replays(path: str, engine: str) -> None:
    result = replay_file(path, engine)
    assert result.status == PASS, result.describe()
    assert result.consumed == result.states > 1


def test_committed_traces_are_what_the_scenarios_write(tmp_path: Path) -> None:
    """The traces are generated from conformance/scenarios/controller.py: regenerate and compare byte for byte."""
    runner = CliRunner()
    assert runner.invoke(main, ["scenarios", "--out", str(tmp_path)]).exit_code == 0
    for rel in all_scenarios():
        committed = (ROOT / "traces" / f"{rel}.itf.json").read_text()
        assert (tmp_path / f"{rel}.itf.json").read_text() == committed, rel


def _load(path: str) -> dict:
    return json.loads(Path(path).read_text())


def _save(doc: dict, path: Path) -> str:
    path.write_text(json.dumps(doc))
    return str(path)


@pytest.mark.parametrize("engine", ["reference", "impl"])
@pytest.mark.parametrize("path", SYSTEM_TRACES, ids=lambda p: Path(p).name)
def test_wrong_expected_code_fails_at_that_state(path: str, engine: str, tmp_path: Path) -> None:
    doc = _load(path)
    index = len(doc["states"]) // 2 or 1
    doc["states"][index]["outcome"]["code"] = "CONTROLLER_JRAFT_INTERNAL_ERROR"
    result = replay_file(_save(doc, tmp_path / "bad.json"), engine)
    assert (result.status, result.state, result.field) == (DIVERGENCE, index, "outcome.code")
    assert result.expected == "'CONTROLLER_JRAFT_INTERNAL_ERROR'"


@pytest.mark.parametrize("path", SYSTEM_TRACES, ids=lambda p: Path(p).name)
def test_wrong_variable_value_fails_naming_the_variable(path: str, tmp_path: Path) -> None:
    doc = _load(path)
    index = len(doc["states"]) - 1
    sets = doc["#meta"].get("brokerSets")
    if sets is None:
        doc["states"][index]["masterEpoch"] = {"#bigint": "99"}
        field = "masterEpoch"
    else:  # with several broker sets a controller variable is a function of the brokerName
        doc["states"][index]["masterEpoch"] = {"#map": [[b, {"#bigint": "99"}] for b in sorted(sets)]}
        field = f"masterEpoch[{sorted(sets)[0]!r}]"
    if "masterEpoch" not in doc["vars"]:
        doc["vars"].append("masterEpoch")
    result = replay_file(_save(doc, tmp_path / "bad.json"), "reference")
    if doc["#meta"].get("kind") == "truncation-step":  # its states carry only role, log, epochFile, confirmOffset
        assert (result.status, result.state, result.field) == (MALFORMED, index, field)
        return
    assert (result.status, result.state, result.field, result.expected) == (DIVERGENCE, index, field, "99")


def test_function_difference_names_the_key(tmp_path: Path) -> None:
    doc = _load(str(ROOT / "traces/broker-id/B1-first-start.itf.json"))
    doc["states"][1]["regState"] = {"#map": [["p1", "META_DONE"]]}
    result = replay_file(_save(doc, tmp_path / "bad.json"), "impl")
    assert (result.status, result.state, result.field) == (DIVERGENCE, 1, "regState['p1']")
    assert (result.expected, result.actual) == ("'META_DONE'", "'TEMP_DONE'")


def test_disabled_action_is_a_divergence(tmp_path: Path) -> None:
    doc = _load(str(ROOT / "traces/broker-id/B1-first-start.itf.json"))
    doc["states"][2]["action"] = {"tag": "DeleteTempFile", "process": "p1"}
    result = replay_file(_save(doc, tmp_path / "bad.json"), "reference")
    assert (result.status, result.state, result.field) == (DIVERGENCE, 2, "action")
    assert "TEMP_DONE" in result.message


@pytest.mark.parametrize("engine", ["reference", "impl"])
def test_a_broker_that_knows_a_live_master_does_not_ask_for_an_election(engine: str, tmp_path: Path) -> None:
    """ElectWanted: p2 registered as the slave of the live master 1 (ReplicasManager only calls brokerElect
    with no master known, or after a poll naming none in a newer epoch)."""
    doc = _load(str(ROOT / "traces/controller/C1-first-broker-processes.itf.json"))
    last = len(doc["states"]) - 1
    doc["states"][last] = {"action": {"tag": "SendElectMaster", "process": "p2", "lost": False}, "outcome": {"code": "SUCCESS"}}
    result = replay_file(_save(doc, tmp_path / "bad.json"), engine)
    assert (result.status, result.state, result.field) == (DIVERGENCE, last, "action")
    assert "knows a live master" in result.message


@pytest.mark.parametrize(
    ("mutate", "state", "field"),
    [
        (lambda d: d["states"][3]["action"].update(tag="Teleport"), 3, "action.tag"),
        (lambda d: d["states"][2]["action"].update(brokerId="one"), 2, "action.brokerId"),
        (lambda d: d["states"][2]["action"].pop("checkCode"), 2, "action.checkCode"),
        (lambda d: d["states"][4].update(nextBrokerId={"#set": 3}), 4, "nextBrokerId"),
        (lambda d: d["states"][4].update(leaderEpoch={"#bigint": "1"}), 4, "leaderEpoch"),
        (lambda d: d["states"][0]["action"].update(tag="GetReplicaInfo"), 0, "action.tag"),
        (lambda d: d.update(states=[]), None, "states"),
        (lambda d: d["#meta"].update(options={"enableElectUncleanMaster": "yes"}), None, "#meta.options.enableElectUncleanMaster"),
    ],
)
def test_malformed_trace_names_state_and_field(mutate, state, field, tmp_path: Path) -> None:
    doc = _load(str(ROOT / "traces/controller/C1-first-broker-controller.itf.json"))
    mutate(doc)
    if "leaderEpoch" in str(doc["states"][4:5]):
        doc["vars"].append("leaderEpoch")
    result = replay_file(_save(doc, tmp_path / "bad.json"), "reference")
    assert (result.status, result.state, result.field) == (MALFORMED, state, field), result.describe()
    assert "bad.json" in result.describe()


def test_invalid_json_is_malformed(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"states": [')
    result = replay_file(str(path), "impl")
    assert (result.status, result.field) == (MALFORMED, "<json>")
    assert "line 1" in result.message


def test_expected_violation_must_happen(tmp_path: Path) -> None:
    doc = _load(str(ROOT / "traces/regressions/clean-broker-data-reuses-id.itf.json"))
    doc["#meta"]["expect"]["state"] -= 1
    result = replay_file(_save(doc, tmp_path / "early.json"), "reference")
    assert (result.status, result.field) == (VIOLATION, "UniqueBrokerIds")
    doc = _load(str(ROOT / "traces/broker-id/B1-first-start.itf.json"))
    doc["#meta"]["expect"] = {"violation": "UniqueBrokerIds", "state": 3}
    result = replay_file(_save(doc, tmp_path / "never.json"), "impl")
    assert (result.status, result.field) == (MISSING_VIOLATION, "UniqueBrokerIds")


def test_cli_batch_reports_bad_files_and_runs_the_rest(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "traces" / "broker-id", tmp_path / "corpus")
    (tmp_path / "corpus" / "zz-broken.json").write_text("not json")
    doc = _load(str(ROOT / "traces/broker-id/B4-id-taken.itf.json"))
    doc["states"][4]["outcome"]["code"] = "SUCCESS"
    _save(doc, tmp_path / "corpus" / "B4-wrong.json")
    report = tmp_path / "report.json"
    result = CliRunner().invoke(main, ["replay", str(tmp_path / "corpus"), "--report", str(report)])
    assert result.exit_code == 1
    rows = json.loads(report.read_text())
    by_status = {(Path(r["file"]).name, r["engine"]): r["status"] for r in rows}
    assert by_status[("zz-broken.json", "reference")] == MALFORMED
    assert by_status[("B4-wrong.json", "impl")] == DIVERGENCE
    passing = [k for k, v in by_status.items() if v == PASS]
    assert len(passing) == 2 * 7  # the seven good B traces, on both engines


NEGATIVE = {  # MODEL.md §6 negative controls (controls.py): trace -> the invariant that must break
    Path(c.trace).name.removesuffix(".itf.json"): c.invariant for c in CONTROLS if c.trace and c.invariant}


@pytest.mark.parametrize(("name", "invariant"), sorted(NEGATIVE.items()))
def test_negative_controls_expect_their_violation(name: str, invariant: str, tmp_path: Path) -> None:
    """Each negative control names its violation and replays to it; without the expectation the same
    trace is reported as that violation, at that state."""
    path = next(f for f in ALL_TRACES if Path(f).name == f"{name}.itf.json")
    doc = _load(path)
    assert doc["#meta"]["expect"]["violation"] == invariant
    at = doc["#meta"]["expect"]["state"]
    del doc["#meta"]["expect"]
    result = replay_file(_save(doc, tmp_path / "unexpected.json"), "reference")
    assert (result.status, result.field, result.state) == (VIOLATION, invariant, at)


def test_cli_passes_on_the_committed_corpus() -> None:
    result = CliRunner().invoke(main, ["replay", str(ROOT / "traces"), "--quiet"])
    assert result.exit_code == 0, result.output


def test_explain_marks_the_first_violation() -> None:
    from autoswitch.conformance.trace.explain import explain

    lines = list(explain(str(ROOT / "traces/kafka/K2-hw.itf.json")))
    marks = [line for line in lines if line.startswith("  !!!")]
    assert marks == ["  !!! LogMatching fails here (state 37)"]
    assert any(line.startswith(" 37 Transfer(process='pA') -> OK") for line in lines)
    holds = list(explain(str(ROOT / "traces/kafka/K2-kip101.itf.json")))
    assert holds[-1] == "every invariant holds on every state"


def test_explain_refuses_a_step_trace_and_says_what_checks_it() -> None:
    from autoswitch.conformance.trace.explain import explain
    from autoswitch.conformance.trace.itf import TraceError

    with pytest.raises(TraceError, match="#meta.kind.*autoswitch replay"):
        list(explain(str(ROOT / "traces/z3/hw-truncation-step.itf.json")))


def test_disabled_expectation_needs_a_refusal(tmp_path: Path) -> None:
    """C5's refused Expand of the async learner: claiming SUCCESS diverges at the action; a DISABLED claim
    on an enabled action (D1's master Write) diverges on outcome.code."""
    doc = _load(str(ROOT / "traces/controller/C5-async-learner.itf.json"))
    index = next(i for i, s in enumerate(doc["states"]) if s["outcome"] == {"code": "DISABLED"})
    assert doc["states"][index]["action"]["tag"] == "Expand"
    doc["states"][index]["outcome"] = {"code": "SUCCESS"}
    result = replay_file(_save(doc, tmp_path / "enabled.json"), "impl")
    assert (result.status, result.state, result.field, result.actual) == (DIVERGENCE, index, "action", "not enabled")
    doc = _load(str(ROOT / "traces/regressions/D1-refused-actions.itf.json"))
    write = next(i for i, s in enumerate(doc["states"]) if s["action"]["tag"] == "Write" and s["outcome"]["code"] == "SUCCESS")
    doc["states"][write]["outcome"] = {"code": "DISABLED"}
    for engine in ("reference", "impl"):
        result = replay_file(_save(doc, tmp_path / "refused.json"), engine)
        assert (result.status, result.state, result.field, result.expected) == (DIVERGENCE, write, "outcome.code", "'DISABLED'")


def test_refused_action_must_change_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An engine that changes a variable before refusing is caught at that state, naming the variable."""
    from autoswitch.conformance.engines import reference as engines
    from autoswitch.reference.precondition import NotEnabled

    doc = _load(str(ROOT / "traces/regressions/D1-refused-actions.itf.json"))
    index = next(i for i, s in enumerate(doc["states"]) if s["outcome"] == {"code": "DISABLED"})
    step = engines.ReferenceEngine.step

    def leaky(self, action):
        if action["tag"] == doc["states"][index]["action"]["tag"]:
            step(self, {"tag": "Crash", "process": "pB"})
            raise NotEnabled("refused after a change")
        return step(self, action)

    monkeypatch.setattr(engines.ReferenceEngine, "step", leaky)
    result = replay_file(_save(doc, tmp_path / "leaky.json"), "reference")
    assert (result.status, result.state) == (DIVERGENCE, index), result.describe()
    assert result.message.startswith(f"the refused {doc['states'][index]['action']['tag']} changed")
