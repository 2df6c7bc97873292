"""The command-line test table's row format (tests/cli/README in tests/README.md).

Each ``tests/cli/test_cli_*.py`` holds ``CASES``, a list of :class:`Case`, and runs them with
:func:`run_case`. ``test_coverage.py`` checks that every option of every command appears in some row.
"""

from __future__ import annotations

from pathlib import Path

from attrs import frozen
from click.testing import CliRunner, Result

from autoswitch.conformance.cli import main

CHECKOUT = Path(__file__).resolve().parents[2]


@frozen
class Case:
    """``autoswitch ARGS`` must exit ``code`` and print ``says`` (a substring of stdout+stderr, if given).

    In ``args``, ``{tmp}`` is a fresh temporary folder, ``{traces}`` the committed corpus, ``{spec}`` the
    checkout's spec folder."""

    id: str
    args: tuple[str, ...]
    code: int
    says: str = ""


def expand(arg: str, tmp: Path) -> str:
    return arg.format(tmp=tmp, traces=CHECKOUT / "traces", spec=CHECKOUT / "spec")


def run_case(case: Case, tmp: Path) -> Result:
    """Run one row in this process and assert its exit code and message."""
    result = CliRunner().invoke(main, [expand(a, tmp) for a in case.args], catch_exceptions=False)
    output = result.output + (result.stderr if result.stderr_bytes is not None else "")
    assert result.exit_code == case.code, f"{case.id}: exit {result.exit_code}, expected {case.code}\n{output[-3000:]}"
    assert case.says in output, f"{case.id}: output lacks {case.says!r}\n{output[-3000:]}"
    return result
