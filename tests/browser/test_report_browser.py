"""A campaign's ``report.html`` (conformance/html/report.py) in headless Chromium: it opens with no script error and
no fetch, its plots are inlined and decode, and each failure's link opens that failure's explorer page at a violation."""

from pathlib import Path

import pytest
from harness import NOT_CHECKED, Browser, autoswitch

Keys = pytest.importorskip("selenium.webdriver.common.keys", reason=f"selenium is not installed: {NOT_CHECKED}").Keys
pytestmark = pytest.mark.slow

# a safety control and a liveness control that a few short walks find (seed 1), in this process: a few seconds
CONFIGS = ("unclean-rocketmq-2p", "retry-off-rocketmq-2p-live")
CAMPAIGN = ("--walks", "40", "--length", "60", "--chunk", "40", "--sample", "0", "--master", "none", "--seed", "1")


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("campaign") / "out"
    done = autoswitch("simulate", *CAMPAIGN, "--configs", ",".join(CONFIGS), "--out", str(out))
    assert done.returncode == 0, f"autoswitch simulate exited {done.returncode}:\n{done.stdout}{done.stderr}"
    assert (out / "report.html").is_file() and (out / "report.md").is_file()
    return out


def failure_links(browser: Browser) -> list[str]:
    """The hrefs of the report's links to explorer pages, each once."""
    hrefs = browser.js("return Array.from(document.querySelectorAll('a[href]')).map(function (a) { return a.getAttribute('href'); })")
    return sorted({h for h in hrefs if h.endswith(".html")})


def test_the_report_loads_with_its_plots_inlined(browser: Browser, campaign: Path) -> None:
    browser.open((campaign / "report.html").as_uri())
    assert browser.script_errors() == []
    assert browser.fetched() == [], "report.html is not self-contained"
    plots = browser.js("return Array.from(document.images).map(function (i) { return [i.src.slice(0, 22), i.complete && i.naturalWidth > 0]; })")
    assert len(plots) >= 2 and all(p == ["data:image/png;base64,", True] for p in plots), plots
    text = browser.js("return document.body.innerText")
    for name in CONFIGS:
        assert name in text
    browser.screenshot("report")


def test_each_failure_link_opens_its_explorer_page_at_a_violation(browser: Browser, campaign: Path) -> None:
    browser.open((campaign / "report.html").as_uri())
    links = failure_links(browser)
    assert {link.split("/")[1] for link in links} == set(CONFIGS), f"one failure page per control; links: {links}"
    for link in links:
        browser.open((campaign / "report.html").as_uri())
        browser.follow(f'#failures a[href="{link}"]', (campaign / link).as_uri())
        assert browser.script_errors() == []
        assert browser.js("return document.getElementById('state-index').dataset.index") == "0"
        listed = browser.js("return document.body.dataset.violations")
        assert listed, f"{link}: a failure's page lists no violating state"
        browser.press(Keys.END)
        assert browser.js("return document.body.classList.contains('at-violation')"), f"{link}: the last state is not a violation"
        assert browser.js("return document.querySelectorAll('.violated').length") >= 1
        browser.screenshot(f"report-{link.removesuffix('.html')}")
