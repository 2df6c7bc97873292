"""HA configuration and what the brokers of one set share (MODEL.md §5): the options of the data path,
the peer directory an HA client uses to reach its master (by broker id), and the ghost message sets
(``acked``: acknowledged to producers, ``seen``: read by consumers) with the message id source.

The master side (acks of connected slaves, confirmOffset, producer acks) and the slave side (handshake,
transfer) live on :class:`~autoswitch.impl.broker.ReplicasManager`; this module holds what crosses
processes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from enum import StrEnum
from typing import TYPE_CHECKING

from .epoch_file import EpochFile
from .truncation import TRUNCATE

if TYPE_CHECKING:
    from .broker import BrokerProcess
    from .protocol import Response


# The event of a master step, for confirmOffset (reference ``acks``): nothing that recomputes it; an ack
# from a slave in the local set; setSyncStateSet or changeToMaster.
NO_RECOMPUTE = "none"
ACK_RECOMPUTE = "ack"
SET_RECOMPUTE = "set"


class HAState(StrEnum):
    """HA connection state of a slave; NONE for a process that is not a slave."""

    NONE = "NONE"
    READY = "READY"
    TRANSFER = "TRANSFER"


class HAConfig:
    """Data-path options (reference ``Options`` minus the controller's)."""

    __slots__ = (
        "policy",
        "truncate",
        "all_ack_in_sync_state_set",
        "min_in_sync_replicas",
        "in_sync_replicas",
        "async_flush",
        "async_learners",
        "union_ack_fix",
        "confirm_freeze_fix",
        "kafka_leader_epoch_on_election",
        "confirm_shortcut_fix",
        "confirm_zero_ack_fix",
        "epoch_reentry_fix",
    )

    def __init__(
        self,
        policy: str = "rocketmq",
        all_ack_in_sync_state_set: bool = True,
        min_in_sync_replicas: int = 1,
        in_sync_replicas: int = 1,
        async_flush: bool = False,
        async_learners: Iterable[str] = (),
        union_ack_fix: bool = True,
        confirm_freeze_fix: bool = True,
        kafka_leader_epoch_on_election: bool = False,
        confirm_shortcut_fix: bool = True,
        confirm_zero_ack_fix: bool = True,
        epoch_reentry_fix: bool = True,
    ) -> None:
        if policy not in TRUNCATE:
            raise ValueError(f"unknown truncation policy {policy!r}; expected one of {', '.join(TRUNCATE)}")
        self.policy = policy
        self.truncate: Callable[[EpochFile, int, int, EpochFile, int, bool], int] = TRUNCATE[policy]
        self.all_ack_in_sync_state_set = all_ack_in_sync_state_set
        self.min_in_sync_replicas = min_in_sync_replicas
        self.in_sync_replicas = in_sync_replicas
        self.async_flush = async_flush
        self.async_learners = frozenset(async_learners)
        self.union_ack_fix = union_ack_fix
        self.confirm_freeze_fix = confirm_freeze_fix
        self.kafka_leader_epoch_on_election = kafka_leader_epoch_on_election
        self.confirm_shortcut_fix = confirm_shortcut_fix
        self.confirm_zero_ack_fix = confirm_zero_ack_fix
        self.epoch_reentry_fix = epoch_reentry_fix


class PendingAlter:
    """An AlterSyncStateSet whose outcome the master does not know yet (RocketMQ #5663). ``delivered``: the
    answer is on its way; otherwise it was lost and the master learns the outcome from replica info."""

    __slots__ = ("new_sync_state_set", "response", "delivered")

    def __init__(self, new_sync_state_set: frozenset[int], response: Response, delivered: bool) -> None:
        self.new_sync_state_set = new_sync_state_set
        self.response = response
        self.delivered = delivered


class BrokerSet:
    """The processes of one broker set, in configuration order, and the ghost message sets."""

    __slots__ = ("config", "processes", "next_msg", "acked", "seen")

    def __init__(self, config: HAConfig | None = None) -> None:
        self.config = config or HAConfig()
        self.processes: list[BrokerProcess] = []
        self.next_msg = 1
        self.acked: set[int] = set()
        self.seen: set[int] = set()

    def process_of(self, broker_id: int) -> BrokerProcess | None:
        """The first process whose meta file holds ``broker_id`` (the HA client's address lookup)."""
        if broker_id == 0:
            return None
        for process in self.processes:
            if process.meta_id == broker_id:
                return process
        return None

    def drop_connections_to(self, broker_id: int) -> None:
        """The HA connections of ``broker_id`` break (it crashed or changed role): its slaves go back to
        READY and masters forget its ack."""
        if broker_id == 0:
            return
        for process in self.processes:
            manager = process.replicas_manager
            if manager is None:
                continue
            if manager.ha_state is HAState.TRANSFER and manager.master_id == broker_id:
                manager.ha_state = HAState.READY
            elif broker_id in manager.acks:
                del manager.acks[broker_id]
