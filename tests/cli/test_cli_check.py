"""``autoswitch check``: every option, and every way a configuration argument or file can be wrong (exit 2,
before any search). The rows run on tests/cli/bad_specs.py's spec folder without TLC (TLA2TOOLS_JAR unset),
so each is the same everywhere and takes about a second at most."""

from __future__ import annotations

from pathlib import Path

import pytest
from bad_specs import spec_folder
from cli_cases import Case, run_case

S = ("--spec-dir", "{tmp}/spec")
O = ("--out", "{tmp}/out")

CASES = [
    Case("check-tiny-holds", ("check", "MC_tiny", *S, *O), 0, "MC_tiny"),
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
    Case("check-unknown-name", ("check", "MC_nothing", *S, *O), 2, "no such configuration"),
    Case("check-bad-name", ("check", "..", *S, *O), 2, "not a configuration name"),
    Case("check-path-is-a-file", ("check", "{tmp}/out/../x/MC.cfg", *O), 0, "MC.cfg"),
    Case("check-no-spec-dir", ("check", "MC_tiny", "--spec-dir", "{tmp}/nothing", *O), 2, "holds no AutoSwitch.tla"),
    Case("check-out-is-a-file", ("check", "MC_tiny", *S, "--out", "{tmp}/a-file"), 2, "a-file"),
]


@pytest.fixture(autouse=True)
def no_tools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TLA2TOOLS_JAR", raising=False)
    spec_folder(tmp_path)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_cli(case: Case, tmp_path: Path) -> None:
    run_case(case, tmp_path)
