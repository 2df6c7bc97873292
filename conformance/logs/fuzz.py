"""A seeded mutator over committed event logs, and the contract ``autoswitch validate`` keeps on each mutated log
(``autoswitch fuzz --logs``), as conformance/trace/fuzz.py is for traces.

Input ``index`` of seed ``seed`` is one corpus log (each as often) with one mutation, drawn from
``random.Random(f"logs:{seed}:{index}")``: the same seed and index give the same bytes. Each input is searched in this
process by validate's own entry point (batch.validate_one, at most ``max_states`` nodes: a search that gives up is a
verdict, exit 1); the contract (:func:`judge`):

- no internal error (exit 3: an exception in the search or the reading);
- bad input (exit 2) names a file of the log and the field; a mutation that breaks the format (``expect`` MALFORMED:
  a field no event has, a truncated line, a float, a repeated key, nesting past the limit) is bad input, naming the line too;
- no wrong acceptance: a mutation that must be refused (``expect`` REFUSED: a value no configuration produces, past
  every bound of the search, or a value of another kind in an event) is never explained.

The corpus: under a folder, each folder holding ``*.ndjson`` files and no subfolder that does is one log (a run's files);
in any other folder, each ``*.ndjson`` file is a log of its own (traces/logs/: ``failover/`` and ``registration.ndjson``).
"""

from __future__ import annotations

import copy
import json
import random
import shutil
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from attrs import frozen

from autoswitch.conformance.logs.batch import ERROR, MALFORMED, Row, Settings, validate_one
from autoswitch.conformance.logs.events import CONTROLLER_NODE, HEADER
from autoswitch.conformance.logs.search import EXPLAINED
from autoswitch.conformance.trace.fuzz import _OTHER_TYPES, BIGINT_EDGES, _is_int, _kind
from autoswitch.conformance.trace.itf import printable
from autoswitch.conformance.trace.validate import MAX_DEPTH

REFUSED = "refused"  # an ``expect``: never explained (refused, gave up or bad input)
MAX_STATES = 5_000  # nodes each input's search may expand (then it gives up: exit 1, a verdict)
MAX_DRAWS = 100  # a draw whose mutation changes nothing is drawn again
BIG = 10**6  # past every bound of a search of a log of at most events.MAX_EVENTS events (reach.py)


@frozen
class LogCase:
    """One mutated log: its files (name, text), one file (a one-file log) or a folder's; ``expect``: None (no oracle but
    the first rule), REFUSED or MALFORMED."""

    index: int
    source: str
    mutation: str
    expect: str | None
    files: tuple[tuple[str, str], ...]
    folder: bool

    def write(self, where: Path) -> Path:
        """The log under ``where``: a folder of its files, or its one file."""
        if not self.folder:
            path = where.with_suffix(".ndjson")
            path.write_text(self.files[0][1])
            return path
        where.mkdir(parents=True, exist_ok=True)
        for name, text in self.files:
            (where / name).write_text(text)
        return where


@frozen
class LogOutcome:
    case: LogCase
    row: Row
    broken: str | None  # what the input broke of the contract, None if nothing


def corpus_logs(root: Path) -> list[Path]:
    """The logs under ``root`` (module docstring), sorted; FIFOs and devices named ``*.ndjson`` are left out."""
    found: list[Path] = []
    folders = sorted({f.parent for f in root.rglob("*.ndjson") if f.is_file()})
    for folder in folders:
        if any(other != folder and folder in other.parents for other in folders):
            found += sorted(f for f in folder.glob("*.ndjson") if f.is_file())
        else:
            found.append(folder)
    return sorted(found)


