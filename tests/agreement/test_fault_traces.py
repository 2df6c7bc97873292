"""The traces of the faults (traces/faults): the network's variables (``partitions``, ``late``) and the faults'
parameters (``peer``, ``request``) read strictly, a bad value refused before any engine runs (MALFORMED, the same
state and field on both engines), and a wrong value of them a divergence naming the variable."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from autoswitch.conformance.trace.replay import DIVERGENCE, MALFORMED, PASS, replay_file
from autoswitch.conformance.trace.vocabulary import network_problem

ROOT = Path(__file__).resolve().parents[2]
LATE = ROOT / "traces/faults/late-register-after-restart.itf.json"
PARTITION = ROOT / "traces/faults/partition-delays-transfer.itf.json"
BEAT = {"tag": "BrokerHeartbeat", "brokerId": 1, "epoch": 0, "maxOffset": 0, "priority": 0}


def _first(doc: dict[str, Any], tag: str) -> int:
    return next(i for i, s in enumerate(doc["states"]) if s["action"]["tag"] == tag)


def _replay(doc: dict[str, Any], tmp_path: Path, engine: str = "reference") -> Any:
    path = tmp_path / "bad.itf.json"
    path.write_text(json.dumps(doc))
    return replay_file(str(path), engine)


@pytest.mark.parametrize("engine", ["reference", "impl"])
@pytest.mark.parametrize(("value", "field"), [
    ({"#map": [["nobody", BEAT]]}, "late"),
    ({"#map": [["pB", {"tag": "GetReplicaInfo"}]]}, "late['pB'].tag"),
    ({"#map": [["pB", {k: v for k, v in BEAT.items() if k != "epoch"}]]}, "late['pB'].epoch"),
    ({"#map": [["pB", {**BEAT, "brokerId": "2"}]]}, "late['pB'].brokerId"),
    ({"#map": [["pB", {**BEAT, "brokerName": "broker-a"}]]}, "late['pB'].brokerName"),
    ({"#map": [["pB", {"tag": "SendHeartbeat", "process": "pB"}]]}, "late['pB'].tag"),
    ({"#set": []}, "late"),
])
def test_a_bad_late_request_is_refused_naming_state_and_field(value: Any, field: str, engine: str, tmp_path: Path) -> None:
    doc = json.loads(LATE.read_text())
    i = _first(doc, "SendLate")
    doc["states"][i]["late"] = value
    result = _replay(doc, tmp_path, engine)
    assert (result.status, result.state, result.field) == (MALFORMED, i, field), result.describe()


@pytest.mark.parametrize("engine", ["reference", "impl"])
@pytest.mark.parametrize("value", [
    {"#set": [{"#set": ["pA"]}]}, {"#set": [{"#set": ["pA", "nobody"]}]}, {"#set": [{"#set": ["pA", "pB", "pC"]}]},
    {"#set": ["pA", "pB"]}, [["pA", "pB"]], {"#map": []},
])
def test_a_bad_partition_is_refused_naming_state_and_field(value: Any, engine: str, tmp_path: Path) -> None:
    doc = json.loads(PARTITION.read_text())
    i = _first(doc, "PartitionLink")
    doc["states"][i]["partitions"] = value
    result = _replay(doc, tmp_path, engine)
    assert (result.status, result.state, result.field) == (MALFORMED, i, "partitions"), result.describe()


@pytest.mark.parametrize("engine", ["reference", "impl"])
@pytest.mark.parametrize(("source", "tag", "param", "value"), [
    (PARTITION, "PartitionLink", "peer", "nobody"), (PARTITION, "HealLink", "peer", 7),
    (LATE, "SendLate", "request", "GetReplicaInfo"), (LATE, "SendLate", "request", True),
])
def test_a_bad_fault_parameter_is_refused(source: Path, tag: str, param: str, value: Any, engine: str, tmp_path: Path) -> None:
    doc = json.loads(source.read_text())
    i = _first(doc, tag)
    doc["states"][i]["action"][param] = value
    result = _replay(doc, tmp_path, engine)
    assert (result.status, result.state, result.field) == (MALFORMED, i, f"action.{param}"), result.describe()


def test_a_wrong_late_request_is_a_divergence_naming_the_process(tmp_path: Path) -> None:
    doc = json.loads(LATE.read_text())
    i = _first(doc, "SendLate")
    doc["states"][i]["late"] = {"#map": [["pB", {"tag": "RegisterBrokerToController", "brokerId": 2, "addr": "10.0.0.9:30911"}]]}
    result = _replay(doc, tmp_path)
    assert (result.status, result.state, result.field) == (DIVERGENCE, i, "late['pB']"), result.describe()


def test_a_partition_the_model_does_not_have_is_a_divergence(tmp_path: Path) -> None:
    doc = json.loads(PARTITION.read_text())
    i = _first(doc, "HealLink")
    doc["states"][i]["partitions"] = {"#set": [{"#set": ["pA", "pB"]}]}
    result = _replay(doc, tmp_path)
    assert (result.status, result.state, result.field) == (DIVERGENCE, i, "partitions"), result.describe()


def test_the_fault_traces_replay_on_the_reference() -> None:
    for path in sorted((ROOT / "traces/faults").glob("*.itf.json")):
        result = replay_file(str(path), "reference")
        assert result.status == PASS and result.consumed == result.states, result.describe()


def test_network_problem_accepts_the_initial_values_and_links_in_either_order() -> None:
    procs = ("pA", "pB")
    assert network_problem("partitions", frozenset(), procs) is None
    assert network_problem("partitions", frozenset({frozenset({"pB", "pA"})}), procs) is None
    assert network_problem("late", {}, procs) is None
    assert network_problem("late", {"pA": {"tag": "ElectMaster", "trigger": "broker", "brokerId": 1}}, procs) is None
