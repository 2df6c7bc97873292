"""The spec folder of the ``check`` and ``tla`` rows (``--spec-dir {tmp}/spec``): the checkout's modules, two of
its configurations, a tiny one and malformed ones, one per way a ``.cfg`` can be wrong."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from cli_cases import CHECKOUT, Case, run_case
from cli_files import prepare

from autoswitch.conformance.check.specconfig import use_spec_dir

SPEC = CHECKOUT / "spec"
_REG1 = (SPEC / "MC_data_reg1.cfg").read_text()

def _with_design(text: str, value: str) -> str:
    """``text`` with the constant Design set to ``value``: its line where it has one, else a line after RegisterRetry."""
    line = re.compile(r"^    Design = .*$", re.M)
    new = f"    Design = {value}"
    return line.sub(new, text) if line.search(text) else text.replace("    RegisterRetry = TRUE\n", f"    RegisterRetry = TRUE\n{new}\n")


# name -> the configuration's text (bytes: written as they are)
CONFIGS: dict[str, str | bytes] = {
    # MC_data_reg1 with MaxEpoch 1, MaxClock 2, no messages: 1,304 states, under a second
    "MC_tiny": _REG1.replace("MaxEpoch = 2", "MaxEpoch = 1").replace("MaxMsgs = 1", "MaxMsgs = 0"),
    "MC_bad_value": _REG1.replace("MaxEpoch = 2", "MaxEpoch = two"),
    "MC_unknown_constant": _REG1.replace("MaxEpoch = 2", "MaxEpoch = 2\n    MaxEpochs = 2"),
    "MC_wrong_type": _REG1.replace("MaxClock = 2", 'MaxClock = "2"'),
    "MC_negative": _REG1.replace("MaxMsgs = 1", "MaxMsgs = -1"),
    "MC_too_large": _REG1.replace("MaxEpoch = 2", "MaxEpoch = 40"),
    "MC_unknown_invariant": _REG1.replace("    NoPhantomRead\n", "    NoPhantomRead\n    NoSuchInvariant\n"),
    "MC_garbage": "\\* TLC configuration of MC_data.tla\nCONSTANTS\n    ]]] ==> {{{\n",
    "MC_binary": b"\x7fELF\x02\x01\x01\x00\x00\x00\xff\xfe",
    "MC_huge_int": _REG1.replace("MaxEpoch = 2", "MaxEpoch = " + "9" * 5000),
    # the designs RIP-44 replaced: a design that is not one, and one started from controller mode's InitRegistered
    "MC_bad_design": _with_design(_REG1, '"raft"'),
    "MC_design_init": _with_design(_REG1, '"dledger"'),
}


def spec_folder(tmp: Path) -> Path:
    """``tmp/spec``: the modules, three of the checkout's configurations, CONFIGS and a folder named ``MC_dir.cfg``;
    ``tmp/a-file``; ``tmp/x/MC.cfg``, MC_tiny beside MC_data.tla."""
    folder = tmp / "spec"
    folder.mkdir()
    for module in SPEC.glob("*.tla"):
        shutil.copy(module, folder / module.name)
    for name in ("MC_neg_shortcut", "MC_data", "MC_neg_union"):
        shutil.copy(SPEC / f"{name}.cfg", folder / f"{name}.cfg")
    for name, text in CONFIGS.items():
        (folder / f"{name}.cfg").write_bytes(text if isinstance(text, bytes) else text.encode())
    (folder / "MC_dir.cfg").mkdir()
    (tmp / "a-file").write_text("not a folder")
    (tmp / "out").mkdir()
    (tmp / "x").mkdir()  # {tmp}/out/../x/MC.cfg: a configuration given by a path that leads out of --out
    shutil.copy(SPEC / "MC_data.tla", tmp / "x")
    (tmp / "x" / "MC.cfg").write_text(CONFIGS["MC_tiny"])
    return folder


def run_spec_case(case: Case, tmp: Path) -> None:
    """A ``check`` or ``tla`` row with the fixture files and the malformed spec folder under ``tmp``."""
    prepare(tmp)
    spec_folder(tmp)
    try:
        run_case(case, tmp)
    finally:
        use_spec_dir(None)  # --spec-dir holds for the rest of the process: the next test takes the default again
