"""Strict reading of a trace file: the checks made on the raw JSON before itf-py decodes a value.

itf-py (``value_from_json``) trusts its input: it reads ``{"#bigint": " 1 "}`` or ``"+1"`` as 1, a float
as a float, takes ``{"tag": ..., "value": ...}`` for a variant, and lets a set of ``[1, true]`` collapse.
So the raw tree is checked first, every problem named by its place in the document:

- a ``#bigint`` is a canonical decimal string, ``-?(0|[1-9][0-9]*)`` and not ``-0``, within Java's long
  (the model's offsets and epochs are longs: RocketMQ's ``Long.MAX_VALUE`` is a valid end offset);
- a JSON number is an integer within ``[-(2^53-1), 2^53-1]`` (ADR-015: larger ones are ``#bigint``);
  no float, no NaN/Infinity, no null; in ``#meta`` (plain JSON, not ITF values) an integer is within
  ``[-(2^64-1), 2^64-1]`` and each field's own check bounds it further;
- a dict whose keys start with ``#`` is exactly one of ``#bigint``, ``#tup``, ``#set``, ``#map``; a
  record's field names are identifiers, and a record is never ``{tag, value}`` (variants are not part
  of the vocabulary); a ``#map`` is a list of ``[key, value]`` pairs with distinct keys;
- a set's elements and a map's keys are all of one kind (so that ``true`` and ``1`` never collide), and
  hashable once decoded (no list, record or map);
- no object repeats a key;
- bounds, so that no file runs for minutes: see the ``MAX_*`` constants (the file's size, the nesting
  depth, the items of one list, set, map or object, the states of a trace; :data:`MAX_PROCESSES` and
  :data:`NAME` are the bounds and the form of a process name, checked on ``#meta``).

A trace is read only from a regular file: it is opened without blocking and a folder, a FIFO or a device
is refused on the open descriptor, before a byte is read.
"""

from __future__ import annotations

import json
import keyword
import os
import re
import stat
from pathlib import Path
from typing import Any

MAX_FILE_BYTES = 8 * 2**20  # the committed corpus's largest file is about 40 KB
MAX_DEPTH = 32  # nesting of JSON arrays and objects; the corpus needs 8
MAX_ITEMS = 10_000  # elements of one array, set or map, fields of one object
MAX_STATES = 5_000  # a walk of 5,000 steps of 16 processes replays in about 5 s per engine
MAX_PROCESSES = 16  # processes of #meta.processes (and broker sets of #meta.brokerSets)
MAX_FILES = 1_000  # commit log files of a retention trace (leo / fileSize)
NAME = re.compile(r"[A-Za-z0-9_-]{1,32}")  # a process, broker or cluster name: it may become a folder's name
SAFE_INT = 2**53 - 1  # ADR-015: a plain JSON number is an integer in [-SAFE_INT, SAFE_INT]
LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1  # a #bigint: Java's long
META_INT = 2**64 - 1  # an integer of #meta (plain JSON): the simulator's notes hold 64-bit seeds
CANONICAL = re.compile(r"-?(0|[1-9][0-9]*)")
ITF_KEYS = ("#bigint", "#tup", "#set", "#map")


class Problem(Exception):
    """A problem at ``where`` (a JSON-pointer-like location inside one field) of the raw document."""

    def __init__(self, where: str, message: str):
        self.where, self.message = where, message
        shown = where if len(where) <= 60 else where[:57] + "..."
        super().__init__(f"{message} (at {shown})" if where else message)


class _Float:
    """A JSON number with a fraction or exponent (or NaN, Infinity): kept as its text, refused where used."""

    def __init__(self, text: str):
        self.text = text


class _HugeInt:
    """A JSON integer of more than 20 digits: never converted (Python refuses 4,301 digits with its own error)."""

    def __init__(self, text: str):
        self.text = text


class _Object(dict):
    """A JSON object; ``duplicate`` is a key it repeats (json keeps the last silently)."""

    duplicate: str | None = None