class _Log:
    """A log being mutated: per file, its lines (JSON objects, or raw text where a mutation wrote some)."""

    def __init__(self, files: dict[str, list[Any]], rng: random.Random):
        self.files, self.rng = files, rng
        self.raw: dict[str, str] = {}

    def splice(self, text: str) -> str:
        key = f"\u0000raw{len(self.raw)}\u0000"
        self.raw[key] = text
        return key

    def texts(self) -> tuple[tuple[str, str], ...]:
        out = []
        for name, lines in self.files.items():
            text = "".join((line if isinstance(line, str) and line.startswith("\u0001") else json.dumps(line)) + "\n"
                           for line in lines).replace("\u0001", "")
            for key, raw in self.raw.items():
                text = text.replace(json.dumps(key), raw)
            out.append((name, text))
        return tuple(out)

    def events(self) -> list[tuple[str, int]]:
        return [(name, i) for name, lines in self.files.items() for i, line in enumerate(lines)
                if isinstance(line, dict) and HEADER not in line]

    def places(self, keep: Callable[[Any], bool], events_only: bool = False) -> list[tuple[Any, Any, bool]]:
        """Every (container, key, inside an event) whose value passes ``keep``; events' own fields too."""
        found: list[tuple[Any, Any, bool]] = []

        def walk(node: Any, event: bool) -> None:
            items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
            for k, v in items:
                if keep(v) and (event or not events_only):
                    found.append((node, k, event))
                walk(v, event)

        for lines in self.files.values():
            for line in lines:
                if isinstance(line, dict):
                    walk(line, HEADER not in line)
        return found

    def pick(self, keep: Callable[[Any], bool] = lambda v: True, events_only: bool = False) -> tuple[Any, Any, bool] | None:
        places = self.places(keep, events_only)
        return self.rng.choice(places) if places else None


# ---- mutations: each changes the log and says what validate must make of it ---------------------------------------------

def drop_line(d: _Log) -> str | None:
    name = d.rng.choice(sorted(d.files))
    if d.files[name]:
        del d.files[name][d.rng.randrange(len(d.files[name]))]
    return None


def duplicate_line(d: _Log) -> str | None:
    name = d.rng.choice(sorted(d.files))
    lines = d.files[name]
    if lines:
        i = d.rng.randrange(len(lines))
        lines.insert(i, copy.deepcopy(lines[i]))
    return None


def swap_lines(d: _Log) -> str | None:
    name = d.rng.choice(sorted(d.files))
    lines = d.files[name]
    if len(lines) > 1:
        i, j = d.rng.sample(range(len(lines)), 2)
        lines[i], lines[j] = lines[j], lines[i]
    return None


def move_line(d: _Log) -> str | None:
    """An event to another file of the log (or to its end, in a one-file log)."""
    events = d.events()
    if not events:
        return None
    name, i = d.rng.choice(events)
    line = d.files[name].pop(i)
    d.files[d.rng.choice(sorted(d.files))].append(line)
    return None


def other_value(d: _Log) -> str | None:
    """An int of an event replaced by another, near the model's values (no oracle: a value some behaviour may reach)."""
    place = d.pick(_is_int, events_only=True)
    if place is not None:
        node, key, _ = place
        node[key] = d.rng.choice([-1, 0, 1, 2, 3, 5, 9])
    return None


def other_name(d: _Log) -> str | None:
    """A string of an event replaced by another the model knows (a node, a tag, a role, a state)."""
    place = d.pick(lambda v: isinstance(v, str), events_only=True)
    if place is not None:
        node, key, _ = place
        node[key] = d.rng.choice(["p1", "p2", "p3", CONTROLLER_NODE, "MASTER", "SLAVE", "NONE", "REGISTERED", "DOWN",
                                  "Crash", "SendRegister", "Write", "10.0.0.1:30911"])
    return None


UNREACHABLE = (  # (a process's or the controller's, variable, a value no behaviour within the search's bounds reaches)
    (False, "metaFile", BIG), (False, "tempFile", {"brokerId": BIG, "checkCode": "10.0.0.1:30911;0"}),
    (False, "localMasterEpoch", BIG), (False, "confirmOffset", BIG), (False, "flushed", BIG), (False, "role", "LEADER"),
    (False, "regState", "RUNNING"), (False, "haState", "SYNCING"), (False, "localMasterEpoch", -1),
    (False, "log", [{"#tup": [BIG, 1]}]), (True, "nextBrokerId", BIG), (True, "masterEpoch", BIG),
    (True, "syncStateSetEpoch", BIG), (True, "electTriesLeft", 99), (True, "masterId", 0), (True, "syncStateSet", {"#set": [0]}),
)


def unreachable_value(d: _Log) -> str | None:
    """An event's observation of a variable set to a value no configuration produces within the search's bounds."""
    events = d.events()
    if not events:
        return None
    name, i = d.rng.choice(events)
    event = d.files[name][i]
    controller = event.get("node") == CONTROLLER_NODE
    _, variable, value = d.rng.choice([u for u in UNREACHABLE if u[0] == controller])
    observe = event.get("observe") if isinstance(event.get("observe"), dict) else {}
    event["observe"] = {**observe, variable: copy.deepcopy(value)}
    return REFUSED


