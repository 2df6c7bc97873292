"""Strict input (issue 10): each case a hostile trace tried, refused by both engines at the same state and
field - or, for a value compared with the model's, never accepted - and nothing printed raw."""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from autoswitch.conformance.engines import KINDS
from autoswitch.conformance.trace.explain import explain
from autoswitch.conformance.trace.itf import TraceError, load_trace
from autoswitch.conformance.trace.replay import DIVERGENCE, MALFORMED, PASS, Result, replay_file, trace_files
from autoswitch.conformance.trace.validate import MAX_PROCESSES

ROOT = Path(__file__).resolve().parents[2]
B1 = ROOT / "traces/broker-id/B1-first-start.itf.json"  # state 0 has nextBrokerId = 1, state 1 a CreateTempFile(p1)
Z3 = ROOT / "traces/z3/hw-truncation-step.itf.json"
RAW = "@@raw@@"  # replaced by raw JSON text (numbers json.dumps would not write)


def _doc(path: Path = B1) -> dict[str, Any]:
    return json.loads(path.read_text())


def _write(doc: dict[str, Any], tmp_path: Path, raw: str = "") -> Path:
    path = tmp_path / "hostile.itf.json"
    path.write_text(json.dumps(doc).replace(json.dumps(RAW), raw))
    return path


def _both(path: Path) -> list[Result]:
    return [replay_file(str(path), engine) for engine in KINDS]


def _refused(path: Path, state: int | None, field: str) -> list[Result]:
    """Both engines give MALFORMED at ``state`` and ``field``."""
    results = _both(path)
    for r in results:
        assert (r.status, r.state, r.field) == (MALFORMED, state, field), r.describe()
    return results


@pytest.mark.parametrize("text", [" 1 ", "+1", "01", "1.0", "-0", "1e0", "0x1", ""])
def test_bigint_that_is_not_a_canonical_decimal_is_refused(text: str, tmp_path: Path) -> None:
    doc = _doc()
    doc["states"][0]["nextBrokerId"] = {"#bigint": text}
    [r, _] = _refused(_write(doc, tmp_path), 0, "nextBrokerId")
    assert "canonical decimal" in r.message


@pytest.mark.parametrize("number", ["1.0", "1e0", "1.5", "NaN", "Infinity"])
def test_json_number_that_is_not_an_integer_is_refused(number: str, tmp_path: Path) -> None:
    doc = _doc()
    doc["states"][0]["nextBrokerId"] = RAW
    [r, _] = _refused(_write(doc, tmp_path, number), 0, "nextBrokerId")
    assert "not an integer" in r.message


def test_true_is_not_1_in_a_variable(tmp_path: Path) -> None:
    doc = _doc()
    doc["states"][0]["nextBrokerId"] = True
    for r in _both(_write(doc, tmp_path)):
        assert (r.status, r.state, r.field) == (DIVERGENCE, 0, "nextBrokerId"), r.describe()


def test_true_is_not_1_in_an_outcome(tmp_path: Path) -> None:
    doc = _doc()
    doc["states"][1]["outcome"]["nextBrokerId"] = True
    for r in _both(_write(doc, tmp_path)):
        assert (r.status, r.state, r.field) == (DIVERGENCE, 1, "outcome.nextBrokerId"), r.describe()


def test_1_is_not_a_bool_in_an_action(tmp_path: Path) -> None:
    doc = _doc()
    doc["states"][2]["action"]["lost"] = 0
    _refused(_write(doc, tmp_path), 2, "action.lost")


def test_true_and_1_in_one_set_are_refused(tmp_path: Path) -> None:
    doc = _doc()
    doc["states"][0]["nextBrokerId"] = {"#set": [1, True]}
    _refused(_write(doc, tmp_path), 0, "nextBrokerId")


def test_1_0_for_1_is_refused(tmp_path: Path) -> None:
    doc = _doc()
    doc["states"][1]["outcome"]["nextBrokerId"] = RAW
    _refused(_write(doc, tmp_path, "1.0"), 1, "outcome.nextBrokerId")


