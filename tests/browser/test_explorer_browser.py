"""The explorer pages (``autoswitch explain TRACE --html``) in headless Chromium: issue 14's DOM contract on pages of
committed traces of every kind - they load with no script error, the keys and buttons step through the states, the
lanes show each state the trace gives, the violating state is marked, a lasso steps back into its loop."""

from pathlib import Path

import pytest
from harness import NOT_CHECKED, ROOT, TRACES, Browser, autoswitch, page_of
from lassos import SEVERAL, SEVERAL_LOOP, write_several

from autoswitch.conformance.check.specconfig import load_spec_config
from autoswitch.conformance.trace.itf import load_trace
from autoswitch.conformance.trace.replay import PASS, replay_file

Keys = pytest.importorskip("selenium.webdriver.common.keys", reason=f"selenium is not installed: {NOT_CHECKED}").Keys
pytestmark = pytest.mark.slow

# one committed trace of each kind: (trace under traces/, the state an expected violation is at, or None)
KINDS = {
    "kafka-counterexample": ("kafka/K1-hw.itf.json", 27),
    "walk-invariant": ("negative/unclean-election-loses-acked.itf.json", 18),
    "liveness-at-end": ("liveness/retry-off-at-end.itf.json", 9),
    "lasso": ("known-bugs/rocketmq-epoch-reentry-stuck.itf.json", 21),
    "design-lasso": ("designs/dledger-2-EventuallyAnswered.itf.json", 3),
    "design-walk": ("designs/ms-async-NoAckedMessageLost.itf.json", 3),
    "z3-truncation-step": ("z3/kip101-truncation-step.itf.json", 1),
    "handshake": ("handshake/H2-rocketmq-start-differs.itf.json", None),
    "epoch-file": ("epoch-file/E5-find-consistent-point.itf.json", None),
    "retention": ("retention/R1-delete-and-start.itf.json", None),
    "broker-sets": ("kinds/two-sets-elect-independently.itf.json", None),
}
COMPONENT_KINDS = ("epoch-file", "handshake", "retention", "truncation-step")


def open_page(browser: Browser, pages: Path, trace: str) -> None:
    browser.open((pages / page_of(trace)).as_uri())


def violations(browser: Browser) -> list[int]:
    listed = browser.js("return document.body.dataset.violations")
    assert listed is not None, "body has no data-violations"
    return [int(i) for i in listed.split(",")] if listed else []


def at_violation(browser: Browser) -> bool:
    return browser.js("return document.body.classList.contains('at-violation')")


def count(browser: Browser, selector: str) -> int:
    return browser.js("return document.querySelectorAll(arguments[0]).length", selector)


@pytest.mark.parametrize("kind", KINDS)
def test_the_page_loads_with_no_script_error_and_no_fetch(kind: str, browser: Browser, pages: Path) -> None:
    trace, _ = KINDS[kind]
    open_page(browser, pages, trace)
    assert browser.script_errors() == []
    assert browser.fetched() == [], "the page is not self-contained"
    assert browser.index() == 0
    assert count(browser, "script[src], link[href]") == 0
    assert browser.js("return JSON.parse(document.getElementById('trace-data').textContent) !== null")
    lanes = browser.js("return Array.from(document.querySelectorAll('.lane')).map(function (l) { return l.dataset.process; })")
    meta = load_trace(str(TRACES / trace)).meta
    assert "controller" in lanes
    assert set(meta.get("processes", {})) <= set(lanes)
    browser.screenshot(f"explorer-{kind}-state-0")


@pytest.mark.parametrize("kind", KINDS)
def test_arrow_right_shows_the_next_state(kind: str, browser: Browser, pages: Path) -> None:
    trace, _ = KINDS[kind]
    open_page(browser, pages, trace)
    states = len(load_trace(str(TRACES / trace)).states)
    shown = [(browser.lanes_text(), browser.js("return document.getElementById('action').innerText"))]
    for i in range(1, states):
        browser.press(Keys.ARROW_RIGHT)
        assert browser.index() == i
        shown.append((browser.lanes_text(), browser.js("return document.getElementById('action').innerText")))
    assert shown[1][1] != shown[0][1], "#action did not change with the step"
    assert len({lanes for lanes, _ in shown}) > 1, "no step changed what the lanes show"
    assert browser.script_errors() == []


SHOWN = ("role", "log", "confirmOffset")  # what test_the_lanes_show_what_the_trace_says_in_every_state compares


def gives_lanes(trace: str) -> bool:
    loaded = load_trace(str(TRACES / trace))
    return loaded.meta.get("kind") is None and any(name in state for state in loaded.states for name in SHOWN)


