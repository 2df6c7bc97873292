"""The campaign report as HTML: ``report.html`` beside ``report.md`` (conformance/simulation/report.py ``write_report``).

The page is ``report.md``'s text rendered (its tables: the per-configuration summary, action coverage, the time to the
first failure per control, the coverage of the exhaustive state space, liveness and designs), its PNG plots inlined as
base64, and a section of the failures: each shrunk trace linked to its explorer page (conformance/html/explorer.py),
written beside it (``failures/<config>/walk-<i>.html``), and every mention of a shrunk trace in the tables linked too.
A trace whose page cannot be written is reported as a problem and left unlinked; the report is still written.
"""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt

from autoswitch.conformance.html.explorer import _asset, write_page
from autoswitch.conformance.paths import file_under
from autoswitch.conformance.simulation.store import write_atomic

FAILURES = "failures/"
TRACE_SUFFIX = ".itf.json"


def page_of(trace: str) -> str:
    """A shrunk trace's explorer page, relative to the campaign's folder: beside the trace, ``.html`` for ``.itf.json``."""
    return trace.removesuffix(TRACE_SUFFIX) + ".html"


def write_failure_pages(rows: Iterable[dict[str, Any]], out: Path) -> tuple[dict[str, str], list[str]]:
    """An explorer page beside each shrunk trace of ``rows`` (those under ``failures/``); returns the pages written, by
    trace, and the problems (a trace whose page could not be written)."""
    pages, problems = {}, []
    for trace in sorted({r["trace"] for r in rows if r.get("trace") and r["trace"].startswith(FAILURES)}):
        try:
            write_page(str(file_under(out, trace)), file_under(out, page_of(trace)))
        except Exception as e:  # noqa: BLE001 - one page that cannot be written must not lose the report
            problems.append(f"{trace}: no explorer page: {type(e).__name__}: {e}")
            continue
        pages[trace] = page_of(trace)
    return pages, problems


def _inline_plots(body: str, out: Path, plots: Iterable[str]) -> str:
    for name in plots:
        data = base64.b64encode((out / name).read_bytes()).decode("ascii")
        body = body.replace(f'src="{html.escape(name)}"', f'class="plot" src="data:image/png;base64,{data}"')
    return body


def _link_traces(body: str, pages: dict[str, str]) -> str:
    """Each ``<code>failures/...itf.json</code>`` of the rendered tables linked to its page."""
    def link(match: re.Match[str]) -> str:
        trace = html.unescape(match.group(1))
        if trace not in pages:
            return match.group(0)
        return f'<a class="explorer" href="{html.escape(pages[trace])}">{match.group(0)}</a>'

    return re.sub(r"<code>(failures/[^<]*?\.itf\.json)</code>", link, body)


def _failures_section(rows: Iterable[dict[str, Any]], pages: dict[str, str]) -> str:
    failing = [r for r in rows if r.get("trace") in pages]
    if not failing:
        return "<h2>Failures</h2>\n<p>No shrunk trace: no walk failed.</p>\n"
    items = []
    for r in sorted(failing, key=lambda r: (r["config"], r["walk"])):
        trace = r["trace"]
        items.append(f'<tr><td>{html.escape(r["config"])}</td><td>{r["walk"]}</td><td>{html.escape(str(r["status"]))}</td>'
                     f'<td>{html.escape(str(r["failure"]))}</td><td>{r["shrunk_length"]}</td><td>{r["shrunk_faults"]}</td>'
                     f'<td><a class="explorer" href="{html.escape(pages[trace])}">explore</a> '
                     f'(<a href="{html.escape(trace)}">{html.escape(trace)}</a>)</td></tr>')
    return ("<h2>Failures</h2>\n<p>Each walk's first failure of a kind in its chunk, shrunk: open its page to step through "
            "it (keys: arrows, j/k, Home/End).</p>\n<table id=\"failures\"><thead><tr><th>configuration</th><th>walk</th>"
            "<th>status</th><th>failure</th><th>steps</th><th>faults</th><th>trace</th></tr></thead><tbody>\n"
            + "\n".join(items) + "\n</tbody></table>\n")


def write_html_report(markdown: str, rows: list[dict[str, Any]], out: Path, plots: Iterable[str], title: str) -> tuple[Path, list[str]]:
    """Write ``out/report.html`` from ``report.md``'s text and the campaign's rows, and the failures' explorer pages;
    returns its path and the problems (pages that could not be written)."""
    pages, problems = write_failure_pages(rows, out)
    body = MarkdownIt("commonmark", {"html": False}).enable("table").render(markdown)
    body = _link_traces(_inline_plots(body, out, plots), pages)
    problems_html = "".join(f"<li>{html.escape(p)}</li>" for p in problems)
    page = f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)}</title>
<style>
{_asset("explorer.css")}
</style>
</head>
<body class="report" data-ready="1">
{body}
{_failures_section(rows, pages)}
{f'<h2>Pages not written</h2><ul class="bad">{problems_html}</ul>' if problems else ''}
</body>
</html>
"""
    path = out / "report.html"
    write_atomic(path, page.encode("utf-8"))
    return path, problems
