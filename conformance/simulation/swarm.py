"""Swarm testing (Groce et al., "Swarm testing", ISSTA 2012): each walk runs under its own random variant of the
configuration's weights.

A walk's swarm is drawn from its seed alone (``random.Random`` seeded with a hash of the walk's seed and SALT, so the
draws of the walk itself are left to its own generator): every fault move and the stray requests (FAULT_KINDS) are
left out with probability OMIT, and each kind kept has its weight multiplied by a factor drawn log-uniformly in
[1/SPREAD, SPREAD]; the probability of a lost response is scaled the same way (at most 1). A process's protocol steps
are left as they are: leaving out or reweighing them (tried: a step left out with probability 1/4, each weighed by a
factor in [1/4, 4]) halved the failing walks of most controls. Thin bugs that need the other faults absent (``hw``: a
slave crashing between its ack and the next transfer, then handshaking again, with no partition, torn write or stray
request in between) are met in the walks whose swarm leaves those out, instead of in a fixed mix that dilutes each.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Mapping

SALT = "swarm"
OMIT = 0.5
SPREAD = 4.0
# the moves that are not a process's protocol step (campaign.MOVES but "process")
FAULT_KINDS = ("Crash", "HeartbeatExpire", "ControllerElectScan", "ControllerFailover", "request", "CrashTorn",
               "ControllerMetadataLoss", "PartitionLink", "HealLink", "SendLate", "DeliverLate", "WipeDisk")


def salted_rng(salt: str, seed: int) -> random.Random:
    """A generator seeded from a walk's seed and ``salt``: draws of their own, which leave the walk's generator as it is."""
    return random.Random(int.from_bytes(hashlib.blake2b(f"{salt}/{seed}".encode(), digest_size=8).digest(), "big"))


def swarm_rng(seed: int) -> random.Random:
    """The generator of a walk's swarm: seeded from the walk's seed and SALT."""
    return salted_rng(SALT, seed)


def _factor(rng: random.Random) -> float:
    return math.exp(rng.uniform(-math.log(SPREAD), math.log(SPREAD)))


def swarm_weights(seed: int, weights: Mapping[str, float]) -> dict[str, float]:
    """The weights of the walk seeded ``seed`` under swarm testing (module docstring): ``weights`` (the configuration's,
    SimConfig.weights) with fault kinds left out (weight 0) and the others scaled. The same seed gives the same weights.
    When ``process`` weighs 0 and every fault kind would be left out, they are all kept (something left to draw)."""
    rng = swarm_rng(seed)
    out = dict(weights)
    for kind in FAULT_KINDS:
        omit, factor = rng.random() < OMIT, _factor(rng)
        if out.get(kind, 0) > 0:
            out[kind] = 0.0 if omit else out[kind] * factor
    out["lost"] = min(1.0, out.get("lost", 0.0) * _factor(rng))
    if out.get("process", 0) <= 0 and not any(out.get(k, 0) > 0 for k in FAULT_KINDS):
        out.update({k: weights[k] for k in FAULT_KINDS if k in weights})
    return out
