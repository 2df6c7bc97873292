"""TLC's printed counterexample (the ``State N: <...>`` blocks after ``Error: The behavior up to this
point is:``) read back as spec states: one dict of variable values per state, values as the project
holds them (ints, strs, bools, frozensets, tuples, dicts, lists).

TLC prints values, not their types, so three things are resolved by the spec's variable types
(spec/README.md): a function whose domain is ``1..n`` prints as a sequence ``<<a, b>>`` and an empty
function as ``<< >>`` (``replicas``, ``alive`` and each ``acks[p]`` are functions of broker ids: they
become dicts), ``log`` and ``epochFile`` hold sequences (lists of tuples in the project, like
reference/variables.py), and every other ``<<...>>`` is a tuple. A function with a domain of strings
prints as a record ``[p1 |-> 0]``: both are dicts with string keys.

This jar (TLC 2.18) has no ``-dumpTrace json``; the printed trace is TLC's only trace output here.

A liveness counterexample is a lasso: the states, then ``Back to state N: <action>`` (the last state steps
back to state N) or ``State K: Stuttering`` (the behaviour stays in state K-1): ``parse_tlc_lasso``.

A trace that cannot be read is a :class:`TlcTraceError` naming the state and the variable. It is an
``InputError`` (a malformed file given to the reader is bad input, exit 2); ``autoswitch tla`` catches it on
the output of its own TLC run and reports the run as failed (no verdict, exit 1): the user gave nothing wrong.
"""

from __future__ import annotations

import re
from typing import Any

from autoswitch.conformance.errors import InputError

INT_FUNCTIONS = ("replicas", "alive")  # Int -> record; printed as sequences when the domain is 1..n
SEQUENCES = ("log", "epochFile")  # Str -> Seq(...)

_TOKEN = re.compile(r'\s*(?:(<<|>>|\|->|:>|@@|[\[\]{}(),])|("(?:[^"\\]|\\.)*")|(-?\d+)|([A-Za-z_]\w*))')
_STATE = re.compile(r"^State (\d{1,9}): (.*)$")
_BACK = re.compile(r"^Back to state (\d{1,9})\b")
_TRACE_START = ("Error: The behavior up to this point is:", "Error: The following behavior constitutes a counter-example:")


MAX_DEPTH = 50  # nesting of a printed value; the spec's deepest is 4


class TlcTraceError(InputError):
    """TLC output this module cannot read; the message names the state number and the variable."""


class _Parser:
    """A recursive-descent reader of one printed TLA+ value."""

    def __init__(self, text: str):
        self.tokens: list[tuple[str, str]] = []
        pos = 0
        text = text.rstrip()
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if not m or m.end() == pos:
                raise ValueError(f"cannot read {text[pos:pos + 30]!r}")
            kind = "punct" if m.group(1) else "str" if m.group(2) else "int" if m.group(3) else "name"
            self.tokens.append((kind, m.group(m.lastindex)))
            pos = m.end()
        self.i = 0
        self.depth = 0

    def peek(self) -> str | None:
        return self.tokens[self.i][1] if self.i < len(self.tokens) else None

    def take(self, expected: str | None = None) -> tuple[str, str]:
        if self.i >= len(self.tokens):
            raise ValueError(f"the value ends early (expected {expected or 'a value'})")
        token = self.tokens[self.i]
        if expected is not None and token[1] != expected:
            raise ValueError(f"expected {expected!r}, found {token[1]!r}")
        self.i += 1
        return token

    def items(self, close: str, item: Any) -> list[Any]:
        out: list[Any] = []
        if self.peek() == close:
            self.take(close)
            return out
        while True:
            out.append(item())
            if self.take()[1] == close:
                return out
            if self.tokens[self.i - 1][1] != ",":
                raise ValueError(f"expected ',' or {close!r}, found {self.tokens[self.i - 1][1]!r}")

    def field(self) -> tuple[str, Any]:
        kind, name = self.take()
        if kind != "name":
            raise ValueError(f"expected a record field name, found {name!r}")
        self.take("|->")
        return name, self.value()

    def value(self) -> Any:
        self.depth += 1
        try:
            return self._value()
        finally:
            self.depth -= 1

    def _value(self) -> Any:
        if self.depth > MAX_DEPTH:
            raise ValueError(f"nested deeper than {MAX_DEPTH}")
        kind, tok = self.take()
        if kind == "int":
            if len(tok.lstrip("-")) > 18:
                raise ValueError(f"the integer {tok[:20]}... has more than 18 digits")
            return int(tok)
        if kind == "str":
            return tok[1:-1].replace('\\"', '"').replace("\\\\", "\\")
        if tok in ("TRUE", "FALSE"):
            return tok == "TRUE"
        if tok == "[":
            return dict(self.items("]", self.field))
        if tok == "<<":
            return tuple(self.items(">>", self.value))
        if tok == "{":
            return frozenset(self.items("}", self.value))
        if tok == "(":  # k1 :> v1 @@ k2 :> v2
            pairs = {}
            while True:
                key = self.value()
                self.take(":>")
                pairs[key] = self.value()
                if self.take()[1] == ")":
                    return pairs
                if self.tokens[self.i - 1][1] != "@@":
                    raise ValueError(f"expected '@@' or ')', found {self.tokens[self.i - 1][1]!r}")
        raise ValueError(f"unexpected {tok!r}")


