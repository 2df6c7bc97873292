"""What a master counts as in sync (MODEL.md §5): its confirmOffset and the messages acknowledged to producers.
The acknowledged messages are recomputed after every master step; confirmOffset is what
``CommitLog.getConfirmOffset()`` returns, whose stored value (under ``rocketmq``) moves only on the events
that recompute it in RocketMQ (``Recompute``)."""

from __future__ import annotations

from attrs import evolve

from .state import Options, Process, System

# The event of a master step, for confirmOffset (spec Acks.tla): nothing that recomputes it; an ack from a
# slave in the LOCAL set (updateConfirmOffsetWhenSlaveAck); setSyncStateSet or changeToMaster.
NO_RECOMPUTE = "none"
ACK_RECOMPUTE = "ack"
SET_RECOMPUTE = "set"


def counted_set(proc: Process, opts: Options) -> frozenset[int]:
    """The members whose acks count: the local syncStateSet, united with the set of an alter still in
    flight when the #5663 fix is on (getSyncStateSet while synchronizing)."""
    if opts.union_ack_fix and proc.pending_alter is not None:
        return proc.local_sync_state_set | proc.pending_alter.new_set
    return proc.local_sync_state_set


def in_sync_count(proc: Process, opts: Options) -> int:
    """InSyncCount, what a write is checked against minInSyncReplicas with: ``rocketmq``:
    inSyncReplicasNums, max(|local|, |proposed|) while an alter is in flight (#5663 fix on); otherwise
    the local set's size."""
    if opts.policy == "rocketmq" and opts.union_ack_fix and proc.pending_alter is not None:
        return max(len(proc.local_sync_state_set), len(proc.pending_alter.new_set))
    return len(proc.local_sync_state_set)


def _compute_confirm(proc: Process, opts: Options) -> int:
    """ComputeConfirm (AutoSwitchHAService.computeConfirmOffset): with the #6662 fix the stored value while a
    counted member other than the master has no connection, else the least of the LEO and the counted members'
    acks above 0 (all of them with the hypothetical ``confirm_zero_ack_fix``); without it (5.1.0) the least of
    the LEO and every counted connected member's ack, 0 included."""
    members = counted_set(proc, opts) - {proc.meta_file}
    connected = [proc.acks[b] for b in members if b in proc.acks]
    if opts.confirm_freeze_fix:
        if len(connected) < len(members):
            return proc.confirm_offset
        return min([proc.leo, *(a for a in connected if opts.confirm_zero_ack_fix or a > 0)])
    return min([proc.leo, *connected])


def master_confirm(proc: Process, opts: Options, recompute: str) -> int:
    """MasterConfirm: ``rocketmq``: getConfirmOffset(), the LEO when the LOCAL set (with the hypothetical
    ``confirm_shortcut_fix``: the counted set) has one member or allAckInSyncStateSet is off; otherwise the
    stored value, recomputed on an ack (ACK_RECOMPUTE, the caller checks the slave is in the local set) and,
    with the #6662 fix, on setSyncStateSet and changeToMaster (SET_RECOMPUTE). The Kafka policies: the least
    ack of the counted members recomputed at every step, frozen while a member has no connection (#6662 fix)
    or skipping it."""
    if opts.policy == "rocketmq":
        shortcut_set = counted_set(proc, opts) if opts.confirm_shortcut_fix else proc.local_sync_state_set
        if not opts.all_ack_in_sync_state_set or len(shortcut_set) == 1:
            return proc.leo
        if recompute == ACK_RECOMPUTE or (recompute == SET_RECOMPUTE and opts.confirm_freeze_fix):
            return _compute_confirm(proc, opts)
        return proc.confirm_offset
    members = counted_set(proc, opts) - {proc.meta_file}
    if not opts.all_ack_in_sync_state_set or not members:
        return proc.leo
    if opts.confirm_freeze_fix and any(b not in proc.acks for b in members):
        return min(proc.confirm_offset, proc.leo)
    return min([proc.leo, *(proc.acks[b] for b in members if b in proc.acks)])


def _acked_messages(proc: Process, opts: Options) -> frozenset[int]:
    """Messages of the master's log a producer has been acknowledged for (GroupTransferService
    .doWaitTransfer): with allAckInSyncStateSet, every counted member holds them; otherwise
    ``inSyncReplicas`` copies exist (the master's included)."""
    if opts.all_ack_in_sync_state_set:
        members = counted_set(proc, opts) - {proc.meta_file}
        if any(b not in proc.acks for b in members):
            upto = 0
        else:
            upto = min([proc.leo, *(proc.acks[b] for b in members)])
    else:
        copies = sorted((proc.acks.values()), reverse=True)
        need = opts.in_sync_replicas - 1  # slaves needed besides the master
        upto = proc.leo if need <= 0 else (min(proc.leo, copies[need - 1]) if len(copies) >= need else 0)
    return frozenset(msg for msg, _ in proc.log[:upto])


def settle_master(s: System, p: str, opts: Options, recompute: str) -> System:
    """After a master's step (``recompute``: the event, for confirmOffset): its confirmOffset and the newly
    acknowledged messages."""
    proc = s.procs[p]
    proc = evolve(proc, confirm_offset=master_confirm(proc, opts, recompute))
    return evolve(s, procs=s.procs.set(p, proc), acked=s.acked | _acked_messages(proc, opts))
