"""The event-log format read strictly (conformance/logs/events.py): each malformed line is refused naming the file, the
line and the field; the parameters a log may leave out, and the node filling a process's own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from autoswitch.conformance.errors import InputError
from autoswitch.conformance.logs.events import LogError, read_log
from autoswitch.conformance.simulation.campaign import grid

META = {"meta": {"processes": {"p1": "10.0.0.1:30911", "p2": "10.0.0.2:30911"}}}
REGISTER = {"node": "p1", "ts": 1, "action": {"tag": "SendRegister", "lost": False}, "observe": {"regState": "REGISTERED"}}


def write(path: Path, *lines: object) -> Path:
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines))
    return path


def test_a_log_is_read_with_the_node_as_its_process(tmp_path: Path) -> None:
    log = read_log(write(tmp_path / "run.ndjson", META, REGISTER, {"node": "controller", "clock": 3, "ts": 2,
                                                                   "observe": {"masterId": -1}}))
    assert log.name == "run" and sorted(log.nodes) == ["controller", "p1"]
    (event,) = log.nodes["p1"]
    assert event.action == {"tag": "SendRegister", "lost": False, "process": "p1"} and event.missing == ()
    assert (event.file, event.line, event.ts, event.clock) == (str(tmp_path / "run.ndjson"), 2, 1, None)


def test_parameters_left_out_are_listed_and_a_folder_is_one_log(tmp_path: Path) -> None:
    write(tmp_path / "a.ndjson", META, {"node": "p1", "ts": 1, "action": {"tag": "Expand"}})
    write(tmp_path / "b.ndjson", {"node": "controller", "ts": 2, "action": {"tag": "ElectMaster", "brokerId": 1}})
    log = read_log(tmp_path)
    assert log.nodes["p1"][0].missing == ("brokerId", "lost")
    assert log.nodes["controller"][0].missing == ("trigger",)


def test_complete_of_says_which_steps_of_a_node_are_logged(tmp_path: Path) -> None:
    meta = {"meta": {**META["meta"], "complete": ["Write"], "completeOf": {"p1": ["Crash"], "controller": ["HeartbeatExpire"]}}}
    log = read_log(write(tmp_path / "run.ndjson", meta, REGISTER))
    assert log.logs_every({"tag": "Crash", "process": "p1"}) and not log.logs_every({"tag": "Crash", "process": "p2"})
    assert log.logs_every({"tag": "Write", "process": "p2"}) and log.logs_every({"tag": "HeartbeatExpire", "brokerId": 1})
    assert not log.logs_every({"tag": "ControllerElectScan"})


def test_changes_logged_says_which_variables_a_node_logs_at_every_change(tmp_path: Path) -> None:
    meta = {"meta": {**META["meta"], "changesLogged": {"p1": ["role", "regState"], "controller": ["masterId"]}}}
    log = read_log(write(tmp_path / "run.ndjson", meta, REGISTER))
    assert log.changes_logged == {"p1": frozenset({"role", "regState"}), "controller": frozenset({"masterId"})}
    assert read_log(write(tmp_path / "plain.ndjson", META, REGISTER)).changes_logged == {}


def test_a_header_may_claim_that_the_clock_counts_steps(tmp_path: Path) -> None:
    assert not read_log(write(tmp_path / "a.ndjson", META, REGISTER)).clock_counts_steps
    claim = {"meta": {**META["meta"], "clockCountsSteps": True}}
    assert read_log(write(tmp_path / "b.ndjson", claim, {**REGISTER, "clock": 1})).clock_counts_steps


def test_without_a_header_the_configuration_is_given(tmp_path: Path) -> None:
    path = write(tmp_path / "x.ndjson", REGISTER)
    with pytest.raises(LogError, match="--config NAME"):
        read_log(path)
    assert read_log(path, grid()["safe-rocketmq-2p"].config).config.processes["p1"] == "10.0.0.1:30911"


BAD = [
    ("unknown-key", [META, {**REGISTER, "level": "INFO"}], 2, "level", "not a field of an event"),
    ("float", [META, {**REGISTER, "ts": "1.5"}], 2, "ts", "an integer"),
    ("negative-ts", [META, {**REGISTER, "ts": -1}], 2, "ts", "an integer from 0"),
    ("no-time", [META, {k: v for k, v in REGISTER.items() if k != "ts"}], 2, "ts", "a timestamp"),
    ("nothing", [META, {"node": "p1", "ts": 1}], 2, "action", "an action, an observation"),
    ("node", [META, {**REGISTER, "node": "p9"}], 2, "node", "a process of #meta.processes"),
    ("json", [META, '{"node": "p1",'], 2, "<json>", "invalid JSON"),
    ("duplicate", [META, '{"node": "p1", "node": "p2", "ts": 1, "observe": {"role": "NONE"}}'], 2, "node", "twice"),
    ("not-an-object", [META, "[1, 2]"], 2, "<line>", "one JSON object"),
    ("late-header", [REGISTER, META], 2, "meta", "only a file's first line"),
    ("header-and-event", [{**META, **REGISTER}], 1, "action", "holds only 'meta'"),
    ("bad-option", [{"meta": {**META["meta"], "options": {"nope": True}}}, REGISTER], 1, "meta.options", "unknown option"),
    ("broker-sets", [{"meta": {**META["meta"], "brokerSets": {}}}, REGISTER], 1, "meta.brokerSets", "does not read it"),
    ("complete", [{"meta": {**META["meta"], "complete": ["Jump"]}}, REGISTER], 1, "meta.complete", "action tags"),
    ("complete-of-list", [{"meta": {**META["meta"], "completeOf": ["Crash"]}}, REGISTER], 1, "meta.completeOf", "an object"),
    ("complete-of-tag", [{"meta": {**META["meta"], "completeOf": {"p1": ["Jump"]}}}, REGISTER], 1, "meta.completeOf.p1",
     "action tags"),
    ("complete-of-controller-step", [{"meta": {**META["meta"], "completeOf": {"p1": ["HeartbeatExpire"]}}}, REGISTER], 1,
     "meta.completeOf.p1", "the controller's step"),
    ("complete-of-process-step", [{"meta": {**META["meta"], "completeOf": {"controller": ["Crash"]}}}, REGISTER], 1,
     "meta.completeOf.controller", "a process's step"),
    ("complete-of-stranger", [{"meta": {**META["meta"], "completeOf": {"p9": ["Crash"]}}}, REGISTER], 1, "meta.completeOf.p9",
     "not a node of this log"),
    ("changes-list", [{"meta": {**META["meta"], "changesLogged": ["role"]}}, REGISTER], 1, "meta.changesLogged", "an object"),
    ("changes-not-observed", [{"meta": {**META["meta"], "changesLogged": {"p1": ["masterId"]}}}, REGISTER], 1,
     "meta.changesLogged.p1", "variables the node observes"),
    ("changes-controller", [{"meta": {**META["meta"], "changesLogged": {"controller": ["role"]}}}, REGISTER], 1,
     "meta.changesLogged.controller", "variables the node observes"),
    ("changes-stranger", [{"meta": {**META["meta"], "changesLogged": {"p9": ["role"]}}}, REGISTER], 1,
     "meta.changesLogged.p9", "not a node of this log"),
    ("next", [{"meta": {**META["meta"], "next": {"brokerIds": [1]}}}, REGISTER], 1, "meta.next", "exactly brokerIds"),
    ("tag", [META, {**REGISTER, "action": {"tag": "Jump"}}], 2, "action.tag", "unknown action"),
    ("param-type", [META, {**REGISTER, "action": {"tag": "SendRegister", "lost": 1}}], 2, "action.lost", "expected bool"),
    ("param-unknown", [META, {**REGISTER, "action": {"tag": "SendRegister", "speed": 1}}], 2, "action.speed", "no parameter"),
    ("other-process", [META, {**REGISTER, "action": {"tag": "Crash", "process": "p2"}}], 2, "action.process", "its own"),
    ("not-enumerable", [META, {"node": "controller", "ts": 1, "action": {"tag": "BrokerHeartbeat", "brokerId": 1}}], 2,
     "action.epoch", "cannot be left out"),
    ("broker-name", [META, {"node": "controller", "ts": 1, "action": {"tag": "GetNextBrokerId", "brokerName": "b"}}], 2,
     "action.brokerName", "one broker set"),
    ("trace-only", [META, {"node": "controller", "ts": 1, "action": {"tag": "ControllerLeaderLost"}}], 2, "action.tag",
     "not a step"),
    ("observe-unknown", [META, {**REGISTER, "observe": {"mood": 1}}], 2, "observe.mood", "not a model variable"),
    ("observe-wrong-node", [META, {**REGISTER, "observe": {"masterId": 1}}], 2, "observe.masterId", "does not observe"),
    ("observe-ghost", [META, {"node": "controller", "ts": 1, "observe": {"acked": {"#set": []}}}], 2, "observe.acked",
     "does not observe"),
    ("observe-itf", [META, {**REGISTER, "observe": {"metaFile": {"#bigint": "+1"}}}], 2, "observe.metaFile", "canonical"),
    ("observe-empty", [META, {**REGISTER, "observe": {}}], 2, "observe", "observes nothing"),
    ("ts-decreases", [META, REGISTER, {**REGISTER, "ts": 0}], 3, "ts", "never decreases"),
    ("clock-counts-steps-not-bool", [{"meta": {**META["meta"], "clockCountsSteps": 1}}, REGISTER], 1,
     "meta.clockCountsSteps", "true or false"),
    ("clock-counts-steps-no-clock", [{"meta": {**META["meta"], "clockCountsSteps": True}}, REGISTER], 2, "clock",
     "every event has the clock of its step"),
    ("clock-counts-steps-zero", [{"meta": {**META["meta"], "clockCountsSteps": True}}, {**REGISTER, "clock": 0}], 2, "clock",
     "1 or more; got 0"),
]


@pytest.mark.parametrize(("lines", "line", "field", "says"), [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_a_malformed_line_is_refused_naming_file_line_and_field(tmp_path: Path, lines: list, line: int, field: str,
                                                                 says: str) -> None:
    path = write(tmp_path / "bad.ndjson", *lines)
    with pytest.raises(LogError) as caught:
        read_log(path)
    e = caught.value
    assert isinstance(e, InputError)
    assert (e.path, e.line, e.field) == (str(path), line, field), str(e)
    assert says in e.message and f"{path}: line {line}: field {field!r}" in str(e)


def test_the_files_of_a_log_agree(tmp_path: Path) -> None:
    write(tmp_path / "a.ndjson", META, REGISTER)
    write(tmp_path / "b.ndjson", {"meta": {**META["meta"], "policy": "hw"}}, {**REGISTER, "node": "p2"})
    with pytest.raises(LogError, match="several headers of one log are equal"):
        read_log(tmp_path)
    write(tmp_path / "b.ndjson", META, {**REGISTER, "ts": 5})
    with pytest.raises(LogError, match="one node's events are all in one file"):
        read_log(tmp_path)


def test_an_empty_folder_or_log_is_refused(tmp_path: Path) -> None:
    with pytest.raises(LogError, match="no event"):
        read_log(write(tmp_path / "only-header.ndjson", META))
    (tmp_path / "empty").mkdir()
    with pytest.raises(LogError, match="there is none"):
        read_log(tmp_path / "empty")


def test_the_controller_is_no_process(tmp_path: Path) -> None:
    path = write(tmp_path / "x.ndjson", {"meta": {"processes": {"controller": "10.0.0.1:30911"}}}, REGISTER)
    with pytest.raises(LogError, match="names the controller's node"):
        read_log(path)


def test_too_many_completions_are_bad_input(tmp_path: Path) -> None:
    from autoswitch.conformance.logs.search import validate

    many = {"meta": {**META["meta"], "next": {"brokerIds": list(range(1, 12)), "switches": ["DataPath", "AnySetAlter"],
                                              "faults": []}}}
    path = write(tmp_path / "x.ndjson", many, {"node": "p1", "ts": 1, "action": {"tag": "SendAlterSyncStateSet"}})
    with pytest.raises(LogError, match="more than 1024 combinations") as caught:
        validate(path)
    assert (caught.value.line, caught.value.field) == (2, "action.newSyncStateSet")
