"""Where a slave truncates its log on the HA handshake, per truncation policy (MODEL.md §5), over the
binary-searchable :class:`~autoswitch.impl.epoch_file.EpochFile`. Each policy maps the local epoch file,
LEO and high watermark (confirmOffset) and the master's epoch file and LEO to the offset the slave keeps;
-1 means no consistent point (the slave cannot sync). Same results as ``reference/truncation.py``.
"""

from __future__ import annotations

from collections.abc import Callable

from .epoch_file import EpochFile

POLICIES = ("rocketmq", "hw", "kip101", "kip279")


def rocketmq(local: EpochFile, leo: int, hw: int, remote: EpochFile, remote_leo: int) -> int:
    """RIP-44 ``EpochFileCache.findConsistentPoint``; an empty local epoch file skips truncation."""
    if not local.epochs:
        return leo
    return local.find_consistent_point(leo, remote, remote_leo)


def hw_policy(local: EpochFile, leo: int, hw: int, remote: EpochFile, remote_leo: int) -> int:
    """Kafka before KIP-101: truncate to the own high watermark."""
    return min(hw, leo)


def kip101(local: EpochFile, leo: int, hw: int, remote: EpochFile, remote_leo: int) -> int:
    """KIP-101: the end of the follower's last epoch on the leader (the leader's LEO if that is the
    leader's last epoch too, else the start of the first leader epoch above it); keep min(LEO, that)."""
    if not local.epochs:
        return min(hw, leo)
    asked = local.epochs[-1]
    if remote.epochs and remote.epochs[-1] == asked:
        answer = remote_leo
    else:
        j = remote.first_above(asked)
        answer = remote.starts[j] if j < len(remote.starts) else remote_leo
    return min(leo, answer)


def kip279(local: EpochFile, leo: int, hw: int, remote: EpochFile, remote_leo: int) -> int:
    """KIP-279: ask for the last epoch; the leader answers its largest epoch at most that with its end;
    a follower that has that epoch keeps min(its end of it, the leader's), else asks again below it."""
    epochs = local.epochs
    if not epochs:
        return min(hw, leo)
    asked = epochs[-1]
    while True:
        j = remote.last_at_most(asked)
        if j < 0:
            return 0
        epoch = remote.epochs[j]
        i = local.index_of(epoch)
        if i >= 0:
            return min(local.end_of(i, leo), remote.end_of(j, remote_leo))
        k = local.last_at_most(epoch - 1)
        if k < 0:
            return 0
        asked = epochs[k]


TRUNCATE: dict[str, Callable[[EpochFile, int, int, EpochFile, int], int]] = {
    "rocketmq": rocketmq,
    "hw": hw_policy,
    "kip101": kip101,
    "kip279": kip279,
}