@pytest.mark.parametrize("encoded", ["9" * 4301, json.dumps({"#bigint": "9" * 4301}), str(2**53), json.dumps({"#bigint": str(2**63)})])
def test_huge_integer_is_refused_with_a_clear_message(encoded: str, tmp_path: Path) -> None:
    doc = _doc()
    doc["states"][0]["nextBrokerId"] = RAW
    [r, _] = _refused(_write(doc, tmp_path, encoded), 0, "nextBrokerId")
    assert "out" in r.message and "range" in r.message or "#bigint" in r.message, r.message
    assert "int_max_str_digits" not in r.message and "Exceeds the limit" not in r.message


@pytest.mark.parametrize("depth", [40, 100_000])
def test_deep_nesting_is_refused(depth: int, tmp_path: Path) -> None:
    doc = _doc()
    doc["states"][0]["nextBrokerId"] = RAW
    path = _write(doc, tmp_path, "[" * depth + "]" * depth)
    results = _both(path)
    assert all(r.status == MALFORMED and "nest" in r.message for r in results), [r.describe() for r in results]
    assert len({(r.state, r.field) for r in results}) == 1


def test_a_note_of_meta_may_hold_a_64_bit_seed_but_not_more(tmp_path: Path) -> None:
    doc = _doc()
    doc["#meta"]["campaign"] = {"walkSeed": RAW}
    assert all(r.status == PASS for r in _both(_write(doc, tmp_path, str(2**64 - 1))))
    _refused(_write(doc, tmp_path, str(2**64)), None, "#meta.campaign.walkSeed")


def test_a_key_given_twice_is_refused(tmp_path: Path) -> None:
    text = B1.read_text().replace('"scenario":', '"policy": "hw", "scenario":', 1)
    path = tmp_path / "twice.itf.json"
    path.write_text(text)
    [r, _] = _refused(path, None, "#meta")
    assert "'policy' appears twice" in r.message


@pytest.mark.parametrize("meta", [{"#tup": [1, 2]}, {"#set": []}, {"#map": []}, {"#bigint": "7"}])
def test_a_meta_that_is_an_itf_value_is_refused(meta: dict[str, Any], tmp_path: Path) -> None:
    doc = _doc()
    doc["#meta"] = meta
    [r, _] = _refused(_write(doc, tmp_path), None, "#meta")
    assert "plain object" in r.message


@pytest.mark.parametrize(("option", "value"), [("minInSyncReplicas", 0), ("minInSyncReplicas", MAX_PROCESSES + 1),
                                               ("inSyncReplicas", -1), ("inSyncReplicas", True), ("asyncFlush", 1)])
def test_option_out_of_range_or_of_the_wrong_type_is_refused(option: str, value: Any, tmp_path: Path) -> None:
    doc = _doc()
    doc["#meta"]["options"][option] = value
    _refused(_write(doc, tmp_path), None, f"#meta.options.{option}")


@pytest.mark.parametrize("learners", [["nobody"], ["p1", "p1"], "p1"])
def test_async_learners_must_name_declared_processes(learners: Any, tmp_path: Path) -> None:
    doc = _doc()
    doc["#meta"]["options"]["asyncLearners"] = learners
    _refused(_write(doc, tmp_path), None, "#meta.options.asyncLearners")


@pytest.mark.parametrize(("expect", "field"), [({"state": 3}, "#meta.expect"),
                                               ({"violation": "UniqueBrokerIds", "state": 3, "note": 1}, "#meta.expect"),
                                               ({"violation": "NoSuchProperty", "state": 3}, "#meta.expect.violation"),
                                               ({"violation": "UniqueBrokerIds", "state": True}, "#meta.expect.state"),
                                               ({"violation": "UniqueBrokerIds", "state": 999}, "#meta.expect.state")])
def test_expect_without_violation_or_with_unknown_keys_is_refused(expect: dict, field: str, tmp_path: Path) -> None:
    doc = _doc()
    doc["#meta"]["expect"] = expect
    _refused(_write(doc, tmp_path), None, field)


def test_expect_on_a_component_kind_is_refused_not_ignored(tmp_path: Path) -> None:
    doc = _doc(ROOT / "traces/epoch-file/E1-append-and-queries.itf.json")
    doc["#meta"]["expect"] = {"violation": "TypeOK", "state": 0}
    _refused(_write(doc, tmp_path), None, "#meta.expect")


