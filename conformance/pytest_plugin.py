"""The pytest plugin (entry point ``pytest11``): ``pytest --autoswitch-traces DIR`` collects every ``*.itf.json`` under
DIR as a test item replayed on the chosen engines, the divergence report as the failure message."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("autoswitch")
    group.addoption("--autoswitch-traces", action="append", default=[], metavar="DIR",
                    help="collect every *.itf.json under DIR as a test replayed by autoswitch")
