"""The run as an event log (spec/README.md, "Event logs"), and ``autoswitch validate`` on it.

The watcher's polls (``watch.jsonl``) become ``events/controller.ndjson``: a header with the run's model configuration
and one ``observe`` event each time the controller's masterId, masterEpoch, syncStateSet or syncStateSetEpoch changed
(a poll is stamped when its answer is in). The run's own kill -9 and restarts of brokers (``faults.jsonl``, stamped
before the signal or the start) become ``events/p<k>.ndjson``: ``Crash`` and ``Restart`` of broker k, every one of them,
so the header claims both tags complete; a wiped store between them is ``WipeDisk`` (then the header lets the search
take that fault, claims it complete too, and counts one more broker id per wipe: the wiped broker registers as a new
one); a master's replication links held by the proxy (``--cut``) are ``PartitionLink`` and ``HealLink`` on the
master's log, one per slave (its ``lost`` left to the search). A kill -9 of a controller node (``--controllers 3``) is not logged: the model has one controller, whose
leader's failover (``ControllerFailover``, DLedger keeping its metadata) the search may take unobserved. The brokers'
epoch caches are not logged: RocketMQ's offsets count bytes, the model's messages (spec/README.md, refinement of
offsets)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from attrs import frozen

from autoswitch.conformance.controls import Control
from autoswitch.conformance.engines import Config
from autoswitch.reference.state import NO_MASTER

VALIDATE_SECONDS = 300.0
MAX_STATES = 300_000  # the search's budget: a log it cannot explain within it is "gave up", not refused
EXPLAINED, REFUSED, GAVE_UP, ERROR = "explained", "refused", "gave up", "error"
TIMELINE = "timeline.html"  # the explanation as the explorer's page (timeline)


CRASH_EVENTS, RESTART_EVENTS, WIPE_EVENTS = ("kill -9", "exited by itself"), ("restart",), ("store deleted",)
LINK_EVENTS = {"links cut": "PartitionLink", "links healed": "HealLink"}  # a master's links to each of its slaves


def event_logs(watch: Sequence[Mapping[str, Any]], faults: Sequence[Mapping[str, Any]], brokers: Mapping[str, int],
               control: Control) -> dict[str, list[dict[str, Any]]]:
    """The files of the log, by name: the controller's (header first) and each broker's. ``brokers`` maps the run's
    broker nodes to their ports (p1, p2, ... in that order), ``control`` is the model configuration of the run."""
    wipes = sum(1 for f in faults if f["event"] in WIPE_EVENTS and str(f.get("node")) in brokers)
    cuts = any(f["event"] in LINK_EVENTS for f in faults)
    logs = {"controller": controller_log(watch, brokers, control, wipes, cuts)}
    first = next((int(r["t"]) for r in watch if _answered(r)), None)
    if first is None:
        return logs
    names = {node: f"p{k}" for k, node in enumerate(brokers, 1)}
    for fault in faults:
        node = names.get(str(fault.get("node")))
        tag = ("Crash" if fault["event"] in CRASH_EVENTS else "Restart" if fault["event"] in RESTART_EVENTS
               else "WipeDisk" if fault["event"] in WIPE_EVENTS else None)
        if node is not None and fault["event"] in LINK_EVENTS:
            for slave in fault.get("slaves") or []:
                logs.setdefault(node, []).append({"node": node, "ts": max(0, int(fault["t"]) - first),
                                                  "action": {"tag": LINK_EVENTS[fault["event"]], "peer": names[slave]}})
        if node is None or tag is None:
            continue
        logs.setdefault(node, []).append({"node": node, "ts": max(0, int(fault["t"]) - first), "action": {"tag": tag}})
    return logs


def _answered(row: Mapping[str, Any]) -> bool:
    """The controller answered this poll with the set's replicas."""
    return row.get("master_epoch") is not None and row.get("sync_state_set_epoch") is not None