@pytest.mark.parametrize("field", ["epoch", "startOffset"])
def test_epoch_file_parameters_are_naturals(field: str, tmp_path: Path) -> None:
    """Found by the fuzzer (seed 2026, input 6503): a negative epoch passed the reference and stopped the
    implementation's checkpoint file (``epoch-startOffset`` lines have no sign)."""
    doc = _doc(ROOT / "traces/epoch-file/E1-append-and-queries.itf.json")
    index = next(i for i, s in enumerate(doc["states"]) if s["action"]["tag"] == "appendEntry")
    doc["states"][index]["action"][field] = {"#bigint": str(-(2**63))}
    _refused(_write(doc, tmp_path), index, f"action.{field}")


@pytest.mark.parametrize("size", [0, 2**31, 2**53, True])
def test_retention_file_size_is_a_positive_java_int(size: Any, tmp_path: Path) -> None:
    doc = _doc(ROOT / "traces/retention/R2-empty-log.itf.json")
    doc["#meta"]["fileSize"] = size
    _refused(_write(doc, tmp_path), None, "#meta.fileSize")


def test_thousands_of_processes_are_refused_quickly(tmp_path: Path) -> None:
    doc = _doc()
    doc["#meta"]["processes"] = {f"p{i}": f"10.0.{i // 250}.{i % 250}:30911" for i in range(3000)}
    start = time.monotonic()
    [r, _] = _refused(_write(doc, tmp_path), None, "#meta.processes")
    assert time.monotonic() - start < 2
    assert f"at most {MAX_PROCESSES}" in r.message


@pytest.mark.parametrize("name", ["..", ".", "a/b", "a\\b", "", "x" * 33, "p\x1b[31m", "p\r", "[bold]p"])
def test_unsafe_process_names_are_refused(name: str, tmp_path: Path) -> None:
    doc = _doc()
    doc["#meta"]["processes"][name] = "10.0.0.9:30911"
    [r, _] = _refused(_write(doc, tmp_path), None, "#meta.processes")
    assert "\x1b" not in r.describe() and "\r" not in r.describe()


def test_an_action_on_an_undeclared_process_is_refused(tmp_path: Path) -> None:
    doc = _doc()
    doc["states"][1]["action"]["process"] = "nobody"
    _refused(_write(doc, tmp_path), 1, "action.process")


def _pre(doc: dict[str, Any], name: str) -> list:
    return doc["states"][0][name]["#map"]


@pytest.mark.parametrize(("mutate", "state", "field"), [
    (lambda d: _pre(d, "confirmOffset")[0].__setitem__(1, "x"), 0, "confirmOffset['follower']"),
    (lambda d: _pre(d, "confirmOffset")[0].__setitem__(1, -1), 0, "confirmOffset['follower']"),
    (lambda d: _pre(d, "log")[0][1].append({"#tup": [1, 2, 3]}), 0, "log['follower']"),
    (lambda d: _pre(d, "epochFile")[1].__setitem__(1, [1]), 0, "epochFile['leader']"),
    (lambda d: _pre(d, "role")[1].__setitem__(1, "SLAVE"), 0, "role"),
    (lambda d: _pre(d, "log").pop(), 0, "log"),
    (lambda d: d["states"][0].__setitem__("role", {"#map": []}), 0, "role"),
    (lambda d: d["states"][0].__setitem__("masterId", 1), 0, "masterId"),
    (lambda d: d["states"][1]["confirmOffset"]["#map"][0].__setitem__(1, True), 1, "confirmOffset['follower']"),
    (lambda d: d["#meta"]["expect"].pop("truncationPoint"), None, "#meta.expect"),
    (lambda d: d["#meta"].__setitem__("options", {"kafkaLeaderEpochOnElection": 1}), None, "#meta.options.kafkaLeaderEpochOnElection"),
])
def test_malformed_truncation_pre_state_is_refused_on_both_engines(mutate, state: int | None, field: str, tmp_path: Path) -> None:
    doc = _doc(Z3)
    mutate(doc)
    if "masterId" in doc["states"][0]:
        doc["vars"].append("masterId")
    _refused(_write(doc, tmp_path), state, field)


