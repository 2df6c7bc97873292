"""What replaying the committed corpus on RocketMQ's own classes showed: every trace where the real code and the model
disagree, with how it is settled. The corpus test (tests/rocketmq) replays ``traces/`` on the ``rocketmq`` engine and
fails unless the divergences are exactly these, at these states and fields: a new one must be settled and written here,
and one that goes away (the model fixed) must leave."""

from __future__ import annotations

from attrs import frozen

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


TRIGGER = ("the controller's re-election trigger: RocketMQ's periodic scan (ReplicasInfoManager.scanNeedReelectBrokerSets) "
           "fires only while some broker of the set is alive; the model's ControllerElectScan folds the master's expiry "
           "notice (ControllerManager.onBrokerInactive) into the scan as 'the master is not alive', so it also fires "
           "with an empty liveness table (after every expiry, or after a controller failover, where it can demote a "
           "live master). The model must start the trigger on the master's expiry in every version and scan only "
           "with a live id.")
EMPTIED_CHECKPOINT = ("an emptied epoch checkpoint: CheckpointFile.write returns at once for an empty list, so a cache "
                      "emptied by a truncation leaves its previous lines on disk, and a reload brings them back; the "
                      "model writes the empty file.")

DIVERGENCES: tuple[Divergence, ...] = (
    Divergence("controller/C11-elect-trigger-nobody-alive.itf.json", 17, "action", MODEL_ERROR, TRIGGER),
    Divergence("controller/C12-broker-elects-after-poll.itf.json", 19, "action", MODEL_ERROR, TRIGGER),
    Divergence("epoch-file/E3-truncate-prefix.itf.json", 12, "file", MODEL_ERROR, EMPTIED_CHECKPOINT),
    Divergence("epoch-file/E4-prefix-after-suffix.itf.json", 5, "file", MODEL_ERROR, EMPTIED_CHECKPOINT),
)
