"""``validate`` (conformance/logs/search.py): the example log of traces/logs/ is explained, and its explanation replays
on both engines; the same log with one value falsified, one event changed, two events reordered beyond the skew
window, or a crash left out of a log that says crashes are complete, is refused at that event, the nearest miss
naming the field."""

from __future__ import annotations

import itertools
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from test_logs_strategies import _crash_log

from autoswitch.conformance.logs.events import read_log
from autoswitch.conformance.logs.search import EXPLAINED, GAVE_UP, REFUSED, Progress, validate
from autoswitch.conformance.trace.replay import replay_file

EXAMPLE = Path(__file__).resolve().parents[2] / "traces/logs/failover"
Lines = dict[str, list[dict]]


def variant(tmp: Path, edit: Callable[[Lines], None]) -> Path:
    """A copy of the example log under ``tmp`` with ``edit`` applied to its lines (file stem -> JSON objects)."""
    folder = tmp / "log"
    shutil.copytree(EXAMPLE, folder)
    files = {f.stem: [json.loads(line) for line in f.read_text().splitlines()] for f in folder.glob("*.ndjson")}
    edit(files)
    for stem, lines in files.items():
        (folder / f"{stem}.ndjson").write_text("".join(json.dumps(line) + "\n" for line in lines))
    return folder


def falsify(files: Lines) -> None:
    files["p2"][4]["observe"]["role"] = "SLAVE"  # p2 becomes MASTER at ts 120


def change(files: Lines) -> None:
    files["controller"][3]["action"] = {"tag": "GetNextBrokerId"}  # the scan that elects p2, as another request


def reorder(files: Lines) -> None:
    files["p2"][1]["ts"] = 28  # p2 learns it is a SLAVE 2 ms before p1 asks for the election that makes p1 master


def drop_crash(files: Lines) -> None:
    del files["p1"][4]
    files["p1"].append({"node": "p1", "ts": 130, "action": {"tag": "Restart", "addr": "10.0.0.1:30911"},
                        "observe": {"regState": "INITIAL"}})


@pytest.mark.parametrize("name", ["failover", "registration.ndjson"])
def test_every_committed_example_is_explained_and_replays_on_both_engines(tmp_path: Path, name: str) -> None:
    verdict = validate(EXAMPLE.parent / name)
    assert verdict.status == EXPLAINED, verdict.describe()
    path = tmp_path / f"{verdict.name}.itf.json"
    path.write_text(verdict.itf())
    assert all(replay_file(str(path), engine).ok for engine in ("reference", "impl"))


def test_the_example_is_explained_and_its_explanation_replays_on_both_engines(tmp_path: Path) -> None:
    verdict = validate(EXAMPLE)
    assert verdict.status == EXPLAINED, verdict.describe()
    assert verdict.events == 13 and verdict.unobserved > 0 and verdict.expanded > 0
    path = tmp_path / "failover.itf.json"
    path.write_text(verdict.itf())
    for engine in ("reference", "impl"):
        result = replay_file(str(path), engine)
        assert result.ok, result.describe()
    assert validate(EXAMPLE, engine="impl").status == EXPLAINED


@pytest.mark.parametrize(("edit", "line", "field", "expected", "actual"), [
    (falsify, "p2.ndjson:5", "role['p2']", "'SLAVE'", "'MASTER'"),
    (change, "controller.ndjson:4", "masterId", "2", "1"),
    (reorder, "p2.ndjson:2", "role['p2']", "'SLAVE'", "'NONE'"),
], ids=["falsified", "changed", "reordered"])
def test_a_mutated_log_is_refused_at_that_event(tmp_path: Path, edit: Callable[[Lines], None], line: str, field: str,
                                               expected: str, actual: str) -> None:
    verdict = validate(variant(tmp_path, edit))
    assert verdict.status == REFUSED, verdict.describe()
    assert verdict.event is not None and verdict.event.where.endswith(line), verdict.describe()
    assert verdict.candidates, verdict.describe()
    miss = verdict.candidates[0].miss
    assert (miss.field, miss.expected, miss.actual) == (field, expected, actual), verdict.describe()
    assert f"field {field}" in verdict.describe()


