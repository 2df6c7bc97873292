"""Where a slave truncates its log on the HA handshake, per truncation policy (MODEL.md §5), over the
binary-searchable :class:`~autoswitch.impl.epoch_file.EpochFile`. Each policy maps the local epoch file,
LEO and high watermark (confirmOffset) and the master's epoch file and LEO to the offset the slave keeps;
-1 means no consistent point (the slave cannot sync). Same results as ``reference/truncation.py``.
"""

from __future__ import annotations

from collections.abc import Callable

from .epoch_file import EpochFile

# A policy's rule: (local epoch file, LEO, high watermark, remote epoch file, remote LEO, Kafka >= 2.1) -> point
Truncate = Callable[[EpochFile, int, int, EpochFile, int, bool], int]

def rocketmq(local: EpochFile, leo: int, hw: int, remote: EpochFile, remote_leo: int, v21: bool = False) -> int:
    """RIP-44 ``EpochFileCache.findConsistentPoint``; an empty local epoch file skips truncation."""
    if not local.epochs:
        return leo
    return local.consistent_point(remote, leo, remote_leo)


def hw_policy(local: EpochFile, leo: int, hw: int, remote: EpochFile, remote_leo: int, v21: bool = False) -> int:
    """Kafka before KIP-101: truncate to the own high watermark."""
    return min(hw, leo)


def kip101(local: EpochFile, leo: int, hw: int, remote: EpochFile, remote_leo: int, v21: bool = False) -> int:
    """Kafka 0.11.0.0 ``ReplicaFetcherThread.maybeTruncate``: the leader's ``endOffsetFor`` the latest local
    epoch; UNDEFINED -> the high watermark, else min(answer, LEO)."""
    asked = local.epochs[-1] if local.epochs else -1
    _, answer = remote.kafka_end_offset_for(remote_leo, asked, "2.1" if v21 else "0.11")
    return min(hw, leo) if answer == -1 else min(answer, leo)


def kip279(local: EpochFile, leo: int, hw: int, remote: EpochFile, remote_leo: int, v21: bool = False) -> int:
    """Kafka 2.0.0 ``AbstractFetcherThread.getOffsetTruncationState``, round after round; an intermediate
    truncation keeps the local entries up to the epoch the follower named, so a round is an index ``top``
    into the (untouched) local file."""
    version = "2.1" if v21 else "2.0"
    epochs = local.epochs
    top = len(epochs) - 1
    if top < 0:
        return min(hw, leo)
    fetch_offset = min(hw, leo)
    while True:
        leader_epoch, leader_end = remote.kafka_end_offset_for(remote_leo, epochs[top], version)
        if leader_end == -1:
            return fetch_offset
        epoch, end = _prefix_end_offset_for(local, top, leo, leader_epoch, version)
        if end == -1:
            return min(leader_end, leo)
        if epoch == leader_epoch:
            return min(end, leader_end, leo)
        top = local.index_of(epoch)
        leo = fetch_offset = min(end, leo)


def _prefix_end_offset_for(local: EpochFile, top: int, leo: int, requested: int, version: str) -> tuple[int, int]:
    """``endOffsetFor`` on the first ``top + 1`` entries of ``local`` with LEO ``leo``."""
    epochs = local.epochs
    if requested == epochs[top]:
        return requested, leo
    above = local.first_above(requested)
    if above > top:
        return -1, -1
    if above == 0:
        return (requested, local.starts[0]) if version == "2.1" else (-1, -1)
    return epochs[above - 1], local.starts[above]


TRUNCATE: dict[str, Truncate] = {
    "rocketmq": rocketmq,
    "hw": hw_policy,
    "kip101": kip101,
    "kip279": kip279,
}
POLICIES = tuple(TRUNCATE)
