"""What a master counts as in sync (MODEL.md §5; spec/Acks.tla): its confirmOffset and the messages
acknowledged to producers. Differs in form: each function takes the master's ``Process`` and the ``Options``
where the spec's operator takes the master's fields and reads the constants."""

from __future__ import annotations

from .state import Options, Process, System, evolve

# The event of a master step, for confirmOffset (spec/Acks.tla).
NO_RECOMPUTE = "none"
ACK_RECOMPUTE = "ack"
SET_RECOMPUTE = "set"


def counted_set(proc: Process, opts: Options) -> frozenset[int]:
    """CountedSet (spec/Acks.tla)."""
    if opts.union_ack_fix and proc.pending_alter is not None:
        return proc.local_sync_state_set | proc.pending_alter.new_set
    return proc.local_sync_state_set


def in_sync_count(proc: Process, opts: Options) -> int:
    """InSyncCount (spec/Acks.tla)."""
    if opts.policy == "rocketmq" and opts.union_ack_fix and proc.pending_alter is not None:
        return max(len(proc.local_sync_state_set), len(proc.pending_alter.new_set))
    return len(proc.local_sync_state_set)


def _compute_confirm(proc: Process, opts: Options) -> int:
    """ComputeConfirm (spec/Acks.tla), with MinAck inline."""
    members = counted_set(proc, opts) - {proc.meta_file}
    connected = [proc.acks[b] for b in members if b in proc.acks]
    if opts.confirm_freeze_fix:
        if len(connected) < len(members):
            return proc.confirm_offset
        return min([proc.leo, *(a for a in connected if opts.confirm_zero_ack_fix or a > 0)])
    return min([proc.leo, *connected])


def master_confirm(proc: Process, opts: Options, recompute: str) -> int:
    """MasterConfirm (spec/Acks.tla)."""
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
    """MsgsBelow(log, AckedUpTo) (spec/Acks.tla): the messages, where AckedUpTo is their count."""
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
    """SettledConfirm and SettledAcked (spec/Broker.tla) in one step."""
    proc = s.procs[p]
    proc = evolve(proc, confirm_offset=master_confirm(proc, opts, recompute))
    return evolve(s, procs=s.procs.set(p, proc), acked=s.acked | _acked_messages(proc, opts))
