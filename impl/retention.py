"""The master's commit log as files for retention and the transfer start (ROCKETMQ.md §8.3), over the
:class:`~autoswitch.impl.epoch_file.EpochFile`: same results as ``reference/retention.py``."""

from __future__ import annotations

from .epoch_file import Entry, EpochFile
from .protocol import NO_DATA, NO_EPOCH


class FileQueue:
    """The commit log's files (``MappedFileQueue``): ``file_size`` messages each, the first at ``first``;
    the files run up to the one holding ``leo - 1``."""

    __slots__ = ("file_size", "first", "leo")

    def __init__(self, leo: int, file_size: int) -> None:
        self.file_size, self.first, self.leo = file_size, 0, leo

    def starts(self) -> list[int]:
        return list(range(self.first, self.leo, self.file_size))

    def last_file_start(self) -> int:
        """The start of the file holding ``leo - 1`` (0 for an empty log): where a slave with isSyncFromLastFile starts."""
        return self.leo - 1 - (self.leo - 1) % self.file_size if self.leo > 0 else 0

    def min_offset(self) -> int:
        """CommitLog.getMinOffset: -1 with no file."""
        return self.first if self.first < self.leo else -1

    def delete_files_below(self, offset: int, epoch_file: EpochFile) -> None:
        """Delete the files ending at or before ``offset`` but the last, then truncateEpochFilePrefix."""
        if self.first >= self.leo:
            return
        last = self.last_file_start()
        self.first = min(max(self.first, offset - offset % self.file_size), last)
        epoch_file.truncate_prefix_by_offset(self.min_offset())

    def transfer_start(self, epoch_file: EpochFile, from_last_file: bool) -> tuple[str, int, Entry | None]:
        start = self.last_file_start() if from_last_file else self.min_offset()
        if start == -1:
            return NO_DATA, start, None
        entry = epoch_file.find_by_offset(start)
        return ("OK" if entry else NO_EPOCH), start, entry

