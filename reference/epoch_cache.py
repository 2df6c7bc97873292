"""RocketMQ's ``EpochFileCache`` (store/.../ha/autoswitch/EpochFileCache.java) as a component, ROCKETMQ.md
§8.1: entries ``(epoch, startOffset, endOffset)`` in epoch order, as the cache holds them in memory.
The file holds only ``epoch-startOffset`` lines; ``endOffset`` is not persisted, so a reload derives it
(the next entry's start, ``MAX`` for the last). Every operation is a pure function returning the new
entries and, for queries, the answer; an entry a query returns is a value (Java returns copies).

This module owns the rules; ``epoch_file.py`` (the system model's ``(epoch, startOffset)`` view, read
against the LEO) uses them. Where the two forms differ is listed in spec/README.md "Trace kinds".
"""

from __future__ import annotations

from attrs import frozen

MAX = 2**63 - 1  # Long.MAX_VALUE: EpochEntry's default endOffset


@frozen
class Entry:
    epoch: int
    start: int
    end: int = MAX


Entries = tuple[Entry, ...]


def refuses(last_epoch: int, last_start: int, epoch: int, start: int) -> bool:
    """appendEntry's check: both the epoch and the start offset must be strictly greater than the last
    entry's, so an epoch bump with no new data is not recorded."""
    return last_epoch >= epoch or last_start >= start


def append(entries: Entries, epoch: int, start: int) -> tuple[Entries, bool]:
    """appendEntry: on success the old last entry's endOffset becomes ``start``."""
    if not entries:
        return (Entry(epoch, start),), True
    last = entries[-1]
    if refuses(last.epoch, last.start, epoch, start):
        return entries, False
    return entries[:-1] + (Entry(last.epoch, last.start, start), Entry(epoch, start)), True


def truncate_suffix_by_epoch(entries: Entries, epoch: int) -> Entries:
    """truncateSuffixByEpoch: drop entries with ``epoch >= E``. As in doTruncateSuffix, the new last
    entry keeps its in-memory endOffset (Java resets a copy): see :func:`reload`."""
    return tuple(e for e in entries if e.epoch < epoch)


def truncate_suffix_by_offset(entries: Entries, offset: int) -> Entries:
    """truncateSuffixByOffset: drop entries with ``startOffset >= O``; same endOffset quirk."""
    return tuple(e for e in entries if e.start < offset)


def truncate_prefix_by_offset(entries: Entries, offset: int) -> Entries:
    """truncatePrefixByOffset: drop entries with ``endOffset <= O`` (by the in-memory endOffset)."""
    return tuple(e for e in entries if e.end > offset)


def set_last_end_offset(entries: Entries, offset: int) -> Entries:
    """setLastEpochEntryEndOffset: only if the last entry starts at or before ``offset``; not persisted."""
    if not entries or entries[-1].start > offset:
        return entries
    last = entries[-1]
    return entries[:-1] + (Entry(last.epoch, last.start, offset),)


def file_lines(entries: Entries) -> tuple[str, ...]:
    """The checkpoint file's lines (EpochEntrySerializer.toLine): every change is flushed at once."""
    return tuple(f"{e.epoch}-{e.start}" for e in entries)


def init_entries(pairs: tuple[tuple[int, int], ...]) -> Entries:
    """initEntries: each entry ends where the next starts; the last ends at MAX."""
    return tuple(Entry(epoch, start, pairs[i + 1][1] if i + 1 < len(pairs) else MAX) for i, (epoch, start) in enumerate(pairs))


def reload(entries: Entries) -> Entries:
    """initCacheFromFile after the flushed state: endOffsets as initEntries derives them."""
    return init_entries(tuple((e.epoch, e.start) for e in entries))


def get_entry(entries: Entries, epoch: int) -> Entry | None:
    return next((e for e in entries if e.epoch == epoch), None)


def first_entry(entries: Entries) -> Entry | None:
    return entries[0] if entries else None


def last_entry(entries: Entries) -> Entry | None:
    return entries[-1] if entries else None


def last_epoch(entries: Entries) -> int:
    """lastEpoch: -1 for an empty cache (the system model's ``epoch_file.last_epoch`` says 0)."""
    return entries[-1].epoch if entries else -1


def next_entry(entries: Entries, epoch: int) -> Entry | None:
    """nextEntry: ``ceilingEntry(epoch + 1)``, the first entry with a greater epoch."""
    return next((e for e in entries if e.epoch > epoch), None)


def find_by_offset(entries: Entries, offset: int) -> Entry | None:
    """findEpochEntryByOffset: the first entry with ``start <= offset < end``."""
    return next((e for e in entries if e.start <= offset < e.end), None)


def find_consistent_point(local: Entries, compare: Entries) -> int:
    """findConsistentPoint: from the newest local entry down, the first epoch ``compare`` has with the
    same start gives min(both endOffsets); -1 if none. Epochs only ``compare`` has are not looked at."""
    for mine in reversed(local):
        theirs = get_entry(compare, mine.epoch)
        if theirs is not None and theirs.start == mine.start:
            return min(mine.end, theirs.end)
    return -1