def test_the_skew_window_admits_a_reordering_the_timestamps_alone_refuse(tmp_path: Path) -> None:
    log = variant(tmp_path, reorder)
    assert validate(log, skew=1).status == REFUSED
    assert validate(log, skew=2).status == EXPLAINED


def test_a_complete_tag_is_never_taken_unobserved(tmp_path: Path) -> None:
    refused = validate(variant(tmp_path, drop_crash))
    assert refused.status == REFUSED and refused.event is not None and refused.event.where.endswith("p1.ndjson:5")
    assert refused.candidates[0].miss.field == "action" and "not DOWN" in refused.candidates[0].miss.actual

    def incomplete(files: Lines) -> None:
        drop_crash(files)
        files["controller"][0]["meta"]["complete"].remove("Crash")
    shutil.rmtree(tmp_path / "log")
    explained = validate(variant(tmp_path, incomplete))
    assert explained.status == EXPLAINED, explained.describe()
    crashes = [s["action"] for s in explained.trace or () if s["action"]["tag"] == "Crash"]
    assert crashes == [{"tag": "Crash", "process": "p1"}]


def test_the_budget_gives_up_with_the_frontier_event(tmp_path: Path) -> None:
    verdict = validate(variant(tmp_path, falsify), max_states=50)
    assert verdict.status == GAVE_UP and "gave up after 50 states" in verdict.reason
    assert verdict.event is not None


def test_progress_tells_the_search_under_way(tmp_path: Path) -> None:
    """Told after each turn with ``every=0``: the states expanded never decrease and stay within the budget, the furthest
    path never shortens and ends where the verdict does; with a large ``every``, never told."""
    told: list[Progress] = []
    log = variant(tmp_path, falsify)
    verdict = validate(log, max_states=3_000, progress=told.append, every=0)
    assert verdict.status == GAVE_UP and len(told) > 1, (verdict.describe(), told)
    assert all(a.expanded <= b.expanded and a.furthest <= b.furthest for a, b in itertools.pairwise(told))
    assert told[-1].expanded == verdict.expanded == 3_000 and told[-1].furthest == verdict.consumed
    assert all(p.events == verdict.events for p in told) and "3,000 states expanded" in told[-1].describe()
    silent: list[Progress] = []
    validate(log, max_states=3_000, progress=silent.append, every=3600)
    assert silent == []


def test_a_gap_too_small_refuses_where_the_unobserved_steps_are_needed() -> None:
    verdict = validate(read_log(EXAMPLE), max_gap=3)
    assert verdict.status == REFUSED and verdict.event is not None
    assert verdict.event.where.endswith("p1.ndjson:1")  # p1 registers after 4 unobserved steps of its own


def test_engine_impl_refuses_at_the_event_where_the_implementation_diverges(monkeypatch: pytest.MonkeyPatch) -> None:
    """The explanation found on the reference is replayed on the implementation; a divergence there (here one made up
    at the state of p1's Write, the log's 5th event) refuses the log at that event, the divergence as its miss."""
    from autoswitch.conformance.logs import search
    from autoswitch.conformance.trace.replay import DIVERGENCE, Result

    explained = validate(EXAMPLE)
    assert explained.trace is not None
    at = next(i for i, s in enumerate(explained.trace) if s["action"]["tag"] == "Write")

    def diverging(trace, engine):  # noqa: ANN001, ANN202 - replay_trace's stand-in
        assert engine == "impl"
        return Result(trace.path, engine, DIVERGENCE, len(trace.states), at, at, "log['p1']", "[(1, 1)]", "[]", "made up")
    monkeypatch.setattr(search, "replay_trace", diverging)
    verdict = validate(EXAMPLE, engine="impl")
    assert verdict.status == REFUSED and verdict.engine == "impl"
    assert verdict.event is not None and verdict.event.where.endswith("p1.ndjson:3")
    assert verdict.candidates[0].miss.field == "log['p1']" and f"at its state {at}" in verdict.reason
    assert verdict.trace == explained.trace


