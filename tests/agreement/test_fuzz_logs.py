"""The event-log fuzz test (conformance/logs/fuzz.py): mutated copies of the committed event logs, each validated by
``autoswitch validate``'s own entry point - no internal error, bad input names the file, the line and the field, nothing
that must be refused is explained. ``autoswitch fuzz --logs --inputs 1000 --seed N`` runs more."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from autoswitch.conformance.logs import fuzz
from autoswitch.conformance.logs.batch import ERROR, MALFORMED, Row
from autoswitch.conformance.logs.search import EXPLAINED, REFUSED

ROOT = Path(__file__).resolve().parents[2]
CORPUS = fuzz.corpus_logs(ROOT / "traces")
SEED = 2026
CHUNK = 50


def test_the_corpus_is_the_committed_logs() -> None:
    assert [p.relative_to(ROOT / "traces").as_posix() for p in CORPUS] == ["logs/failover", "logs/registration.ndjson"]


@pytest.mark.parametrize("chunk", range(4))
def test_mutated_logs_keep_the_contract(chunk: int, tmp_path: Path) -> None:
    outcomes: Counter = Counter()
    broken = []
    for outcome in fuzz.fuzz_logs(CORPUS, SEED, range(chunk * CHUNK, (chunk + 1) * CHUNK), tmp_path):
        outcomes[outcome.row.status] += 1
        if outcome.broken:
            broken.append(f"input {outcome.case.index} ({outcome.case.mutation}): {outcome.broken}; again: autoswitch fuzz "
                          f"--logs --seed {SEED} --only {outcome.case.index}")
    assert not broken, "\n".join(broken[:10])
    assert outcomes[MALFORMED] and outcomes[REFUSED], outcomes


def test_the_inputs_cover_every_mutation_and_both_logs() -> None:
    cases = [fuzz.make_case(CORPUS, SEED, i) for i in range(4 * CHUNK)]
    assert {c.mutation for c in cases} == set(fuzz.MUTATIONS)
    assert {c.source for c in cases} == {str(p) for p in CORPUS}
    assert sum(c.expect is not None for c in cases) > len(cases) // 3


def test_an_input_is_the_same_bytes_from_its_seed_and_index() -> None:
    assert fuzz.make_case(CORPUS, 7, 123) == fuzz.make_case(CORPUS, 7, 123)


def test_an_unreachable_value_is_refused_before_the_search(tmp_path: Path) -> None:
    """Every unreachable_value input of the first 400 is refused with no state expanded (conformance/logs/reach.py)."""
    cases = [c for c in (fuzz.make_case(CORPUS, SEED, i) for i in range(400)) if c.mutation == "unreachable_value"]
    assert len(cases) >= 10
    for case in cases:
        outcome = fuzz.run_case(case, tmp_path)
        assert outcome.row.status == REFUSED and outcome.row.expanded == 0 and outcome.broken is None, outcome.row.text


@pytest.mark.parametrize(("expect", "status", "text", "broken"), [
    (None, ERROR, "x: internal error: KeyError", "internal error (exit 3)"),
    (fuzz.REFUSED, EXPLAINED, "explained", "must be refused, but the log is explained"),
    (fuzz.MALFORMED, REFUSED, "refused", "breaks the format"),
    (fuzz.MALFORMED, MALFORMED, "malformed: {path}: field 'ts': an integer", "does not name the line"),
    (None, MALFORMED, "malformed: elsewhere: line 2: field 'ts': an integer", "does not name the file and the field"),
    (fuzz.MALFORMED, MALFORMED, "malformed: {path}: line 2: field 'ts': an integer", None),
    (fuzz.REFUSED, REFUSED, "refused", None),
])
def test_judge(tmp_path: Path, expect: str | None, status: str, text: str, broken: str | None) -> None:
    path = tmp_path / "log.ndjson"
    case = fuzz.LogCase(0, "src", "m", expect, (("log.ndjson", ""),), False)
    found = fuzz.judge(case, Row(str(path), "log", status, text=text.format(path=path)), path)
    assert (found is None) if broken is None else (found is not None and broken in found), found


def test_a_corpus_log_that_is_not_json_is_mutated_as_text(tmp_path: Path) -> None:
    """A line of the corpus that is not JSON (or not UTF-8) is kept as text, so the fuzzer itself never fails on it."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "bad.ndjson").write_bytes(b'{"meta": {"processes": {"p1": "a"}}}\n{"node": "p1", "ts": 1,\n\xff garbage\n')
    outcomes = list(fuzz.fuzz_logs(fuzz.corpus_logs(corpus), 1, range(30), tmp_path))
    assert all(o.broken is None and o.row.status == MALFORMED for o in outcomes), [o.row.text for o in outcomes]