@pytest.mark.parametrize("kind", [k for k, (t, _) in KINDS.items() if gives_lanes(t)])
def test_the_lanes_show_what_the_trace_says_in_every_state(kind: str, browser: Browser, pages: Path) -> None:
    """Each state's role, log (message and epoch of each cell) and confirmOffset, where the trace gives them."""
    trace, _ = KINDS[kind]
    open_page(browser, pages, trace)
    compared = 0
    for i, state in enumerate(load_trace(str(TRACES / trace)).states):
        assert browser.index() == i
        for p, role in (state.get("role") or {}).items():
            assert browser.js("return document.querySelector('.lane[data-process=\"' + arguments[0] + '\"] .role').textContent", p) == role
            compared += 1
        for p, log in (state.get("log") or {}).items():
            cells = browser.js("return Array.from(document.querySelectorAll('.lane[data-process=\"' + arguments[0] + '\"] .msg:not(.missing)'))"
                               ".map(function (c) { return [Number(c.dataset.msg), Number(c.dataset.epoch)]; })", p)
            assert [tuple(c) for c in cells] == [tuple(entry) for entry in log], f"state {i}: {p}'s log"
            compared += 1
        for p, offset in (state.get("confirmOffset") or {}).items():
            shown = browser.js("var f = document.querySelector('.lane[data-process=\"' + arguments[0] + '\"] [data-field=confirmOffset] .value');"
                               "return f && f.textContent", p)
            assert shown == str(offset), f"state {i}: {p}'s confirmOffset"
            compared += 1
        browser.press(Keys.ARROW_RIGHT)
    assert compared > 0


@pytest.mark.parametrize("kind", [k for k, (_, at) in KINDS.items() if at is not None])
def test_the_violating_state_is_marked(kind: str, browser: Browser, pages: Path) -> None:
    trace, at = KINDS[kind]
    open_page(browser, pages, trace)
    listed = violations(browser)
    assert at in listed and min(listed) == at, f"the expected violation at state {at}; the page lists {listed}"
    assert not at_violation(browser) and count(browser, ".violated") == 0
    browser.press(Keys.ARROW_RIGHT, at)
    assert browser.index() == at
    assert at_violation(browser)
    assert count(browser, ".violated") >= 1
    browser.screenshot(f"explorer-{kind}-violation")
    browser.press(Keys.ARROW_LEFT)
    assert browser.index() == at - 1 and not at_violation(browser)
    browser.press(Keys.END)
    assert at_violation(browser) == (browser.index() in listed)
    assert browser.script_errors() == []


def test_a_lost_message_and_diverging_offsets_are_what_is_highlighted(browser: Browser, pages: Path) -> None:
    """NoAckedMessageLost marks the acked message missing from the log; TruncateWithinCommonPrefix the offsets the
    slave keeps beyond the common prefix."""
    trace = load_trace(str(TRACES / "kafka/K1-hw.itf.json"))
    open_page(browser, pages, "kafka/K1-hw.itf.json")
    browser.press(Keys.END)
    missing = browser.js("return Array.from(document.querySelectorAll('.msg.missing.violated')).map(function (c) { return Number(c.dataset.msg); })")
    last = trace.states[-1]
    held = {m for log in last["log"].values() for m, _ in log}
    assert missing and set(missing) <= held, f"highlighted {missing}; the logs hold {held}"
    assert all(m not in {m for m, _ in last["log"]["pA"]} for m in missing), "a highlighted lost message is in pA's log"
    step = load_trace(str(TRACES / "z3/kip101-truncation-step.itf.json"))
    open_page(browser, pages, "z3/kip101-truncation-step.itf.json")
    browser.press(Keys.END)
    offsets = browser.js("return Array.from(document.querySelectorAll('.msg.violated')).map(function (c) { return Number(c.dataset.offset); })")
    prefix = step.meta["expect"]["commonPrefix"]
    assert offsets and all(o >= prefix for o in offsets), f"highlighted offsets {offsets}, the common prefix is {prefix}"


@pytest.mark.parametrize("kind", ["lasso", "design-lasso"])
def test_stepping_past_a_lassos_end_returns_into_its_loop(kind: str, browser: Browser, pages: Path) -> None:
    trace, _ = KINDS[kind]
    loaded = load_trace(str(TRACES / trace))
    loop, last = loaded.loop, len(loaded.states) - 1
    open_page(browser, pages, trace)
    assert browser.js("return document.body.dataset.loop") == str(loop)
    assert count(browser, ".loop-marker") == 1
    browser.press(Keys.END)
    assert browser.index() == last
    browser.press(Keys.ARROW_RIGHT)
    assert browser.index() == min(loop + 1, last)  # the last state is state `loop` again; loop == last: it stutters
    browser.press(Keys.ARROW_RIGHT, last - loop + 1)
    assert loop <= browser.index() <= last
    browser.screenshot(f"explorer-{kind}-loop")




