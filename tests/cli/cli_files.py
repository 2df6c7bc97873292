"""Files the command-line rows point at (``prepare`` makes them under a row's ``{tmp}``): tiny spec configurations,
a malformed trace, a plain file where a folder is expected, and a path with ``[`` (rich markup) in it."""

from __future__ import annotations

import shutil
from pathlib import Path

from cli_cases import CHECKOUT

SPEC = CHECKOUT / "spec"
BRACKETS = "c[/x]"  # rich markup reads "[/x]" as a closing tag: printed with markup on, it crashes or vanishes


def tiny_config(text: str, **constants: object) -> str:
    """A copy of a configuration's text with some constants changed."""
    for name, value in constants.items():
        text = "\n".join(f"    {name} = {value}" if line.strip().startswith(f"{name} =") else line for line in text.splitlines())
    return text + "\n"


def prepare(tmp: Path) -> None:
    """``{tmp}/afile``: a file; ``{tmp}/empty/``: an empty folder; ``{tmp}/bad/x.itf.json``: not JSON;
    ``{tmp}/cfg/`` and ``{tmp}/c[/x]/``: MC_data.tla with two configurations of two states each: ``MC_tiny.cfg``
    (safe, holds) and ``MC_neg_zeroack.cfg`` (a negative control by its name, whose violation is out of reach: a
    verdict that fails)."""
    (tmp / "afile").write_text("not a folder\n")
    (tmp / "empty").mkdir()
    (tmp / "bad").mkdir()
    (tmp / "bad" / "x.itf.json").write_text("{\n")
    tiny = dict(DataPath="FALSE", MaxEpoch=1, MaxClock=1)
    control = (SPEC / "MC_neg_zeroack.cfg").read_text()
    for folder in (tmp / "cfg", tmp / BRACKETS):
        folder.mkdir(parents=True)
        shutil.copy(SPEC / "MC_data.tla", folder)
        (folder / "MC_tiny.cfg").write_text(tiny_config(control, ConfirmZeroAckFix="TRUE", **tiny))
        (folder / "MC_neg_zeroack.cfg").write_text(tiny_config(control, **tiny))
