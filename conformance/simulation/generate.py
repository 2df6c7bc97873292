"""Seeded random walks over the reference model: every action of a walk is enabled where it is taken.

A walk is a function of (seed, config, length) alone, so a corpus can be rebuilt bit for bit. Most steps
advance a process through its protocol; the rest are faults (crashes, lost responses, expiries, controller
failovers) and arbitrary - often stale or refused - controller requests.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

from autoswitch.conformance.engines import Config
from autoswitch.conformance.engines.reference import ReferenceEngine
from autoswitch.reference.actions import (
    ACTIONS,
    ADDR,
    BROKER_ID,
    BROKER_IDS,
    CONTROLLER,
    DATA,
    LOST,
    PEER,
    PROCESS,
    PROCESS_GROUP,
    SCAN,
    TRIGGERS,
    record,
    tags,
)
from autoswitch.reference.precondition import NotEnabled
from autoswitch.reference.state import DLEDGER, MASTER_SLAVE, System

# What a walk's process does by role, with repeats for weight (tags of the action table; the data path's
# in its order): a master writes and heals the set, a slave replicates.
MASTER_STEPS = ["Write", "Write", "Expand", "Shrink", "AlterArrives", "Flush", "Consume"]
SLAVE_STEPS = ["Handshake", "Transfer", "Transfer", "Ack", "Flush", "Consume"]
# Requests only an operator or a broken client sends: an arbitrary syncStateSet can add a lagging member,
# which no safety property survives; random walks of the data path leave them out.
UNSAFE_REQUESTS = ("AlterSyncStateSet", "ApplyBrokerId", "RegisterBrokerToController")
# The requests of an arbitrary controller request, and the scan; CleanBrokerData only where asked for (it can
# hand a live process's id to another: traces/regressions); a fault of MODEL.md §9 only by its own weight.
REQUEST_TAGS = (*(t for t in tags(CONTROLLER) if t != "CleanBrokerData" and ACTIONS[t].fault is None), *tags(SCAN))
# The controller requests SendLate computes on a process's view (its ``request`` parameter).
LATE_REQUESTS = ("BrokerHeartbeat", "RegisterBrokerToController", "ElectMaster")

NEXT_STEP = {
    "DOWN": "Restart", "TEMP_DONE": "SendApplyBrokerId", "APPLY_FAILED": "AbandonTempFile", "ID_APPLIED": "WriteMetaFile",
    "META_WRITTEN": "DeleteTempFile", "META_DONE": "SendRegister",
}
REGISTERED_STEPS = ["SendHeartbeat", "SendHeartbeat", "SyncReplicaInfo", "SendElectMaster", "SendAlterSyncStateSet"]
# The tags a REGISTERED process of a data-path walk may take, each once (campaign weights name them).
REGISTERED_TAGS = tuple(dict.fromkeys([t for t in REGISTERED_STEPS if t != "SendAlterSyncStateSet"] + MASTER_STEPS + SLAVE_STEPS))
assert set(REGISTERED_STEPS + MASTER_STEPS + SLAVE_STEPS + [*NEXT_STEP.values()]) <= set(ACTIONS), "a tag not in the table"


# The designs RIP-44 replaced (reference/designs.py): what a running process does by role, each tag once (the campaign's
# weights weigh them), and the restart a DOWN one takes. The operator's failover is a 4.x slave's step (enabled only
# while every configured master is down); a DLedger follower's is the election.
DESIGN_STEPS = {
    MASTER_SLAVE: {"MASTER": ("MsWrite", "MsSlaveTimeout", "Flush", "Consume"),
                   "SLAVE": ("MsConnect", "MsTransfer", "MsAck", "OperatorFailover", "Flush", "Consume")},
    DLEDGER: {"MASTER": ("DlWrite", "DlPush", "Flush", "Consume"), "SLAVE": ("DlElect", "Flush", "Consume")},
}
DESIGN_RESTART = {MASTER_SLAVE: "MsRestart", DLEDGER: "DlRestart"}
DESIGN_TAGS = tuple(dict.fromkeys(t for roles in DESIGN_STEPS.values() for steps in roles.values() for t in steps))
assert all({*steps, DESIGN_RESTART[d]} <= set(tags(PROCESS_GROUP, DATA, design=d))
           for d, roles in DESIGN_STEPS.items() for steps in roles.values()), "a step not in the design's Next"


def design_steps(v: dict[str, Any], p: str, design: str) -> tuple[str, ...]:
    """The steps a process of ``design`` may take: its restart when DOWN, else its role's (DESIGN_STEPS)."""
    if v["regState"][p] == "DOWN":
        return (DESIGN_RESTART[design],)
    return DESIGN_STEPS[design].get(v["role"][p], ())


