"""Log retention and where a new slave starts copying, ROCKETMQ.md §8.3 (transfer start): the master's
commit log is a run of files of ``file_size`` messages (``mappedFileSizeCommitLog``); retention deletes
whole files, never the last one, and trims the epoch file's prefix to the commit log's new minOffset
(``AutoSwitchHAService.truncateEpochFilePrefix`` -> ``truncatePrefixByOffset``). A slave whose first
ack is offset 0 is served from the start of the last file (``isSyncFromLastFile``) or from minOffset;
the starting epoch is ``findEpochEntryByOffset`` of that offset, and without one nothing is sent.
"""

from __future__ import annotations

from . import epoch_cache

NO_DATA = "NO_DATA"  # minOffset is -1: no commit log file (AutoSwitchHAConnection: "empty disk")
NO_EPOCH = "NO_EPOCH"  # findEpochEntryByOffset is null: logged, retried, nothing sent


def files(leo: int, file_size: int) -> tuple[int, ...]:
    """The start offsets of the files holding offsets [0, leo): one per ``file_size`` messages."""
    return tuple(range(0, leo, file_size))


def delete_files_below(starts: tuple[int, ...], offset: int, file_size: int) -> tuple[int, ...]:
    """Delete the files that end at or before ``offset``, all but the last one."""
    return tuple(s for i, s in enumerate(starts) if s + file_size > offset or i == len(starts) - 1)


def min_offset(starts: tuple[int, ...]) -> int:
    """CommitLog.getMinOffset: the first file's start, -1 with no file."""
    return starts[0] if starts else -1


def retain(starts: tuple[int, ...], cache: epoch_cache.Entries, offset: int, file_size: int) -> tuple[tuple[int, ...], epoch_cache.Entries]:
    """Delete files below ``offset``, then trim the epoch file's prefix to the new minOffset."""
    kept = delete_files_below(starts, offset, file_size)
    return kept, epoch_cache.truncate_prefix_by_offset(cache, min_offset(kept))


def last_file_start(leo: int, file_size: int) -> int:
    """The start of the file holding the last message (0 for an empty log). The code's ``maxOffset - maxOffset %
    mappedFileSize`` in bytes is that file's start: a message never ends exactly at a file's end, CommitLog keeps
    8 bytes for the end-of-file blank (shown on RocketMQ: ``autoswitch findings``, sync-from-last-file-at-a-full-file)."""
    return leo - 1 - (leo - 1) % file_size if leo > 0 else 0


def transfer_start(starts: tuple[int, ...], leo: int, cache: epoch_cache.Entries, from_last_file: bool,
                   file_size: int) -> tuple[str, int, epoch_cache.Entry | None]:
    """``(code, offset, epoch entry)`` for a slave asking from 0: OK, NO_DATA or NO_EPOCH."""
    start = last_file_start(leo, file_size) if from_last_file else min_offset(starts)
    if start == -1:
        return NO_DATA, start, None
    entry = epoch_cache.find_by_offset(cache, start)
    return ("OK" if entry else NO_EPOCH), start, entry
