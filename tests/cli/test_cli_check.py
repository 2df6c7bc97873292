"""``autoswitch check``: the command-line table's rows (TLC hidden: ``--tlc`` says it was not run)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_cases import Case, run_case
from cli_files import BRACKETS, prepare

from autoswitch.conformance.check.specconfig import use_spec_dir

TINY = "{tmp}/cfg/MC_tiny.cfg"  # holds, two states
NOT_FOUND = "{tmp}/cfg/MC_neg_zeroack.cfg"  # a negative control whose violation is out of reach: the verdict fails

CASES = [
    Case("check-tiny-holds", ("check", TINY, "--no-replay", "--out", "{tmp}/o"), 0, "MC_tiny.cfg"),
    Case("check-symmetry-and-spec-dir", ("check", TINY, "--symmetry", "--replay", "--spec-dir", "{spec}", "--out", "{tmp}/o"), 0),
    Case("check-tlc-missing", ("check", TINY, "--no-symmetry", "--tlc", "--out", "{tmp}/o"), 0, "TLC was NOT run"),
    # the control found, its counterexample replayed; a folder with "[" in its name, or a configuration's name, was read as
    # rich markup (in the table and the status line)
    Case("check-control-found", ("check", "MC_neg_zeroack", "--out", "{tmp}/o[/x]"), 0,
         "o[/x]/MC_neg_zeroack.itf.json [impl]: pass"),
    Case("check-brackets-in-config", ("check", f"{{tmp}}/{BRACKETS}/MC_tiny.cfg", "--out", "{tmp}/o"), 0, "MC_tiny.cfg"),
    Case("check-control-not-found", ("check", NOT_FOUND, "--out", "{tmp}/o"), 1),
    Case("check-unknown-config", ("check", "MC_nothing", "--out", "{tmp}/o"), 2, "no such configuration"),
    Case("check-not-a-config", ("check", "{spec}/AutoSwitch.tla", "--out", "{tmp}/o"), 2, "the first line must say"),
    # a batch: a bad configuration makes it exit 2 while the others still run; a failed verdict outranks it
    Case("check-bad-and-good", ("check", "MC_nothing", TINY, "--out", "{tmp}/o"), 2, "MC_tiny.cfg"),
    Case("check-bad-and-failed", ("check", "MC_nothing", NOT_FOUND, "--out", "{tmp}/o"), 1, "no such configuration"),
    Case("check-out-is-a-file", ("check", TINY, "--out", "{tmp}/afile"), 2, "is a file"),
    Case("check-out-under-a-file", ("check", TINY, "--out", "/dev/null/o"), 2, "--out /dev/null/o: cannot create"),
    Case("check-no-spec-dir", ("check", "MC_neg_zeroack", "--spec-dir", "{tmp}/empty"), 2, "holds no AutoSwitch.tla"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_cli(case: Case, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TLA2TOOLS_JAR", raising=False)
    prepare(tmp_path)
    try:
        run_case(case, tmp_path)
    finally:
        use_spec_dir(None)  # --spec-dir holds for the rest of the process: the next test takes the default again
