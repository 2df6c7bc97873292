"""``autoswitch compare`` and ``autoswitch check --invariant/--property``. The check rows run on bad_specs.py's spec folder
(``--spec-dir {tmp}/spec``: the checkout's configurations beside ``MC_tiny``) and on cli_files.py's ``{tmp}/cfg``; the
compare rows on the checkout's spec (the designs' configurations)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bad_specs import run_spec_case
from cli_cases import Case, run_case

from autoswitch.conformance.check.specconfig import use_spec_dir

S = ("--spec-dir", "{tmp}/spec")
O = ("--out", "{tmp}/out")
FAR = "{tmp}/cfg/MC_neg_zeroack.cfg"  # a negative control whose violation is out of reach (two states)

CHECK_CASES = [
    Case("check-invariant-alone-found", ("check", "MC_neg_shortcut", "--invariant", "NoPhantomRead", *S, *O), 0,
         "NoPhantomRead, 19 steps"),
    Case("check-invariant-and-property", ("check", "MC_tiny", "--invariant", "TypeOK", "--property", "BrokerIdStable", *S, *O), 0,
         "MC_tiny"),
    # the control's invariant left out: nothing to find, it must hold; asked for, its absence fails the verdict
    Case("check-control-left-out-holds", ("check", FAR, "--invariant", "TypeOK", *O), 0, "MC_neg_zeroack"),
    Case("check-control-asked-not-found", ("check", FAR, "--invariant", "NoPhantomRead", *O), 1),
    Case("check-liveness-alone", ("check", "{spec}/MC_live_data.cfg", "--property", "EventuallyAnswered", *O), 0, "EventuallyAnswered holds"),
    Case("check-unknown-invariant-option", ("check", "MC_tiny", "--invariant", "NoSuch", *S, *O), 2, "no property NoSuch"),
    Case("check-liveness-on-a-safety-configuration", ("check", "MC_tiny", "--property", "EventuallyMaster", *S, *O), 2,
         "EventuallyMaster is a liveness property"),
    Case("check-tlc-with-a-subset", ("check", "MC_tiny", "--tlc", "--invariant", "TypeOK", *S, *O), 2,
         "--tlc checks every property"),
]
COMPARE_CASES = [
    Case("compare-ms-async", ("compare", "--designs", "ms-async", "--out", "{tmp}/o", "--traces", "{tmp}/t", "--markdown"), 0,
         "| NoAckedMessageLost | **violated**, 3 steps<br>`autoswitch check MC_ms_async --invariant NoAckedMessageLost` |"),
    Case("compare-two-designs", ("compare", "--designs", "ms-sync,dledger-2", "--spec-dir", "{spec}", "--out", "{tmp}/o"), 0,
         "dledger-2    EventuallyMaster         violated, lasso of 1 step"),
    Case("compare-unknown-design", ("compare", "--designs", "ms-async,raft-7", "--out", "{tmp}/o"), 2, "raft-7: the designs are"),
    Case("compare-out-is-a-file", ("compare", "--designs", "ms-async", "--out", "{tmp}/afile"), 2, "is a file"),
]
CASES = CHECK_CASES + COMPARE_CASES


@pytest.mark.parametrize("case", CHECK_CASES, ids=lambda c: c.id)
def test_check_subset(case: Case, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TLA2TOOLS_JAR", raising=False)
    run_spec_case(case, tmp_path)


@pytest.mark.parametrize("case", COMPARE_CASES, ids=lambda c: c.id)
def test_compare(case: Case, tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("not a folder\n")
    try:
        run_case(case, tmp_path)
    finally:
        use_spec_dir(None)
    if case.id == "compare-ms-async":  # the results, the table and each counterexample, replaying to its violation
        cells = json.loads((tmp_path / "o" / "compare.json").read_text())
        assert {c["prop"]: c["status"] for c in cells}["NoAckedMessageLost"] == "violated"
        assert (tmp_path / "o" / "compare.md").read_text().startswith("| property | 4.x ASYNC_MASTER")
        assert sorted(p.name for p in (tmp_path / "t").iterdir()) == [f"ms-async-{p}.itf.json" for p in
                                                                       ("LogMatching", "NoAckedMessageLost", "NoPhantomRead")]
