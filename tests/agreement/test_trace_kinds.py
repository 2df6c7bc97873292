"""The trace-only kinds (spec/README.md, "Trace kinds"): malformed uses are refused with the file, the
state and the field; wrong expectations diverge where they are wrong, on both engines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from autoswitch.conformance.trace.replay import DIVERGENCE, MALFORMED, PASS, broken_in_other_sets, replay_file
from autoswitch.impl.controller import ControllerManager
from autoswitch.impl.processor import ControllerRequestProcessor
from autoswitch.impl.protocol import BrokerHeartbeatRequest, GetNextBrokerIdRequest, ResponseCode

ROOT = Path(__file__).resolve().parents[2]
KINDS = ROOT / "traces" / "kinds"
TWO_SETS = KINDS / "two-sets-elect-independently.itf.json"
LEADER = KINDS / "controller-leader-lost.itf.json"
META = KINDS / "meta-file-of-another-set.itf.json"


def _load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


def _replay(doc: dict[str, Any], tmp_path: Path, engine: str) -> Any:
    path = tmp_path / "kind.json"
    path.write_text(json.dumps(doc))
    return replay_file(str(path), engine)


def _declare(doc: dict[str, Any], *names: str) -> None:
    doc["vars"] += [n for n in names if n not in doc["vars"]]


def _set_var(name: str, value: Any) -> Any:
    return lambda d: (d["states"][3].update({name: value}), _declare(d, name))


@pytest.mark.parametrize(
    ("path", "mutate", "state", "field"),
    [
        (TWO_SETS, lambda d: d["states"][2]["action"].update(brokerName="broker-z"), 2, "action.brokerName"),
        (TWO_SETS, lambda d: d["states"][2]["action"].update(clusterName="OtherCluster"), 2, "action.clusterName"),
        (TWO_SETS, lambda d: d["states"][2]["action"].update(brokerName=7), 2, "action.brokerName"),
        (TWO_SETS, lambda d: d["states"][0].update(masterEpoch={"#bigint": "0"}), 0, "masterEpoch"),
        (TWO_SETS, lambda d: d["states"][0].update(alive={"#map": [["broker-a", {"#map": []}]]}), 0, "alive"),
        (TWO_SETS, lambda d: d["#meta"].update(brokerSets={"broker-b": "DefaultCluster"}), None, "#meta.brokerSets"),
        (TWO_SETS, lambda d: d["#meta"].update(brokerSets=["broker-a"]), None, "#meta.brokerSets"),
        (LEADER, lambda d: d["states"][2]["action"].update(brokerName="broker-b"), 2, "action.brokerName"),
        (LEADER, lambda d: d["states"][4]["action"].update(brokerName="broker-a"), 4, "action.brokerName"),
        (LEADER, lambda d: d["states"][2]["action"].update(brokerId={"#bigint": "-2"}), 2, "action.brokerId"),
        (LEADER, _set_var("controllerLeader", "yes"), 3, "controllerLeader"),
        (KINDS / "heartbeat-without-broker-id.itf.json", lambda d: d["states"][2]["action"].update(brokerId=None), 2, "action.brokerId"),
        (META, _set_var("metaFileContent", {"#map": [["p1", {"#bigint": "1"}]]}), 3, "metaFileContent"),
        (META, lambda d: d["states"][3]["action"].update(brokerName="broker-b"), 3, "action.brokerName"),
        (META, lambda d: d["states"][6]["action"].update(clusterName=["x"]), 6, "action.clusterName"),
    ],
)
def test_malformed_kind_names_file_state_and_field(path: Path, mutate: Any, state: int | None, field: str, tmp_path: Path) -> None:
    doc = _load(path)
    mutate(doc)
    for engine in ("reference", "impl"):
        result = _replay(doc, tmp_path, engine)
        assert (result.status, result.state, result.field) == (MALFORMED, state, field), result.describe()
        assert "kind.json" in result.describe()


def _expect(doc: dict[str, Any], index: int, **values: Any) -> None:
    doc["states"][index].update(values)
    _declare(doc, *values)


@pytest.mark.parametrize("engine", ["reference", "impl"])
def test_a_heartbeat_counts_in_its_own_set_only(engine: str, tmp_path: Path) -> None:
    doc = _load(KINDS / "heartbeat-of-another-set.itf.json")
    live = {"epoch": {"#bigint": "1"}, "maxOffset": {"#bigint": "5"}, "priority": {"#bigint": "0"}}
    _expect(doc, 6, alive={"#map": [["broker-a", {"#map": [[{"#bigint": "1"}, live]]}], ["broker-b", {"#map": [[{"#bigint": "1"}, live]]}]]})
    result = _replay(doc, tmp_path, engine)
    assert (result.status, result.state, result.field) == (DIVERGENCE, 6, "alive['broker-a']"), result.describe()


@pytest.mark.parametrize("engine", ["reference", "impl"])
def test_requests_without_a_leader_apply_nothing(engine: str, tmp_path: Path) -> None:
    doc = _load(LEADER)
    _expect(doc, 6, nextBrokerId={"#bigint": "3"})  # ApplyBrokerId(2) while no leader
    result = _replay(doc, tmp_path, engine)
    assert (result.status, result.state, result.field, result.actual) == (DIVERGENCE, 6, "nextBrokerId", "2")


@pytest.mark.parametrize("engine", ["reference", "impl"])
def test_leadership_regained_empties_the_liveness_table(engine: str, tmp_path: Path) -> None:
    doc = _load(LEADER)
    elected = next(i for i, s in enumerate(doc["states"]) if s["action"]["tag"] == "ControllerLeaderElected")
    doc["states"][elected]["alive"] = doc["states"][elected - 1]["alive"]
    assert _replay(doc, tmp_path, engine).field == "alive[1]"


@pytest.mark.parametrize("engine", ["reference", "impl"])
def test_no_scan_nor_failover_without_a_leader(engine: str, tmp_path: Path) -> None:
    """The re-elect scan runs on the leader, a failover is a change of leader; leadership is lost once."""
    doc = _load(LEADER)
    lost = next(i for i, s in enumerate(doc["states"]) if s["action"]["tag"] == "ControllerLeaderLost")
    for action in ({"tag": "ControllerElectScan"}, {"tag": "ControllerFailover"}, {"tag": "ControllerLeaderLost"}):
        doc2 = _load(LEADER)
        doc2["states"][lost + 1] = {"action": action}
        result = _replay(doc2, tmp_path, engine)
        assert (result.status, result.state, result.field) == (DIVERGENCE, lost + 1, "action"), result.describe()


@pytest.mark.parametrize("engine", ["reference", "impl"])
def test_a_refused_apply_fails_the_broker_but_applies_nothing(engine: str, tmp_path: Path) -> None:
    doc = _load(KINDS / "broker-requests-to-a-non-leader.itf.json")
    refused = next(i for i, s in enumerate(doc["states"]) if s["action"]["tag"] == "SendApplyBrokerId")
    assert doc["states"][refused]["outcome"]["code"] == "CONTROLLER_NOT_LEADER"
    for name, value, field, actual in (("regState", {"#map": [["p1", "TEMP_DONE"]]}, "regState['p1']", "'APPLY_FAILED'"),
                                       ("nextBrokerId", {"#bigint": "2"}, "nextBrokerId", "1")):
        doc2 = _load(KINDS / "broker-requests-to-a-non-leader.itf.json")
        _expect(doc2, refused, **{name: value})
        result = _replay(doc2, tmp_path, engine)
        assert (result.status, result.state, result.field, result.actual) == (DIVERGENCE, refused, field, actual)


@pytest.mark.parametrize("engine", ["reference", "impl"])
def test_identity_file_contents_are_compared(engine: str, tmp_path: Path) -> None:
    doc = _load(META)
    _expect(doc, 3, metaFileContent={"#map": [["p1", "DefaultCluster#broker-b#1"]]})
    result = _replay(doc, tmp_path, engine)
    assert (result.status, result.state, result.field) == (DIVERGENCE, 3, "metaFileContent['p1']")
    assert result.actual == "'DefaultCluster#broker-a#1'"


@pytest.mark.parametrize("engine", ["reference", "impl"])
def test_a_process_of_another_set_sends_nothing(engine: str, tmp_path: Path) -> None:
    """Restarted under another brokerName with no identity file, a process would ask that set for an id:
    outside what the engines run (processes run in the default set), so not enabled on either."""
    doc = _load(META)
    doc["states"][1:] = [{"action": {"tag": "Crash", "process": "p1"}},
                         {"action": {"tag": "Restart", "process": "p1", "addr": "a", "brokerName": "broker-b"}},
                         {"action": {"tag": "CreateTempFile", "process": "p1"}}]
    result = _replay(doc, tmp_path, engine)
    assert (result.status, result.state, result.field) == (DIVERGENCE, 3, "action"), result.describe()


def test_every_kind_trace_replays_on_both_engines() -> None:
    paths = sorted(KINDS.glob("*.itf.json"))
    assert len(paths) == 8
    for path in paths:
        for engine in ("reference", "impl"):
            assert replay_file(str(path), engine).status == PASS


def test_controller_properties_are_checked_in_every_set() -> None:
    fine = {"replicas": {1: {"addr": "a", "checkCode": "a;0"}}, "nextBrokerId": 2, "masterId": 1, "masterEpoch": 1, "syncStateSet": frozenset({1}),
            "syncStateSetEpoch": 1, "alive": {}, "electTriesLeft": 0}
    assert broken_in_other_sets(None, {"broker-b": fine}) == []
    assert broken_in_other_sets(None, {"broker-b": {**fine, "syncStateSet": frozenset()}}) == ["MasterInSyncStateSet"]
    assert broken_in_other_sets({"broker-b": fine}, {"broker-b": {**fine, "masterEpoch": 0}}) == ["EpochsMonotonic"]


def test_processor_answers_not_leader_and_invalid_request() -> None:
    processor = ControllerRequestProcessor(ControllerManager())
    request = GetNextBrokerIdRequest("DefaultCluster", "broker-a")
    assert processor.get_next_broker_id(request).code is ResponseCode.SUCCESS
    processor.broker_heartbeat(BrokerHeartbeatRequest("DefaultCluster", "broker-a", 1, 0, 0, 0))
    processor.leader_lost()
    assert processor.get_next_broker_id(request).code is ResponseCode.CONTROLLER_NOT_LEADER
    null = BrokerHeartbeatRequest("DefaultCluster", "broker-a", None, 0, 0, 0)
    assert processor.broker_heartbeat(null).code is ResponseCode.CONTROLLER_INVALID_REQUEST
    assert processor.controller.heartbeat_manager.is_broker_active("DefaultCluster", "broker-a", 1)
    processor.leader_elected()
    assert not processor.controller.heartbeat_manager.is_broker_active("DefaultCluster", "broker-a", 1)
