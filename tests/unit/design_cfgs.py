"""Temporary spec configurations of the designs RIP-44 replaced for the tests: a .cfg of spec/MC_live.tla (two processes,
one address each) written beside a copy of that module, the checker reading MC_Processes, MC_Addrs and MC_BrokerIds
from it."""

from __future__ import annotations

import shutil
from pathlib import Path

from autoswitch.conformance.check.specconfig import CHECKOUT_SPEC_DIR

BASE = (CHECKOUT_SPEC_DIR / "MC_live_reg.cfg").read_text()
SAFETY = ("TypeOK", "UniqueBrokerIds", "LogMatching", "NoAckedMessageLost", "NoPhantomRead", "ConfirmOffsetBound")


def design_cfg(folder: Path, name: str, design: str, start: str = "INIT InitDesign", *, max_msgs: int = 1,
               max_faults: int = 0, sync_master: bool = True, properties: tuple[str, ...] = ("EpochsMonotonic",),
               design_line: str | None = None) -> Path:
    """A configuration of spec/MC_live.tla in ``folder`` for ``design``: the data path on, no clock, ``max_msgs``
    messages, ``max_faults`` faults (every fault bounded), started by ``start``."""
    shutil.copy(CHECKOUT_SPEC_DIR / "MC_live.tla", folder / "MC_live.tla")
    tla_bool = {True: "TRUE", False: "FALSE"}
    text = (BASE.replace("MaxEpoch = 3", "MaxEpoch = 2").replace("MaxClock = 3", "MaxClock = 0")
            .replace("MaxNextBrokerId = 3", "MaxNextBrokerId = 1").replace("MaxMsgs = 0", f"MaxMsgs = {max_msgs}")
            .replace("DataPath = FALSE", "DataPath = TRUE").replace("MaxFaults = 1", f"MaxFaults = {max_faults}")
            .replace("BoundAllFaults = TRUE", f"BoundAllFaults = {tla_bool[max_faults > 0]}")
            .replace("RegisterRetry = TRUE", "RegisterRetry = TRUE\n" + (f'    Design = "{design}"' if design_line is None else design_line) +
                     f"\n    SyncMaster = {tla_bool[sync_master]}\n    SlaveNotAvailableOk = TRUE\n    HaMaxGap = 2")
            .replace("SPECIFICATION LiveSpec", start))
    head, _, _ = text.partition("INVARIANTS")
    text = head + "INVARIANTS\n" + "".join(f"    {i}\n" for i in SAFETY) + "\nPROPERTIES\n" + "".join(f"    {p}\n" for p in properties)
    path = folder / f"{name}.cfg"
    path.write_text(text)
    return path
