"""The verdict of replaying one trace on one engine (:class:`Result`, its statuses) and how a trace's values are shown
in messages: shared by the replay of walks (replay.py) and of the component kinds (components.py), below both."""

from __future__ import annotations

from typing import Any

from attrs import asdict, frozen

from autoswitch.conformance.trace.itf import printable

PASS = "pass"
DIVERGENCE = "divergence"
VIOLATION = "violation"
MISSING_VIOLATION = "missing-violation"
MALFORMED = "malformed"
ERROR = "error"  # the engine raised something other than NotEnabled: a bug in it, reported, not raised
NOT_ASKED = "not-asked"  # the real engine has no answer to this trace (another design or policy): the message says why


@frozen
class Result:
    """The verdict of one trace against one engine. ``state``/``field`` locate the first problem."""

    file: str
    engine: str
    status: str
    states: int = 0
    consumed: int = 0
    state: int | None = None
    field: str | None = None
    expected: str | None = None
    actual: str | None = None
    message: str = ""

    @property
    def ok(self) -> bool:
        return self.status in (PASS, NOT_ASKED)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def describe(self) -> str:
        """One line (two more for a divergence's values), every part from the trace :func:`printable`."""
        file, message = printable(self.file), printable(self.message)
        if self.status == NOT_ASKED:
            return f"{file} [{self.engine}]: not asked: {message}"
        if self.ok:
            note = f"; {message}" if message else ""
            return f"{file} [{self.engine}]: pass ({self.consumed}/{self.states} states{note})"
        where = "the header" if self.state is None else f"state {self.state}"
        text = f"{file} [{self.engine}]: {self.status} at {where}, field {printable(repr(self.field))}: {message}"
        if self.expected is not None or self.actual is not None:
            text += f"\n    trace expects: {printable(str(self.expected))}\n    model has:     {printable(str(self.actual))}"
        return text


def show(value: Any) -> str:
    """A value for messages: Python-like, with sets and function domains sorted so output is stable;
    strings by ``repr``, so a control character in them is escaped."""
    if isinstance(value, frozenset | set):
        return "{" + ", ".join(sorted(map(show, value))) + "}"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{show(k)}: {show(v)}" for k, v in sorted(value.items(), key=lambda kv: repr(kv[0]))) + "}"
    if isinstance(value, tuple):
        return "(" + ", ".join(map(show, value)) + ")"
    return repr(value)


ABSENT = "<absent>"  # a field the trace or the engine does not give


def show_field(value: Any) -> str:
    """A field's value for messages (:func:`show`), or ABSENT."""
    return value if value is ABSENT else show(value)
