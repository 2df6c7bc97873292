"""Every option of every ``autoswitch`` command appears in at least one row of the command-line table."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import click
import pytest
from cli_cases import Case

from autoswitch.conformance.cli import main

HERE = Path(__file__).resolve().parent


def _all_cases() -> list[Case]:
    cases: list[Case] = []
    for path in sorted(HERE.glob("test_cli_*.py")):
        spec = importlib.util.spec_from_file_location(path.stem, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        cases.extend(module.CASES)
    return cases


def _options(command: click.Command) -> list[tuple[str, ...]]:
    """Each option's spellings (``--replay``, ``--no-replay``): a row using any of them covers it."""
    return [(*p.opts, *p.secondary_opts) for p in command.params if isinstance(p, click.Option) and p.opts[0] != "--help"]


@pytest.mark.parametrize("name", sorted(main.commands))
def test_every_option_of_the_command_has_a_row(name: str) -> None:
    rows = [c for c in _all_cases() if c.args and c.args[0] == name]
    assert rows, f"no row of the command-line table runs 'autoswitch {name}'"
    used = {a.split("=")[0] for c in rows for a in c.args}
    missing = [spellings[0] for spellings in _options(main.commands[name]) if not used & set(spellings)]
    assert not missing, f"autoswitch {name}: no row uses {', '.join(missing)}"
    assert any(c.code == 2 for c in rows), f"autoswitch {name}: no row gives it bad input (exit 2)"
