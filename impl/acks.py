"""What a master counts as in sync (spec/Acks.tla, reference/acks.py): its confirmOffset and how far its
log is acknowledged to producers, as plain functions of the master's own values: its broker id ``me``,
its local syncStateSet ``local``, the set of an alter in flight ``proposed`` (None without one), its LEO,
the acked offsets of its connected slaves ``acks`` (slave id -> offset) and its stored confirmOffset.

The I/O (the confirmOffset checkpoint) and the ghost bookkeeping (the ``acked`` set) are the caller's:
:meth:`~autoswitch.impl.ha.AutoSwitchHAService.settle`.
"""

from __future__ import annotations

from collections.abc import Mapping

from .config import HAConfig

# The event of a master step, for confirmOffset (spec/Acks.tla): nothing that recomputes it; an ack from a
# slave in the local set; setSyncStateSet or changeToMaster.
NO_RECOMPUTE = "none"
ACK_RECOMPUTE = "ack"
SET_RECOMPUTE = "set"


def counted_set(config: HAConfig, local: frozenset[int], proposed: frozenset[int] | None) -> frozenset[int]:
    """CountedSet (spec/Acks.tla)."""
    if proposed is not None and config.union_ack_fix:
        return local | proposed
    return local


def in_sync_count(config: HAConfig, local: frozenset[int], proposed: frozenset[int] | None) -> int:
    """InSyncCount (spec/Acks.tla): RocketMQ ``inSyncReplicasNums``."""
    if proposed is not None and config.policy == "rocketmq" and config.union_ack_fix:
        return max(len(local), len(proposed))
    return len(local)


def ack_event(slave_id: int, local: frozenset[int]) -> str:
    """AckEvent (spec/Replication.tla): RocketMQ ``updateConfirmOffsetWhenSlaveAck``."""
    return ACK_RECOMPUTE if slave_id in local else NO_RECOMPUTE


def _compute_confirm(config: HAConfig, leo: int, others: int, connected: list[int], stored: int) -> int:
    """ComputeConfirm (spec/Acks.tla): RocketMQ ``computeConfirmOffset`` over the ``connected`` acks of the
    ``others`` counted members besides the master."""
    if not config.confirm_freeze_fix:
        return min([leo, *connected])
    if len(connected) < others:
        return stored
    return min([leo, *(a for a in connected if config.confirm_zero_ack_fix or a > 0)])


def confirm_offset(
    config: HAConfig,
    me: int,
    local: frozenset[int],
    proposed: frozenset[int] | None,
    leo: int,
    acks: Mapping[int, int],
    stored: int,
    recompute: str,
) -> int:
    """MasterConfirm (spec/Acks.tla): RocketMQ ``CommitLog.getConfirmOffset``; ``recompute`` is the step's
    event (``NO_RECOMPUTE``, ``ACK_RECOMPUTE``, ``SET_RECOMPUTE``)."""
    members = counted_set(config, local, proposed)
    if config.policy == "rocketmq":
        shortcut = members if config.confirm_shortcut_fix else local
        if not config.all_ack_in_sync_state_set or len(shortcut) == 1:
            return leo
        if not (recompute == ACK_RECOMPUTE or (recompute == SET_RECOMPUTE and config.confirm_freeze_fix)):
            return stored
        others = members - {me}
        return _compute_confirm(config, leo, len(others), [acks[b] for b in others if b in acks], stored)
    others = members - {me}
    if not config.all_ack_in_sync_state_set or not others:
        return leo
    connected = [acks[b] for b in others if b in acks]
    if len(connected) < len(others) and config.confirm_freeze_fix:
        return min(stored, leo)
    return min([leo, *connected])


def acked_upto(
    config: HAConfig, me: int, local: frozenset[int], proposed: frozenset[int] | None, leo: int, acks: Mapping[int, int]
) -> int:
    """AckedUpTo (spec/Acks.tla): RocketMQ ``GroupTransferService.doWaitTransfer``; the messages of the
    master's log below it are acknowledged to producers."""
    if config.all_ack_in_sync_state_set:
        others = counted_set(config, local, proposed) - {me}
        connected = [acks[b] for b in others if b in acks]
        return 0 if len(connected) < len(others) else min([leo, *connected])
    need = config.in_sync_replicas - 1  # slaves needed besides the master
    if need <= 0:
        return leo
    if len(acks) >= need:
        return min(leo, sorted(acks.values(), reverse=True)[need - 1])
    return 0
