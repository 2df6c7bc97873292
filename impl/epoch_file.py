"""The epoch file (RocketMQ ``EpochFileCache``; Kafka's leader-epoch checkpoint), MODEL.md §4-§5.

Entries ``(epoch, startOffset)`` with both strictly increasing, kept as two parallel lists so that the
lookups the handshake makes (the entry of an epoch, the last entry at most an epoch, the first above it,
the entries starting at or beyond an offset) are binary searches. Behaviour is that of
``reference/epoch_file.py``; the order of both columns is what makes the searches equal to its linear scans.

Persisted by a :class:`~autoswitch.impl.storage.Storage` in RocketMQ's line format, one ``epoch-startOffset``
line per entry, rewritten (atomically, by the backend) whenever the file changes.

The in-memory endOffsets of ``EpochFileCache`` (ROCKETMQ.md §8.1, ``reference/epoch_cache.py``) need
one number: every entry but the last ends where the next starts, so only the last one's end is kept
(``last_end``); it is not persisted, and a load sets it to ``MAX``.

With an event sink (``events``, the broker's; docs/INSTRUMENTING.md) every operation that changes the file, an append
or a truncation, writes the node's ``epochFile`` as it is after the operation (one event per operation:
``change_to_master``'s truncation and append are one).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right

from .event_log import EventSink
from .storage import Storage

EPOCH_FILE = "epochFileCheckpoint"
MAX = 2**63 - 1  # Long.MAX_VALUE, EpochEntry's default endOffset
Entry = tuple[int, int, int]  # (epoch, startOffset, endOffset), a copy as EpochFileCache returns


class CorruptEpochFile(RuntimeError):
    """An epoch file line does not parse, or the entries are not strictly increasing."""


class EpochFile:
    """``(epoch, startOffset)`` entries, both columns strictly increasing."""

    __slots__ = ("epochs", "starts", "last_end", "_storage", "events", "node")

    def __init__(self, storage: Storage | None = None) -> None:
        self.epochs: list[int] = []
        self.starts: list[int] = []
        self.last_end = MAX
        self._storage = storage
        self.events: EventSink | None = None  # set by the broker that owns the file
        self.node = ""

    # ---- persistence --------------------------------------------------------------------------------

    @classmethod
    def load(cls, storage: Storage) -> EpochFile:
        """The epoch file as the storage holds it (empty if there is none)."""
        f = cls(storage)
        text = storage.read(EPOCH_FILE)
        if text:
            for line in text.splitlines():
                if not line:
                    continue
                epoch, sep, start = line.partition("-")
                if not sep or not epoch.isdigit() or not start.isdigit():
                    raise CorruptEpochFile(f"{EPOCH_FILE}: cannot parse {line!r}")
                e, s = int(epoch), int(start)
                if f.epochs and (f.epochs[-1] >= e or f.starts[-1] >= s):
                    raise CorruptEpochFile(f"{EPOCH_FILE}: {line!r} does not follow {f.epochs[-1]}-{f.starts[-1]}")
                f.epochs.append(e)
                f.starts.append(s)
        return f

    def encode(self) -> str:
        return "".join(f"{e}-{s}\n" for e, s in zip(self.epochs, self.starts, strict=True))

    def _persist(self) -> None:
        if self._storage is not None:
            self._storage.write(EPOCH_FILE, self.encode())

    def _emit(self) -> None:
        """The file as it is now, to the event sink."""
        if self.events is not None:
            self.events.emit(self.node, observe={"epochFile": self.entries()})

    # ---- updates ------------------------------------------------------------------------------------

    def append(self, epoch: int, start: int) -> bool:
        """appendEntry: refused (False) unless both the epoch and the start offset are strictly greater
        than the last entry's (an epoch bump with no new data is not recorded)."""
        appended = self._append(epoch, start)
        if appended and self.events is not None:
            self._emit()
        return appended

    def _append(self, epoch: int, start: int) -> bool:
        epochs = self.epochs
        if epochs and (epochs[-1] >= epoch or self.starts[-1] >= start):
            return False
        epochs.append(epoch)
        self.starts.append(start)
        self.last_end = MAX
        self._persist()
        return True

    def kafka_assign(self, epoch: int, start: int, v21: bool) -> None:
        """Kafka ``LeaderEpochFileCache.assign`` (spec KafkaAssign): 0.11.0.0-2.0.0 append only above the
        latest epoch and not below the latest start; 2.1.0 (KAFKA-7415) drops the entries whose epoch or
        start is not below the new one's, then appends."""
        epochs, starts = self.epochs, self.starts
        if v21:
            if epochs and epochs[-1] == epoch and start >= starts[-1]:
                return
            # the kept entries are a prefix: both columns are increasing
            keep = min(bisect_left(epochs, epoch), bisect_left(starts, start))
            del epochs[keep:]
            del starts[keep:]
        elif epochs and (epoch <= epochs[-1] or start < starts[-1]):
            return
        epochs.append(epoch)
        starts.append(start)
        self.last_end = MAX
        self._persist()
        if self.events is not None:
            self._emit()

    def _truncate_suffix_from(self, i: int) -> bool:
        """doTruncateSuffix: the new last entry keeps ``starts[i]`` as its in-memory end (Java resets a
        copy of it to MAX), until the next append or load. Whether an entry went."""
        if i >= len(self.starts):
            return False
        self.last_end = self.starts[i]
        del self.epochs[i:]
        del self.starts[i:]
        self._persist()
        return True

    def truncate_suffix_by_offset(self, offset: int) -> None:
        """truncateSuffixByOffset: drop the entries that start at or beyond ``offset``."""
        if self._truncate_suffix_from(bisect_left(self.starts, offset)) and self.events is not None:
            self._emit()

    def truncate_suffix_by_epoch(self, epoch: int) -> None:
        """truncateSuffixByEpoch: drop the entries whose epoch is at least ``epoch``."""
        if self._truncate_suffix_from(bisect_left(self.epochs, epoch)) and self.events is not None:
            self._emit()

    def truncate_prefix_by_offset(self, offset: int) -> None:
        """truncatePrefixByOffset: drop the entries whose in-memory end is at most ``offset`` (a prefix,
        since the ends increase)."""
        if not self.starts:
            return
        # entry k < last ends at starts[k + 1]: those ending at or before offset are the starts[1:] <= offset
        i = len(self.starts) if self.last_end <= offset else bisect_right(self.starts, offset, lo=1) - 1
        if i > 0:
            del self.epochs[:i]
            del self.starts[:i]
            if not self.starts:
                self.last_end = MAX
            self._persist()
            if self.events is not None:
                self._emit()

    def set_last_end_offset(self, offset: int) -> None:
        """setLastEpochEntryEndOffset: only if the last entry starts at or before ``offset``."""
        if self.starts and self.starts[-1] <= offset:
            self.last_end = offset

    def change_to_master(self, epoch: int, leo: int, keep_own: bool = False) -> bool:
        """AutoSwitchHAService.changeToMaster on the file: refused (False) below the last epoch; else the
        entries of epochs >= ``epoch`` (``keep_own``, the hypothetical re-entry fix: above ``epoch``) go and
        ``(epoch, leo)`` is appended (result ignored)."""
        if epoch < self.last_epoch():
            return False
        truncated = self._truncate_suffix_from(bisect_left(self.epochs, epoch + 1 if keep_own else epoch))
        if (self._append(epoch, leo) or truncated) and self.events is not None:
            self._emit()
        return True

    # ---- queries ------------------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.epochs)

    def entries(self) -> list[tuple[int, int]]:
        return list(zip(self.epochs, self.starts, strict=True))

    def last_epoch(self) -> int:
        return self.epochs[-1] if self.epochs else 0

    def last_start(self) -> int:
        """The start offset of the current (last) epoch; 0 for an empty file."""
        return self.starts[-1] if self.starts else 0

    def end_of(self, index: int, leo: int | None = None) -> int:
        """The end offset of entry ``index``: the next entry's start; for the last one ``leo``
        (setLastEpochEntryEndOffset on a copy, as doTruncate does), or its in-memory end if None."""
        if index + 1 < len(self.starts):
            return self.starts[index + 1]
        return self.last_end if leo is None else leo

    def entry_at_offset(self, offset: int) -> int:
        """findEpochEntryByOffset: the index of the entry with start <= ``offset`` < end (the last one has
        no end), or -1 when the offset lies below the first start."""
        return bisect_right(self.starts, offset) - 1

    def index_of(self, epoch: int) -> int:
        """The index of ``epoch``'s entry, or -1."""
        epochs = self.epochs
        i = bisect_left(epochs, epoch)
        return i if i < len(epochs) and epochs[i] == epoch else -1

    def last_at_most(self, epoch: int) -> int:
        """The index of the last entry whose epoch is at most ``epoch``, or -1."""
        return bisect_right(self.epochs, epoch) - 1

    def first_above(self, epoch: int) -> int:
        """The index of the first entry whose epoch is greater than ``epoch`` (``len`` if none)."""
        return bisect_right(self.epochs, epoch)

    def kafka_end_offset_for(self, leo: int, requested: int, version: str) -> tuple[int, int]:
        """Kafka ``LeaderEpochFileCache.endOffsetFor`` of ``version`` ("0.11", "2.0", "2.1") as
        (epoch, end offset), -1 for UNDEFINED (spec KafkaEndOffsetFor)."""
        epochs = self.epochs
        if requested == -1 and version != "0.11":
            return -1, -1
        if requested == (epochs[-1] if epochs else -1):
            return requested, leo
        above = bisect_right(epochs, requested)
        if above == len(epochs):
            return -1, -1
        if above == 0:
            return (requested, self.starts[0]) if version == "2.1" else (-1, -1)
        return epochs[above - 1], self.starts[above]

    # ---- EpochFileCache's queries (in-memory endOffsets) ----------------------------------------------

    def entry(self, index: int) -> Entry:
        return self.epochs[index], self.starts[index], self.end_of(index)

    def cache_entries(self) -> list[Entry]:
        return [self.entry(i) for i in range(len(self.epochs))]

    def get_entry(self, epoch: int) -> Entry | None:
        i = self.index_of(epoch)
        return self.entry(i) if i >= 0 else None

    def first_entry(self) -> Entry | None:
        return self.entry(0) if self.epochs else None

    def last_entry(self) -> Entry | None:
        return self.entry(len(self.epochs) - 1) if self.epochs else None

    def next_entry(self, epoch: int) -> Entry | None:
        """nextEntry: ``ceilingEntry(epoch + 1)``."""
        i = self.first_above(epoch)
        return self.entry(i) if i < len(self.epochs) else None

    def find_by_offset(self, offset: int) -> Entry | None:
        """findEpochEntryByOffset: the entry with ``start <= offset < end`` (the last start at most
        ``offset``, if it ends after it)."""
        i = self.entry_at_offset(offset)
        if i < 0:
            return None
        found = self.entry(i)
        return found if offset < found[2] else None

    def consistent_point(self, compare: EpochFile, leo: int | None = None, compare_leo: int | None = None) -> int:
        """findConsistentPoint: walk the local entries from the newest; the first whose epoch ``compare`` has
        with the same start offset gives min(local end, its end); -1 if there is none. The last entries
        end at ``leo`` / ``compare_leo`` when given (doTruncate's copies), else at their in-memory ends."""
        epochs, starts = self.epochs, self.starts
        for i in range(len(epochs) - 1, -1, -1):
            j = compare.index_of(epochs[i])
            if j >= 0 and compare.starts[j] == starts[i]:
                return min(self.end_of(i, leo), compare.end_of(j, compare_leo))
        return -1