def _object(pairs: list[tuple[str, Any]]) -> _Object:
    obj = _Object(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        obj.duplicate = next(k for k, _ in pairs if k in seen or seen.add(k))  # type: ignore[func-returns-value]
    return obj


def _int(text: str) -> int | _HugeInt:
    return _HugeInt(text) if len(text) > 20 else int(text)


def _regular_file_problem(info: os.stat_result) -> str | None:
    if not stat.S_ISREG(info.st_mode):
        kind = "a folder" if stat.S_ISDIR(info.st_mode) else "a FIFO" if stat.S_ISFIFO(info.st_mode) else "not a regular file"
        return f"{kind}: a trace is a regular file"
    if info.st_size > MAX_FILE_BYTES:
        return f"{info.st_size} bytes: a trace has at most {MAX_FILE_BYTES}"
    return None


def read_text(path: str | Path) -> str:
    """The UTF-8 text in ``path``; raises :class:`Problem` (where ``"<file>"``). The file is opened without
    blocking (a FIFO without a writer) and checked on the open descriptor."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as e:
        raise Problem("<file>", f"cannot read: {e.strerror or e}") from None
    problem = _regular_file_problem(os.fstat(fd))
    if problem:
        os.close(fd)
        raise Problem("<file>", problem)
    with os.fdopen(fd, "rb") as f:
        try:
            data = f.read(MAX_FILE_BYTES + 1)
            text = data.decode("utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise Problem("<file>", f"cannot read: {e}") from None
    if len(data) > MAX_FILE_BYTES:
        raise Problem("<file>", f"more than {MAX_FILE_BYTES} bytes: a trace has at most that")
    return text


def parse_json(text: str) -> Any:
    """The JSON document ``text``, floats, huge ints and repeated keys kept for the checks; raises :class:`Problem`
    (where ``"<json>"``)."""
    try:
        return json.loads(text, parse_float=_Float, parse_int=_int, parse_constant=_Float, object_pairs_hook=_object)
    except json.JSONDecodeError as e:
        raise Problem("<json>", f"invalid JSON at line {e.lineno} column {e.colno}: {e.msg}") from None
    except RecursionError:
        raise Problem("<json>", f"nested too deeply (a trace nests at most {MAX_DEPTH} levels)") from None


def read_json(path: str | Path) -> Any:
    """The JSON document in ``path`` (:func:`read_text`, :func:`parse_json`)."""
    return parse_json(read_text(path))


def _kind(raw: Any) -> str:
    """The kind of an ITF value, for the one-kind rule of sets and map keys."""
    if isinstance(raw, bool):
        return "bool"
    if isinstance(raw, int) or (isinstance(raw, dict) and "#bigint" in raw):
        return "int"
    if isinstance(raw, dict):
        return next((k for k in ITF_KEYS if k in raw), "record")
    return "list" if isinstance(raw, list) else type(raw).__name__


def _check_scalar(raw: Any, where: str, value: bool) -> None:
    """``value``: an ITF value (ADR-015's JSON numbers); else plain JSON of ``#meta``, whose notes may hold a 64-bit seed."""
    if isinstance(raw, _Float):
        raise Problem(where, f"{raw.text[:40]} is not an integer (a trace's numbers are integers)")
    if isinstance(raw, _HugeInt) or (isinstance(raw, int) and not value and abs(raw) > META_INT):
        raise Problem(where, f"an integer of {len(str(getattr(raw, 'text', raw)))} characters is out of range")
    if isinstance(raw, int) and not isinstance(raw, bool) and value and abs(raw) > SAFE_INT:
        raise Problem(where, f"{raw} is outside [-(2^53-1), 2^53-1]: write it as {{\"#bigint\": \"{raw}\"}}")


def check_json(raw: Any, where: str = "", depth: int = 0) -> None:
    """Plain JSON (``#meta``) within the bounds: no float, no huge integer, no repeated key, not too deep."""
    if depth >= MAX_DEPTH:
        raise Problem(where, f"nested more than {MAX_DEPTH} levels")
    _check_scalar(raw, where, value=False)
    if isinstance(raw, list | dict) and len(raw) > MAX_ITEMS:
        raise Problem(where, f"{len(raw)} items: at most {MAX_ITEMS}")
    if isinstance(raw, _Object) and raw.duplicate is not None:
        raise Problem(where, f"the key {raw.duplicate!r} appears twice")
    items = raw.items() if isinstance(raw, dict) else enumerate(raw) if isinstance(raw, list) else ()
    for key, value in items:
        check_json(value, f"{where}/{key}", depth + 1)


def check_value(raw: Any, where: str = "", depth: int = 0) -> None:
    """An ITF value exactly as ADR-015 writes it (the module's docstring), before itf-py decodes it."""
    if depth >= MAX_DEPTH:
        raise Problem(where, f"nested more than {MAX_DEPTH} levels")
    _check_scalar(raw, where, value=True)
    if raw is None:
        raise Problem(where, "ITF has no null")
    if isinstance(raw, list):
        if len(raw) > MAX_ITEMS:
            raise Problem(where, f"{len(raw)} items: at most {MAX_ITEMS}")
        for i, item in enumerate(raw):
            check_value(item, f"{where}/{i}", depth + 1)
        return
    if not isinstance(raw, dict):
        return
    if len(raw) > MAX_ITEMS:
        raise Problem(where, f"{len(raw)} fields: at most {MAX_ITEMS}")
    if isinstance(raw, _Object) and raw.duplicate is not None:
        raise Problem(where, f"the key {raw.duplicate!r} appears twice")
    special = [k for k in raw if k.startswith("#")]
    if special:
        if len(raw) != 1 or special[0] not in ITF_KEYS:
            raise Problem(where, f"an ITF object is exactly one of {', '.join(ITF_KEYS)}; got the keys {sorted(raw)}")
        _check_itf(special[0], raw[special[0]], f"{where}/{special[0]}", depth)
        return
    if set(raw) == {"tag", "value"}:
        raise Problem(where, "a record {tag, value} is an ITF variant: not part of the vocabulary")
    for key, value in raw.items():
        if not key.isidentifier() or keyword.iskeyword(key) or key.startswith("_"):
            raise Problem(where, f"a record's field name is an identifier; got {key[:40]!r}")
        check_value(value, f"{where}/{key}", depth + 1)


def _check_itf(key: str, value: Any, where: str, depth: int) -> None:
    if key == "#bigint":
        if not isinstance(value, str) or not CANONICAL.fullmatch(value) or value == "-0":
            raise Problem(where, f"a #bigint is a canonical decimal string (-?(0|[1-9][0-9]*), not -0); got {_brief(value)}")
        if len(value) > 20 or not LONG_MIN <= int(value) <= LONG_MAX:
            raise Problem(where, f"{value[:24]}{'...' if len(value) > 24 else ''} ({len(value)} characters) "
                                 f"is out of range: at most a Java long, [-2^63, 2^63-1]")
        return
    if not isinstance(value, list):
        raise Problem(where, f"{key} holds a list, got {_brief(value)}")
    check_value(value, where, depth)
    if key == "#map":
        for i, pair in enumerate(value):
            if not isinstance(pair, list) or len(pair) != 2:
                raise Problem(f"{where}/{i}", f"a #map entry is a [key, value] pair, got {_brief(pair)}")
        keys = [pair[0] for pair in value]
        if len({json.dumps(_plain(k), sort_keys=True) for k in keys}) != len(keys):
            raise Problem(where, "a #map gives a key twice")
    if key in ("#set", "#map"):
        elements = [pair[0] for pair in value] if key == "#map" else value
        what = "keys" if key == "#map" else "elements"
        kinds = sorted({_kind(e) for e in elements})
        if len(kinds) > 1:
            raise Problem(where, f"a {key}'s {what} are of one kind; got {', '.join(kinds)}")
        if not all(map(_hashable, elements)):
            raise Problem(where, f"a {key}'s {what} are ints, strings, bools, tuples or sets of them; got {kinds[0]}")


def _hashable(raw: Any) -> bool:
    """A value the decoded form can put in a set or use as a key (a list, record or map cannot)."""
    if isinstance(raw, bool | int | str) or (isinstance(raw, dict) and "#bigint" in raw):
        return True
    if isinstance(raw, dict) and ("#tup" in raw or "#set" in raw):
        return all(map(_hashable, raw["#tup"] if "#tup" in raw else raw["#set"]))
    return False


def _plain(raw: Any) -> Any:
    """A checked raw value with its markers removed, for comparing keys."""
    if isinstance(raw, dict):
        big = raw.get("#bigint")
        if len(raw) == 1 and isinstance(big, str) and CANONICAL.fullmatch(big) and len(big) <= 20:
            return int(big)
        return {k: _plain(v) for k, v in raw.items()}
    if isinstance(raw, list):
        return [_plain(v) for v in raw]
    return raw.text if isinstance(raw, _Float | _HugeInt) else raw


def _brief(value: Any, depth: int = 3) -> str:
    """A value for a message: at most 60 characters and ``depth`` levels (a value nested hundreds deep is refused,
    not walked)."""
    if depth == 0 and isinstance(value, dict | list):
        text = "{...}" if isinstance(value, dict) else "[...]"
    elif isinstance(value, dict):
        text = "{" + ", ".join(f"{k!r}: {_brief(v, depth - 1)}" for k, v in list(value.items())[:4]) + "}"
    elif isinstance(value, list):
        text = "[" + ", ".join(_brief(v, depth - 1) for v in value[:4]) + "]"
    else:
        text = repr(_plain(value))
    return text if len(text) <= 60 else text[:57] + "..."
