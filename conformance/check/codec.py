"""The checker's states as JSON for a checkpoint (store.py): data that reading cannot turn into code. An attrs instance
is written as its class's name and fields, and read back only for the classes of ``reference/state.py`` with exactly
their fields; sets, tuples and frozendicts keep their type. Anything else in a file is refused (:class:`CodecError`)."""

from __future__ import annotations

from typing import Any

import attrs
from frozendict import frozendict

from autoswitch.reference import state as model

# the classes a state is made of, by name (reference/state.py): nothing else is built from a file
CLASSES: dict[str, type] = {cls.__name__: cls for cls in (model.Replica, model.LiveInfo, model.Controller, model.TempFile,
                                                          model.PendingAlter, model.Process, model.System)}
_FIELDS = {name: tuple(f.name for f in attrs.fields(cls)) for name, cls in CLASSES.items()}
MAX_DEPTH = 64


class CodecError(ValueError):
    """A value that is not a state written by :func:`encode`."""


def encode(value: Any) -> Any:
    """``value`` (a state or a part of one) as JSON-able data."""
    if value is None or isinstance(value, bool | int | str):
        return value
    name = type(value).__name__
    if name in CLASSES and type(value) is CLASSES[name]:
        return {"@": name, "f": [encode(getattr(value, f)) for f in _FIELDS[name]]}
    if isinstance(value, frozendict | dict):
        return {"@map": [[encode(k), encode(v)] for k, v in value.items()], "frozen": isinstance(value, frozendict)}
    if isinstance(value, frozenset):
        return {"@set": [encode(v) for v in value]}
    if isinstance(value, tuple):
        return {"@tup": [encode(v) for v in value]}
    if isinstance(value, list):
        return [encode(v) for v in value]
    raise CodecError(f"a state holds a {name}, which a checkpoint cannot write")


def decode(data: Any, depth: int = 0) -> Any:
    """The value :func:`encode` wrote; CodecError for anything else."""
    if depth > MAX_DEPTH:
        raise CodecError(f"nested more than {MAX_DEPTH} levels")
    if data is None or isinstance(data, bool | int | str):
        return data
    if isinstance(data, list):
        return [decode(v, depth + 1) for v in data]
    if not isinstance(data, dict):
        raise CodecError(f"not a value of a state: {type(data).__name__}")
    if "@" in data:
        name, fields = data.get("@"), data.get("f")
        if set(data) != {"@", "f"} or name not in CLASSES or not isinstance(fields, list) or len(fields) != len(_FIELDS[name]):
            raise CodecError(f"not a state's record: {str(data)[:80]}")
        return CLASSES[name](**{f: decode(v, depth + 1) for f, v in zip(_FIELDS[name], fields, strict=True)})
    if set(data) == {"@map", "frozen"} and isinstance(data["@map"], list) and isinstance(data["frozen"], bool):
        pairs = []
        for pair in data["@map"]:
            if not isinstance(pair, list) or len(pair) != 2:
                raise CodecError("a map's entry is a [key, value] pair")
            pairs.append((_hashable(decode(pair[0], depth + 1)), decode(pair[1], depth + 1)))
        return frozendict(pairs) if data["frozen"] else dict(pairs)
    if set(data) == {"@set"} and isinstance(data["@set"], list):
        return frozenset(_hashable(decode(v, depth + 1)) for v in data["@set"])
    if set(data) == {"@tup"} and isinstance(data["@tup"], list):
        return tuple(decode(v, depth + 1) for v in data["@tup"])
    raise CodecError(f"not a value of a state: {str(data)[:80]}")


def _hashable(value: Any) -> Any:
    if isinstance(value, list | dict):
        raise CodecError("a set member or map key is a scalar, a tuple, a set or a record")
    return value