def design_action(rng: random.Random, v: dict[str, Any], p: str, tag: str) -> dict[str, Any]:
    """Process ``p``'s action ``tag`` of a design; a peer (DlPush) is drawn among the other processes only where the
    action has one."""
    peers = [q for q in sorted(v["regState"]) if q != p]
    return record(tag, {PROCESS: p, **({PEER: rng.choice(peers)} if PEER in ACTIONS[tag].params.values() else {})})


def _subset(rng: random.Random, top: int) -> frozenset[int]:
    return frozenset(i for i in range(1, top + 1) if rng.random() < 0.5)


def registration_step(v: dict[str, Any], p: str) -> str:
    """The one registration step a process that is not REGISTERED takes next (Restart when DOWN)."""
    state = v["regState"][p]
    if state == "INITIAL":
        return "LoadMetaFile" if v["metaFile"][p] else "LoadTempFile" if v["tempFile"][p]["brokerId"] else "CreateTempFile"
    return NEXT_STEP[state]


def registered_steps(v: dict[str, Any], p: str, data: bool) -> list[str]:
    """The steps a REGISTERED process may take (with repeats: the more often listed, the likelier)."""
    if not data:
        return REGISTERED_STEPS
    steps = [t for t in REGISTERED_STEPS if t != "SendAlterSyncStateSet"]
    return steps + {"MASTER": MASTER_STEPS, "SLAVE": SLAVE_STEPS}.get(v["role"][p], []) * 2


def process_action(rng: random.Random, v: dict[str, Any], p: str, tag: str, addrs: list[str], lost: float = 0.1) -> dict[str, Any]:
    """Process ``p``'s action ``tag`` with a value drawn for each kind of parameter of the action table: a
    response lost with probability ``lost``, an address from ``addrs``, a subset of ids, an id (the same
    draws whatever the tag)."""
    draw = {PROCESS: p, LOST: rng.random() < lost, ADDR: rng.choice(addrs),
            BROKER_IDS: _subset(rng, len(v["metaFile"]) + 1), BROKER_ID: rng.randint(1, len(v["metaFile"]))}
    return record(tag, draw)


def _protocol_step(rng: random.Random, v: dict[str, Any], p: str, addrs: list[str], data: bool) -> dict[str, Any]:
    tag = rng.choice(registered_steps(v, p, data)) if v["regState"][p] == "REGISTERED" else registration_step(v, p)
    return process_action(rng, v, p, tag, addrs)


def fault_action(rng: random.Random, v: dict[str, Any], tag: str) -> dict[str, Any] | None:
    """An action of a fault of MODEL.md §9 (or of the step that ends one: HealLink, DeliverLate) with its parameters
    drawn where it can be enabled: a cut link to heal, a process with a late request or a DOWN one to wipe; None when
    there is none. A partition breaks the replication connection (``lost``) half the time.

    The controller loses its metadata only once every process holds an id in its meta file (and no temp file), and a
    disk is wiped only while the controller knows the set: the two bounds of docs/liveness.md. A broker with no
    id after a metadata loss is handed an id another broker holds (UniqueBrokerIds breaks: the finding of
    traces/faults/controller-metadata-loss-reuses-id.itf.json, and of MC_live_meta for liveness)."""
    procs = sorted(v["regState"])
    if tag == "ControllerMetadataLoss":
        settled = all(v["metaFile"][p] != 0 and v["tempFile"][p]["brokerId"] == 0 for p in procs)
        return {"tag": tag} if settled else None
    if tag == "HealLink":
        links = sorted(sorted(link) for link in v.get("partitions", ()))
        if not links:
            return None
        p, q = rng.choice(links)
        return {"tag": tag, "process": p, "peer": q}
    if tag == "DeliverLate":
        late = sorted(v.get("late", {}))
        return {"tag": tag, "process": rng.choice(late)} if late else None
    if tag == "WipeDisk":
        down = [p for p in procs if v["regState"][p] == "DOWN" and v["replicas"]]
        return {"tag": tag, "process": rng.choice(down)} if down else None
    p = rng.choice(procs)
    if tag == "PartitionLink":
        return {"tag": tag, "process": p, "peer": rng.choice([q for q in procs if q != p]), "lost": rng.random() < 0.5}
    if tag == "SendLate":
        return {"tag": tag, "process": p, "request": rng.choice(LATE_REQUESTS)}
    if tag == "CrashTorn":
        return {"tag": tag, "process": p}
    raise ValueError(f"{tag}: not a fault of MODEL.md §9")


