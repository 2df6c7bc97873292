"""Where a slave truncates its log when it (re)connects to a master, for each truncation policy of
MODEL.md §5. Each policy is one function from the two sides' epoch files and LEOs (and the slave's own
high watermark) to the offset the slave keeps; -1 means the slave cannot find a point and cannot sync.

- ``rocketmq``: EpochFileCache.findConsistentPoint (RIP-44); an empty local epoch file skips truncation.
- ``hw``: Kafka before KIP-101: the follower truncates to its own high watermark.
- ``kip101``: Kafka 0.11.0.0 ``ReplicaFetcherThread.maybeTruncate``: the leader's ``endOffsetFor`` the
  follower's latest epoch; UNDEFINED -> the high watermark, else min(answer, LEO).
- ``kip279``: Kafka 2.0.0 ``AbstractFetcherThread.getOffsetTruncationState``, iterated as the fetcher
  does (an intermediate truncation, then a new request).

``v21`` (option ``kafka_leader_epoch_on_election``): both caches answer as Kafka 2.1.0's (KAFKA-7415).
"""

from __future__ import annotations

from collections.abc import Callable

from .epoch_file import (
    UNDEFINED,
    Epochs,
    find_consistent_point,
    kafka_end_offset_for,
    kafka_latest_epoch,
    truncate_suffix,
)

def rocketmq(local: Epochs, leo: int, hw: int, remote: Epochs, remote_leo: int, v21: bool = False) -> int:
    if not local:
        return leo
    return find_consistent_point(local, leo, remote, remote_leo)


def hw_policy(local: Epochs, leo: int, hw: int, remote: Epochs, remote_leo: int, v21: bool = False) -> int:
    return min(hw, leo)


def kip101(local: Epochs, leo: int, hw: int, remote: Epochs, remote_leo: int, v21: bool = False) -> int:
    """TruncKIP101."""
    _, answer = kafka_end_offset_for(remote, remote_leo, kafka_latest_epoch(local), "2.1" if v21 else "0.11")
    return min(hw, leo) if answer == UNDEFINED else min(answer, leo)


def kip279(local: Epochs, leo: int, hw: int, remote: Epochs, remote_leo: int, v21: bool = False) -> int:
    """TruncKIP279, iterated as the fetcher does it (the spec takes the largest stopping prefix): each
    round that names an epoch the leader did not answer truncates and asks again."""
    version = "2.1" if v21 else "2.0"
    fetch_offset = min(hw, leo)  # makeFollower starts the fetcher at the high watermark
    while True:
        leader_epoch, leader_end = kafka_end_offset_for(remote, remote_leo, kafka_latest_epoch(local), version)
        if leader_end == UNDEFINED:
            return fetch_offset
        epoch, end = kafka_end_offset_for(local, leo, leader_epoch, version)
        if end == UNDEFINED:
            return min(leader_end, leo)
        if epoch == leader_epoch:
            return min(end, leader_end, leo)
        leo = fetch_offset = min(end, leo)  # intermediate truncation; the next request asks for `epoch`
        local = truncate_suffix(local, leo)


TRUNCATE: dict[str, Callable[[Epochs, int, int, Epochs, int, bool], int]] = {
    "rocketmq": rocketmq,
    "hw": hw_policy,
    "kip101": kip101,
    "kip279": kip279,
}
POLICIES = tuple(TRUNCATE)