CONTROL = "\x1b[2J\x1b]0;owned\x07\r\x9b31m\u202e"
RAW_CONTROLS = [c for c in CONTROL if not c.isprintable()]


def _printed(results: list[Result]) -> Iterator[str]:
    for r in results:
        yield r.describe()


def test_control_characters_from_a_trace_are_escaped_in_results(tmp_path: Path) -> None:
    doc = _doc()
    doc["states"][2]["outcome"]["code"] = "SUCCESS" + CONTROL
    doc["vars"].append("bad" + CONTROL)
    doc["states"][3]["bad" + CONTROL] = 1
    for text in _printed(_both(_write(doc, tmp_path))):
        assert text.isprintable() or set(text) - set(text.replace("\n", "")) == {"\n"}, repr(text)
        assert not any(c in text for c in RAW_CONTROLS), repr(text)
    doc["states"][3].pop("bad" + CONTROL)
    for text in _printed(_both(_write(doc, tmp_path))):
        assert "SUCCESS\\x1b[2J" in text and not any(c in text for c in RAW_CONTROLS), repr(text)
    named = tmp_path / f"trace{CONTROL}.itf.json"  # a file name is printed too
    named.write_text(B1.read_text())
    for text in _printed(_both(named)):
        assert "trace\\x1b[2J" in text and not any(c in text for c in RAW_CONTROLS), repr(text)


def test_control_characters_are_escaped_in_errors_and_explain(tmp_path: Path) -> None:
    doc = _doc()
    doc["#meta"]["description"] = "look" + CONTROL
    lines = list(explain(str(_write(doc, tmp_path))))
    assert "look\\x1b[2J" in lines[0] and all(line.isprintable() for line in lines)
    doc["#meta"]["processes"]["p" + CONTROL] = "x"
    with pytest.raises(TraceError) as error:
        list(explain(str(_write(doc, tmp_path))))
    assert str(error.value).isprintable()


def test_explain_refuses_a_step_that_is_not_enabled(tmp_path: Path) -> None:
    doc = _doc()
    doc["states"][3]["action"] = {"tag": "Write", "process": "p1"}  # not a master: Write is not enabled
    with pytest.raises(TraceError) as error:
        list(explain(str(_write(doc, tmp_path))))
    assert (error.value.state, error.value.field) == (3, "action") and "not enabled" in error.value.message


def test_explain_refuses_a_malformed_walk_before_printing(tmp_path: Path) -> None:
    doc = _doc()
    del doc["states"][2]["action"]
    with pytest.raises(TraceError) as error:
        next(explain(str(_write(doc, tmp_path))))
    assert (error.value.state, error.value.field) == (2, "action")


class _Hang(BaseException):  # not an Exception: replay_file must not swallow it
    pass


@pytest.fixture
def no_hang() -> Iterator[None]:
    """A read that blocks (a FIFO without a writer) fails the test after 5 s instead of hanging it."""
    def alarm(signum: int, frame: Any) -> None:
        raise _Hang()

    old = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(5)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


@pytest.mark.parametrize("kind", ["fifo", "folder", "device"])
def test_a_trace_that_is_not_a_regular_file_is_refused(kind: str, tmp_path: Path, no_hang: None) -> None:
    path = tmp_path / "trace.itf.json"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    else:
        path = Path("/dev/zero")
    for r in _both(path):
        assert (r.status, r.state, r.field) == (MALFORMED, None, "<file>"), r.describe()
        assert "regular file" in r.message
    with pytest.raises(TraceError):
        load_trace(path)


def test_trace_files_does_not_follow_a_linked_folder(tmp_path: Path) -> None:
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "a.itf.json").write_text(B1.read_text())
    (tmp_path / "corpus" / "loop").symlink_to(tmp_path / "corpus")
    (tmp_path / "corpus" / "b.itf.json").symlink_to(B1)
    found = trace_files([str(tmp_path / "corpus")])
    assert [Path(f).name for f in found] == ["a.itf.json", "b.itf.json"]
    assert all(replay_file(f, "reference").status == PASS for f in found)
