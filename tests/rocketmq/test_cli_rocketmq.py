"""``autoswitch replay --against rocketmq|all`` and ``--rocketmq-version`` on a machine with java and mvn."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from autoswitch.conformance.cli import main

TRACES = Path(__file__).resolve().parents[2] / "traces"
B1 = str(TRACES / "broker-id" / "B1-first-start.itf.json")


@pytest.mark.parametrize(("args", "code", "says"), [
    (("replay", B1, "--against", "rocketmq"), 0, "[rocketmq]: pass (7/7 states)"),
    (("replay", B1, "--against", "all"), 0, "[rocketmq]: pass"),
    (("replay", B1, "--against", "rocketmq", "--rocketmq-version", "5.1.4"), 0, "[rocketmq@5.1.4]: pass"),
    (("replay", str(TRACES / "designs"), "--against", "rocketmq"), 0, "not asked: the masterslave design"),
    (("replay", str(TRACES / "controller"), "--against", "rocketmq", "--quiet"), 1, "C11-elect-trigger-nobody-alive"),
])
def test_replay_on_the_real_code(args: tuple[str, ...], code: int, says: str) -> None:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == code, result.output[-2000:]
    assert says in result.output
