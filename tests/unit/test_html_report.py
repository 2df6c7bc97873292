"""``report.html`` beside ``report.md`` (conformance/html/report.py) from a small campaign run in this process: the
tables and plots of the Markdown report, the plots inlined, each shrunk trace linked to its explorer page written beside
it, and every link resolving to a written file."""

from __future__ import annotations

import json
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest

from autoswitch.conformance.simulation import store
from autoswitch.conformance.simulation.campaign import FAULT_MOVES
from autoswitch.conformance.simulation.report import write_report
from autoswitch.conformance.simulation.spark import Campaign, RunStats, run_campaign

# walk 3 of unclean-rocketmq-2p finds its control, NoAckedMessageLost (tests/unit/test_campaign_resume.py)
CAMPAIGN = Campaign(seed=10, walks=4, length=20, configs=("safe-rocketmq-2p", "unclean-rocketmq-2p"), chunk=2, sample=2,
                    weights=dict.fromkeys(FAULT_MOVES, 0), swarm=False, guide=False)
SHRUNK = "failures/unclean-rocketmq-2p/walk-3"


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def _tags(text: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = _Tags()
    parser.feed(text)
    return parser.tags


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict], list[str]]:
    out = tmp_path_factory.mktemp("campaign")
    run_campaign(CAMPAIGN, out, "none")
    rows, missing = store.load_rows(CAMPAIGN, out)
    _, problems = write_report(CAMPAIGN, rows, RunStats("none", 0, 4, 0, 0, 0.0), out, missing)
    return out, rows, problems


def test_report_html_has_the_markdown_reports_tables_and_its_plots_inlined(campaign: tuple[Path, list[dict], list[str]]) -> None:
    out, _, problems = campaign
    assert problems == []
    text = (out / "report.html").read_text()
    for heading in ("Simulation campaign (seed 10)", "Action coverage", "Time to first failure", "Plots", "Failures"):
        assert heading in text
    assert all(f"<td>{name}</td>" in text for name in CAMPAIGN.configs)
    images = [attrs["src"] for tag, attrs in _tags(text) if tag == "img"]
    assert len(images) == 2 and all(src and src.startswith("data:image/png;base64,") for src in images)


def test_each_failure_links_to_its_explorer_page_written_beside_its_trace(campaign: tuple[Path, list[dict], list[str]]) -> None:
    out, rows, _ = campaign
    text = (out / "report.html").read_text()
    links = [attrs["href"] for tag, attrs in _tags(text) if tag == "a"]
    assert links and all(href and (out / href).is_file() for href in links)
    shrunk = [r["trace"] for r in rows if r["trace"] and r["trace"].startswith("failures/")]
    assert shrunk == [f"{SHRUNK}.itf.json"]
    assert f"{SHRUNK}.html" in links and f"{SHRUNK}.itf.json" in links
    page = (out / f"{SHRUNK}.html").read_text()
    data = json.loads(page.split('id="trace-data">', 1)[1].split("</script>", 1)[0])
    expects = json.loads((out / f"{SHRUNK}.itf.json").read_text())["#meta"]["expect"]
    assert data["violations"][0] == expects["state"] and expects["violation"] in data["states"][expects["state"]]["broken"]


def test_a_shrunk_trace_that_cannot_be_rendered_is_a_problem_and_stays_unlinked(
        campaign: tuple[Path, list[dict], list[str]], tmp_path: Path) -> None:
    out = tmp_path / "out"
    shutil.copytree(campaign[0], out)
    (out / f"{SHRUNK}.html").unlink()
    (out / f"{SHRUNK}.itf.json").write_text("{}")
    rows, missing = store.load_rows(CAMPAIGN, out)
    _, problems = write_report(CAMPAIGN, rows, RunStats("none", 0, 4, 0, 0, 0.0), out, missing)
    assert len(problems) == 1 and problems[0].startswith(f"{SHRUNK}.itf.json: no explorer page")
    text = (out / "report.html").read_text()
    assert f'href="{SHRUNK}.html"' not in text and "Pages not written" in text
    assert not (out / f"{SHRUNK}.html").exists()
