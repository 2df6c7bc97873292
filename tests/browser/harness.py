"""What the browser tests share: :class:`Browser` (one headless Chromium driven by selenium), the command line, the
pages' names. Each page is opened with a ``window.onerror`` installed before its script runs (:data:`CATCH_ERRORS`)
and the browser's console log on (``goog:loggingPrefs``): :meth:`Browser.open` waits for ``body.dataset.ready == "1"``
and :meth:`Browser.script_errors` reads both."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
TRACES = ROOT / "traces"
CHROMIUM = ("chromium", "chromium-browser")
NOT_CHECKED = ("the explorer pages and report.html were not opened in a browser: no check of script errors, of stepping "
               "through states, of the violating state's highlighting, of the report's links")
CATCH_ERRORS = """window.__autoswitchErrors = [];
window.onerror = function (message, source, line, column) { window.__autoswitchErrors.push(message + " at " + source + ":" + line); };
window.addEventListener("unhandledrejection", function (e) { window.__autoswitchErrors.push("unhandled rejection: " + e.reason); });"""
WAIT_SECONDS = 15


def autoswitch(*args: str) -> subprocess.CompletedProcess[str]:
    """The command line, as a user runs it (the ``autoswitch`` script of this interpreter's environment)."""
    command = [str(Path(sys.executable).parent / "autoswitch"), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)


class Browser:
    """One headless Chromium for the session; the helpers the tests share."""

    def __init__(self, driver: Any, artefacts: Path) -> None:
        self.driver = driver
        self.artefacts = artefacts

    def open(self, url: str) -> None:
        """Load ``url`` and wait until its script has run."""
        self.driver.get(url)
        self.wait_ready()

    def follow(self, selector: str, url: str) -> None:
        """Click the element ``selector`` (a link to ``url``) and wait until ``url`` is loaded and ready."""
        from selenium.webdriver.support.ui import WebDriverWait

        self.driver.find_element("css selector", selector).click()
        WebDriverWait(self.driver, WAIT_SECONDS).until(lambda d: d.current_url == url, message=f"the link did not open {url}")
        self.wait_ready()

    def wait_ready(self) -> None:
        """Wait for ``body.dataset.ready == "1"`` on the current page."""
        from selenium.webdriver.support.ui import WebDriverWait

        WebDriverWait(self.driver, WAIT_SECONDS).until(
            lambda d: d.execute_script("return document.body !== null && document.body.dataset.ready === '1'"),
            message=f"document.body.dataset.ready never became '1' on {self.driver.current_url}")

    def js(self, script: str, *args: Any) -> Any:
        return self.driver.execute_script(script, *args)

    def script_errors(self) -> list[str]:
        """What ``window.onerror`` caught, then the console's SEVERE entries (reading the log empties it)."""
        caught = self.js("return window.__autoswitchErrors || ['the window.onerror hook was not installed']")
        return [*caught, *(e["message"] for e in self.driver.get_log("browser") if e["level"] == "SEVERE")]

    def fetched(self) -> list[str]:
        """The resources the page fetched (none: a page is self-contained)."""
        return self.js("return performance.getEntriesByType('resource').map(function (e) { return e.name; })")

    def press(self, key: str, times: int = 1) -> None:
        """A key pressed on the page, as a person does (selenium's Keys or a character)."""
        from selenium.webdriver.common.action_chains import ActionChains

        for _ in range(times):
            ActionChains(self.driver).send_keys(key).perform()

    def index(self) -> int:
        """``#state-index``: its text and its ``data-index`` must agree."""
        text, data = self.js("var e = document.getElementById('state-index'); return [e.textContent.trim(), e.dataset.index];")
        assert text == data, f"#state-index shows {text!r} but its data-index is {data!r}"
        return int(data)

    def lanes_text(self) -> str:
        return self.js("return Array.from(document.querySelectorAll('.lane')).map(function (l) { return l.innerText; }).join('\\n')")

    def screenshot(self, name: str) -> Path:
        path = self.artefacts / (re.sub(r"[^A-Za-z0-9._-]+", "_", name) + ".png")
        assert self.driver.save_screenshot(str(path)), f"no screenshot written to {path}"
        return path

def page_of(trace: str) -> str:
    """The page of a trace under ``traces/`` (explorer.page_name)."""
    return trace.removesuffix(".json").removesuffix(".itf") + ".html"
