"""``autoswitch z3-truncation`` and ``autoswitch z3-controller``: the command-line table's rows, and their output
with ``[`` in user text."""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest
from cli_cases import Case, run_case
from cli_files import prepare
from click.testing import CliRunner

from autoswitch.conformance.cli import main
from autoswitch.conformance.z3 import controller

TINY_CONTROLLER = ("--brokers", "1", "--walks", "1", "--length", "5", "--samples", "1")

CASES = [
    Case("z3-truncation-small", ("z3-truncation", "--bound", "3", "--epochs", "2"), 0, "kip101     counterexample"),
    Case("z3-truncation-write-traces", ("z3-truncation", "--bound", "2", "--epochs", "1", "--write-traces", "{tmp}/w"), 0,
         "hw-truncation-step.itf.json"),
    # with no log of one entry every policy was "proved", the unsafe ones too, and the command exited 0
    Case("z3-truncation-negative-bound", ("z3-truncation", "--bound", "-1"), 2, "--bound"),
    Case("z3-truncation-zero-bound", ("z3-truncation", "--bound", "0"), 2, "--bound"),
    Case("z3-truncation-zero-epochs", ("z3-truncation", "--epochs", "0"), 2, "--epochs"),
    Case("z3-truncation-traces-to-a-file", ("z3-truncation", "--bound", "2", "--write-traces", "{tmp}/afile"), 2, "is a file"),
    Case("z3-truncation-traces-under-a-file", ("z3-truncation", "--bound", "2", "--write-traces", "/dev/null/w"), 2,
         "--write-traces /dev/null/w: cannot create"),
    Case("z3-controller-tiny", ("z3-controller", *TINY_CONTROLLER, "--seed", "2", "--traces", "{tmp}/empty"), 0,
         "Init ⇒ IndInv: holds"),
    Case("z3-controller-zero-brokers", ("z3-controller", "--brokers", "0"), 2, "--brokers"),
    Case("z3-controller-zero-walks", ("z3-controller", "--walks", "0"), 2, "--walks"),
    Case("z3-controller-negative-length", ("z3-controller", "--length", "-3"), 2, "--length"),
    Case("z3-controller-zero-samples", ("z3-controller", "--samples", "0"), 2, "--samples"),
    Case("z3-controller-no-traces-folder", ("z3-controller", "--traces", "{tmp}/missing"), 2, "does not exist"),
    # a malformed trace in the corpus crashed with a traceback (exit 1)
    Case("z3-controller-malformed-trace", ("z3-controller", *TINY_CONTROLLER, "--traces", "{tmp}/bad"), 2, "x.itf.json"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_cli(case: Case, tmp_path: Path) -> None:
    prepare(tmp_path)
    run_case(case, tmp_path)


def test_z3_controller_prints_user_text_as_it_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A failed report prints its problems and the command line to reproduce it (with --traces): text with ``[`` in it
    was read as rich markup (``[/x]`` crashed the command)."""
    prepare(tmp_path)
    traces = tmp_path / "c[/x]"
    real = controller.check_controller
    monkeypatch.setattr(controller, "check_controller", lambda *args: attrs.evolve(real(*args), problems=("a [/x] problem",)))
    result = CliRunner().invoke(main, ["z3-controller", *TINY_CONTROLLER, "--traces", str(traces)])
    assert result.exit_code == 1, result.output
    assert "a [/x] problem" in result.output and f"--traces {traces}" in result.output
