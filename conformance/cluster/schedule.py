"""The seeded fault schedule: the same seed, brokers and duration give the same schedule. Targets are roles ("master",
"slave") resolved when the fault happens, from the controller's view at that moment (the run records the node)."""

from __future__ import annotations

import random
from typing import Any

from attrs import asdict, frozen

KILL, PAUSE, KILL_NAMESRV = "kill", "pause", "kill-namesrv"
WIPE_CONTROLLER = "wipe-controller"  # kill -9 of the name server, its controller's store deleted: metadata loss
WARMUP = 5.0  # seconds of workload before the first fault
TAIL = 5.0  # seconds of workload after the last fault ends
GAP = (10.0, 16.0)  # seconds between a fault's end and the next one's start: a failover settles, a restarted broker rejoins


@frozen
class Fault:
    """One fault: ``at`` seconds into the workload, ``kind`` on ``target`` for ``length`` seconds (down before the
    restart, or paused before SIGCONT)."""

    at: float
    kind: str
    target: str  # "master", "slave" or "namesrv"
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

    def to_json(self) -> dict[str, Any]:
        return {"seed": self.seed, "duration": self.duration, "brokers": self.brokers,
                "faults": [asdict(f) for f in self.faults]}

    def describe(self) -> list[str]:
        return [f"{f.at:6.1f} s  {f.kind} {f.target} for {f.length:.1f} s" for f in self.faults]


def make_schedule(seed: int, duration: float, brokers: int, metadata_loss: bool = False) -> Schedule:
    """Faults one after the other, none overlapping: the first kills the master (every run has a failover), the next
    are drawn (kill -9 of the master, a pause of the master or a slave long or short against the controller's heartbeat
    timeout, kill -9 of the name server with its controller) while they end ``TAIL`` s before ``duration``.
    ``metadata_loss``: one fault alone, the controller's metadata lost (MODEL.md's ControllerMetadataLoss)."""
    rng = random.Random(f"autoswitch-cluster/{seed}/{brokers}")
    if metadata_loss:
        return Schedule(seed, duration, brokers, (Fault(WARMUP, WIPE_CONTROLLER, "namesrv", round(rng.uniform(2.0, 6.0), 1)),))
    faults = [Fault(WARMUP, KILL, "master", round(rng.uniform(3.0, 8.0), 1))]
    at = faults[0].end + rng.uniform(*GAP)
    while True:
        kind = rng.choices([KILL, PAUSE, KILL_NAMESRV], weights=[2, 2, 1])[0]
        if kind == KILL:
            fault = Fault(round(at, 1), KILL, rng.choice(["master", "master", "slave"]), round(rng.uniform(3.0, 8.0), 1))
        elif kind == PAUSE:
            fault = Fault(round(at, 1), PAUSE, rng.choice(["master", "slave"]), round(rng.uniform(2.0, 10.0), 1))
        else:
            fault = Fault(round(at, 1), KILL_NAMESRV, "namesrv", round(rng.uniform(2.0, 6.0), 1))
        if fault.end > duration - TAIL:
            break
        faults.append(fault)
        at = fault.end + rng.uniform(*GAP)
    return Schedule(seed, duration, brokers, tuple(faults))