def controller_log(watch: Sequence[Mapping[str, Any]], brokers: Mapping[str, int], control: Control,
                   wipes: int = 0, cuts: bool = False) -> list[dict[str, Any]]:
    """The header and the controller's events; ``wipes``: the brokers' stores the run deleted; ``cuts``: the run cut
    replication links."""
    faults = [*(["WipeDisk"] if wipes else []), *(["PartitionLink"] if cuts else [])]
    processes = {f"p{k}": f"127.0.0.1:{port}" for k, port in enumerate(brokers.values(), 1)}
    meta = {"description": f"autoswitch cluster run: the controller's view, polled ({control.name})",
            **Config(processes, control.model_options).to_meta(),
            "complete": ["Crash", "Restart", *faults, *(["HealLink"] if cuts else [])],
            # the run's faults are kill -9 and restarts (Crash, Restart), pauses (heartbeat expiries, lost responses),
            # the controller's restart (ControllerFailover: DLedger keeps its metadata), wiped stores (WipeDisk) and
            # cut replication links (PartitionLink, HealLink): of the newer fault kinds only those two
            "next": {"brokerIds": list(range(1, len(processes) + wipes + 1)), "switches": ["DataPath"], "faults": faults}}
    lines: list[dict[str, Any]] = [{"meta": meta}]
    start, last = None, None
    for row in watch:
        if not _answered(row):
            continue
        start = row["t"] if start is None else start
        observe = {"masterId": row["master_id"] if row.get("master_id") is not None else NO_MASTER,
                   "masterEpoch": row["master_epoch"],
                   "syncStateSet": {"#set": sorted(r["id"] for r in row.get("in_sync") or [])},
                   "syncStateSetEpoch": row["sync_state_set_epoch"]}
        if observe != last:
            lines.append({"node": "controller", "ts": int(row["t"]) - int(start), "observe": observe})
            last = observe
    return lines


@frozen
class Validation:
    status: str  # explained, refused, gave up, error
    text: str
    events: int


def validate(out: Path, watch: Sequence[Mapping[str, Any]], faults: Sequence[Mapping[str, Any]], brokers: Mapping[str, int],
             control: Control) -> Validation:
    """Write ``out/events/*.ndjson`` and run ``autoswitch validate`` on them (``out/validate/``: the explanation as ITF,
    or the refusal), in a process of its own with a bound."""
    logs = event_logs(watch, faults, brokers, control)
    folder = out / "events"
    folder.mkdir(exist_ok=True)
    for name, lines in logs.items():
        (folder / f"{name}.ndjson").write_text("".join(json.dumps(line) + "\n" for line in lines))
    events = sum(len(lines) for lines in logs.values()) - 1
    if events == 0:
        return Validation(ERROR, "the controller answered no poll: nothing to validate", 0)
    command = [sys.executable, "-c", "from autoswitch.conformance.cli import main; main()", "validate", str(folder),
               "--out", str(out / "validate"), "--master", "none", "--max-states", str(MAX_STATES)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=VALIDATE_SECONDS)
    except subprocess.TimeoutExpired:
        return Validation(GAVE_UP, f"no verdict within {VALIDATE_SECONDS:.0f} s", events)
    text = done.stdout + done.stderr
    (out / "validate.log").write_text(f"$ autoswitch {' '.join(command[3:])}\n{text}")
    found = re.search(r"\[reference\]: (explained|refused|gave-up)\b.*", text)
    line = found.group(0) if found else (text.strip().splitlines() or ["(no output)"])[-1]
    status = {"explained": EXPLAINED, "refused": REFUSED, "gave-up": GAVE_UP}.get(found.group(1)) if found else None
    if status is not None and done.returncode in (0, 1):
        if status == EXPLAINED:
            timeline(out)
        return Validation(status, line, events)
    return Validation(ERROR, f"exit {done.returncode}: {line}", events)


def timeline(out: Path) -> Path | None:
    """``out/timeline.html``: the explanation ``validate`` found (``out/validate/events.itf.json``) as the explorer's page,
    one lane per broker, the run's kills and restarts among its steps as Crash and Restart; None without one."""
    from autoswitch.conformance.html.explorer import write_page

    explanation = out / "validate" / "events.itf.json"
    if not explanation.exists():
        return None
    page = out / TIMELINE
    write_page(str(explanation), page)
    return page
