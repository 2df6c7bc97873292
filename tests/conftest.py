"""The ``slow`` marker: every test under ``tests/tools/`` is slow (tests/README.md)."""

from pathlib import Path

import pytest

TOOLS = Path(__file__).resolve().parent / "tools"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if TOOLS in item.path.parents:
            item.add_marker(pytest.mark.slow)