# ---- what a header and the clocks say of the unobserved steps ---------------------------------------------------------------

PROCESSES = {"p1": "10.0.0.1:30911", "p2": "10.0.0.2:30911"}


def _one_file(tmp: Path, meta: dict, *events: dict) -> Path:
    path = tmp / "log.ndjson"
    path.write_text("".join(json.dumps(x) + "\n" for x in ({"meta": {"processes": PROCESSES, **meta}}, *events)))
    return path


def _p1(clock: int, reg_state: str, tag: str | None = None) -> dict:
    return {"node": "p1", "clock": clock, **({"action": {"tag": tag}} if tag else {}), "observe": {"regState": reg_state}}


@pytest.mark.parametrize(("clock", "meta", "status"), [
    (2, {}, EXPLAINED),  # p1's SendApplyBrokerId, unobserved, between its temp file and the ID_APPLIED it observes
    (1, {}, REFUSED),  # the same clock: one step's lines, no step between them
    (2, {"completeOf": {"p1": ["SendApplyBrokerId"]}}, REFUSED),  # p1 logs every SendApplyBrokerId it takes
    (2, {"completeOf": {"p2": ["SendApplyBrokerId"]}}, EXPLAINED),  # p2's are logged; p1's may be unobserved
    (2, {"clockCountsSteps": True}, EXPLAINED),  # step 2 is the one whose effect alone is logged
    (2, {"changesLogged": {"p1": ["regState"]}}, EXPLAINED),  # the unobserved step's change of p1's regState: on p1's line
])
def test_the_clock_and_complete_of_bound_the_unobserved_steps(tmp_path: Path, clock: int, meta: dict, status: str) -> None:
    verdict = validate(_one_file(tmp_path, meta, _p1(1, "TEMP_DONE", "CreateTempFile"), _p1(clock, "ID_APPLIED")), max_gap=2)
    assert verdict.status == status, verdict.describe()
    if status == REFUSED:
        assert verdict.event is not None and verdict.event.index == 1
    else:
        assert verdict.trace is not None and [s["action"]["tag"] for s in verdict.trace][1:] == ["CreateTempFile", "SendApplyBrokerId"]


@pytest.mark.parametrize("claims", [{}, {"p1": ["regState"]}, {"controller": ["replicas"]}])
def test_a_change_the_header_says_is_logged_is_on_a_line_before_the_next_step(tmp_path: Path, claims: dict) -> None:
    """p1's unobserved SendApplyBrokerId changes its regState, which its next line observes, and the controller's replicas,
    which no line does: where the header says the controller logs every change of replicas, no behaviour explains p1's
    next step (its WriteMetaFile), and the refusal says why."""
    events = (_p1(1, "TEMP_DONE", "CreateTempFile"), _p1(2, "ID_APPLIED"), _p1(3, "META_WRITTEN", "WriteMetaFile"))
    verdict = validate(_one_file(tmp_path, {"changesLogged": claims} if claims else {}, *events), max_gap=2)
    if "controller" not in claims:
        assert verdict.ok, verdict.describe()
        return
    assert verdict.status == REFUSED and verdict.event is not None and verdict.event.index == 2, verdict.describe()
    assert "a line logging replicas['controller'] before this step" in verdict.candidates[0].miss.describe()


@pytest.mark.parametrize(("clock", "meta", "status"), [
    (3, {"clockCountsSteps": True}, EXPLAINED),  # step 2: p1's SendApplyBrokerId, unobserved
    (2, {"clockCountsSteps": True}, REFUSED),  # steps 1 and 2 are both logged: no step comes between them
    (2, {}, EXPLAINED),  # a clock that only orders says nothing of the steps between
])
def test_a_clock_that_counts_steps_bounds_each_gap(tmp_path: Path, clock: int, meta: dict, status: str) -> None:
    verdict = validate(_one_file(tmp_path, meta, _p1(1, "TEMP_DONE", "CreateTempFile"), _p1(clock, "META_WRITTEN", "WriteMetaFile")))
    assert verdict.status == status, verdict.describe()
    if status == REFUSED:
        assert verdict.event is not None and verdict.event.index == 1
        assert "not enabled" in verdict.candidates[0].miss.describe()
    else:
        assert verdict.trace is not None
        assert [s["action"]["tag"] for s in verdict.trace][1:] == ["CreateTempFile", "SendApplyBrokerId", "WriteMetaFile"]