def within_bounds(v: dict[str, Any], action: dict[str, Any]) -> bool:
    """Whether fault_action could draw ``action`` in ``v`` (the bounds of its docstring: a controller metadata loss once
    settled, a wipe of a DOWN disk while the controller knows the set); any other action is within them. A replayed
    action (guide.py) outside them is skipped."""
    if action["tag"] in ("ControllerMetadataLoss", "WipeDisk"):
        return fault_action(random.Random(0), v, action["tag"]) is not None
    return True


def controller_request(rng: random.Random, top_id: int, clean: float = 0.0) -> dict[str, Any]:
    """An arbitrary controller request over small domains (ids 0..top_id, epochs 0..4): with probability
    ``clean`` a CleanBrokerData, else one of REQUEST_TAGS."""
    if clean and rng.random() < clean:
        return {"tag": "CleanBrokerData", "brokerIds": frozenset(b for b in range(0, top_id + 1) if rng.random() < 0.3),
                "cleanLiving": rng.random() < 0.5}
    tag = rng.choice(REQUEST_TAGS)
    draw = {
        "brokerId": rng.randint(0, top_id), "checkCode": f"10.9.9.9:1;{rng.randint(0, 3)}", "addr": f"10.9.9.{rng.randint(1, 2)}:1",
        "trigger": rng.choice(TRIGGERS), "masterId": rng.randint(0, top_id), "masterEpoch": rng.randint(0, 4),
        "newSyncStateSet": _subset(rng, top_id), "syncStateSetEpoch": rng.randint(0, 4), "epoch": rng.randint(0, 4),
        "maxOffset": rng.randint(0, 4), "priority": rng.randint(0, 2),
    }
    return {"tag": tag, **{k: draw[k] for k in ACTIONS[tag].params}}


def random_walk(config: Config, seed: int, length: int, data: bool = False,
                avoid: Callable[[System, Mapping[str, Any]], Any] | None = None) -> list[dict[str, Any]]:
    """``length`` enabled actions from the Init state of ``config``, drawn with ``random.Random(seed)``.
    With ``data`` the walk also writes, replicates and changes the syncStateSet the way brokers do, and
    leaves out the requests of UNSAFE_REQUESTS; an action ``avoid`` is true of (in the state before it) is not taken."""
    rng = random.Random(seed)
    engine = ReferenceEngine(config)
    procs = sorted(config.processes)
    addrs = [*config.processes.values(), "10.0.1.1:30911", "10.0.1.2:30911"]
    actions: list[dict[str, Any]] = []
    v = engine.variables()
    while len(actions) < length:
        roll = rng.random()
        if procs and roll < 0.8:
            action = _protocol_step(rng, v, rng.choice(procs), addrs, data)
        elif procs and roll < 0.86:
            action = {"tag": "Crash", "process": rng.choice(procs)}
        else:
            action = controller_request(rng, len(procs) + 1)
            if data and action["tag"] in UNSAFE_REQUESTS:
                continue
        if avoid is not None and avoid(engine.state, action):
            continue
        try:
            engine.step(action)
        except NotEnabled:
            continue
        actions.append(action)
        v = engine.variables()
    return actions
