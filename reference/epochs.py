"""The epoch file (RocketMQ ``EpochFileCache``; Kafka's leader-epoch checkpoint): a sequence of
``(epoch, startOffset)`` entries, both strictly increasing, read against the log end offset (LEO).
Pure functions over tuples, used by the replication actions and the truncation policies. The rules are
those of the component model ``epoch_cache.py`` (RocketMQ's EpochFileCache), which this view calls."""

from __future__ import annotations

from . import epoch_cache

Epochs = tuple[tuple[int, int], ...]


def append(epochs: Epochs, epoch: int, start: int) -> Epochs:
    """appendEntry: the file refuses an entry whose epoch or start offset is not strictly greater than
    the last one's (so an epoch bump with no new data is not recorded)."""
    if epochs and epoch_cache.refuses(*epochs[-1], epoch, start):
        return epochs
    return epochs + ((epoch, start),)


def truncate_suffix(epochs: Epochs, offset: int) -> Epochs:
    """truncateSuffixByOffset: drop the entries that start at or beyond ``offset`` (the cache's rule; the
    endOffsets it keeps in memory are not part of this view)."""
    return tuple((e.epoch, e.start) for e in epoch_cache.truncate_suffix_by_offset(epoch_cache.init_entries(epochs), offset))


def truncate_suffix_by_epoch(epochs: Epochs, epoch: int) -> Epochs:
    """truncateSuffixByEpoch: drop the entries whose epoch is at least ``epoch``."""
    return tuple(e for e in epochs if e[0] < epoch)


def last_epoch(epochs: Epochs) -> int:
    return epochs[-1][0] if epochs else 0


def change_to_master(epochs: Epochs, epoch: int, leo: int, keep_own: bool = False) -> Epochs:
    """EfChangeToMaster (AutoSwitchHAService.changeToMaster): unchanged when ``epoch`` is below the last
    epoch; otherwise the entries of epochs >= ``epoch`` go and ``(epoch, leo)`` is appended with the
    strict rule, so re-entering the last epoch moves its start to the LEO. ``keep_own`` (the hypothetical
    epoch re-entry fix): only the epochs above ``epoch`` go."""
    if epoch < last_epoch(epochs):
        return epochs
    return append(truncate_suffix_by_epoch(epochs, epoch + 1 if keep_own else epoch), epoch, leo)


def entry_at_offset(epochs: Epochs, offset: int) -> tuple[int, int] | None:
    """EntryAtOffset (findEpochEntryByOffset): the entry with start <= ``offset`` < end (the last entry
    has no end), or None."""
    for i, e in enumerate(epochs):
        if e[1] <= offset and (i + 1 == len(epochs) or offset < epochs[i + 1][1]):
            return e
    return None


def end_of(epochs: Epochs, index: int, leo: int) -> int:
    """The end offset of the entry at ``index``: the next entry's start, or the LEO for the last one."""
    return epochs[index + 1][1] if index + 1 < len(epochs) else leo


def entry_of(epochs: Epochs, epoch: int) -> int | None:
    """The index of ``epoch``'s entry, or None."""
    return next((i for i, e in enumerate(epochs) if e[0] == epoch), None)


def as_cache(epochs: Epochs, leo: int) -> epoch_cache.Entries:
    """The cache AutoSwitchHAClient.doTruncate builds from a side's entries: loaded, then
    setLastEpochEntryEndOffset(its max offset), so the last entry ends at the LEO."""
    return epoch_cache.set_last_end_offset(epoch_cache.init_entries(epochs), leo)


def find_consistent_point(local: Epochs, local_leo: int, remote: Epochs, remote_leo: int) -> int:
    """findConsistentPoint on both sides' caches as doTruncate builds them; -1 when there is none."""
    return epoch_cache.find_consistent_point(as_cache(local, local_leo), as_cache(remote, remote_leo))


# ---- Kafka's leader-epoch cache (kafka.server.epoch.LeaderEpochFileCache; spec EpochFile.tla) ----------------

UNDEFINED = -1
"""UNDEFINED_EPOCH and UNDEFINED_EPOCH_OFFSET."""


def kafka_latest_epoch(epochs: Epochs) -> int:
    """KafkaLatestEpoch: UNDEFINED_EPOCH for an empty cache."""
    return epochs[-1][0] if epochs else UNDEFINED


def kafka_assign(epochs: Epochs, epoch: int, start: int, v21: bool) -> Epochs:
    """KafkaAssign: ``assign`` as Log.append calls it. 0.11.0.0-2.0.0: appended only above the latest
    epoch and not below the latest start; 2.1.0 (KAFKA-7415): ``truncateAndAppend``."""
    if v21:
        if epochs and epochs[-1][0] == epoch and start >= epochs[-1][1]:
            return epochs
        return tuple(e for e in epochs if e[0] < epoch and e[1] < start) + ((epoch, start),)
    if not epochs or (epoch > epochs[-1][0] and start >= epochs[-1][1]):
        return epochs + ((epoch, start),)
    return epochs


def kafka_end_offset_for(epochs: Epochs, leo: int, requested: int, version: str) -> tuple[int, int]:
    """KafkaEndOffsetFor: ``endOffsetFor`` of Kafka ``version`` ("0.11", "2.0", "2.1") as (epoch, end)."""
    if requested == UNDEFINED and version != "0.11":
        return UNDEFINED, UNDEFINED
    if requested == kafka_latest_epoch(epochs):
        return requested, leo
    above = [s for e, s in epochs if e > requested]
    at_or_below = [e for e, _ in epochs if e <= requested]
    if not above:
        return UNDEFINED, UNDEFINED
    if not at_or_below:
        return (requested, above[0]) if version == "2.1" else (UNDEFINED, UNDEFINED)
    return at_or_below[-1], above[0]


def well_formed(epochs: Epochs, leo: int) -> bool:
    """EpochFileWellFormed: epochs and start offsets strictly increase; the last start is at most the LEO."""
    ordered = all(a[0] < b[0] and a[1] < b[1] for a, b in zip(epochs, epochs[1:]))
    return ordered and (not epochs or epochs[-1][1] <= leo)
