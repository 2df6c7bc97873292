"""Replay a trace against an engine: run each state's ``action``, compare the ``outcome`` fields and
every variable the state carries, check the invariants of MODEL.md §6 on the engine's full state, and
report the first divergence (the model disagrees with the trace) apart from invariant violations (the
state is one the properties forbid). A trace may expect a violation in ``#meta.expect``:
``{"violation": "<invariant>", "state": <index>}`` - then the replay passes only if exactly that happens.
"""

from __future__ import annotations

from pathlib import Path
from collections.abc import Mapping
from typing import Any

from attrs import asdict, frozen

from autoswitch.reference.invariants import SYSTEM_VARS, violated_action_properties, violated_invariants
from autoswitch.reference.precondition import NotEnabled

from .engines import config_from_meta, make_engine
from .itf import Trace, TraceError, load_trace
from .vocabulary import action_problem

PASS = "pass"
DIVERGENCE = "divergence"
VIOLATION = "violation"
MISSING_VIOLATION = "missing-violation"
MALFORMED = "malformed"
ERROR = "error"  # the engine raised something other than NotEnabled: a bug in it, reported, not raised


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
        return self.status == PASS

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def describe(self) -> str:
        if self.ok:
            note = f"; {self.message}" if self.message else ""
            return f"{self.file} [{self.engine}]: pass ({self.consumed}/{self.states} states{note})"
        where = "the header" if self.state is None else f"state {self.state}"
        text = f"{self.file} [{self.engine}]: {self.status} at {where}, field {self.field!r}: {self.message}"
        if self.expected is not None or self.actual is not None:
            text += f"\n    trace expects: {self.expected}\n    model has:     {self.actual}"
        return text


def show(value: Any) -> str:
    """A value for messages: Python-like, with sets and function domains sorted so output is stable."""
    if isinstance(value, frozenset | set):
        return "{" + ", ".join(sorted(map(show, value))) + "}"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{show(k)}: {show(v)}" for k, v in sorted(value.items(), key=lambda kv: repr(kv[0]))) + "}"
    if isinstance(value, tuple):
        return "(" + ", ".join(map(show, value)) + ")"
    return repr(value)


_ABSENT = "<absent>"


def _show(value: Any) -> str:
    return value if value is _ABSENT else show(value)


def broken_properties(before: Mapping[str, Any] | None, after: Mapping[str, Any]) -> list[str]:
    """The state invariants failing in ``after``, then the action properties failing on the step
    ``before -> after`` (none when ``before`` is None: the initial state). A trace's first violation is
    the first name of the first state where this is not empty."""
    return violated_invariants(after) + (violated_action_properties(before, after) if before is not None else [])


def _expected_violation(trace: Trace) -> tuple[str, int] | None:
    expect = trace.meta.get("expect", {})
    if not isinstance(expect, dict) or "violation" not in expect:
        return None
    if not isinstance(expect["violation"], str) or not isinstance(expect.get("state"), int):
        raise TraceError(trace.path, None, "#meta.expect", "needs 'violation' (a name) and 'state' (an index)")
    return expect["violation"], expect["state"]


def _validate(trace: Trace) -> None:
    """Check the trace's shape against the vocabulary before running anything."""
    for i, state in enumerate(trace.states):
        for name in state:
            if name not in ("action", "outcome") and name not in SYSTEM_VARS:
                raise TraceError(trace.path, i, name, f"not a model variable; known: {', '.join(SYSTEM_VARS)}")
        if "action" not in state:
            raise TraceError(trace.path, i, "action", "every state needs an action record")
        problem = action_problem(state["action"])
        if problem:
            raise TraceError(trace.path, i, *problem)
        if (i == 0) != (state["action"]["tag"] == "Init"):
            raise TraceError(trace.path, i, "action.tag", "the first state, and only it, is 'Init'")
        outcome = state.get("outcome")
        if outcome is not None and (not isinstance(outcome, dict) or not isinstance(outcome.get("code"), str)):
            raise TraceError(trace.path, i, "outcome", "must be a record with a string 'code'")


