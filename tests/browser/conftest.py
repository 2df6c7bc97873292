"""The browser tests' fixtures: headless Chromium through selenium and Debian's chromedriver (``chromium``,
``chromium-driver``; .ci/run installs them), found on PATH - without them every browser test skips, saying what was
not checked; the pages of every committed trace; the folder of screenshots (``$AUTOSWITCH_ARTEFACTS`` when set, else
one of pytest's temporary path), printed at the end of the run."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from harness import CATCH_ERRORS, CHROMIUM, NOT_CHECKED, TRACES, Browser, autoswitch

ARTEFACTS = pytest.StashKey[Path]()


@pytest.fixture(scope="session")
def artefacts(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``$AUTOSWITCH_ARTEFACTS`` (made if absent), else a folder of pytest's temporary path."""
    given = os.environ.get("AUTOSWITCH_ARTEFACTS")
    folder = Path(given) if given else tmp_path_factory.mktemp("browser-artefacts")
    folder.mkdir(parents=True, exist_ok=True)
    request.config.stash[ARTEFACTS] = folder
    return folder


@pytest.fixture(scope="session")
def browser(artefacts: Path) -> Iterator[Browser]:
    """Headless Chromium driven by chromedriver, both found on PATH; the tests skip when either is missing."""
    chromium = next((found for name in CHROMIUM if (found := shutil.which(name))), None)
    chromedriver = shutil.which("chromedriver")
    if chromium is None or chromedriver is None:
        missing = " and ".join(n for n, p in (("chromium", chromium), ("chromedriver", chromedriver)) if p is None)
        pytest.skip(f"{missing} not on PATH (Debian: apt-get install chromium chromium-driver): {NOT_CHECKED}")
    webdriver = pytest.importorskip("selenium.webdriver", reason=f"selenium is not installed (pip install -e '.[dev]'): {NOT_CHECKED}")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,1000",
                     "--no-first-run", "--disable-extensions"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(executable_path=chromedriver))
    try:
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": CATCH_ERRORS})
        yield Browser(driver, artefacts)
    finally:
        driver.quit()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    folder = config.stash.get(ARTEFACTS, None)
    if folder is not None and any(folder.glob("*.png")):
        terminalreporter.write_line(f"browser tests: {len(list(folder.glob('*.png')))} screenshots in {folder}")


@pytest.fixture(scope="session")
def pages(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every committed trace's explorer page, written by ``autoswitch explain traces --html OUT`` (each page at its
    trace's path under ``traces/``, ``.html`` for ``.itf.json``)."""
    out = tmp_path_factory.mktemp("pages")
    done = autoswitch("explain", str(TRACES), "--html", str(out))
    assert done.returncode == 0, f"autoswitch explain traces --html exited {done.returncode}:\n{done.stdout}{done.stderr}"
    return out
