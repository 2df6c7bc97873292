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