def _compare(trace: Trace, engine_name: str, index: int, expected: Mapping[str, Any], actual: Mapping[str, Any], consumed: int) -> Result | None:
    for name, want in expected.items():
        if name in ("action", "outcome"):
            continue
        got = actual[name]
        if got != want:
            field = name
            if isinstance(want, dict) and isinstance(got, dict):  # name the first differing key
                key = next(k for k in sorted(set(want) | set(got), key=repr) if want.get(k, _ABSENT) != got.get(k, _ABSENT))
                field, want, got = f"{name}[{key!r}]", want.get(key, _ABSENT), got.get(key, _ABSENT)
            return Result(trace.path, engine_name, DIVERGENCE, len(trace.states), consumed, index, field, _show(want), _show(got),
                          f"variable {name} differs after {expected['action']['tag']}")
    return None


def replay_trace(trace: Trace, engine_name: str) -> Result:
    """Replay a decoded trace on a fresh engine of the given kind."""
    _validate(trace)
    expected_violation = _expected_violation(trace)
    config, field, problem = config_from_meta(trace.meta)
    if config is None:
        raise TraceError(trace.path, None, field, problem)
    engine = make_engine(engine_name, config)
    n = len(trace.states)
    first_violation: tuple[str, int] | None = None
    before = engine.variables()
    for i, state in enumerate(trace.states):
        if i > 0:
            action = state["action"]
            try:
                outcome = engine.step(action)
            except NotEnabled as e:
                return Result(trace.path, engine_name, DIVERGENCE, n, i, i, "action", "enabled", "not enabled", f"{action['tag']}: {e}")
            for key, want in (state.get("outcome") or {}).items():
                got = outcome.get(key, _ABSENT)
                if got != want:
                    return Result(trace.path, engine_name, DIVERGENCE, n, i, i, f"outcome.{key}", _show(want), _show(got),
                                  f"{action['tag']} answered differently")
        after = engine.variables()
        divergence = _compare(trace, engine_name, i, state, after, i)
        if divergence:
            return divergence
        if first_violation is None:
            broken = broken_properties(before if i > 0 else None, after)
            if broken:
                first_violation = (broken[0], i)
        before = after
    if first_violation != expected_violation:
        if first_violation is None:
            name, at = expected_violation
            return Result(trace.path, engine_name, MISSING_VIOLATION, n, n, at, name, "violated", "holds",
                          f"the trace expects {name} to fail at state {at}")
        name, at = first_violation
        want = None if expected_violation is None else f"{expected_violation[0]} at state {expected_violation[1]}"
        return Result(trace.path, engine_name, VIOLATION, n, n, at, name, want, f"{name} at state {at}", f"invariant {name} fails")
    note = "" if expected_violation is None else f"{expected_violation[0]} fails at state {expected_violation[1]}, as expected"
    return Result(trace.path, engine_name, PASS, n, n, message=note)


def replay_file(path: str, engine_name: str) -> Result:
    """Load and replay one file; a malformed file becomes a MALFORMED result, never an exception."""
    try:
        return replay_trace(load_trace(path), engine_name)
    except TraceError as e:
        return Result(e.path, engine_name, MALFORMED, state=e.state, field=e.field, message=e.message)
    except Exception as e:  # noqa: BLE001 - one broken engine step must not stop a batch
        return Result(path, engine_name, ERROR, message=f"{type(e).__name__}: {e}")


def trace_files(paths: list[str]) -> list[str]:
    """The ``.json``/``.itf.json`` files named or found (recursively, sorted) under the given paths."""
    found: list[str] = []
    for p in map(Path, paths):
        if p.is_dir():
            found.extend(str(f) for f in sorted(p.rglob("*.json")))
        else:
            found.append(str(p))
    return found