def replace_type(d: _Log) -> str | None:
    """A value of an event replaced by one of another kind: bad input, or an observation no state has."""
    place = d.pick(events_only=True)
    if place is None:
        return None
    node, key, _ = place
    node[key] = copy.deepcopy(d.rng.choice([v for v in _OTHER_TYPES if _kind(v) != _kind(node[key])]))
    return REFUSED


def header_type(d: _Log) -> str | None:
    """A value of a header replaced by one of another kind (no oracle: a note takes any)."""
    place = d.pick(lambda v: True)
    if place is None or place[2]:
        return None
    node, key, _ = place
    node[key] = copy.deepcopy(d.rng.choice([v for v in _OTHER_TYPES if _kind(v) != _kind(node[key])]))
    return None


def garbage_field(d: _Log) -> str | None:
    """A field no event has."""
    events = d.events()
    if not events:
        return None
    name, i = d.rng.choice(events)
    d.files[name][i][d.rng.choice(["level", "msg", "Node", "ts ", "_x", "observe2"])] = d.rng.choice([1, "x", {}])
    return MALFORMED


def float_value(d: _Log) -> str | None:
    place = d.pick(_is_int)
    if place is None:
        return None
    node, key, _ = place
    node[key] = d.splice(d.rng.choice(["1.0", "1e3", "NaN", "Infinity", "0.5", "-0.0"]))
    return MALFORMED


def bigint_edge(d: _Log) -> str | None:
    """A #bigint that is not canonical or past a long (the format refuses it)."""
    place = d.pick(_is_int, events_only=True)
    if place is None:
        return None
    node, key, _ = place
    node[key] = {"#bigint": d.rng.choice(BIGINT_EDGES)}
    return MALFORMED


def repeated_key(d: _Log) -> str | None:
    place = d.pick(lambda v: isinstance(v, dict) and len(v) > 0 and not any(str(k).startswith("#") for k in v))
    if place is None:
        return None
    node, key, _ = place
    name = d.rng.choice(sorted(node[key]))
    node[key][d.splice(json.dumps(name) + ": " + json.dumps(node[key][name]) + ', "_"')] = 0
    return MALFORMED


def deep_nesting(d: _Log) -> str | None:
    place = d.pick(events_only=True)
    if place is None:
        return None
    node, key, _ = place
    depth = d.rng.choice([MAX_DEPTH + 1, 5_000])
    node[key] = d.splice("[" * depth + "]" * depth)
    return MALFORMED


def control_characters(d: _Log) -> str | None:
    place = d.pick(lambda v: isinstance(v, str))
    if place is None:
        return None
    node, key, _ = place
    node[key] = node[key] + d.rng.choice(["\x1b[2J", "\r", "\x07", "[bold red]", "\u202e", "[/m]"])
    return None


def truncate_line(d: _Log) -> str | None:
    """A file cut inside one of its lines (a run killed while writing): that line is not JSON."""
    name = d.rng.choice(sorted(d.files))
    lines = d.files[name]
    if not lines:
        return None
    i = d.rng.randrange(len(lines))
    raw = isinstance(lines[i], str)  # a corpus line that is not JSON: a prefix of it may be (no oracle)
    text = lines[i].removeprefix("\u0001") if raw else json.dumps(lines[i])
    cut = d.rng.randrange(1, len(text) - 1) if len(text) > 2 else 1
    d.files[name] = [*lines[:i], "\u0001" + text[:cut]]
    return None if raw else MALFORMED


def drop_field(d: _Log) -> str | None:
    """A key of an object left out (an event's node, an action's tag, a header's processes...)."""
    place = d.pick(lambda v: isinstance(v, dict) and len(v) > 0 and not any(str(k).startswith("#") for k in v))
    if place is not None:
        node, key, _ = place
        del node[key][d.rng.choice(sorted(node[key]))]
    return None


def extra_param(d: _Log) -> str | None:
    """An action given a parameter: another tag's, or a process (on the controller's node too)."""
    place = d.pick(lambda v: isinstance(v, dict) and "tag" in v, events_only=True)
    if place is not None:
        node, key, _ = place
        name, value = d.rng.choice([("process", "p1"), ("process", "p9"), ("brokerId", 99), ("lost", True), ("peer", "p2"),
                                    ("request", "ElectMaster"), ("trigger", "admin"), ("brokerIds", {"#set": [1, 2]}),
                                    ("addr", "10.0.0.9:1"), ("brokerName", "broker-a"), ("epoch", 1)])
        node[key][name] = value
    return None


