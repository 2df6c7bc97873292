"""The event-log format of a system under test (spec/README.md, "Event logs"), read strictly.

A log is a folder of ``*.ndjson`` files (one run: a file per node, or any split) or one ``.ndjson`` file. Each line is
one JSON object: a header ``{"meta": {...}}`` (only as a file's first line; the keys of an ITF trace's ``#meta``, read
by the code that reads a trace's, plus ``complete``, ``completeOf``, ``clockCountsSteps`` and ``changesLogged``) or an
event ``{"node", "ts", "clock", "action", "observe"}``. The raw JSON is checked as a trace's is (validate.py: no float,
no repeated key, canonical ``#bigint``...), the action against the action table (vocabulary.action_problem) with the
parameters a log may leave out, the observed variables against reference/variables.py. Anything wrong raises
:class:`LogError`: the file, the line and the field.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from attrs import frozen

from autoswitch.conformance.engines.config import Config, config_from_meta, show_name
from autoswitch.conformance.errors import InputError
from autoswitch.conformance.trace.itf import decode, printable
from autoswitch.conformance.trace.replay import LASSO_NEXT, TEXT_META, show
from autoswitch.conformance.trace.validate import MAX_STATES, Problem, check_json, check_value, parse_json, read_text
from autoswitch.conformance.trace.vocabulary import action_problem, process_params
from autoswitch.impl.event_log import CHANGES_LOGGED, CLOCK_COUNTS_STEPS
from autoswitch.reference.actions import (
    ACTIONS,
    ADDR,
    BOOL,
    BROKER_ID,
    BROKER_IDS,
    FLAG,
    INT,
    LOST,
    PEER,
    PROCESS,
    REQUEST,
    SET_PARAMS,
    STR,
    SWITCHES,
    TRIGGER,
    Kind,
)
from autoswitch.reference.faults import LATE_REQUESTS
from autoswitch.reference.invariants import CONTROLLER_VARS, DATA_VARS, DESIGN_VARS, PROCESS_VARS
from autoswitch.reference.liveness import NEW_FAULTS
from autoswitch.reference.variables import VARIABLES

CONTROLLER_NODE = "controller"
EVENT_KEYS = ("node", "ts", "clock", "action", "observe")
HEADER = "meta"
# The header's claims that every event's clock is the number of its step in the run (CLOCK_COUNTS_STEPS) and, per node,
# of the variables whose every change that node logs (CHANGES_LOGGED): spec/README.md, "Event logs"; their names are
# impl/event_log.py's, which writes them.
# The variables a process node observes (its own value of each); the controller node observes CONTROLLER_VARS. The
# environment's and the ghosts' (clock, masterHistory, nextMsg, acked, seen, partitions, late) no node observes.
PROCESS_OBSERVED = (*PROCESS_VARS, *(v for v in DATA_VARS if v not in ("nextMsg", "acked", "seen")), *DESIGN_VARS)
# A parameter a log may leave out: one whose values the search can enumerate (its domain in the configuration).
ENUMERABLE = (PROCESS, PEER, ADDR, BROKER_ID, BROKER_IDS, LOST, FLAG, TRIGGER, REQUEST)
# #meta keys of a trace a log does not read (one broker set; no expectation: the search finds what happens)
REFUSED_META = ("expect", "brokerSets", "kind", "loop")
MAX_EVENTS = MAX_STATES  # events of one log
MAX_FILES = 256  # files of one log's folder
assert set(CONTROLLER_VARS) | set(PROCESS_OBSERVED) <= set(VARIABLES)


class LogError(InputError):
    """A malformed log: names the file, the line (None: the file itself or the log) and the field."""

    def __init__(self, path: str, line: int | None, field: str, message: str):
        self.path, self.line, self.field, self.message = path, line, field, message
        where = "" if line is None else f"line {line}: "
        super().__init__(printable(f"{path}: {where}field {field!r}: {message}"))


@frozen
class Event:
    """One event line. ``action`` is the record as given, the process parameter filled from the node; ``missing``
    the parameters it leaves out (the search tries each value of their domains); ``observe`` the observed variables,
    decoded. ``index`` is its place in the merged order (merge.py), -1 before."""

    file: str
    line: int
    node: str
    ts: int | None
    clock: int | None
    action: Mapping[str, Any] | None
    missing: tuple[str, ...]
    observe: Mapping[str, Any]
    index: int = -1

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"

    def describe(self) -> str:
        """The event in one line: its node, its action and what it observes."""
        parts = [f"node {self.node}"]
        if self.action is not None:
            parts.append("action " + ", ".join(f"{k}={show(v)}" for k, v in self.action.items()))
        if self.observe:
            parts.append("observe " + ", ".join(f"{k}={show(v)}" for k, v in self.observe.items()))
        return printable("; ".join(parts))


@frozen
class Log:
    """A decoded log: where it is, its name (for output files), the configuration (its header, else ``--config``), the
    header's ``meta`` (or the configuration's), the tags logged every time they happen (``complete``), and its events
    by node, each node's in file order. ``complete_of``: per node, the tags logged every time that node takes them
    (``completeOf``; a process takes the steps whose ``process`` it is, the controller the steps without one).
    ``clock_counts_steps``: the header claims that every event's clock is the number of its step in the run
    (``clockCountsSteps``), so that at most ``b - a - 1`` steps come between events with clocks ``a < b``.
    ``changes_logged``: per node, the variables of that node whose every change it logs (``changesLogged``): a line
    of that node observes the variable at the step that changed it (the step's own line, or one with its clock)."""

    path: str
    name: str
    config: Config
    meta: Mapping[str, Any]
    complete: frozenset[str]
    nodes: Mapping[str, tuple[Event, ...]]
    complete_of: Mapping[str, frozenset[str]] = {}
    clock_counts_steps: bool = False
    changes_logged: Mapping[str, frozenset[str]] = {}

    def logs_every(self, action: Mapping[str, Any]) -> bool:
        """Whether every step like ``action`` (its tag, taken by its process or the controller) is logged."""
        tag = action["tag"]
        return tag in self.complete or tag in self.complete_of.get(action.get("process", CONTROLLER_NODE), ())

    @property
    def events(self) -> list[Event]:
        return [e for events in self.nodes.values() for e in events]


def log_files(path: str | Path) -> list[Path]:
    """The files of a log: the ``*.ndjson`` files of a folder (sorted; not its subfolders), or the file itself."""
    p = Path(path)
    if not p.is_dir():
        return [p]
    files = sorted(f for f in p.iterdir() if f.name.endswith(".ndjson") and not f.is_dir())
    if not files:
        raise LogError(str(p), None, "<log>", "a log folder holds *.ndjson files; there is none")
    if len(files) > MAX_FILES:
        raise LogError(str(p), None, "<log>", f"{len(files)} files: a log has at most {MAX_FILES}")
    return files


def log_name(path: str | Path) -> str:
    """The name of a log's output files: the folder's name, or the file's without ``.ndjson``."""
    p = Path(path)
    name = p.resolve().name if p.is_dir() else p.name
    return name.removesuffix(".ndjson") or "log"


_PLACEHOLDER = {INT: 0, STR: "", BOOL: False}


def _placeholder(kind: Kind) -> Any:
    """A value of ``kind``'s type that action_problem accepts, standing for a parameter left out."""
    if kind == TRIGGER:
        return "admin"
    if kind == REQUEST:
        return LATE_REQUESTS[0]
    return _PLACEHOLDER.get(kind.type, frozenset())


class _Reader:
    """One file's lines."""

    def __init__(self, path: Path, processes: Mapping[str, str] | None):
        self.path = str(path)
        self.processes = processes

    def fail(self, line: int | None, field: str, message: str) -> LogError:
        return LogError(self.path, line, field, message)

    def value(self, raw: Any, line: int, field: str) -> Any:
        """An ITF value, checked raw (validate.check_value) and decoded."""
        try:
            check_value(raw, "")
        except Problem as e:
            raise self.fail(line, field, str(e)) from None
        try:
            return decode(raw)
        except (TypeError, ValueError) as e:
            raise self.fail(line, field, f"malformed ITF value: {e}") from None

    def header(self, raw: Any, line: int) -> dict[str, Any]:
        if set(raw) != {HEADER}:
            raise self.fail(line, sorted(set(raw) - {HEADER})[0], "a header line holds only 'meta'")
        if line != 1:
            raise self.fail(line, HEADER, "a header is only a file's first line")
        meta = raw[HEADER]
        try:
            check_json(meta)
        except Problem as e:
            raise self.fail(line, HEADER + e.where.replace("/", "."), str(e)) from None
        if not isinstance(meta, dict) or any(k.startswith("#") for k in meta):
            raise self.fail(line, HEADER, "must be a plain object (the keys of an ITF trace's #meta)")
        for key in REFUSED_META:
            if key in meta:
                raise self.fail(line, f"meta.{key}", "a log does not read it (one broker set, no expectation: the search finds "
                                "what happens)")
        for key in TEXT_META:
            if key in meta and not isinstance(meta[key], str):
                raise self.fail(line, f"meta.{key}", f"must be a string, got {show_name(meta[key])}")
        if "next" in meta:
            self.next_domains(meta["next"], line)
        self.tags(meta.get("complete", []), line, "meta.complete")
        if not isinstance(meta.get(CLOCK_COUNTS_STEPS, False), bool):
            raise self.fail(line, f"meta.{CLOCK_COUNTS_STEPS}", f"true or false: whether every event's clock is the number of "
                            f"its step in the run (1, 2, ... counting every node's steps); got {show_name(meta[CLOCK_COUNTS_STEPS])}")
        complete_of = meta.get("completeOf", {})
        if not isinstance(complete_of, dict):
            raise self.fail(line, "meta.completeOf", f"an object: node -> the tags that node logs every time it takes them; got "
                            f"{show_name(complete_of)}")
        for node, tags in complete_of.items():
            self.tags(tags, line, f"meta.completeOf.{node}", node)
        changes = meta.get(CHANGES_LOGGED, {})
        if not isinstance(changes, dict):
            raise self.fail(line, f"meta.{CHANGES_LOGGED}", f"an object: node -> the variables whose every change that node "
                            f"logs; got {show_name(changes)}")
        for node, names in changes.items():
            known = CONTROLLER_VARS if node == CONTROLLER_NODE else PROCESS_OBSERVED
            if not isinstance(names, list) or len(set(map(str, names))) != len(names) or \
                    not all(isinstance(v, str) and v in known for v in names):
                raise self.fail(line, f"meta.{CHANGES_LOGGED}.{node}", f"a list of distinct variables the node observes "
                                f"({', '.join(known)}); got {show_name(names)}")
        return dict(meta)

    def tags(self, tags: Any, line: int, field: str, node: str | None = None) -> None:
        """``complete`` (``node`` None) or ``completeOf[node]``: distinct tags of steps of the model; a process's are
        steps a process takes (with a ``process`` parameter), the controller's steps without one."""
        if not isinstance(tags, list) or len(set(map(str, tags))) != len(tags) or \
                not all(isinstance(t, str) and t in ACTIONS and ACTIONS[t].run is not None for t in tags):
            raise self.fail(line, field, f"a list of distinct action tags, each logged every time it happens; got "
                            f"{show_name(tags)}")
        if node is not None:
            wrong = next((t for t in tags if not takes(node, t)), None)
            if wrong is not None:
                whose = "a process's step (it has a process parameter)" if node == CONTROLLER_NODE else "the controller's step"
                raise self.fail(line, field, f"{wrong} is {whose}: node {node!r} does not take it")

    def next_domains(self, nxt: Any, line: int) -> None:
        """``meta.next``: the domains of Next of the unobserved steps, as a lasso's ``#meta.next`` (replay.LASSO_NEXT)."""
        if not isinstance(nxt, dict) or set(nxt) != set(LASSO_NEXT):
            raise self.fail(line, "meta.next", f"the domains of Next of the unobserved steps: exactly {', '.join(LASSO_NEXT)}")
        known = {"brokerIds": lambda x: type(x) is int and 1 <= x <= 64, "switches": lambda x: x in SWITCHES,
                 "faults": lambda x: x in NEW_FAULTS}
        for key, ok in known.items():
            if not isinstance(nxt[key], list) or not all(isinstance(x, int | str) and ok(x) for x in nxt[key]) \
                    or len(set(nxt[key])) != len(nxt[key]) or (key == "brokerIds" and not nxt[key]):
                raise self.fail(line, f"meta.next.{key}", f"{LASSO_NEXT[key]}, each once; got {show_name(nxt[key])}")

    def action(self, raw: Any, line: int, node: str, design: str) -> tuple[dict[str, Any], tuple[str, ...]]:
        if not isinstance(raw, dict) or any(k.startswith("#") for k in raw):
            raise self.fail(line, "action", "must be a record (a JSON object with a tag and parameters)")
        action = self.value(raw, line, "action")
        tag = action.get("tag")
        entry = ACTIONS.get(tag) if isinstance(tag, str) else None
        if entry is not None and "process" in entry.params and node != CONTROLLER_NODE:
            if "process" in action and action["process"] != node:
                raise self.fail(line, "action.process", f"{show_name(action['process'])} on node {node!r}: a process logs its own "
                                "actions (leave it out, or give the node)")
            action["process"] = node
        elif entry is not None and "process" in entry.params and "process" not in action:
            raise self.fail(line, "action.process", f"{tag} is a process's step: on the controller node it names its process "
                            "(or the process logs it on its own node)")
        missing = tuple(n for n in (entry.params if entry is not None else ()) if n not in action)
        filled = {**action, **{n: _placeholder(entry.params[n]) for n in missing}} if entry is not None else action
        problem = action_problem(filled)
        if problem is not None:
            raise self.fail(line, *problem)
        assert entry is not None
        if entry.run is None:
            raise self.fail(line, "action.tag", f"{tag} is not a step of the model (the trace-only and Init tags are not logged)")
        if design not in entry.designs:
            raise self.fail(line, "action.tag", f"{tag} is not an action of the {design} design (#meta.options.design)")
        for name in SET_PARAMS:
            if name in action:
                raise self.fail(line, f"action.{name}", "validate checks one broker set, the spec's: leave it out")
        for name in missing:
            if entry.params[name] not in ENUMERABLE:
                raise self.fail(line, f"action.{name}", f"{tag} needs {name!r}: a {entry.params[name].domain} cannot be left out")
        assert self.processes is not None
        for name in process_params(tag):
            if name in action and action[name] not in self.processes:
                raise self.fail(line, f"action.{name}", f"{show_name(action[name])} is not a declared process; declared: "
                                f"{', '.join(sorted(self.processes))}")
        return action, missing

    def observe(self, raw: Any, line: int, node: str) -> dict[str, Any]:
        if not isinstance(raw, dict) or any(k.startswith("#") for k in raw):
            raise self.fail(line, "observe", "must be an object of model variables")
        if not raw:
            raise self.fail(line, "observe", "observes nothing: leave it out, or name a variable")
        known = CONTROLLER_VARS if node == CONTROLLER_NODE else PROCESS_OBSERVED
        out = {}
        for name, value in raw.items():
            if name not in known:
                what = "the controller node" if node == CONTROLLER_NODE else "a process node"
                reason = "not a model variable" if name not in VARIABLES else f"{what} does not observe it"
                raise self.fail(line, f"observe.{name}", f"{reason}; {what} observes {', '.join(known)}")
            out[name] = self.value(value, line, f"observe.{name}")
        return out

    def event(self, raw: dict[str, Any], line: int, design: str) -> Event:
        for key in raw:
            if key not in EVENT_KEYS:
                raise self.fail(line, key, f"not a field of an event; known: {', '.join(EVENT_KEYS)} (or 'meta' on a first line)")
        assert self.processes is not None
        node = raw.get("node")
        if not isinstance(node, str) or (node not in self.processes and node != CONTROLLER_NODE):
            raise self.fail(line, "node", f"a process of #meta.processes ({', '.join(sorted(self.processes))}) or "
                            f"{CONTROLLER_NODE!r}; got {show_name(node)}")
        times = {}
        for key in ("ts", "clock"):
            value = raw.get(key)
            if value is not None and (type(value) is not int or not 0 <= value <= 2**53 - 1):
                raise self.fail(line, key, f"an integer from 0 to 2^53-1; got {show_name(getattr(value, 'text', value))}")
            times[key] = value
        if times["ts"] is None and times["clock"] is None:
            raise self.fail(line, "ts", "an event has a timestamp 'ts' (milliseconds), a logical 'clock', or both")
        if "action" not in raw and "observe" not in raw:
            raise self.fail(line, "action", "an event has an action, an observation ('observe'), or both")
        action, missing = self.action(raw["action"], line, node, design) if "action" in raw else (None, ())
        observe = self.observe(raw["observe"], line, node) if "observe" in raw else {}
        return Event(self.path, line, node, times["ts"], times["clock"], action, missing, observe)

    def lines(self) -> list[tuple[int, Any]]:
        try:
            text = read_text(self.path)
        except Problem as e:
            raise self.fail(None, e.where, e.message) from None
        out = []
        for n, line in enumerate(text.split("\n"), 1):
            if not line.strip():
                continue
            try:
                raw = parse_json(line)
            except Problem as e:
                raise self.fail(n, "<json>", e.message) from None
            if not isinstance(raw, dict):
                raise self.fail(n, "<line>", "a line is one JSON object: a header {\"meta\": ...} or an event")
            duplicate = getattr(raw, "duplicate", None)
            if duplicate is not None:
                raise self.fail(n, str(duplicate), "the field appears twice on the line")
            out.append((n, raw))
        return out


def takes(node: str, tag: str) -> bool:
    """Whether ``node`` takes steps of ``tag``: a process those with a ``process`` parameter, the controller the others."""
    return ("process" in ACTIONS[tag].params) != (node == CONTROLLER_NODE)


def read_log(path: str | Path, config: Config | None = None) -> Log:
    """Read the log at ``path`` (a folder or a file) strictly. Its configuration is its header's; ``config`` (from
    ``--config``) is for a log without one. Several headers must be equal; a node's events are all in one file, their
    ``ts`` and ``clock`` non-decreasing."""
    files = log_files(path)
    readers = [_Reader(f, None) for f in files]
    parsed = [r.lines() for r in readers]
    meta: dict[str, Any] | None = None
    first: tuple[str, int] | None = None
    for reader, lines in zip(readers, parsed, strict=True):
        for n, raw in lines:
            if HEADER not in raw:
                continue
            header = reader.header(raw, n)  # only a first line, only 'meta'
            if meta is not None and header != meta:
                assert first is not None
                raise reader.fail(n, HEADER, f"differs from the header of {first[0]}: several headers of one log are equal")
            meta, first = header, (reader.path, n)
    if meta is not None:
        assert first is not None
        found, field, problem = config_from_meta(meta)
        if found is None:
            raise LogError(first[0], first[1], field.replace("#meta", HEADER), problem)
        if CONTROLLER_NODE in found.processes:
            raise LogError(first[0], first[1], "meta.processes", f"{CONTROLLER_NODE!r} names the controller's node, not a process")
        config = found
    elif config is None:
        raise LogError(str(path), None, HEADER, "the log has no header line ({\"meta\": {...}}): name its configuration "
                       "with --config NAME")
    else:
        meta = config.to_meta()
    steps = meta.get(CLOCK_COUNTS_STEPS, False)
    nodes: dict[str, list[Event]] = {}
    home: dict[str, str] = {}
    count = 0
    for reader, lines in zip(readers, parsed, strict=True):
        reader.processes = config.processes
        for n, raw in lines:
            if HEADER in raw:
                continue
            event = reader.event(raw, n, config.options.design)
            if steps and (event.clock is None or event.clock < 1):
                raise reader.fail(n, "clock", f"the header claims {CLOCK_COUNTS_STEPS}: every event has the clock of its step, "
                                  f"1 or more; got {'none' if event.clock is None else event.clock}")
            if home.setdefault(event.node, reader.path) != reader.path:
                raise reader.fail(n, "node", f"{event.node!r} logs in {home[event.node]}: one node's events are all in one file")
            before = nodes.get(event.node, [])
            for key in ("ts", "clock"):
                last = next((getattr(e, key) for e in reversed(before) if getattr(e, key) is not None), None)
                if getattr(event, key) is not None and last is not None and getattr(event, key) < last:
                    raise reader.fail(n, key, f"{getattr(event, key)} < {last}: a node's {key} never decreases")
            nodes.setdefault(event.node, []).append(event)
            count += 1
            if count > MAX_EVENTS:
                raise reader.fail(n, "<line>", f"more than {MAX_EVENTS} events: a log has at most that")
    if not count:
        raise LogError(str(path), None, "<log>", "the log has no event")
    complete_of, changes = meta.get("completeOf", {}), meta.get(CHANGES_LOGGED, {})
    for key, claims in (("completeOf", complete_of), (CHANGES_LOGGED, changes)):
        stranger = next((n for n in claims if n != CONTROLLER_NODE and n not in config.processes), None)
        if stranger is not None:
            where = first or (str(path), None)
            raise LogError(where[0], where[1], f"meta.{key}.{stranger}", f"not a node of this log: a process of "
                           f"meta.processes ({', '.join(config.processes)}) or {CONTROLLER_NODE!r}")
    return Log(str(path), log_name(path), config, meta, frozenset(meta.get("complete", [])),
               {node: tuple(events) for node, events in nodes.items()},
               {node: frozenset(tags) for node, tags in complete_of.items()}, steps,
               {node: frozenset(names) for node, names in changes.items()})
