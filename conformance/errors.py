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

EXIT_OK = 0
EXIT_VERDICT = 1
EXIT_INPUT = 2
EXIT_INTERNAL = 3


class InputError(Exception):
    """Bad input or usage: the user can fix it; the CLI exits 2 with this message."""