def other_node_variable(d: _Log) -> str | None:
    """An event observes a variable its node does not (a process the controller's tables, the controller a process's)."""
    events = d.events()
    if not events:
        return None
    name, i = d.rng.choice(events)
    event = d.files[name][i]
    choices: list[tuple[str, Any]] = [("nextMsg", 1), ("clock", 0), ("masterHistory", []), ("nosuch", 1)]
    variable, value = ("metaFile", 1) if event.get("node") == CONTROLLER_NODE else ("masterEpoch", 1)
    if d.rng.random() < 0.3:
        variable, value = d.rng.choice(choices)
    observe = event.get("observe") if isinstance(event.get("observe"), dict) else {}
    event["observe"] = {**observe, variable: value}
    return MALFORMED


MUTATIONS: dict[str, Callable[[_Log], str | None]] = {f.__name__: f for f in (
    drop_line, duplicate_line, swap_lines, move_line, other_value, other_name, unreachable_value, replace_type, header_type,
    garbage_field, float_value, bigint_edge, repeated_key, deep_nesting, control_characters, truncate_line, drop_field,
    extra_param, other_node_variable)}


def _line(text: str) -> Any:
    """A line as its JSON object, or as raw text (a corpus line that is not JSON stays as it is)."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return "\u0001" + text


def _read(source: Path) -> tuple[dict[str, list[Any]], bool]:
    files = sorted(f for f in source.glob("*.ndjson") if f.is_file()) if source.is_dir() else [source]
    return ({f.name: [_line(line) for line in f.read_text(errors="replace").splitlines() if line.strip()] for f in files},
            source.is_dir())


def make_case(corpus: Sequence[Path], seed: int, index: int) -> LogCase:
    """Input ``index`` of ``seed``: a log and one mutation, drawn again while the mutation leaves the log as it was."""
    rng = random.Random(f"logs:{seed}:{index}")
    for _ in range(MAX_DRAWS):
        source = corpus[rng.randrange(len(corpus))]
        files, folder = _read(source)
        before = _Log(copy.deepcopy(files), rng).texts()
        mutation = rng.choice(sorted(MUTATIONS))
        log = _Log(files, rng)
        expect = MUTATIONS[mutation](log)
        texts = log.texts()
        if texts != before:
            return LogCase(index, str(source), mutation, expect, texts, folder)
    raise RuntimeError(f"fuzz --logs: no mutation changed a log in {MAX_DRAWS} draws (seed {seed}, input {index})")


def judge(case: LogCase, row: Row, path: Path) -> str | None:
    """What ``row`` (validate's outcome on ``case``, written at ``path``) breaks of the contract (module docstring)."""
    if row.status == ERROR:
        return f"internal error (exit 3): {row.text}"
    if row.status == MALFORMED:
        if printable(str(path)) not in row.text or "field '" not in row.text:
            return f"bad input that does not name the file and the field: {row.text}"
        if case.expect == MALFORMED and "line " not in row.text:
            return f"bad input that does not name the line: {row.text}"
    elif case.expect == MALFORMED:
        return f"{case.mutation} breaks the format, but validate says {row.status}: {row.text}"
    if case.expect is not None and row.status == EXPLAINED:
        return f"{case.mutation} must be refused, but the log is explained: {row.text}"
    return None


def run_case(case: LogCase, folder: Path, max_states: int = MAX_STATES) -> LogOutcome:
    """Validate ``case`` from ``folder`` as ``autoswitch validate`` does (validate_one never raises: an exception is a row of
    status ERROR, exit 3)."""
    path = case.write(folder / f"input-{case.index}")
    try:
        row = validate_one(str(path), Settings(max_states=max_states))
    finally:
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink()
    return LogOutcome(case, row, judge(case, row, path))


def fuzz_logs(corpus: Sequence[Path], seed: int, indices: range | list[int], folder: Path,
              max_states: int = MAX_STATES) -> Iterator[LogOutcome]:
    """The outcome of each input of ``indices``, in order."""
    for index in indices:
        yield run_case(make_case(corpus, seed, index), folder, max_states)
