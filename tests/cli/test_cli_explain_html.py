"""``autoswitch explain PATH --html OUT``: one trace of any kind as a page, a folder of traces as pages and index.html;
a bad trace exits 2 naming it (in a folder, the others are still written); the text explain is unchanged without it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from cli_cases import CHECKOUT, Case, run_case

K1 = CHECKOUT / "traces/kafka/K1-hw.itf.json"


def hostile_files(tmp: Path) -> None:
    mixed = tmp / "mixed"
    mixed.mkdir()
    shutil.copy(K1, mixed / "K1-hw.itf.json")
    shutil.copy(CHECKOUT / "traces/z3/hw-truncation-step.itf.json", mixed / "hw-truncation-step.itf.json")
    doc = json.loads(K1.read_text())
    del doc["states"][4]["action"]
    (mixed / "broken.itf.json").write_text(json.dumps(doc))
    (tmp / "a-folder.html").mkdir()


CASES = [
    Case("html-walk", ("explain", "{traces}/kafka/K1-hw.itf.json", "--html", "{tmp}/out/K1-hw.html"), 0, "wrote"),
    Case("html-truncation-step", ("explain", "{traces}/z3/hw-truncation-step.itf.json", "--html", "{tmp}/z3.html"), 0, "wrote"),
    Case("html-component", ("explain", "{traces}/retention/R1-delete-and-start.itf.json", "--html", "{tmp}/r1.html"), 0, "wrote"),
    Case("html-folder", ("explain", "{traces}/kafka", "--html", "{tmp}/kafka"), 0, "9 of 9 pages written"),
    Case("html-bad-in-folder", ("explain", "{tmp}/mixed", "--html", "{tmp}/pages"), 2, "broken.itf.json: state 4: field 'action'"),
    Case("html-bad-trace", ("explain", "{tmp}/mixed/broken.itf.json", "--html", "{tmp}/b.html"), 2, "state 4: field 'action'"),
    Case("html-out-is-a-folder", ("explain", "{traces}/kafka/K1-hw.itf.json", "--html", "{tmp}/a-folder.html"), 2,
         "exists and is not a regular file"),
    Case("html-out-is-a-file", ("explain", "{traces}/kafka", "--html", "{traces}/kafka/K1-hw.itf.json"), 2,
         "exists and is not a folder"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_cli(case: Case, tmp_path: Path) -> None:
    hostile_files(tmp_path)
    run_case(case, tmp_path)


def test_a_bad_trace_in_a_folder_is_reported_and_the_others_are_written(tmp_path: Path) -> None:
    hostile_files(tmp_path)
    run_case(CASES[4], tmp_path)
    pages = tmp_path / "pages"
    assert sorted(p.name for p in pages.iterdir()) == ["K1-hw.html", "hw-truncation-step.html", "index.html"]
    index = (pages / "index.html").read_text()
    assert 'href="K1-hw.html"' in index and 'href="hw-truncation-step.html"' in index and "broken.itf.json" in index


def test_without_html_the_text_explain_is_unchanged(tmp_path: Path) -> None:
    result = run_case(Case("text", ("explain", str(K1)), 0, "!!! NoAckedMessageLost fails here (state 27)"), tmp_path)
    assert "<html" not in result.output and not list(tmp_path.iterdir())
