"""What a master counts as in sync: its confirmOffset and the messages acknowledged to producers
(MODEL.md §5). Both are recomputed, never stored apart from the process and ghost variables."""

from __future__ import annotations

from attrs import evolve

from .state import Options, Process, System


def counted_set(proc: Process, opts: Options) -> frozenset[int]:
    """The members whose acks count: the local syncStateSet, united with the set of an alter still in
    flight when the #5663 fix is on."""
    if opts.union_ack_fix and proc.pending_alter is not None:
        return proc.local_sync_state_set | proc.pending_alter.new_set
    return proc.local_sync_state_set


def master_confirm(proc: Process, opts: Options) -> int:
    """confirmOffset of a master: with allAckInSyncStateSet and more than one member, the least ack of
    the members (its own LEO for itself); frozen while a member has no connection (#6662 fix) - without
    the fix a disconnected member is skipped; otherwise the LEO."""
    members = counted_set(proc, opts) - {proc.meta_file}
    if not opts.all_ack_in_sync_state_set or not members:
        return proc.leo
    if opts.confirm_freeze_fix and any(b not in proc.acks for b in members):
        return min(proc.confirm_offset, proc.leo)
    return min([proc.leo, *(proc.acks[b] for b in members if b in proc.acks)])


def _acked_messages(proc: Process, opts: Options) -> frozenset[int]:
    """Messages of the master's log a producer has been acknowledged for: with allAckInSyncStateSet,
    every counted member holds them; otherwise ``inSyncReplicas`` copies exist (the master's included)."""
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


def settle_master(s: System, p: str, opts: Options) -> System:
    """After a master's step: recompute its confirmOffset and record newly acknowledged messages."""
    proc = s.procs[p]
    proc = evolve(proc, confirm_offset=master_confirm(proc, opts))
    return evolve(s, procs=s.procs.set(p, proc), acked=s.acked | _acked_messages(proc, opts))