def parse_value(text: str) -> Any:
    """One printed TLA+ value: records and functions as dicts, ``<<...>>`` as tuples, sets as frozensets."""
    parser = _Parser(text)
    value = parser.value()
    if parser.peek() is not None:
        raise ValueError(f"unexpected {parser.peek()!r} after the value")
    return value


def _int_function(value: Any) -> dict[int, Any]:
    """A function of broker ids, printed as a sequence (domain 1..n), ``<< >>`` (empty) or ``:>``/``@@``."""
    if isinstance(value, tuple):
        return {i + 1: v for i, v in enumerate(value)}
    if isinstance(value, dict) and all(isinstance(k, int) for k in value):
        return value
    raise ValueError(f"expected a function of broker ids, got {value!r}")


def typed(name: str, value: Any) -> Any:
    """A parsed variable value in the project's representation (see the module docstring)."""
    if name in INT_FUNCTIONS:
        return _int_function(value)
    if name == "acks":
        return {p: _int_function(v) for p, v in value.items()}
    if name in SEQUENCES:
        return {p: list(v) for p, v in value.items()}
    return value


def _conjuncts(lines: list[str]) -> list[str]:
    """``/\\ name = value`` conjuncts of a state block; a value may run over several lines."""
    if lines and not lines[0].startswith("/\\ "):
        return [" ".join(lines)]
    out: list[str] = []
    for line in lines:
        if line.startswith("/\\ "):
            out.append(line[3:])
        elif out:
            out[-1] += " " + line.strip()
    return out


def trace_blocks(output: str, lasso: bool = False) -> tuple[list[tuple[int, str, list[str]]], int | None]:
    """``(number, label, lines)`` of each ``State N: <label>`` block of the first error trace in
    ``output``, and for a lasso (``lasso``) the number of the state it loops back to: ``Back to state N``
    after the last block, or the last block's own number for ``State N: Stuttering`` (that block is not
    returned: the behaviour stays in the state before it). A block ends at a blank line; the trace ends
    at the first line after one that is not another ``State`` header (TLC's statistics)."""
    lines = output.splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip() in _TRACE_START), None)
    if start is None:
        raise TlcTraceError("no error trace in the TLC output (no 'Error: The behavior up to this point is:')")
    blocks: list[tuple[int, str, list[str]]] = []
    open_block = False
    for line in lines[start + 1:]:
        back, stutter = _BACK.match(line), re.match(r"^State (\d+): Stuttering", line)
        if (back or stutter) and not lasso:
            raise TlcTraceError(f"{line.strip()!r}: a liveness (lasso) trace; only finite safety traces are imported")
        if back:
            return blocks, int(back.group(1))
        if stutter:
            return blocks, len(blocks)
        m = _STATE.match(line)
        if m:
            blocks.append((int(m.group(1)), m.group(2), []))
            open_block = True
        elif not line.strip():
            open_block = False
        elif open_block:
            blocks[-1][2].append(line)
        else:
            break
    if lasso:
        raise TlcTraceError("the liveness trace does not end in 'Back to state N' or 'State N: Stuttering'")
    return blocks, None


def parse_tlc_trace(output: str) -> list[dict[str, Any]]:
    """The states of the (finite, safety) error trace in TLC's output, variables typed (see ``typed``), in
    order. Raises ``TlcTraceError`` naming the state number and variable of anything it cannot read."""
    return _states(trace_blocks(output)[0])


def parse_tlc_lasso(output: str) -> tuple[list[dict[str, Any]], int]:
    """The states of TLC's liveness counterexample and the index (from 0) of the state the behaviour
    returns to after the last one: ``Back to state N`` (N counted from 1) or, for ``Stuttering``, the
    last state itself (the behaviour stutters there for ever)."""
    blocks, back = trace_blocks(output, lasso=True)
    states = _states(blocks)
    if back is None or not 1 <= back <= len(states):
        raise TlcTraceError(f"the liveness trace loops back to state {back}, not one of its {len(states)} states")
    return states, back - 1


def _states(blocks: list[tuple[int, str, list[str]]]) -> list[dict[str, Any]]:
    states = []
    for expected_number, (number, _label, lines) in enumerate(blocks, 1):
        if number != expected_number:
            raise TlcTraceError(f"state {number}: expected state {expected_number} (states out of order)")
        state: dict[str, Any] = {}
        for conjunct in _conjuncts(lines):
            name, sep, text = conjunct.partition(" = ")
            if not sep or not re.fullmatch(r"[A-Za-z_]\w*", name):
                raise TlcTraceError(f"state {number}: cannot read the conjunct {conjunct[:60]!r} (expected 'name = value')")
            try:
                value = typed(name, parse_value(text))
            except (ValueError, AttributeError, TypeError) as e:  # TypeError: a set or a key of records (unhashable)
                raise TlcTraceError(f"state {number}: variable {name}: {e}") from None
            if name in state:
                raise TlcTraceError(f"state {number}: variable {name} given twice")
            state[name] = value
        if not state:
            raise TlcTraceError(f"state {number}: no variables")
        states.append(state)
    if not states:
        raise TlcTraceError("the error trace has no states")
    return states
