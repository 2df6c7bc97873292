"""The component trace kinds (epoch-file, handshake): wrong expectations diverge where they are, malformed
files are refused naming state and field, the impl really runs on files, and the two cache models agree."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autoswitch.conformance.trace.components import ImplCache, ImplRetention, ReferenceCache, ReferenceRetention
from autoswitch.conformance.trace.replay import DIVERGENCE, MALFORMED, PASS, replay_file, trace_files
from autoswitch.impl.storage import FileStorage, MemoryStorage

ROOT = Path(__file__).resolve().parents[2]
EPOCH_FILE_TRACES = trace_files([str(ROOT / "traces/epoch-file")])
HANDSHAKE_TRACES = trace_files([str(ROOT / "traces/handshake")])
RETENTION_TRACES = trace_files([str(ROOT / "traces/retention")])
ENGINES = ["reference", "impl"]


def _load(name: str) -> dict:
    return json.loads((ROOT / "traces" / name).read_text())


def _replay(doc: dict, tmp_path: Path, engine: str = "reference"):
    path = tmp_path / "t.json"
    path.write_text(json.dumps(doc))
    return replay_file(str(path), engine)


def test_corpus_has_both_kinds() -> None:
    assert len(EPOCH_FILE_TRACES) == 5 and len(HANDSHAKE_TRACES) == 11
    policies = {json.loads(Path(p).read_text())["#meta"]["policy"] for p in HANDSHAKE_TRACES}
    assert policies == {"rocketmq", "hw", "kip101", "kip279"}
    assert len(RETENTION_TRACES) == 4


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("path", RETENTION_TRACES, ids=lambda p: Path(p).name)
def test_wrong_transfer_start_diverges(path: str, engine: str, tmp_path: Path) -> None:
    doc = json.loads(Path(path).read_text())
    index = next(i for i, s in enumerate(doc["states"]) if "fromOffset" in s.get("outcome", {}))
    doc["states"][index]["outcome"]["fromOffset"] = {"#bigint": "7"}
    result = _replay(doc, tmp_path, engine)
    assert (result.status, result.state, result.field) == (DIVERGENCE, index, "outcome.fromOffset"), result.describe()


@pytest.mark.parametrize("engine", ENGINES)
def test_retention_trims_the_epoch_prefix(engine: str, tmp_path: Path) -> None:
    """R1 state 5 deletes the files below 20: epoch 1 (ending at 12) must go; keeping it diverges."""
    doc = _load("retention/R1-delete-and-start.itf.json")
    assert doc["states"][5]["action"]["tag"] == "DeleteFilesBelow"
    doc["states"][5]["entries"].insert(0, {"epoch": 1, "startOffset": 0, "endOffset": 12})
    result = _replay(doc, tmp_path, engine)
    assert (result.status, result.state, result.field) == (DIVERGENCE, 5, "entries"), result.describe()


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("path", EPOCH_FILE_TRACES, ids=lambda p: Path(p).name)
def test_wrong_answer_diverges_at_that_state(path: str, engine: str, tmp_path: Path) -> None:
    doc = json.loads(Path(path).read_text())
    index = next(i for i, s in enumerate(doc["states"]) if "returns" in s.get("outcome", {}))
    returns = doc["states"][index]["outcome"]["returns"]
    doc["states"][index]["outcome"]["returns"] = (not returns) if isinstance(returns, bool) else {"#bigint": "12345"}
    result = _replay(doc, tmp_path, engine)
    assert (result.status, result.state, result.field) == (DIVERGENCE, index, "outcome.returns"), result.describe()


@pytest.mark.parametrize("engine", ENGINES)
def test_quirky_end_offset_is_checked(engine: str, tmp_path: Path) -> None:
    """E2 state 5 expects the in-memory end 200 after truncateSuffixByOffset; MAX (what a reset would give) diverges."""
    doc = _load("epoch-file/E2-truncate-suffix-keeps-end.itf.json")
    assert doc["states"][4]["action"]["tag"] == "truncateSuffixByOffset"
    doc["states"][4]["entries"][-1]["endOffset"] = {"#bigint": str(2**63 - 1)}
    result = _replay(doc, tmp_path, engine)
    assert (result.status, result.state, result.field) == (DIVERGENCE, 4, "entries"), result.describe()


def test_impl_reload_reads_the_file_backend(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The impl replays on FileStorage too (after MemoryStorage): a backend whose file reads back empty fails
    at the first state that states the file's lines."""
    path = str(ROOT / "traces/epoch-file/E2-truncate-suffix-keeps-end.itf.json")
    assert replay_file(path, "impl").status == PASS
    monkeypatch.setattr(FileStorage, "read", lambda self, name: None)
    result = replay_file(path, "impl")
    assert (result.status, result.state, result.field) == (DIVERGENCE, 4, "file"), result.describe()
    assert "(FileStorage)" in result.message


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("path", HANDSHAKE_TRACES, ids=lambda p: Path(p).name)
def test_wrong_truncation_point_diverges(path: str, engine: str, tmp_path: Path) -> None:
    doc = json.loads(Path(path).read_text())
    doc["states"][1]["outcome"]["truncateOffset"] = {"#bigint": "7"}
    result = _replay(doc, tmp_path, engine)
    assert (result.status, result.state, result.field) == (DIVERGENCE, 1, "outcome.truncateOffset"), result.describe()