def test_where_the_clock_counts_steps_the_default_gap_is_the_clocks(tmp_path: Path) -> None:
    """p1 registers, every step logged, and is seen DOWN at step 17: its crash may be any of the 12 steps since its last
    event, so the default gap is 12 (not validate's MAX_GAP of 8), and a smaller --max-gap still caps it."""
    path = _crash_log(tmp_path, {"clockCountsSteps": True}, down=17)
    verdict = validate(path)
    assert verdict.ok and verdict.found_by.startswith("exact, gap 12"), verdict.describe()
    assert validate(path, max_gap=3).found_by.startswith("exact, gap 3")


# ---- refused before the search (conformance/logs/reach.py) -------------------------------------------------------------------

REGISTRATION = EXAMPLE.parent / "registration.ndjson"


def _registration(tmp: Path, line: int, name: str, value: object) -> Path:
    lines = [json.loads(x) for x in REGISTRATION.read_text().splitlines()]
    lines[line - 1]["observe"][name] = value
    path = tmp / "registration.ndjson"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


@pytest.mark.parametrize(("line", "name", "value", "field", "why"), [
    # every SendApplyBrokerId is logged (complete): two come before p2's register, so nextBrokerId is at most 3 (before:
    # the search tried every behaviour within the gap, 243,387 states, 74 s)
    (5, "metaFile", 9, "observe.metaFile = 9", "nextBrokerId, at most 3"),
    (2, "tempFile", {"brokerId": 9, "checkCode": "10.0.0.1:30911;0"}, "observe.tempFile.brokerId = 9", "at most 3"),
    (7, "masterEpoch", 10**6, "observe.masterEpoch = 1000000", "at most the steps before this event"),
    (6, "role", "LEADER", "observe.role = 'LEADER'", "no state of the model has it"),
    (6, "localMasterEpoch", -1, "observe.localMasterEpoch = -1", "an integer >= 0"),
], ids=["meta-file-past-the-ids", "temp-file", "epoch-past-the-steps", "role", "negative-epoch"])
def test_a_value_no_behaviour_reaches_is_refused_before_the_search(tmp_path: Path, line: int, name: str, value: object,
                                                                   field: str, why: str) -> None:
    verdict = validate(_registration(tmp_path, line, name, value))
    assert verdict.status == REFUSED and verdict.expanded == 0, verdict.describe()
    assert verdict.event is not None and verdict.event.where.endswith(f"registration.ndjson:{line}"), verdict.describe()
    assert f"field {field}" in verdict.reason and why in verdict.reason, verdict.reason


def test_a_value_that_contradicts_an_earlier_fact_is_refused_before_the_search(tmp_path: Path) -> None:
    """p1 wrote metaFile 1 (p1.ndjson:1); its crash line says 2. No WipeDisk is logged, and the header's faults have none
    the search may take unobserved: a meta file stays once written."""
    def rewrite(files: Lines) -> None:
        files["p1"][4]["observe"]["metaFile"] = 2
    verdict = validate(variant(tmp_path, rewrite))
    assert verdict.status == REFUSED and verdict.expanded == 0, verdict.describe()
    assert verdict.event is not None and verdict.event.where.endswith("p1.ndjson:5"), verdict.describe()
    assert "field observe.metaFile = 2" in verdict.reason and "p1.ndjson:1" in verdict.reason, verdict.reason

    def wiped(files: Lines) -> None:  # where WipeDisk may be unobserved, the search decides
        rewrite(files)
        files["controller"][0]["meta"]["next"]["faults"] = ["WipeDisk"]
    shutil.rmtree(tmp_path / "log")
    assert validate(variant(tmp_path, wiped), max_states=200).expanded > 0
