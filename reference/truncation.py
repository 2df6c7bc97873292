"""Where a slave truncates its log when it (re)connects to a master, for each truncation policy of
MODEL.md §5. Each policy is one function from the two sides' epoch files and LEOs (and the slave's own
high watermark) to the offset the slave keeps; -1 means the slave cannot find a point and cannot sync.

- ``rocketmq``: EpochFileCache.findConsistentPoint (RIP-44); an empty local epoch file skips truncation.
- ``hw``: Kafka before KIP-101: the follower truncates to its own high watermark.
- ``kip101``: the follower asks for the end of its last epoch: the leader's LEO if that is the leader's
  last epoch too, else the start of the first leader epoch above it; keep min(LEO, that).
- ``kip279``: the follower asks for its last epoch; the leader answers its largest epoch at most that,
  with the epoch's end; if the follower has that epoch it keeps min(its own end of it, the leader's),
  otherwise it asks again for its largest epoch below the answer.
"""

from __future__ import annotations

from collections.abc import Callable

from .epochs import Epochs, end_of, entry_of, find_consistent_point, last_epoch

POLICIES = ("rocketmq", "hw", "kip101", "kip279")


def rocketmq(local: Epochs, leo: int, hw: int, remote: Epochs, remote_leo: int) -> int:
    if not local:
        return leo
    return find_consistent_point(local, leo, remote, remote_leo)


def hw_policy(local: Epochs, leo: int, hw: int, remote: Epochs, remote_leo: int) -> int:
    return min(hw, leo)


def kip101(local: Epochs, leo: int, hw: int, remote: Epochs, remote_leo: int) -> int:
    if not local:
        return min(hw, leo)
    asked = last_epoch(local)
    if remote and remote[-1][0] == asked:
        answer = remote_leo
    else:
        answer = next((start for epoch, start in remote if epoch > asked), remote_leo)
    return min(leo, answer)


def kip279(local: Epochs, leo: int, hw: int, remote: Epochs, remote_leo: int) -> int:
    asked = last_epoch(local) if local else None
    while asked is not None:
        below = [j for j, (epoch, _) in enumerate(remote) if epoch <= asked]
        if not below:
            return 0
        j = below[-1]
        epoch, leader_end = remote[j][0], end_of(remote, j, remote_leo)
        i = entry_of(local, epoch)
        if i is not None:
            return min(end_of(local, i, leo), leader_end)
        lower = [e for e, _ in local if e < epoch]
        asked = lower[-1] if lower else None
    return 0 if local else min(hw, leo)


TRUNCATE: dict[str, Callable[[Epochs, int, int, Epochs, int], int]] = {
    "rocketmq": rocketmq,
    "hw": hw_policy,
    "kip101": kip101,
    "kip279": kip279,
}
