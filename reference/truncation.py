"""The truncation policies of MODEL.md §5, one function per spec module: ``spec/TruncateRocketMQ.tla``,
``TruncateHW.tla``, ``TruncateKIP101.tla``, ``TruncateKIP279.tla``. ``TRUNCATE[policy]`` is the spec's
TruncatePoint (spec/Replication.tla); ``v21`` is the option KafkaLeaderEpochOnElection.
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
    """TruncRocketMQ (spec/TruncateRocketMQ.tla)."""
    if not local:
        return leo
    return find_consistent_point(local, leo, remote, remote_leo)


def hw_policy(local: Epochs, leo: int, hw: int, remote: Epochs, remote_leo: int, v21: bool = False) -> int:
    """TruncHW (spec/TruncateHW.tla)."""
    return min(hw, leo)


def kip101(local: Epochs, leo: int, hw: int, remote: Epochs, remote_leo: int, v21: bool = False) -> int:
    """TruncKIP101 (spec/TruncateKIP101.tla)."""
    _, answer = kafka_end_offset_for(remote, remote_leo, kafka_latest_epoch(local), "2.1" if v21 else "0.11")
    return min(hw, leo) if answer == UNDEFINED else min(answer, leo)


def kip279(local: Epochs, leo: int, hw: int, remote: Epochs, remote_leo: int, v21: bool = False) -> int:
    """TruncKIP279 (spec/TruncateKIP279.tla). Differs in form: iterated round by round as the fetcher does
    (an intermediate truncation, then a new request), where the spec takes the largest stopping prefix."""
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
