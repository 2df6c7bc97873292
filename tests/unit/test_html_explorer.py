"""The explorer page (conformance/html/explorer.py) without a browser: self-contained, its data one entry per state,
its violating states those the replay finds, the failing property's messages and offsets marked, every committed trace
kind rendered, a bad trace refused naming its field. (The browser tests drive the same pages in headless Chromium.)"""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest

from autoswitch.conformance.html.explorer import explorer_data, explorer_page, page_name, write_pages
from autoswitch.conformance.trace.itf import TraceError, load_trace
from autoswitch.conformance.trace.replay import trace_files

CHECKOUT = Path(__file__).resolve().parents[2]
TRACES = CHECKOUT / "traces"
K1_HW = str(TRACES / "kafka/K1-hw.itf.json")  # NoAckedMessageLost at state 27: pA truncates the acked m2


class _Page(HTMLParser):
    """The page's tags with their attributes, and the text of its scripts by id."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self._in: dict[str, str | None] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag == "script":
            self._in = dict(attrs)
            self.scripts.append((self._in, ""))

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in = None

    def handle_data(self, data: str) -> None:
        if self._in is not None:
            attrs, text = self.scripts[-1]
            self.scripts[-1] = (attrs, text + data)


def _parse(text: str) -> _Page:
    page = _Page()
    page.feed(text)
    return page


def _data(page: _Page) -> dict:
    (text,) = [t for attrs, t in page.scripts if attrs.get("id") == "trace-data"]
    return json.loads(text)


def test_the_page_is_self_contained_and_its_data_has_one_entry_per_state() -> None:
    text = explorer_page(K1_HW)
    page = _parse(text)
    for tag, attrs in page.tags:
        assert "src" not in attrs and "href" not in attrs, f"<{tag}> loads something: {attrs}"
        assert tag not in ("link", "iframe", "img", "object", "embed"), f"<{tag}> in a self-contained page"
    assert "url(" not in text and "@import" not in text
    code = "".join(t for attrs, t in page.scripts if attrs.get("id") != "trace-data")
    for call in ("fetch(", "XMLHttpRequest", "import(", "WebSocket", "http://", "https://"):
        assert call not in code
    assert [attrs.get("type") for attrs, _ in page.scripts] == ["application/json", None]
    data = _data(page)
    n = len(load_trace(K1_HW).states)
    assert [s["index"] for s in data["states"]] == list(range(n))
    assert data["processes"] == ["pA", "pB"] and set(data["states"][0]["lanes"]) == {"pA", "pB"}
    body = next(attrs for tag, attrs in page.tags if tag == "body")
    assert body["data-violations"] == ",".join(map(str, data["violations"])) and "data-loop" not in body


def test_the_page_shows_the_models_full_state_not_only_what_the_trace_carries() -> None:
    data = explorer_data(str(TRACES / "broker-id/B1-first-start.itf.json"))  # the trace carries no data-path variable
    assert "log" not in load_trace(str(TRACES / "broker-id/B1-first-start.itf.json")).states[-1]
    lane = data["states"][-1]["lanes"]["p1"]
    assert lane["log"] == [] and lane["epochFile"] == [] and "haState" in lane["fields"]
    assert {"masterId", "syncStateSet", "alive"} <= set(data["states"][-1]["controller"]["fields"])


def test_the_lost_acked_message_is_marked_where_it_is_lost() -> None:
    data = explorer_data(K1_HW)
    state = data["states"][27]
    assert data["violations"][0] == 27 and state["broken"] == ["NoAckedMessageLost"]
    assert 2 in state["acked"] and [m for m, _ in state["lanes"]["pA"]["log"]] == [1]
    assert state["marks"]["pA"]["missing"] == [2] and "pB" not in state["marks"]  # pB, the master, holds m2
    assert data["states"][26]["marks"] == {}


def test_the_diverging_offsets_are_marked_on_both_logs() -> None:
    data = explorer_data(str(TRACES / "known-bugs/kafka-7415.itf.json"))
    at = data["violations"][0]
    state = data["states"][at]
    assert "LogMatching" in state["broken"]
    logs = {p: lane["log"] for p, lane in state["lanes"].items()}
    marked = {p: m["offsets"] for p, m in state["marks"].items() if m["offsets"]}
    assert len(marked) == 2
    for p, offsets in marked.items():
        (q,) = set(marked) - {p}
        assert offsets and all(logs[p][o] != logs[q][o] for o in offsets)


def test_a_truncation_step_marks_what_the_slave_keeps_past_the_common_prefix() -> None:
    path = str(TRACES / "z3/kip279-truncation-step.itf.json")
    data = explorer_data(path)
    expect = load_trace(path).meta["expect"]
    assert data["violations"] == [1] and data["states"][1]["broken"] == ["TruncateWithinCommonPrefix"]
    assert data["states"][1]["marks"]["follower"]["offsets"] == list(range(expect["commonPrefix"], expect["truncationPoint"]))


def test_a_lasso_gives_its_loop_and_fails_in_every_state_of_it() -> None:
    path = str(TRACES / "designs/dledger-2-EventuallyAnswered.itf.json")  # no invariant fails on the way
    trace = load_trace(path)
    text = explorer_page(path)
    data = _data(_parse(text))
    assert data["loop"] == trace.loop and f'data-loop="{trace.loop}"' in text
    assert data["violations"] == list(range(trace.loop, len(trace.states)))
    assert all(s["broken"] == ["EventuallyAnswered"] for s in data["states"][trace.loop:])
    assert data["liveness"] == "EventuallyAnswered of p1"
    assert {p: m["fields"] for p, m in data["states"][trace.loop]["marks"].items()} == {"p1": ["regState", "role", "confirmOffset"]}


def _expected_violations(path: str, data: dict) -> None:
    """The page's violating states against what the trace expects (``autoswitch replay traces/`` passes: the replay
    finds exactly that)."""
    trace = load_trace(path)
    expect, n = trace.meta.get("expect"), len(trace.states)
    tolerated = set(expect.get("tolerated", ())) if isinstance(expect, dict) else set()
    first = next((s["index"] for s in data["states"] if set(s["broken"]) - tolerated), None)
    if expect is None:
        assert data["violations"] == [], path
    elif "truncationPoint" in expect:
        assert data["violations"] == [1], path
    elif "loop" in expect:
        assert set(range(trace.loop, n)) <= set(data["violations"]), path
    elif expect.get("atEnd"):
        assert n - 1 in data["violations"], path
    if isinstance(expect, dict) and "violation" in expect and "state" in expect:
        assert first == expect["state"] and expect["violation"] in data["states"][first]["broken"], path


def test_every_committed_trace_renders_and_its_violations_are_the_replays(tmp_path: Path) -> None:
    traces = trace_files([str(TRACES)])
    written = list(write_pages(traces, str(TRACES), tmp_path))
    assert [e for _, _, e in written if e is not None] == []
    kinds = set()
    for trace, page, _ in written:
        assert page is not None and page == tmp_path / page_name(trace, str(TRACES))
        data = _data(_parse(page.read_text()))
        kinds.add(data["kind"])
        assert len(data["states"]) == len(load_trace(trace).states)
        _expected_violations(trace, data)
    assert kinds == {"walk", "truncation-step", "epoch-file", "handshake", "retention"}
    index = _parse((tmp_path / "index.html").read_text())
    links = [attrs["href"] for tag, attrs in index.tags if tag == "a"]
    assert sorted(links) == sorted(page_name(t, str(TRACES)) for t in traces)
    assert all((tmp_path / link).is_file() for link in links)


def test_text_from_the_trace_cannot_close_the_script(tmp_path: Path) -> None:
    doc = json.loads(Path(K1_HW).read_text())
    doc["#meta"]["description"] = "</script><script>alert(1)</script><!--"
    path = tmp_path / "hostile.itf.json"
    path.write_text(json.dumps(doc))
    text = explorer_page(str(path))
    assert text.count("</script>") == 2 and "<script>alert" not in text
    assert _data(_parse(text))["description"] == doc["#meta"]["description"]


@pytest.mark.parametrize(("change", "field"), [
    (lambda doc: doc["states"][3].pop("action"), "state 3: field 'action'"),
    (lambda doc: doc["#meta"].update(kind="nonsense"), "field '#meta.kind'"),
    (lambda doc: doc["states"][5].update(action={"tag": "Write", "process": "pA"}), "state 5: field 'action'"),
])
def test_a_bad_trace_is_refused_naming_the_field(change, field: str, tmp_path: Path) -> None:
    doc = json.loads(Path(K1_HW).read_text())
    change(doc)
    path = tmp_path / "bad.itf.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(TraceError, match=field.replace("'", ".")):
        explorer_page(str(path))
