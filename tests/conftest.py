from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TRACES = ROOT / "traces"


@pytest.fixture
def traces_dir() -> Path:
    return TRACES
