"""``autoswitch tla``: the command-line table's rows, with neither TLC nor Apalache to be found: every configuration
is reported NOT CHECKED (exit 0), and bad arguments are refused before that (exit 2)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_cases import Case, run_case
from cli_files import BRACKETS, prepare

from autoswitch.conformance.check.specconfig import use_spec_dir

TINY = "{tmp}/cfg/MC_tiny.cfg"

CASES = [
    Case("tla-tlc-missing", ("tla", TINY, "--tool", "tlc", "--workers", "2", "--timeout", "1.5", "--out", "{tmp}/o"), 0,
         "NOT CHECKED with tlc (TLA2TOOLS_JAR not set)"),
    Case("tla-apalache-missing", ("tla", TINY, "--tool", "apalache", "--simulate", "--length", "3", "--max-run", "1",
                                  "--spec-dir", "{spec}", "--out", "{tmp}/o"), 0, "NOT CHECKED with apalache"),
    # the configuration's name with "[" in it was read as rich markup
    Case("tla-brackets-in-config", ("tla", f"{{tmp}}/{BRACKETS}/MC_tiny.cfg", "--out", "{tmp}/o"), 0, "NOT CHECKED"),
    Case("tla-unknown-tool", ("tla", TINY, "--tool", "nusmv"), 2, "--tool"),
    Case("tla-zero-workers", ("tla", TINY, "--workers", "0"), 2, "--workers"),
    Case("tla-zero-timeout", ("tla", TINY, "--timeout", "0"), 2, "--timeout"),
    Case("tla-negative-timeout", ("tla", TINY, "--timeout", "-5"), 2, "--timeout"),
    Case("tla-zero-length", ("tla", TINY, "--tool", "apalache", "--length", "0"), 2, "--length"),
    Case("tla-zero-max-run", ("tla", TINY, "--tool", "apalache", "--simulate", "--max-run", "0"), 2, "--max-run"),
    Case("tla-simulate-with-tlc", ("tla", TINY, "--simulate"), 2, "--simulate is for --tool apalache"),
    Case("tla-unknown-config", ("tla", "MC_nothing", "--out", "{tmp}/o"), 2, "no such configuration"),
    Case("tla-not-a-config", ("tla", "{spec}/AutoSwitch.tla", "--out", "{tmp}/o"), 2, "the first line must say"),
    Case("tla-out-is-a-file", ("tla", TINY, "--out", "{tmp}/afile"), 2, "is a file"),
    Case("tla-out-under-a-file", ("tla", TINY, "--out", "/dev/null/o"), 2, "--out /dev/null/o: cannot create"),
    Case("tla-no-spec-dir", ("tla", "MC_neg_union", "--spec-dir", "{tmp}/empty"), 2, "holds no AutoSwitch.tla"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_cli(case: Case, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("TLA2TOOLS_JAR", "APALACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # no java, no apalache-mc
    prepare(tmp_path)
    try:
        run_case(case, tmp_path)
    finally:
        use_spec_dir(None)  # --spec-dir holds for the rest of the process: the next test takes the default again
