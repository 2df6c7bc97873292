"""ITF (Apalache's Informal Trace Format) reading and writing, with itf-py for the value encoding.

Values inside the project are plain Python: ints, strs, bools, frozensets, tuples, and dicts. In ITF a
dict is either a function (``#map``) or a record (a JSON object). The rule, the same for every trace:
a *variable's* top-level dict is a function, and so is any dict with a non-string key; other dicts
nested in a value, and the ``action`` and ``outcome`` records, are records. Sets are written sorted, so a trace's bytes depend only on its content.

A lasso (a liveness counterexample, conformance/check/liveness.py) has ADR-015's top-level ``"loop": i``, an index of
``states``: the last state equals ``states[i]`` and the behaviour repeats ``states[i+1..]`` for ever (``i`` the last
index: it stutters there). ``load_trace`` reads it as ``Trace.loop`` (an int in range, never a bool); replay.py checks
the rest (only with ``#meta.expect.liveness``, the last state equal to ``states[i]``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from attrs import frozen
from itf_py.itf import ImmutableDict, ImmutableList, value_from_json, value_to_json

from autoswitch.conformance.errors import InputError
from autoswitch.conformance.trace.validate import MAX_STATES, Problem, check_json, check_value, read_json

RECORD_VARS = ("action", "outcome")  # carried by every state, records rather than functions


def printable(text: str) -> str:
    """``text`` safe for a terminal: every character that is not printable (ESC, CR, the other C0 and C1
    controls, DEL, bidi overrides) written as its Python escape, e.g. ``\\x1b``. Rich markup such as
    ``[bold]`` stays literal text: the command line prints with markup off."""
    return text if text.isprintable() else "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


class TraceError(InputError):
    """A malformed trace: names the file, the state index (None for the header) and the field. The
    message is :func:`printable`; the attributes are as given."""

    def __init__(self, path: str, state: int | None, field: str, message: str):
        self.path, self.state, self.field, self.message = path, state, field, message
        where = "header" if state is None else f"state {state}"
        super().__init__(printable(f"{path}: {where}: field {field!r}: {message}"))


@frozen
class Trace:
    """A decoded trace: its ``#meta``, the declared variables and each state's values by name."""

    path: str
    meta: dict[str, Any]
    vars: tuple[str, ...]
    states: tuple[dict[str, Any], ...]
    loop: int | None = None  # a lasso's loop index (ADR-015's "loop")


def plain(value: Any) -> Any:
    """itf-py's decoded values as plain Python: records and maps become dicts, lists lists."""
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return {k: plain(v) for k, v in value._asdict().items()}
    if isinstance(value, ImmutableDict | dict):
        return {plain(k): plain(v) for k, v in value.items()}
    if isinstance(value, ImmutableList | list):
        return [plain(v) for v in value]
    if isinstance(value, frozenset):
        return frozenset(plain(v) for v in value)
    if isinstance(value, tuple):
        return tuple(plain(v) for v in value)
    return value


def decode(raw: Any) -> Any:
    """ITF JSON -> plain Python value."""
    return plain(value_from_json(raw))


def _sort_key(encoded: Any) -> str:
    return json.dumps(encoded, sort_keys=True)


def encode(value: Any, as_function: bool = False) -> Any:
    """Plain Python value -> ITF JSON. ``as_function`` says a dict at this level is a ``#map``."""
    if isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        return value_to_json(value)
    if isinstance(value, frozenset | set):
        return {"#set": sorted((encode(v) for v in value), key=_sort_key)}
    if isinstance(value, tuple):
        return {"#tup": [encode(v) for v in value]}
    if isinstance(value, list):
        return [encode(v) for v in value]
    if isinstance(value, Mapping):
        if as_function or not all(isinstance(k, str) for k in value):
            pairs = [[encode(k), encode(v)] for k, v in value.items()]
            return {"#map": sorted(pairs, key=lambda kv: _sort_key(kv[0]))}
        return {k: encode(v) for k, v in value.items()}
    raise TypeError(f"cannot encode {value!r} as ITF")


def encode_state(values: Mapping[str, Any], index: int) -> dict[str, Any]:
    """One ITF state: ``action`` and ``outcome`` as records, every other variable by the function rule."""
    state: dict[str, Any] = {"#meta": {"index": index}}
    for name, value in values.items():
        state[name] = encode(value, as_function=name not in RECORD_VARS)
    return state


