"""RocketMQ ``DefaultElectPolicy`` (MODEL.md §3, reference ``elect_policy`` / ``_try_elect``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from .heartbeat import BrokerLiveInfo


def _try_elect(
    candidates: Iterable[int], old_master: int, assigned: int | None, alive: Mapping[int, BrokerLiveInfo]
) -> int | None:
    """The winner among the alive ``candidates``: the alive old master if nothing else is designated;
    the designated id if it is an alive candidate (else none); otherwise the best ranked: higher epoch,
    then higher maxOffset, then lower priority value, then lower id (the code's HashSet order, fixed)."""
    best = -1
    best_info: BrokerLiveInfo | None = None
    old_live = assigned_live = False
    for broker_id in candidates:
        info = alive.get(broker_id)
        if info is None:
            continue
        if broker_id == old_master:
            old_live = True
        if broker_id == assigned:
            assigned_live = True
        if best_info is None:
            better = True
        elif info.epoch != best_info.epoch:
            better = info.epoch > best_info.epoch
        elif info.max_offset != best_info.max_offset:
            better = info.max_offset > best_info.max_offset
        elif info.election_priority != best_info.election_priority:
            better = info.election_priority < best_info.election_priority
        else:
            better = broker_id < best
        if better:
            best, best_info = broker_id, info
    if best_info is None:
        return None
    if old_live and (assigned is None or assigned == old_master):
        return old_master
    if assigned is not None:
        return assigned if assigned_live else None
    return best


def elect(
    sync_state_set: frozenset[int],
    all_replicas: Iterable[int] | None,
    old_master: int,
    assigned: int | None,
    alive: Mapping[int, BrokerLiveInfo],
) -> int | None:
    """DefaultElectPolicy.elect: first among the alive syncStateSet; then, when unclean election is enabled
    (``all_replicas`` given), among all registered ids."""
    winner = _try_elect(sync_state_set, old_master, assigned, alive)
    if winner is None and all_replicas is not None:
        winner = _try_elect(all_replicas, old_master, assigned, alive)
    return winner
