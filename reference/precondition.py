"""Enabling conditions of spec actions.

A controller request is always enabled (a refusal is an outcome); a process or environment action is
enabled only in some states. Calling a disabled action raises ``NotEnabled`` - in a trace replay that is
a divergence, in a generator a choice it must not make. ``require`` is used instead of ``assert`` so that
the checks stay on under ``python -O``.
"""


class NotEnabled(Exception):
    """The action's enabling condition does not hold in this state."""


def require(condition: bool, message: str) -> None:
    if not condition:
        raise NotEnabled(message)