def dumps_trace(meta: Mapping[str, Any], states: list[Mapping[str, Any]], loop: int | None = None) -> str:
    """The ITF document of ``states`` (each a dict of variable values) as stable JSON, one state a line; ``loop``:
    a lasso's loop index."""
    names: list[str] = []
    for s in states:
        names.extend(n for n in s if n not in names)
    header = {
        "#meta": {"format": "ITF", "format-description": "https://apalache-mc.org/docs/adr/015adr-trace.html", **meta},
        "params": [],
        "vars": names,
        **({} if loop is None else {"loop": loop}),
    }
    head = json.dumps(header, indent=1)[:-2]  # without the closing brace: the states follow, one per line
    lines = [json.dumps(encode_state(s, i), separators=(",", ":")) for i, s in enumerate(states)]
    return head + ',\n "states": [\n  ' + ",\n  ".join(lines) + "\n ]\n}\n"


def write_trace(path: str | Path, meta: Mapping[str, Any], states: list[Mapping[str, Any]], loop: int | None = None) -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(dumps_trace(meta, states, loop))


TOP_KEYS = ("#meta", "params", "vars", "states", "loop")  # ADR-015's fields of a trace


def _field(where: str) -> str:
    """The field a location names: its record fields, up to the first ITF structure or index
    (``/action/brokerId`` -> ``action.brokerId``, ``/log/#map/0/1`` -> ``log``)."""
    parts = where.lstrip("/").split("/")
    end = next((i for i, p in enumerate(parts) if i and (p.startswith("#") or p.isdigit())), len(parts))
    return ".".join(parts[:end])


def load_trace(path: str | Path) -> Trace:
    """Read and decode an ITF file strictly (:mod:`~autoswitch.conformance.trace.validate`); every
    problem raises ``TraceError`` with its location."""
    name = str(path)
    try:
        doc = read_json(path)
    except Problem as e:
        raise TraceError(name, None, e.where, e.message) from None
    if not isinstance(doc, dict):
        raise TraceError(name, None, "<root>", "the document is not a JSON object")
    try:
        check_json({k: v for k, v in doc.items() if k != "states"})
    except Problem as e:
        raise TraceError(name, None, _field(e.where), str(e)) from None
    unknown = sorted(set(doc) - set(TOP_KEYS))
    if unknown:
        raise TraceError(name, None, unknown[0], f"not a field of an ITF trace; known: {', '.join(TOP_KEYS)}")
    meta = doc.get("#meta", {})
    if not isinstance(meta, dict) or any(k.startswith("#") for k in meta):
        raise TraceError(name, None, "#meta", "must be a plain object (no ITF value: no key starts with '#')")
    if not isinstance(doc.get("params", []), list):
        raise TraceError(name, None, "params", "'params' is a list")
    declared = doc.get("vars")
    if not isinstance(declared, list) or not all(isinstance(v, str) for v in declared) or len(set(declared)) != len(declared):
        raise TraceError(name, None, "vars", "must be a list of distinct variable names")
    raw_states = doc.get("states")
    if not isinstance(raw_states, list) or not raw_states:
        raise TraceError(name, None, "states", "must be a non-empty list")
    if len(raw_states) > MAX_STATES:
        raise TraceError(name, None, "states", f"{len(raw_states)} states: a trace has at most {MAX_STATES}")
    states = []
    for i, raw in enumerate(raw_states):
        if not isinstance(raw, dict):
            raise TraceError(name, i, "<state>", "a state must be a JSON object")
        duplicate = getattr(raw, "duplicate", None)
        if duplicate is not None:
            raise TraceError(name, i, str(duplicate), "the field appears twice in the state")
        values = {}
        for field, encoded in raw.items():
            if field != "#meta" and field not in declared:
                raise TraceError(name, i, field, "variable not declared in 'vars'")
            try:
                (check_json if field == "#meta" else check_value)(encoded, f"/{field}")
            except Problem as e:
                raise TraceError(name, i, _field(e.where), str(e)) from None
            record = isinstance(encoded, dict) and not any(k.startswith("#") for k in encoded)
            if field != "#meta" and (field in RECORD_VARS) != record:
                raise TraceError(name, i, field, "a record (a JSON object)" if field in RECORD_VARS else
                                 "a function is a #map (a record is only the action and the outcome)")
            if field != "#meta":
                try:
                    values[field] = decode(encoded)
                except (TypeError, ValueError) as e:  # a gap in validate.py: still bad input, named
                    raise TraceError(name, i, field, f"malformed ITF value: {e}") from None
        states.append(values)
    loop = doc.get("loop")
    if loop is not None and (type(loop) is not int or not 0 <= loop < len(states)):
        raise TraceError(name, None, "loop", f"an index of the trace's states, 0..{len(states) - 1}; got {repr(loop)[:40]}")
    return Trace(name, dict(meta), tuple(declared), tuple(states), loop)
