"""``autoswitch tla``: every option, and every way a configuration argument or file can be wrong (exit 2,
before any tool runs). The rows run without TLC or Apalache (TLA2TOOLS_JAR and APALACHE_HOME unset, nothing
on PATH): a good command line is reported skipped, "NOT CHECKED" with exit 0, as documented. The tools'
verdicts, from fake executables, are in tests/unit/test_tool_output.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from bad_specs import spec_folder
from cli_cases import Case, run_case

S = ("--spec-dir", "{tmp}/spec")
O = ("--out", "{tmp}/out")
SKIPPED = "NOT CHECKED with"

CASES = [
    Case("tla-tlc-skipped", ("tla", "MC_neg_union", *S, *O), 0, f"{SKIPPED} tlc (TLA2TOOLS_JAR not set): MC_neg_union"),
    Case("tla-tool-tlc-workers-timeout", ("tla", "MC_data", "--tool", "tlc", "--workers", "2", "--timeout", "30", *S, *O), 0,
         SKIPPED),
    Case("tla-apalache-skipped", ("tla", "MC_data", "--tool", "apalache", "--length", "3", *S, *O), 0, f"{SKIPPED} apalache"),
    Case("tla-apalache-simulate", ("tla", "MC_data", "--tool", "apalache", "--simulate", "--max-run", "2", *S, *O), 0, SKIPPED),
    Case("tla-cfg-suffix", ("tla", "MC_data.cfg", *S, *O), 0, f"{SKIPPED} tlc (TLA2TOOLS_JAR not set): MC_data"),
    Case("tla-unknown-tool", ("tla", "MC_data", "--tool", "spin", *S, *O), 2, "spin"),
    Case("tla-simulate-needs-apalache", ("tla", "MC_data", "--simulate", *S, *O), 2, "--simulate is for --tool apalache"),
    Case("tla-workers-zero", ("tla", "MC_data", "--workers", "0", *S, *O), 2, "--workers"),
    Case("tla-workers-negative", ("tla", "MC_data", "--workers", "-2", *S, *O), 2, "--workers"),
    Case("tla-workers-not-a-number", ("tla", "MC_data", "--workers", "many", *S, *O), 2, "--workers"),
    Case("tla-timeout-zero", ("tla", "MC_data", "--timeout", "0", *S, *O), 2, "--timeout"),
    Case("tla-timeout-negative", ("tla", "MC_data", "--timeout", "-5", *S, *O), 2, "--timeout"),
    Case("tla-length-negative", ("tla", "MC_data", "--tool", "apalache", "--length", "-1", *S, *O), 2, "--length"),
    Case("tla-max-run-zero", ("tla", "MC_data", "--tool", "apalache", "--simulate", "--max-run", "0", *S, *O), 2, "--max-run"),
    Case("tla-bad-value", ("tla", "MC_bad_value", *S, *O), 2, "cannot read the value 'two'"),
    Case("tla-unknown-constant", ("tla", "MC_unknown_constant", *S, *O), 2, "unknown constant(s) MaxEpochs"),
    Case("tla-wrong-type", ("tla", "MC_wrong_type", *S, *O), 2, "must be an integer"),
    Case("tla-unknown-invariant", ("tla", "MC_unknown_invariant", *S, *O), 2, "no property NoSuchInvariant"),
    Case("tla-garbage", ("tla", "MC_garbage", *S, *O), 2, "MC_garbage.cfg:3"),
    Case("tla-binary", ("tla", "MC_binary", *S, *O), 2, "not UTF-8 text"),
    Case("tla-directory-named-cfg", ("tla", "MC_dir", *S, *O), 2, "not a regular file"),
    Case("tla-unknown-name", ("tla", "MC_nothing", *S, *O), 2, "no such configuration"),
    Case("tla-bad-name", ("tla", "..", *S, *O), 2, "not a configuration name"),
    Case("tla-path-is-a-file-named-by-its-stem", ("tla", "{tmp}/out/../x/MC.cfg", *O), 0,
         f"{SKIPPED} tlc (TLA2TOOLS_JAR not set): MC"),
    Case("tla-no-spec-dir", ("tla", "MC_data", "--spec-dir", "{tmp}/nothing", *O), 2, "holds no AutoSwitch.tla"),
    Case("tla-out-is-a-file", ("tla", "MC_data", *S, "--out", "{tmp}/a-file"), 2, "a-file"),
]


@pytest.fixture(autouse=True)
def no_tools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TLA2TOOLS_JAR", raising=False)
    monkeypatch.delenv("APALACHE_HOME", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "no-tools"))
    spec_folder(tmp_path)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_cli(case: Case, tmp_path: Path) -> None:
    run_case(case, tmp_path)
