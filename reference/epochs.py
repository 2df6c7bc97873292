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


def last_epoch(epochs: Epochs) -> int:
    return epochs[-1][0] if epochs else 0


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


def well_formed(epochs: Epochs, leo: int) -> bool:
    """EpochFileWellFormed: epochs and start offsets strictly increase; the last start is at most the LEO."""
    ordered = all(a[0] < b[0] and a[1] < b[1] for a, b in zip(epochs, epochs[1:]))
    return ordered and (not epochs or epochs[-1][1] <= leo)
