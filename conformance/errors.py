"""The exit-code contract of every ``autoswitch`` command, and the error that means "bad input".

| code | meaning |
|---|---|
| 0 | success: every verdict as expected |
| 1 | a verdict failed: a divergence, a violation, a control not found |
| 2 | bad input or usage: a malformed trace, configuration or argument (the message names file, state and field) |
| 3 | an internal error: a bug in autoswitch (one line to report it) |

Library code raises :class:`InputError` (or a subclass) for anything a user gave wrong; the CLI turns it
into exit 2. Any other exception escaping a command is an internal error (exit 3).
"""

from __future__ import annotations

from collections.abc import Iterable

EXIT_OK = 0
EXIT_VERDICT = 1
EXIT_INPUT = 2
EXIT_INTERNAL = 3


class InputError(Exception):
    """Bad input or usage: the user can fix it; the CLI exits 2 with this message."""


def batch_exit(codes: Iterable[int]) -> int:
    """The exit code of a command that runs many items (traces, configurations), from each item's code: an internal
    error wins, then a failed verdict, then bad input (3 > 1 > 2 > 0), so a bad item never hides a failed one."""
    seen = set(codes)
    return next((code for code in (EXIT_INTERNAL, EXIT_VERDICT, EXIT_INPUT) if code in seen), EXIT_OK)


class NotAsked(Exception):
    """The real engine (conformance/rocketmq) has no answer to this trace: another design or policy, or a kind whose
    component it does not drive; the message says which."""
