"""The replay fuzz test (conformance/trace/fuzz.py): mutated copies of the committed corpus, every trace kind,
replayed on both engines - no exception, no ERROR, the engines agree, nothing that must be refused passes.
``autoswitch fuzz --inputs 100000 --seed N`` runs more."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from autoswitch.conformance.trace.fuzz import MUTATIONS, TEXT_MUTATIONS, FuzzCase, fuzz, judge, make_case
from autoswitch.conformance.trace.replay import DIVERGENCE, ERROR, MALFORMED, PASS, Result, trace_files

ROOT = Path(__file__).resolve().parents[2]
CORPUS = [Path(p) for p in trace_files([str(ROOT / "traces")])]
SEED = 2026
CHUNK = 100
FAST_CHUNKS = 25  # 2,500 inputs: about 30 s on 2 cores


def _run(indices: range, tmp_path: Path) -> Counter:
    outcomes: Counter = Counter()
    broken = []
    for outcome in fuzz(CORPUS, SEED, indices, tmp_path):
        outcomes[(outcome.case.mutation, outcome.results[0].status if outcome.results else "raised")] += 1
        if outcome.broken:
            broken.append(f"input {outcome.case.index} ({outcome.case.mutation} of {Path(outcome.case.source).name}): "
                          f"{outcome.broken}; replay it: autoswitch fuzz --seed {SEED} --only {outcome.case.index}")
    assert not broken, "\n".join(broken[:10])
    return outcomes


@pytest.mark.parametrize("chunk", range(FAST_CHUNKS))
def test_mutated_corpus_keeps_the_contract(chunk: int, tmp_path: Path) -> None:
    _run(range(chunk * CHUNK, (chunk + 1) * CHUNK), tmp_path)


@pytest.mark.slow
def test_mutated_corpus_keeps_the_contract_10000(tmp_path: Path) -> None:
    _run(range(FAST_CHUNKS * CHUNK, FAST_CHUNKS * CHUNK + 10_000), tmp_path)


def test_the_fast_inputs_cover_every_mutation_and_every_trace_kind() -> None:
    cases = [make_case(CORPUS, SEED, i) for i in range(FAST_CHUNKS * CHUNK)]
    assert {c.mutation for c in cases} == set(MUTATIONS) | set(TEXT_MUTATIONS)
    kinds = {Path(c.source).parent.name for c in cases}
    assert {"epoch-file", "handshake", "retention", "z3", "controller", "kinds", "negative"} <= kinds
    assert sum(c.must_refuse for c in cases) > len(cases) // 2


def test_every_input_is_a_changed_trace() -> None:
    """A mutation that finds no place in its trace (no process field, no bool) is drawn again, not counted."""
    for case in (make_case(CORPUS, SEED, i) for i in range(500)):
        assert case.text.strip() != json.dumps(json.loads(Path(case.source).read_text()), indent=1), case


def test_an_input_is_the_same_bytes_from_its_seed_and_index() -> None:
    assert make_case(CORPUS, 7, 123) == make_case(CORPUS, 7, 123)
    assert make_case(CORPUS, 7, 123).text != make_case(CORPUS, 8, 123).text


def _case(must_refuse: bool) -> FuzzCase:
    return FuzzCase(0, "t.json", "replace_type", must_refuse, "{}")


def _r(engine: str, status: str, state: int | None = 1, field: str | None = "x") -> Result:
    return Result("t.json", engine, status, state=state, field=field)


@pytest.mark.parametrize(("results", "must_refuse", "broken"), [
    ((_r("reference", PASS), _r("impl", PASS)), False, None),
    ((_r("reference", MALFORMED), _r("impl", MALFORMED)), True, None),
    ((_r("reference", DIVERGENCE), _r("impl", DIVERGENCE)), True, None),
    ((_r("reference", PASS), _r("impl", PASS)), True, "must be refused"),
    ((_r("reference", ERROR), _r("impl", PASS)), False, "ERROR"),
    ((_r("reference", MALFORMED, 1, "a"), _r("impl", MALFORMED, 1, "b")), False, "disagree"),
    ((_r("reference", DIVERGENCE, 1), _r("impl", DIVERGENCE, 2)), False, "disagree"),
    ((_r("reference", PASS), _r("impl", DIVERGENCE)), False, "disagree"),
])
def test_the_contract_catches_what_it_must(results: tuple[Result, ...], must_refuse: bool, broken: str | None) -> None:
    verdict = judge(_case(must_refuse), results)
    assert (verdict is None) if broken is None else (broken in (verdict or ""))
