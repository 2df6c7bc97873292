"""Temporary spec configurations of the designs RIP-44 replaced for the tests: a .cfg of spec/MC_live.tla (two processes,
one address each) written beside a copy of that module, the checker reading MC_Processes, MC_Addrs and MC_BrokerIds
from it."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from autoswitch.conformance.check.specconfig import CHECKOUT_SPEC_DIR

BASE = (CHECKOUT_SPEC_DIR / "MC_live_reg.cfg").read_text()
SAFETY = ("TypeOK", "UniqueBrokerIds", "LogMatching", "NoAckedMessageLost", "NoPhantomRead", "ConfirmOffsetBound")


def set_constants(text: str, values: dict[str, str | None]) -> str:
    """``text`` (a .cfg) with each constant of ``values`` set to its value (None: removed): its line replaced where the
    configuration has one, else added after RegisterRetry."""
    for name, value in values.items():
        line = re.compile(rf"^    {name} = .*\n", re.M)
        new = "" if value is None else f"    {name} = {value}\n"
        text = line.sub(new, text) if line.search(text) else text.replace("    RegisterRetry = TRUE\n", "    RegisterRetry = TRUE\n" + new)
    return text


def design_cfg(folder: Path, name: str, design: str | None, start: str = "INIT InitDesign", *, max_msgs: int = 1,
               max_faults: int = 0, sync_master: bool = True, properties: tuple[str, ...] = ("EpochsMonotonic",)) -> Path:
    """A configuration of spec/MC_live.tla in ``folder`` for ``design`` (a TLA+ value of the constant Design, e.g.
    ``'"dledger"'``; None: no Design constant): the data path on, no clock, ``max_msgs`` messages, ``max_faults`` faults
    (every fault bounded), started by ``start``."""
    shutil.copy(CHECKOUT_SPEC_DIR / "MC_live.tla", folder / "MC_live.tla")
    tla_bool = {True: "TRUE", False: "FALSE"}
    text = set_constants(BASE, {
        "MaxEpoch": "2", "MaxClock": "0", "MaxNextBrokerId": "1", "MaxMsgs": str(max_msgs), "DataPath": "TRUE",
        "MaxFaults": str(max_faults), "BoundAllFaults": tla_bool[max_faults > 0], "Design": design,
        "SyncMaster": tla_bool[sync_master], "SlaveNotAvailableOk": "TRUE", "HaMaxGap": "2"})
    head, _, _ = text.replace("SPECIFICATION LiveSpec\n", start + "\n").partition("INVARIANTS")
    text = head + "INVARIANTS\n" + "".join(f"    {i}\n" for i in SAFETY) + "\nPROPERTIES\n" + "".join(f"    {p}\n" for p in properties)
    path = folder / f"{name}.cfg"
    path.write_text(text)
    return path
