"""One step of the reference model: an action record (``tag`` + parameters, MODEL.md §7) applied to a
``System`` by the tag's function in the action table (``actions.py``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from frozendict import frozendict

from .actions import ACTIONS
from .precondition import NotEnabled
from .state import Options, System


def step(s: System, action: Mapping[str, Any], opts: Options) -> tuple[System, frozendict]:
    """Apply ``action`` (a record with ``tag``) to ``s``; raises ``NotEnabled`` if it is not enabled."""
    entry = ACTIONS.get(action["tag"])
    if entry is None or entry.run is None:
        raise NotEnabled(f"unknown action tag {action['tag']!r}")
    return entry.run(s, action, opts)