@pytest.mark.parametrize("engine", ENGINES)
def test_wrong_slave_state_after_handshake_diverges(engine: str, tmp_path: Path) -> None:
    doc = _load("handshake/H2-rocketmq-start-differs.itf.json")
    doc["states"][1]["slaveEpochs"] = doc["states"][0]["slaveEpochs"]  # as if the epoch-2 entry stayed
    result = _replay(doc, tmp_path, engine)
    assert (result.status, result.state, result.field) == (DIVERGENCE, 1, "slaveEpochs"), result.describe()


def _set(state: int, field: str, value: object) -> Callable[[dict], None]:
    def mutate(doc: dict) -> None:
        doc["states"][state][field] = value
        if field not in doc["vars"]:
            doc["vars"].append(field)
    return mutate


def _action(state: int, **fields: object) -> Callable[[dict], None]:
    return lambda doc: doc["states"][state]["action"].update(fields)


def _outcome(state: int, **fields: object) -> Callable[[dict], None]:
    return lambda doc: doc["states"][state]["outcome"].update(fields)


E1 = "epoch-file/E1-append-and-queries.itf.json"  # state 5: appendEntry(1, 0); 10: getEntry(2), 11: getEntry(3)
E5 = "epoch-file/E5-find-consistent-point.itf.json"  # state 4: findConsistentPoint
H1 = "handshake/H1-rocketmq-epoch-end.itf.json"
R1 = "retention/R1-delete-and-start.itf.json"  # state 1: StartTransfer; 3: DeleteFilesBelow
ENTRY = {"epoch": 1, "startOffset": 0, "endOffset": 100}


