"""What RocketMQ's own classes showed of the model: every trace of the committed corpus where the real code and the model
disagree, with how it is settled (:data:`DIVERGENCES`), and the requests where the model answers differently on purpose
(:data:`REFINEMENTS`, which differential walks avoid). The corpus test (tests/rocketmq) replays ``traces/`` on the ``rocketmq`` engine and
fails unless the divergences are exactly these, at these states and fields: a new one must be settled and written here,
and one that goes away (the model fixed) must leave."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from attrs import frozen

from autoswitch.reference.state import System

# the status of a divergence: the model is wrong and must follow the code (open until fixed in spec, reference and
# impl), or the model differs on purpose (a refinement, its reason in spec/README.md)
MODEL_ERROR = "model error (open)"
REFINEMENT = "refinement"


@frozen
class Divergence:
    trace: str  # the path under traces/
    state: int
    field: str
    status: str
    finding: str  # which finding of RocketMQ.md / the issue it settles


EMPTIED_CHECKPOINT = ("an emptied epoch checkpoint: CheckpointFile.write returns at once for an empty list, so a cache "
                      "emptied by a truncation leaves its previous lines on disk, and a reload brings them back; the "
                      "model writes the empty file.")

DIVERGENCES: tuple[Divergence, ...] = (
    Divergence("epoch-file/E3-truncate-prefix.itf.json", 12, "file", MODEL_ERROR, EMPTIED_CHECKPOINT),
    Divergence("epoch-file/E4-prefix-after-suffix.itf.json", 5, "file", MODEL_ERROR, EMPTIED_CHECKPOINT),
)


@frozen
class Refinement:
    """A request where the model answers differently from RocketMQ's code on purpose (spec/README.md, "Refinements"):
    ``applies(system, action)`` says whether an action, in the reference's state before it, is one; a differential walk
    on the real engine takes no such action (it counts them). ``witness``: controller requests from Init whose last one
    the two answer differently (tests/rocketmq shows it on the real code)."""

    name: str
    spec: str  # where spec/README.md gives the reason
    about: str
    applies: Callable[[System, Mapping[str, Any]], bool]
    witness: tuple[Mapping[str, Any], ...]


def _unregistered_first_election(s: System, a: Mapping[str, Any]) -> bool:
    c = s.controller
    return a["tag"] == "ElectMaster" and a["trigger"] != "controller" and c.master_epoch == 0 and a["brokerId"] not in c.replicas


def _id_below_one(s: System, a: Mapping[str, Any]) -> bool:
    return a["tag"] == "ApplyBrokerId" and a["brokerId"] < 1


_APPLY_1 = {"tag": "ApplyBrokerId", "brokerId": 1, "checkCode": "10.0.0.1:30911;1"}
REFINEMENTS: tuple[Refinement, ...] = (
    Refinement("first election of an unregistered id", "refinement 2",
               "ReplicasInfoManager.electMaster makes the requested id master on a set never elected, registered or not: "
               "a master with no address, outside the replica table (SyncStateSetRegistered broken in RocketMQ itself); "
               "a broker asks only with its own applied id, so an admin or a crafted request reaches it",
               _unregistered_first_election, (_APPLY_1, {"tag": "ElectMaster", "trigger": "admin", "brokerId": 5})),
    Refinement("broker ids below 1", "spec/Controller.tla CtlApplyBrokerId",
               "ReplicasInfoManager.applyBrokerId has no range check: a known set takes id 0 or a negative id that is "
               "free (0 is the name server's master id); a broker applies only ids GetNextBrokerId gave (from 1)",
               _id_below_one, (_APPLY_1, {"tag": "ApplyBrokerId", "brokerId": 0, "checkCode": "10.0.0.2:30911;2"})),
)


def refinement_of(s: System, action: Mapping[str, Any]) -> Refinement | None:
    """The refinement ``action`` falls under in state ``s``, or None."""
    return next((r for r in REFINEMENTS if r.applies(s, action)), None)
