"""``autoswitch bugs``: the known-bugs catalogue listed, printed as docs/known-bugs.md's table, one row reproduced (its
trace on both models, the fix, the fixed setting model-checked in a spec folder where ``MC_data_reg1`` is tiny, or
where it is broken: exit 1); an unknown row or a spec folder without the modules is bad input (exit 2)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from cli_cases import CHECKOUT, Case, run_case

from autoswitch.conformance.check.specconfig import use_spec_dir

SPEC = CHECKOUT / "spec"
_REG1 = (SPEC / "MC_data_reg1.cfg").read_text()


def spec_folders(tmp: Path) -> None:
    """``{tmp}/tiny``: the modules with MC_data_reg1 at MaxEpoch 1, no messages (about 1,300 states: it holds);
    ``{tmp}/broken``: MC_data_reg1 with the code's confirmOffset shortcut (MC_neg_shortcut's setting: it breaks)."""
    texts = {"tiny": _REG1.replace("MaxEpoch = 2", "MaxEpoch = 1").replace("MaxMsgs = 1", "MaxMsgs = 0"),
             "broken": _REG1.replace("ConfirmShortcutFix = TRUE", "ConfirmShortcutFix = FALSE")}
    assert texts["broken"] != _REG1
    for name, text in texts.items():
        folder = tmp / name
        folder.mkdir()
        for module in SPEC.glob("*.tla"):
            shutil.copy(module, folder / module.name)
        (folder / "MC_data_reg1.cfg").write_text(text)


CASES = [
    Case("list", ("bugs",), 0, "rocketmq-5663"),
    Case("markdown", ("bugs", "--markdown"), 0, "| `kafka-7415`: "),
    Case("run", ("bugs", "--run", "rocketmq-confirm-shortcut", "--no-check"), 0, "ok     with confirmShortcutFix = true"),
    Case("run-check", ("bugs", "--run", "rocketmq-confirm-zero-ack", "--spec-dir", "{tmp}/tiny", "--out", "{tmp}/o"), 0,
         "autoswitch check MC_data_reg1: ok"),
    Case("fixed-setting-broken", ("bugs", "--run", "rocketmq-5663", "--spec-dir", "{tmp}/broken", "--out", "{tmp}/o"), 1,
         "FAILED fixed setting MC_data_reg1: autoswitch check MC_data_reg1: NoPhantomRead"),
    Case("unknown-id", ("bugs", "--run", "rocketmq-0"), 2, "unknown known bug 'rocketmq-0'"),
    Case("no-spec", ("bugs", "--run", "rocketmq-5663", "--spec-dir", "{tmp}"), 2, "holds no AutoSwitch.tla"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_cli(case: Case, tmp_path: Path) -> None:
    spec_folders(tmp_path)
    try:
        run_case(case, tmp_path)
    finally:
        use_spec_dir(None)  # --spec-dir holds for the rest of the process
