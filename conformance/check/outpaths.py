"""Where a command may write: every file or folder it writes is a path under its output folder, checked
after resolving ``..`` and symbolic links, so that no name taken from the command line, a configuration or
a tool's output leads out of it."""

from __future__ import annotations

from pathlib import Path

from autoswitch.conformance.errors import InputError


class OutputPathError(InputError):
    """A path a command would write that is not inside its output folder."""


def path_under(root: str | Path, *parts: str) -> Path:
    """``root/parts...``, resolved; OutputPathError unless it lies strictly inside ``root`` (resolved too)."""
    base = Path(root).resolve()
    target = base.joinpath(*parts).resolve()
    if base not in target.parents:
        raise OutputPathError(f"{Path(root).joinpath(*parts)}: outside the output folder {root} (resolves to {target})")
    return target


def file_under(root: str | Path, *parts: str) -> Path:
    """:func:`path_under` for a file to be written or replaced: OutputPathError if something other than a regular
    file (a folder, a device, a socket) is there."""
    target = path_under(root, *parts)
    if target.exists() and not target.is_file():
        raise OutputPathError(f"{target}: exists and is not a regular file; remove it or choose another output folder")
    return target


def folder_under(root: str | Path, *parts: str) -> Path:
    """:func:`path_under` for a folder, created if missing: OutputPathError if something else is there."""
    target = path_under(root, *parts)
    if target.exists() and not target.is_dir():
        raise OutputPathError(f"{target}: exists and is not a folder; remove it or choose another output folder")
    target.mkdir(parents=True, exist_ok=True)
    return target