@pytest.mark.parametrize(("name", "mutate", "state", "field"), [
    (E1, _action(5, tag="appendEntries"), 5, "action.tag"),
    (E1, _action(0, tag="appendEntry"), 0, "action.tag"),
    (E1, _action(5, epoch="2"), 5, "action.epoch"),
    (E1, lambda d: d["states"][5]["action"].pop("startOffset"), 5, "action.startOffset"),
    (E1, _action(5, offset=3), 5, "action.offset"),
    (E1, _outcome(5, returns={"#bigint": "1"}), 5, "outcome.returns"),
    (E1, _outcome(5, found=True), 5, "outcome.found"),
    (E1, _outcome(11, entry=ENTRY), 11, "outcome.entry"),
    (E1, _outcome(10, entry={"epoch": 2}), 10, "outcome.entry"),
    (E1, _outcome(10, found="yes"), 10, "outcome.found"),
    (E1, _outcome(9, entry=ENTRY), 9, "outcome.entry"),
    (E1, _set(5, "entries", [{"epoch": 1, "start": 0, "endOffset": 1}]), 5, "entries"),
    (E1, _set(5, "file", "1-0"), 5, "file"),
    (E1, _set(5, "masterEpoch", {"#bigint": "1"}), 5, "masterEpoch"),
    (E5, _action(4, other=[ENTRY, {"epoch": 2, "startOffset": 150, "endOffset": 200}]), 4, "action.other"),
    (E5, _action(4, other=[{"epoch": 2, "startOffset": 150, "endOffset": 100}]), 4, "action.other"),
    (H1, lambda d: d["#meta"].update(policy="raft"), None, "#meta.policy"),
    (H1, lambda d: d["states"].append(d["states"][1]), None, "states"),
    (H1, lambda d: d["states"][0].pop("masterLeo"), 0, "masterLeo"),
    (H1, _set(0, "slaveLeo", {"#bigint": "-1"}), 0, "slaveLeo"),
    (H1, _set(0, "slaveEpochs", [{"#tup": [{"#bigint": "2"}, {"#bigint": "0"}]}, {"#tup": [{"#bigint": "1"}, {"#bigint": "5"}]}]), 0,
     "slaveEpochs"),
    (H1, _set(0, "masterEpochs", [{"#bigint": "1"}]), 0, "masterEpochs"),
    (H1, _set(0, "slaveConfirmOffset", {"#bigint": "500"}), 0, "slaveConfirmOffset"),
    (H1, _set(1, "masterLeo", {"#bigint": "5"}), 1, "masterLeo"),
    (H1, _action(1, process="p1"), 1, "action"),
    (H1, _outcome(1, code="SUCCESS"), 1, "outcome"),
    (R1, lambda d: d["#meta"].pop("fileSize"), None, "#meta.fileSize"),
    (R1, _set(0, "leo", "35"), 0, "leo"),
    (R1, _set(0, "epochs", [{"#tup": [{"#bigint": "1"}, {"#bigint": "40"}]}]), 0, "epochs"),
    (R1, _action(1, syncFromLastFile={"#bigint": "1"}), 1, "action.syncFromLastFile"),
    (R1, _action(3, syncFromLastFile=True), 3, "action"),
    (R1, _outcome(1, code="SUCCESS"), 1, "outcome.code"),
    (R1, _outcome(3, code="OK"), 3, "outcome.code"),
    (R1, _outcome(1, code="NO_EPOCH"), 1, "outcome.entry"),
    (R1, _set(3, "leo", {"#bigint": "35"}), 3, "leo"),
])
def test_malformed_component_trace_names_state_and_field(name: str, mutate, state, field, tmp_path: Path) -> None:
    doc = _load(name)
    mutate(doc)
    for engine in ENGINES:
        result = _replay(doc, tmp_path, engine)
        assert (result.status, result.state, result.field) == (MALFORMED, state, field), result.describe()
        assert result.file.endswith("t.json")


# ---- the two cache models agree on any operation sequence --------------------------------------------

OFFSETS = st.integers(0, 40)
EPOCHS = st.integers(0, 8)
OPS = st.one_of(
    st.tuples(st.just("appendEntry"), st.fixed_dictionaries({"epoch": EPOCHS, "startOffset": OFFSETS})),
    st.tuples(st.sampled_from(["truncateSuffixByEpoch", "nextEntry", "getEntry"]), st.fixed_dictionaries({"epoch": EPOCHS})),
    st.tuples(st.sampled_from(["truncateSuffixByOffset", "truncatePrefixByOffset", "setLastEpochEntryEndOffset",
                               "findEpochEntryByOffset"]), st.fixed_dictionaries({"offset": OFFSETS})),
    st.tuples(st.sampled_from(["firstEntry", "lastEntry", "lastEpoch", "reload"]), st.just({})),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(OPS, max_size=25), st.lists(OPS, max_size=10))
def test_reference_and_impl_caches_agree(ops: list, other_ops: list) -> None:
    ref, impl = ReferenceCache(), ImplCache(MemoryStorage())
    other = ReferenceCache()
    for tag, args in other_ops:
        other.run(tag, args)
    for tag, args in [*ops, ("findConsistentPoint", {"other": other.view()["entries"]})]:
        assert ref.run(tag, args) == impl.run(tag, args), (tag, args)
        assert ref.view() == impl.view(), (tag, args)


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 5), st.lists(st.tuples(st.integers(1, 4), st.integers(0, 30)), max_size=4), st.integers(0, 30),
       st.lists(st.one_of(st.integers(0, 40), st.booleans()), max_size=8))
def test_reference_and_impl_retention_agree(size: int, raw: list, leo: int, ops: list) -> None:
    pairs, last = [], (0, -1)
    for epoch, start in raw:  # an epoch file well formed against the LEO
        if epoch > last[0] and start > last[1] and start <= leo:
            pairs.append((epoch, start))
            last = (epoch, start)
    ref, impl = ReferenceRetention(leo, pairs, size), ImplRetention(leo, pairs, size)
    assert ref.view() == impl.view()
    for op in ops:
        if isinstance(op, bool):
            assert ref.start(op) == impl.start(op), op
        else:
            ref.delete(op)
            impl.delete(op)
        assert ref.view() == impl.view(), op
