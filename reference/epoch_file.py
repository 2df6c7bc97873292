"""Logs and epoch files as values (spec/EpochFile.tla): an epoch file is a tuple of ``(epoch, startOffset)``
entries, read against the log end offset (LEO). Pure functions, used by the broker and replication actions
and the truncation policies.

Differs from the spec: the RocketMQ rules call the component model ``epoch_cache.py`` (RocketMQ's
EpochFileCache with its in-memory endOffsets), which owns them; this module is that cache's
``(epoch, startOffset)`` view. Indices are 0-based and "none" is ``None`` where the spec says 0.
"""

from __future__ import annotations

from . import epoch_cache

Epochs = tuple[tuple[int, int], ...]


def append(epochs: Epochs, epoch: int, start: int) -> Epochs:
    """EfAppend (spec/EpochFile.tla), with epoch_cache's ``refuses``."""
    if epochs and epoch_cache.refuses(*epochs[-1], epoch, start):
        return epochs
    return epochs + ((epoch, start),)


def truncate_suffix(epochs: Epochs, offset: int) -> Epochs:
    """TruncateSuffix (spec/EpochFile.tla), through epoch_cache's ``truncate_suffix_by_offset`` (the
    endOffsets it keeps in memory are not part of this view)."""
    return tuple((e.epoch, e.start) for e in epoch_cache.truncate_suffix_by_offset(epoch_cache.init_entries(epochs), offset))


def truncate_suffix_by_epoch(epochs: Epochs, epoch: int) -> Epochs:
    """TruncateSuffixByEpoch (spec/EpochFile.tla)."""
    return tuple(e for e in epochs if e[0] < epoch)


def last_epoch(epochs: Epochs) -> int:
    """LastEpoch (spec/EpochFile.tla)."""
    return epochs[-1][0] if epochs else 0


def last_start(epochs: Epochs) -> int:
    """LastStart (spec/EpochFile.tla)."""
    return epochs[-1][1] if epochs else 0


def change_to_master(epochs: Epochs, epoch: int, leo: int, keep_own: bool = False) -> Epochs:
    """EfChangeToMaster (spec/EpochFile.tla); ``keep_own`` is its ``keepOwn``."""
    if epoch < last_epoch(epochs):
        return epochs
    return append(truncate_suffix_by_epoch(epochs, epoch + 1 if keep_own else epoch), epoch, leo)


def entry_at_offset(epochs: Epochs, offset: int) -> tuple[int, int] | None:
    """EntryAtOffset (spec/EpochFile.tla), returning the entry itself, or None where the spec says 0."""
    for i, e in enumerate(epochs):
        if e[1] <= offset and (i + 1 == len(epochs) or offset < epochs[i + 1][1]):
            return e
    return None


def end_of(epochs: Epochs, index: int, leo: int) -> int:
    """EndOf (spec/EpochFile.tla), ``index`` 0-based."""
    return epochs[index + 1][1] if index + 1 < len(epochs) else leo


def entry_of(epochs: Epochs, epoch: int) -> int | None:
    """EntryOf (spec/EpochFile.tla), 0-based; None where the spec's HasEpoch is false."""
    return next((i for i, e in enumerate(epochs) if e[0] == epoch), None)


def as_cache(epochs: Epochs, leo: int) -> epoch_cache.Entries:
    """The cache AutoSwitchHAClient.doTruncate builds from a side's entries: loaded, then
    setLastEpochEntryEndOffset(its max offset), so the last entry ends at the LEO (the spec's EndOf)."""
    return epoch_cache.set_last_end_offset(epoch_cache.init_entries(epochs), leo)


def find_consistent_point(local: Epochs, local_leo: int, remote: Epochs, remote_leo: int) -> int:
    """FindConsistentPoint (spec/EpochFile.tla), as epoch_cache's ``find_consistent_point`` on both sides'
    caches as doTruncate builds them (``as_cache``)."""
    return epoch_cache.find_consistent_point(as_cache(local, local_leo), as_cache(remote, remote_leo))


# ---- Kafka's leader-epoch cache (kafka.server.epoch.LeaderEpochFileCache; spec/EpochFile.tla) ----------------

UNDEFINED = -1
"""Undefined (spec/EpochFile.tla): UNDEFINED_EPOCH and UNDEFINED_EPOCH_OFFSET."""


def kafka_latest_epoch(epochs: Epochs) -> int:
    """KafkaLatestEpoch (spec/EpochFile.tla)."""
    return epochs[-1][0] if epochs else UNDEFINED


def kafka_assign(epochs: Epochs, epoch: int, start: int, v21: bool) -> Epochs:
    """KafkaAssign (spec/EpochFile.tla)."""
    if v21:
        if epochs and epochs[-1][0] == epoch and start >= epochs[-1][1]:
            return epochs
        return tuple(e for e in epochs if e[0] < epoch and e[1] < start) + ((epoch, start),)
    if not epochs or (epoch > epochs[-1][0] and start >= epochs[-1][1]):
        return epochs + ((epoch, start),)
    return epochs


def kafka_end_offset_for(epochs: Epochs, leo: int, requested: int, version: str) -> tuple[int, int]:
    """KafkaEndOffsetFor (spec/EpochFile.tla)."""
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
    """EfWellFormed (spec/EpochFile.tla)."""
    ordered = all(a[0] < b[0] and a[1] < b[1] for a, b in zip(epochs, epochs[1:], strict=False))
    return ordered and (not epochs or epochs[-1][1] <= leo)
