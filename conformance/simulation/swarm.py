"""Swarm testing (Groce et al., "Swarm testing", ISSTA 2012): each walk runs under its own random variant of the
configuration's weights.

A walk's swarm is drawn from its seed alone (``random.Random`` seeded with a hash of the walk's seed and SALT, so the
draws of the walk itself are left to its own generator): every fault move and every stray request (FAULT_KINDS) is
left out with probability OMIT_FAULT, every protocol step of a process (the campaign's step tags) with probability
OMIT_STEP, and each kind kept has its weight multiplied by a factor drawn log-uniformly in [1/SPREAD, SPREAD]; the
probability of a lost response is scaled the same way (at most 1). A process's move itself is never left out, nor
every step of a role (a role whose steps would all be left out keeps them). Thin bugs that need some kinds absent
(no Shrink while a slave crashes and handshakes again) or frequent (crashes right after acks) are met in the walks
whose swarm has them so, instead of in a fixed mix that dilutes each.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Mapping

from autoswitch.conformance.simulation.generate import DESIGN_STEPS, MASTER_STEPS, REGISTERED_TAGS, SLAVE_STEPS
from autoswitch.reference.state import CONTROLLER

SALT = "swarm"
OMIT_FAULT = 0.5
OMIT_STEP = 0.25
SPREAD = 4.0
# the moves that are not a process's protocol step (campaign.MOVES but "process")
FAULT_KINDS = ("Crash", "HeartbeatExpire", "ControllerElectScan", "ControllerFailover", "request", "CrashTorn",
               "ControllerMetadataLoss", "PartitionLink", "HealLink", "SendLate", "DeliverLate", "WipeDisk")
# a process's steps by role in controller mode (generate.registered_steps with the data path): one of each kept
CONTROLLER_ROLES = {"MASTER": tuple(dict.fromkeys(MASTER_STEPS)), "SLAVE": tuple(dict.fromkeys(SLAVE_STEPS)),
                    "ANY": ("SendHeartbeat", "SyncReplicaInfo", "SendElectMaster")}


def swarm_rng(seed: int) -> random.Random:
    """The generator of a walk's swarm: seeded from the walk's seed and SALT."""
    return random.Random(int.from_bytes(hashlib.blake2b(f"{SALT}/{seed}".encode(), digest_size=8).digest(), "big"))


def _factor(rng: random.Random) -> float:
    return math.exp(rng.uniform(-math.log(SPREAD), math.log(SPREAD)))


def swarm_weights(seed: int, weights: Mapping[str, float], design: str = CONTROLLER) -> dict[str, float]:
    """The weights of the walk seeded ``seed`` under swarm testing (module docstring): ``weights`` (the configuration's,
    SimConfig.weights) with kinds left out (weight 0) and the others scaled. The same seed gives the same weights."""
    rng = swarm_rng(seed)
    out = dict(weights)
    for kind in FAULT_KINDS:
        omit, factor = rng.random() < OMIT_FAULT, _factor(rng)
        if out.get(kind, 0) > 0:
            out[kind] = 0.0 if omit else out[kind] * factor
    out["lost"] = min(1.0, out.get("lost", 0.0) * _factor(rng))
    roles = CONTROLLER_ROLES if design == CONTROLLER else DESIGN_STEPS[design]
    tags = tuple(dict.fromkeys(t for steps in roles.values() for t in steps)) if design != CONTROLLER else REGISTERED_TAGS
    kept = {}
    for tag in tags:
        omit, factor = rng.random() < OMIT_STEP, _factor(rng)
        kept[tag] = 0.0 if omit else out.get(tag, 1.0) * factor
    for steps in roles.values():
        if not any(kept[t] > 0 for t in steps):
            kept.update({t: out.get(t, 1.0) for t in steps})
    out.update(kept)
    if out.get("process", 0) <= 0 and not any(out.get(k, 0) > 0 for k in FAULT_KINDS):
        out.update({k: weights[k] for k in FAULT_KINDS if k in weights})  # something left to draw (campaign.check_weights)
    return out
