"""``autoswitch tla``: every option, and every way a configuration argument or file can be wrong (exit 2, before any
tool runs). The rows run with neither TLC nor Apalache to be found (TLA2TOOLS_JAR and APALACHE_HOME unset, nothing on
PATH): a good command line is reported NOT CHECKED with exit 0, as documented. The files are cli_files.py's
(``{tmp}/cfg``) and bad_specs.py's (``--spec-dir {tmp}/spec``). The tools' verdicts, from fake executables, are in
tests/unit/test_tool_output.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from bad_specs import run_spec_case
from cli_cases import Case
from cli_files import BRACKETS

TINY = "{tmp}/cfg/MC_tiny.cfg"
S = ("--spec-dir", "{tmp}/spec")
O = ("--out", "{tmp}/out")
SKIPPED = "NOT CHECKED with"

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
    # bad_specs.py's spec folder
    Case("tla-tlc-skipped", ("tla", "MC_neg_union", *S, *O), 0, f"{SKIPPED} tlc (TLA2TOOLS_JAR not set): MC_neg_union"),
    Case("tla-tool-tlc-workers-timeout", ("tla", "MC_data", "--tool", "tlc", "--workers", "2", "--timeout", "30", *S, *O), 0,
         SKIPPED),
    Case("tla-apalache-skipped", ("tla", "MC_data", "--tool", "apalache", "--length", "3", *S, *O), 0, f"{SKIPPED} apalache"),
    Case("tla-apalache-simulate", ("tla", "MC_data", "--tool", "apalache", "--simulate", "--max-run", "2", *S, *O), 0, SKIPPED),
    Case("tla-cfg-suffix", ("tla", "MC_data.cfg", *S, *O), 0, f"{SKIPPED} tlc (TLA2TOOLS_JAR not set): MC_data"),
    Case("tla-workers-negative", ("tla", "MC_data", "--workers", "-2", *S, *O), 2, "--workers"),
    Case("tla-workers-not-a-number", ("tla", "MC_data", "--workers", "many", *S, *O), 2, "--workers"),
    Case("tla-length-negative", ("tla", "MC_data", "--tool", "apalache", "--length", "-1", *S, *O), 2, "--length"),
    Case("tla-bad-value", ("tla", "MC_bad_value", *S, *O), 2, "cannot read the value 'two'"),
    Case("tla-unknown-constant", ("tla", "MC_unknown_constant", *S, *O), 2, "unknown constant(s) MaxEpochs"),
    Case("tla-wrong-type", ("tla", "MC_wrong_type", *S, *O), 2, "must be an integer"),
    Case("tla-unknown-invariant", ("tla", "MC_unknown_invariant", *S, *O), 2, "no property NoSuchInvariant"),
    Case("tla-garbage", ("tla", "MC_garbage", *S, *O), 2, "MC_garbage.cfg:3"),
    Case("tla-binary", ("tla", "MC_binary", *S, *O), 2, "not UTF-8 text"),
    Case("tla-directory-named-cfg", ("tla", "MC_dir", *S, *O), 2, "not a regular file"),
    Case("tla-bad-name", ("tla", "..", *S, *O), 2, "not a configuration name"),
    Case("tla-path-is-a-file-named-by-its-stem", ("tla", "{tmp}/out/../x/MC.cfg", *O), 0,
         f"{SKIPPED} tlc (TLA2TOOLS_JAR not set): MC"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_cli(case: Case, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("TLA2TOOLS_JAR", "APALACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # no java, no apalache-mc
    run_spec_case(case, tmp_path)