@pytest.fixture(scope="module")
def several_steps_loop(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The page of a lasso looping back from its last state (14) to state 11 (= state 10 again, then on)."""
    folder = tmp_path_factory.mktemp("lasso")
    spec = load_spec_config(ROOT / "spec" / "MC_data_reg1.cfg")
    trace = folder / "several.itf.json"
    write_several(trace, spec)
    for engine in ("reference", "impl"):
        assert replay_file(str(trace), engine).status == PASS, replay_file(str(trace), engine).describe()
    done = autoswitch("explain", str(trace), "--html", str(folder / "several.html"))
    assert done.returncode == 0, done.stdout + done.stderr
    return folder / "several.html"


def test_stepping_past_a_loop_of_several_steps_returns_to_the_state_after_its_start(browser: Browser, several_steps_loop: Path) -> None:
    browser.open(several_steps_loop.as_uri())
    last = len(SEVERAL)
    assert browser.js("return document.body.dataset.loop") == str(SEVERAL_LOOP)
    browser.press(Keys.END)
    at_end = browser.lanes_text()
    browser.press(Keys.ARROW_RIGHT)
    assert browser.index() == SEVERAL_LOOP + 1
    browser.press(Keys.ARROW_LEFT)
    assert browser.index() == SEVERAL_LOOP and browser.lanes_text() == at_end  # the last state is state SEVERAL_LOOP again
    seen = []
    for _ in range(2 * (last - SEVERAL_LOOP)):
        browser.press(Keys.ARROW_RIGHT)
        seen.append(browser.index())
    assert seen == 2 * list(range(SEVERAL_LOOP + 1, last + 1))  # round the loop twice: 11, 12, 13, 14, 11, ...
    browser.driver.find_element("css selector", ".loop-marker").click()
    assert browser.index() == SEVERAL_LOOP
    assert browser.script_errors() == []
    browser.screenshot("explorer-several-steps-loop")


def test_a_walk_that_is_no_lasso_stops_at_its_end(browser: Browser, pages: Path) -> None:
    open_page(browser, pages, KINDS["liveness-at-end"][0])
    assert browser.js("return document.body.dataset.loop") is None and count(browser, ".loop-marker") == 0
    browser.press(Keys.END)
    last = browser.index()
    browser.press(Keys.ARROW_RIGHT)
    assert browser.index() == last


def test_a_link_to_a_state_opens_the_page_there(browser: Browser, pages: Path) -> None:
    trace, at = KINDS["kafka-counterexample"]
    browser.open((pages / page_of(trace)).as_uri() + f"#state={at}")
    assert browser.index() == at and at_violation(browser)


def test_every_key_and_button_steps(browser: Browser, pages: Path) -> None:
    open_page(browser, pages, KINDS["kafka-counterexample"][0])
    last = len(load_trace(str(TRACES / KINDS["kafka-counterexample"][0])).states) - 1
    browser.press(Keys.ARROW_LEFT)
    assert browser.index() == 0
    for key, expected in (("j", 1), ("j", 2), ("k", 1), (Keys.ARROW_RIGHT, 2), (Keys.ARROW_LEFT, 1), (Keys.END, last), (Keys.HOME, 0)):
        browser.press(key)
        assert browser.index() == expected, f"after {key!r}"
    for button, expected in (("next", 1), ("next", 2), ("prev", 1)):
        browser.driver.find_element("id", button).click()
        assert browser.index() == expected, f"after #{button}"
    assert browser.script_errors() == []


def test_every_committed_traces_page_loads_and_reaches_its_end(browser: Browser, pages: Path) -> None:
    """Every page of ``autoswitch explain traces --html``: no script error, End shows the last state, and a trace that
    expects a violation at state i lists i among the violating states."""
    problems = []
    traces = sorted(TRACES.rglob("*.itf.json"))
    for path in traces:
        trace = path.relative_to(TRACES).as_posix()
        loaded = load_trace(str(path))
        open_page(browser, pages, trace)
        errors = browser.script_errors()
        browser.press(Keys.END)
        if errors or browser.index() != len(loaded.states) - 1:
            problems.append(f"{trace}: errors {errors}, End shows state {browser.index()} of {len(loaded.states)}")
        expect = loaded.meta.get("expect") or {}
        state = expect.get("state", 1 if loaded.meta.get("kind") == "truncation-step" else None)
        if "violation" in expect and state not in violations(browser):
            problems.append(f"{trace}: expects {expect['violation']} at state {state}; the page lists {violations(browser)}")
    assert problems == []
    assert len(traces) > 100
    browser.open((pages / "index.html").as_uri())
    assert count(browser, "#traces a") == len(traces)
    browser.screenshot("explorer-index")
