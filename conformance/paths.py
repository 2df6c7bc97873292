"""Where a command writes, checked before it starts work: an output folder or file it cannot write is bad input
(exit 2, errors.py), not a crash halfway through; and every file or folder it writes is a path under its output
folder, checked after resolving ``..`` and symbolic links, so that no name taken from the command line, a
configuration, a trace or a tool's output leads out of it."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from autoswitch.conformance.errors import InputError


def output_folder(path: str | Path, option: str) -> Path:
    """The folder ``path`` given as ``option`` (e.g. ``--out``), created if missing, once a file could be created in it;
    else InputError naming the option, the path and the reason (a file there or above it, no permission, a read-only
    disk)."""
    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        raise InputError(f"{option} {path}: exists and is not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as e:
        raise InputError(f"{option} {path}: cannot create or write this folder ({e.strerror or e})") from None
    return folder


def output_file(path: str | Path, option: str, inputs: Iterable[str | Path] = ()) -> Path:
    """The file ``path`` given as ``option`` (e.g. ``--report``), to be written or replaced: not a folder or another
    non-regular file, not one of the command's ``inputs`` (files, or folders it reads below), and its folder as
    :func:`output_folder` checks it (created if missing)."""
    file = Path(path)
    target = file.resolve()
    for given in map(Path, inputs):
        read = given.resolve()
        if target == read or (given.is_dir() and read in target.parents):
            raise InputError(f"{option} {path}: it is an input of the command ({given}); writing it would destroy it")
    if file.exists() and not file.is_file():
        raise InputError(f"{option} {path}: exists and is not a regular file")
    if file.exists() and not os.access(file, os.W_OK):
        raise InputError(f"{option} {path}: not writable")
    output_folder(file.parent, f"{option} {path}: its folder")
    return file


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
