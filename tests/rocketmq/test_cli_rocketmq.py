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
    (("replay", str(TRACES / "epoch-file"), "--against", "rocketmq", "--quiet"), 1, "E3-truncate-prefix"),
])
def test_replay_on_the_real_code(args: tuple[str, ...], code: int, says: str) -> None:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == code, result.output[-2000:]
    assert says in result.output


@pytest.mark.parametrize(("args", "code", "says"), [
    (("--configs", "safe-rocketmq-2p", "--walks", "4", "--length", "40"), 0, "--against rocketmq"),
    (("--configs", "safe-kip279-2p", "--walks", "4"), 2, "not RocketMQ's controller mode"),
    (("--configs", "unclean-rocketmq-2p", "--walks", "30", "--length", "60"), 0, "NoAckedMessageLost"),
])
def test_simulate_against_the_real_code(args: tuple[str, ...], code: int, says: str, tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["simulate", *args, "--against", "rocketmq", "--master", "none",
                                       "--out", str(tmp_path / "out")])
    assert result.exit_code == code, result.output[-2000:]
    assert says in result.output


def test_simulate_against_the_real_code_defaults_to_controller_mode(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["simulate", "--against", "rocketmq", "--master", "none", "--walks", "1",
                                       "--length", "5", "--out", str(tmp_path / "out")])
    assert result.exit_code == 1, result.output[-2000:]  # one short walk finds few negative controls
    assert "safe-rocketmq-3p-live" in result.output and "unclean-rocketmq-2p" in result.output
    assert "kip279" not in result.output and "safe-hw" not in result.output


def test_bench_times_the_real_engine_beside_the_models() -> None:
    result = CliRunner().invoke(main, ["bench", "--walks", "5", "--length", "30", "--rounds", "1", "--rocketmq"])
    assert result.exit_code == 0, result.output[-2000:]
    assert "rocketmq" in result.output and "reference" in result.output
