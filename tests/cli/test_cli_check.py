"""``autoswitch check``: every option, and every way a configuration argument or file can be wrong. The rows run
without TLC (TLA2TOOLS_JAR unset: ``--tlc`` says it was not run) on two sets of files: cli_files.py's (``{tmp}/cfg``,
configurations given by path) and bad_specs.py's spec folder (``--spec-dir {tmp}/spec``: one malformed
configuration per way a ``.cfg`` can be wrong, each exit 2 before its search). Each row takes about a second at most."""

from __future__ import annotations

from pathlib import Path

import pytest
from bad_specs import run_spec_case
from cli_cases import Case
from cli_files import BRACKETS

TINY = "{tmp}/cfg/MC_tiny.cfg"  # holds, two states
NOT_FOUND = "{tmp}/cfg/MC_neg_zeroack.cfg"  # a negative control whose violation is out of reach: the verdict fails
S = ("--spec-dir", "{tmp}/spec")
O = ("--out", "{tmp}/out")

CASES = [
    Case("check-tiny-holds", ("check", TINY, "--no-replay", "--out", "{tmp}/o"), 0, "MC_tiny.cfg"),
    Case("check-tiny-workers-memory-checkpoint", ("check", TINY, "--no-replay", "--workers", "2", "--memory", "10",
                                                  "--checkpoint", "{tmp}/ck", "--out", "{tmp}/o"), 0, "MC_tiny.cfg"),
    # --master none: the Spark search's own way of saying "this process" (check_master's values); a bad URL is bad input
    Case("check-tiny-master-none", ("check", TINY, "--no-replay", "--master", "none", "--out", "{tmp}/o"), 0, "MC_tiny.cfg"),
    Case("check-master-bad-url", ("check", TINY, "--no-replay", "--master", "nowhere", "--out", "{tmp}/o"), 2, "--master 'nowhere'"),
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
    # bad_specs.py's spec folder
    Case("check-name-in-spec-dir", ("check", "MC_tiny", *S, *O), 0, "MC_tiny"),
    Case("check-cfg-suffix", ("check", "MC_tiny.cfg", *S, *O), 0, "MC_tiny"),
    Case("check-symmetry", ("check", "MC_tiny", "--symmetry", *S, *O), 0, "MC_tiny"),
    Case("check-no-symmetry", ("check", "MC_tiny", "--no-symmetry", *S, *O), 0, "MC_tiny"),
    Case("check-negative-control-replays", ("check", "MC_neg_shortcut", "--replay", *S, *O), 0, "NoPhantomRead"),
    Case("check-no-replay", ("check", "MC_neg_shortcut", "--no-replay", *S, *O), 0, "MC_neg_shortcut.itf.json"),
    Case("check-tlc-missing-says-not-run", ("check", "MC_tiny", "--tlc", *S, *O), 0, "TLC was NOT run"),
    Case("check-bad-value", ("check", "MC_bad_value", *S, *O), 2, "cannot read the value 'two'"),
    Case("check-unknown-constant", ("check", "MC_unknown_constant", *S, *O), 2, "unknown constant(s) MaxEpochs"),
    Case("check-wrong-type", ("check", "MC_wrong_type", *S, *O), 2, "must be an integer"),
    Case("check-negative-bound", ("check", "MC_negative", *S, *O), 2, "a bound of at least 0"),
    Case("check-too-large", ("check", "MC_too_large", *S, *O), 2, "too large for the explicit-state checker"),
    Case("check-unknown-invariant", ("check", "MC_unknown_invariant", *S, *O), 2, "no property NoSuchInvariant"),
    Case("check-garbage", ("check", "MC_garbage", *S, *O), 2, "MC_garbage.cfg:3"),
    Case("check-binary", ("check", "MC_binary", *S, *O), 2, "not UTF-8 text"),
    Case("check-huge-integer", ("check", "MC_huge_int", *S, *O), 2, "integers of up to 9 digits"),
    Case("check-directory-named-cfg", ("check", "MC_dir", *S, *O), 2, "not a regular file"),
    Case("check-bad-name", ("check", "..", *S, *O), 2, "not a configuration name"),
    Case("check-bad-design", ("check", "MC_bad_design", *S, *O), 2,
         "MC_bad_design.cfg:25: Design = 'raft': must be one of 'controller', 'masterslave', 'dledger'"),
    Case("check-design-not-its-init", ("check", "MC_design_init", *S, *O), 2,
         "InitRegistered does not start the dledger design (Design = 'dledger', line 25)"),
    Case("check-path-is-a-file", ("check", "{tmp}/out/../x/MC.cfg", *O), 0, "MC.cfg"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_cli(case: Case, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TLA2TOOLS_JAR", raising=False)
    run_spec_case(case, tmp_path)
