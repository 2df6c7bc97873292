"""The seeded fault schedule: the same seed, brokers, duration and fault flags give the same schedule. Targets are roles ("master",
"slave") resolved when the fault happens, from the controller's view at that moment (the run records the node)."""

from __future__ import annotations

import random
from typing import Any

from attrs import asdict, frozen

KILL, PAUSE, KILL_NAMESRV = "kill", "pause", "kill-namesrv"
WIPE_CONTROLLER = "wipe-controller"  # kill -9 of the name server, its controller's store deleted: metadata loss
WIPE = "wipe"  # kill -9 of a broker, its store folder deleted before the restart: the model's WipeDisk (a new broker)
KILL_CONTROLLER = "kill-controller"  # kill -9 of a controller node (three standalone ones): "leader" or "follower"
CUT = "cut"  # the master's replication links held (its HA proxy stops moving bytes), then released: PartitionLink
WARMUP = 5.0  # seconds of workload before the first fault
TAIL = 5.0  # seconds of workload after the last fault ends
GAP = (10.0, 16.0)  # seconds between a fault's end and the next one's start: a failover settles, a restarted broker rejoins


@frozen
class Fault:
    """One fault: ``at`` seconds into the workload, ``kind`` on ``target`` for ``length`` seconds (down before the
    restart, or paused before SIGCONT)."""

    at: float
    kind: str
    target: str  # "master", "slave", "namesrv", or a controller node: "leader", "follower"
    length: float

    @property
    def end(self) -> float:
        return self.at + self.length


@frozen
class Schedule:
    seed: int
    duration: float
    brokers: int
    faults: tuple[Fault, ...]
    wipe: bool = False
    controllers: int = 1
    cut: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"seed": self.seed, "duration": self.duration, "brokers": self.brokers, "wipe": self.wipe,
                "controllers": self.controllers, "cut": self.cut, "faults": [asdict(f) for f in self.faults]}

    def describe(self) -> list[str]:
        return [f"{f.at:6.1f} s  {f.kind} {f.target} for {f.length:.1f} s" for f in self.faults]


def make_schedule(seed: int, duration: float, brokers: int, metadata_loss: bool = False, wipe: bool = False,
                  controllers: int = 1, cut: bool = False) -> Schedule:
    """Faults one after the other, none overlapping: the first kills the master (every run has a failover), the next
    are drawn (kill -9 of the master, a pause of the master or a slave long or short against the controller's heartbeat
    timeout, kill -9 of the name server with its controller) while they end ``TAIL`` s before ``duration``.
    ``metadata_loss``: one fault alone, the controller's metadata lost (MODEL.md's ControllerMetadataLoss).
    ``wipe``: a wiped store is drawn too (kill -9 of the master or a slave, its store deleted before the restart).
    ``controllers`` 3 (standalone controller nodes): kill -9 of the
    controllers' leader or of a follower is drawn too (and kill -9 of the name server no longer stops a controller).
    ``cut``: the master's replication links held for 2-12 s are drawn too (against the 6 s a slave may lag); the run
    holds them once every broker is in the SyncStateSet (at most 20 s late). Without the three a seed's schedule is the
    one it always was."""
    rng = random.Random(f"autoswitch-cluster/{seed}/{brokers}")
    if metadata_loss:
        return Schedule(seed, duration, brokers, (Fault(WARMUP, WIPE_CONTROLLER, "namesrv", round(rng.uniform(2.0, 6.0), 1)),))
    faults = [Fault(WARMUP, KILL, "master", round(rng.uniform(3.0, 8.0), 1))]
    at = faults[0].end + rng.uniform(*GAP)
    kinds, weights = ([KILL, PAUSE, KILL_NAMESRV, WIPE], [2, 2, 1, 2]) if wipe else ([KILL, PAUSE, KILL_NAMESRV], [2, 2, 1])
    if controllers > 1:
        kinds, weights = [*kinds, KILL_CONTROLLER], [*weights, 3]
    if cut:
        kinds, weights = [*kinds, CUT], [*weights, 3]
    while True:
        kind = rng.choices(kinds, weights=weights)[0]
        if kind == CUT:
            fault = Fault(round(at, 1), CUT, "master", round(rng.uniform(2.0, 12.0), 1))
        elif kind == KILL_CONTROLLER:
            fault = Fault(round(at, 1), KILL_CONTROLLER, rng.choice(["leader", "leader", "follower"]),
                          round(rng.uniform(3.0, 8.0), 1))
        elif kind == WIPE:
            fault = Fault(round(at, 1), WIPE, rng.choice(["master", "slave"]), round(rng.uniform(3.0, 8.0), 1))
        elif kind == KILL:
            fault = Fault(round(at, 1), KILL, rng.choice(["master", "master", "slave"]), round(rng.uniform(3.0, 8.0), 1))
        elif kind == PAUSE:
            fault = Fault(round(at, 1), PAUSE, rng.choice(["master", "slave"]), round(rng.uniform(2.0, 10.0), 1))
        else:
            fault = Fault(round(at, 1), KILL_NAMESRV, "namesrv", round(rng.uniform(2.0, 6.0), 1))
        if fault.end > duration - TAIL:
            break
        faults.append(fault)
        at = fault.end + rng.uniform(*GAP)
    return Schedule(seed, duration, brokers, tuple(faults), wipe, controllers, cut)
