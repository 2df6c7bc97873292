"""``autoswitch explain TRACE --html OUT``: one trace as a self-contained page a person steps through in a browser.

Every trace kind: a walk from Init (controller mode, the designs RIP-44 replaced, a lasso, an at-end liveness walk)
is replayed on the reference model (:func:`explain.replay_walk`), so each state shows the model's full state, not only
what the trace carries; a ``truncation-step`` trace runs its Handshake on the reference's truncation
(:func:`replay.truncation_post`); the component kinds (``epoch-file``, ``handshake``, ``retention``) on the
reference's own component (conformance/trace/components.py). The page's data is one JSON document
(``<script type="application/json" id="trace-data">``), one entry per state; the DOM it renders is the contract of
issue 14 (lanes ``.lane[data-process]``, ``#state-index``, ``body.dataset.violations``, ``.violated``, ``.loop-marker``).

A state is violating where a property of MODEL.md §6 fails on the model (reference/invariants.py, state invariants
and action properties, and those of each other broker set), where a truncation-step's TruncateWithinCommonPrefix
fails, and, for a liveness counterexample, where its property's ``ok`` is false inside the loop (or at the end of an
at-end walk). :func:`marks` names what each failing property concerns: the lost messages, the diverging offsets,
the fields.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterator, Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from autoswitch.conformance.paths import file_under
from autoswitch.conformance.simulation.store import write_atomic
from autoswitch.conformance.trace.components import (
    EPOCH_FILE,
    EPOCH_FILE_OPS,
    HANDSHAKE,
    HANDSHAKE_INPUTS,
    RETENTION,
    ReferenceCache,
    ReferenceRetention,
    _answer,
    _validate_epoch_file,
    _validate_handshake,
    _validate_retention,
)
from autoswitch.conformance.trace.explain import _changes, replay_walk
from autoswitch.conformance.trace.itf import Trace, TraceError, load_trace
from autoswitch.conformance.trace.replay import (
    TRUNCATION_STEP,
    WITHIN_COMMON_PREFIX,
    AtEnd,
    Lasso,
    _check_meta,
    _common_prefix,
    _validate_truncation_step,
    handshake,
    show,
    truncation_post,
)
from autoswitch.reference import epoch_file
from autoswitch.reference.designs import master_processes
from autoswitch.reference.invariants import ACTION_PROPERTIES, CONTROLLER_VARS, DESIGN_VARS, STATE_INVARIANTS, violated_invariants
from autoswitch.reference.liveness import LIVENESS_BY_NAME
from autoswitch.reference.state import CONTROLLER, NO_ID

CONTROLLER_LANE = "controller"
# what a process lane shows apart from its role, registration, id, log, flushed prefix, confirmOffset and epoch file
LANE_FIELDS = ("addr", "localMasterEpoch", "localSyncStateSetEpoch", "localMasterId", "localSyncStateSet", "haState", "acks",
               "pendingAlter", "tempFile", "brokerRole", "term", "late", "metaFileContent", "tempFileContent", "brokerConfig")
CONTROLLER_FIELDS = CONTROLLER_VARS + ("masterHistory", "acked", "seen", "nextMsg", "clock", "partitions", "controllerLeader")
MAX_CELLS = 256  # a component lane draws its log's offsets as cells up to this LEO, else only the numbers
_BY_NAME = {p.name: p for p in (*STATE_INVARIANTS, *ACTION_PROPERTIES)}


# --- what a failing property concerns ----------------------------------------------------------------------------

def _lane_marks(marks: dict[str, dict[str, list]], lane: str) -> dict[str, list]:
    return marks.setdefault(lane, {"offsets": [], "missing": [], "fields": []})


def _add(marks: dict[str, dict[str, list]], lane: str, key: str, *values: Any) -> None:
    if not values:
        return
    got = _lane_marks(marks, lane)[key]
    got.extend(x for x in values if x not in got)


def _ids(log: list) -> set:
    return {msg for msg, _ in log}


def marks(names: list[str], v: Mapping[str, Any], before: Mapping[str, Any] | None = None,
          process: str | None = None) -> dict[str, dict[str, list]]:
    """Per lane (a process, or ``controller``) what the failing properties ``names`` concern in the state ``v``: the
    offsets of its log (``offsets``), the messages it should hold and lacks (``missing``), and its fields (variable
    names). NoAckedMessageLost and NoPhantomRead: the acked or seen messages a member or master lacks; LogMatching: the
    offsets where two logs differ; the other properties: the variables they read, on the lanes they fail on (a
    per-process liveness property: on ``process``'s)."""
    out: dict[str, dict[str, list]] = {}
    logs = v.get("log", {})
    for name in dict.fromkeys(names):
        if name == "NoAckedMessageLost":
            holders = {p for p, i in v["metaFile"].items() if i != NO_ID and i in v["syncStateSet"]} | set(master_processes(v))
            for p in sorted(holders):
                _add(out, p, "missing", *sorted(v["acked"] - _ids(logs[p]), key=repr))
            _add(out, CONTROLLER_LANE, "fields", "acked")
        elif name == "NoPhantomRead":
            for p in master_processes(v):
                _add(out, p, "missing", *sorted(v["seen"] - _ids(logs[p]), key=repr))
            _add(out, CONTROLLER_LANE, "fields", "seen")
        elif name in ("LogMatching", WITHIN_COMMON_PREFIX):
            procs = sorted(logs)
            for i, p in enumerate(procs):
                for q in procs[i + 1:]:
                    differ = [o for o in range(min(len(logs[p]), len(logs[q]))) if logs[p][o] != logs[q][o]]
                    _add(out, p, "offsets", *differ)
                    _add(out, q, "offsets", *differ)
        elif name == "EpochFileWellFormed":
            for p, log in logs.items():
                if not epoch_file.well_formed(tuple(map(tuple, v["epochFile"][p])), len(log)):
                    _add(out, p, "fields", "epochFile")
        elif name == "ConfirmOffsetBound":
            for p, c in v["confirmOffset"].items():
                if c > len(logs[p]):
                    _add(out, p, "fields", "confirmOffset")
        elif name == "UniqueBrokerIds":
            ids = [i for i in v["metaFile"].values() if i != NO_ID]
            for p, i in v["metaFile"].items():
                if ids.count(i) > 1:
                    _add(out, p, "fields", "metaFile")
        elif name == "BrokerIdStable" and before is not None:
            for p, i in before["metaFile"].items():
                if i != NO_ID and v["metaFile"][p] != i:
                    _add(out, p, "fields", "metaFile")
        elif name in LIVENESS_BY_NAME or name in _BY_NAME:
            reads = LIVENESS_BY_NAME[name].reads if name in LIVENESS_BY_NAME else _BY_NAME[name].reads
            _add(out, CONTROLLER_LANE, "fields", *(r for r in reads if r in CONTROLLER_FIELDS))
            for p in [process] if process is not None and name in LIVENESS_BY_NAME else sorted(v.get("role", {})):
                _add(out, p, "fields", *(r for r in reads if r not in CONTROLLER_FIELDS and r != "log"))
    return out


# --- JSON of the page ---------------------------------------------------------------------------------------------

def _plain(value: Any) -> Any:
    """A model value as JSON: sets sorted, tuples as lists, a dict with other keys than strings as [key, value] pairs."""
    if isinstance(value, frozenset | set):
        return [_plain(x) for x in sorted(value, key=repr)]
    if isinstance(value, tuple | list):
        return [_plain(x) for x in value]
    if isinstance(value, dict):
        if all(isinstance(k, str) for k in value):
            return {k: _plain(x) for k, x in value.items()}
        return [[_plain(k), _plain(x)] for k, x in sorted(value.items(), key=lambda kv: repr(kv[0]))]
    return value


def _call(action: Mapping[str, Any]) -> str:
    return f"{action['tag']}(" + ", ".join(f"{k}={show(x)}" for k, x in action.items() if k != "tag") + ")"


def _answer_text(outcome: Mapping[str, Any] | None) -> str:
    if not outcome:
        return ""
    rest = ", ".join(f"{k}={show(x)}" for k, x in outcome.items() if k != "code")
    return " ".join(x for x in (str(outcome.get("code", "")), rest) if x)


def _state(index: int, action: Mapping[str, Any], outcome: str, code: str | None, lanes: dict[str, Any], controller: dict[str, Any],
           broken: list[str], state_marks: dict[str, Any], changes: list[str], acked: list | None = None, seen: list | None = None,
           ) -> dict[str, Any]:
    return {"index": index, "action": _call(action), "tag": action["tag"], "outcome": outcome, "code": code, "lanes": lanes,
            "controller": controller, "broken": list(dict.fromkeys(broken)), "marks": state_marks, "changes": changes,
            "acked": acked or [], "seen": seen or []}


def _text(value: Any) -> str:
    """A value as a lane shows it: a string as it is, anything else as :func:`replay.show` prints it."""
    return value if isinstance(value, str) else show(value)


def _walk_lane(v: Mapping[str, Any], observed: Mapping[str, Any], p: str, design: str) -> dict[str, Any]:
    names = [n for n in LANE_FIELDS if design != CONTROLLER or n not in DESIGN_VARS]
    fields = {name: _text(v[name][p]) for name in names if name in v and isinstance(v[name], dict) and p in v[name]}
    fields.update({name: _text(observed[name][p]) for name in names
                   if name not in v and isinstance(observed.get(name), dict) and p in observed[name]})
    return {"role": v["role"][p], "regState": v["regState"][p], "metaFile": v["metaFile"][p], "log": _plain(v["log"][p]),
            "flushed": v["flushed"][p], "confirmOffset": v["confirmOffset"][p], "epochFile": _plain(v["epochFile"][p]),
            "fields": fields}


def _walk_controller(v: Mapping[str, Any], observed: Mapping[str, Any], sets: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    fields = {name: _text(v[name] if name in v else observed[name]) for name in CONTROLLER_FIELDS if name in v or name in observed}
    for broker, controller in sorted(sets.items()):
        fields[f"set {broker}"] = ", ".join(f"{k}={show(x)}" for k, x in controller.items())
    return {"fields": fields}


def _liveness(trace: Trace, expected: Any) -> tuple[Any, str | None, set[int]]:
    """The liveness property a lasso or an at-end walk violates, its process, and the states it may fail at."""
    n = len(trace.states)
    if isinstance(expected, Lasso):
        return expected.prop, expected.process, set(range(expected.loop, n))
    if isinstance(expected, AtEnd):
        return expected.prop, expected.process, {n - 1}
    return None, None, set()


def _walk(trace: Trace) -> dict[str, Any]:
    config, expected, steps = replay_walk(trace)
    prop, process, where = _liveness(trace, expected)
    states, before, shown = [], None, None
    for step in steps:
        v = step.variables
        broken = list(step.broken)
        if prop is not None and step.index in where and not prop.ok(v, process):
            broken.append(prop.name)
        outcome = (f"not enabled (DISABLED, as the trace says): {step.refused}" if step.refused is not None
                   else _answer_text(step.outcome))
        changes = [] if shown is None else list(_changes(shown, step.observed))
        lanes = {p: _walk_lane(v, step.observed, p, config.options.design) for p in sorted(config.processes)}
        states.append(_state(step.index, step.action, outcome, None if step.outcome is None else step.outcome.get("code"), lanes,
                             _walk_controller(v, step.observed, step.sets), broken, marks(broken, v, before, process), changes,
                             _plain(v["acked"]), _plain(v["seen"])))
        before, shown = v, step.observed
    expect = trace.meta.get("expect")
    return {"kind": "walk", "design": config.options.design, "policy": config.options.policy,
            "options": config.to_meta()["options"], "processes": sorted(config.processes), "states": states,
            "expect": None if expect is None else show(expect),
            "liveness": None if prop is None else prop.name + (f" of {process}" if process else "")}


def _cells(leo: int, pairs: list) -> list:
    """A log known only by its LEO and epoch file (the component kinds): one [offset, epoch] cell per offset."""
    if leo > MAX_CELLS:
        return []
    return [[None, next((e for e, start in reversed(pairs) if start <= o), 0)] for o in range(leo)]


def _truncation_step(trace: Trace) -> dict[str, Any]:
    options, master, slave = _validate_truncation_step(trace)
    pre = trace.states[0]
    outcome, post = truncation_post("reference", options, pre, master, slave)
    shared = _common_prefix(pre["log"][master], pre["log"][slave])
    states = []
    for i, v in enumerate((pre, post)):
        lanes = {p: {"role": pre["role"][p], "regState": "-", "metaFile": "-", "log": _plain(v["log"][p]), "flushed": None,
                     "confirmOffset": v["confirmOffset"][p], "epochFile": _plain(v["epochFile"][p]),
                     "fields": {"commonPrefix": str(shared)}} for p in (master, slave)}
        broken = violated_invariants(v)
        if i == 1 and outcome["truncateOffset"] > shared:
            broken.append(WITHIN_COMMON_PREFIX)
        state_marks = marks(broken, v)
        if WITHIN_COMMON_PREFIX in broken:  # the slave keeps the offsets past the common prefix
            state_marks = {slave: {"offsets": list(range(shared, len(v["log"][slave]))), "missing": [], "fields": ["log"]}}
        changes = [] if i == 0 else [f"{slave}: truncated to {outcome['truncateOffset']}; the logs share {shared}"]
        states.append(_state(i, trace.states[i]["action"], _answer_text(outcome) if i else "", outcome["code"] if i else None,
                             lanes, {"fields": {}}, broken, state_marks, changes))
    return {"kind": TRUNCATION_STEP, "policy": options.policy, "options": {}, "processes": [master, slave], "states": states,
            "expect": show(trace.meta["expect"]), "liveness": None, "noController": True}


def _handshake(trace: Trace) -> dict[str, Any]:
    policy = _validate_handshake(trace)
    pre = trace.states[0]
    outcome, post = handshake("reference", policy, {name: pre[name] for name in HANDSHAKE_INPUTS})
    sides = [{"master": (pre["masterEpochs"], pre["masterLeo"], None), "slave": (pre["slaveEpochs"], pre["slaveLeo"], pre["slaveConfirmOffset"])},
             {"master": (pre["masterEpochs"], pre["masterLeo"], None),
              "slave": (post["slaveEpochs"], post["slaveLeo"], post["slaveConfirmOffset"])}]
    states = []
    for i, side in enumerate(sides):
        lanes = {p: {"role": p.upper(), "regState": "-", "metaFile": "-", "log": _cells(leo, _plain(epochs)), "flushed": None,
                     "confirmOffset": confirm, "epochFile": _plain(epochs), "fields": {"leo": str(leo)}}
                 for p, (epochs, leo, confirm) in side.items()}
        states.append(_state(i, trace.states[i]["action"], _answer_text(outcome) if i else "", outcome["code"] if i else None,
                             lanes, {"fields": {}}, [], {}, []))
    return {"kind": HANDSHAKE, "policy": policy, "options": {}, "processes": ["master", "slave"], "states": states,
            "expect": None, "liveness": None, "noController": True}


def _entries(entries: list[Mapping[str, int]]) -> list:
    return [[e["epoch"], e["startOffset"], e["endOffset"]] for e in entries]


def _epoch_file(trace: Trace) -> dict[str, Any]:
    _validate_epoch_file(trace)
    cache = ReferenceCache()
    states = []
    for i, state in enumerate(trace.states):
        action = state["action"]
        answer = _answer(EPOCH_FILE_OPS[action["tag"]][1], cache.run(action["tag"], action)) if i else None
        view = cache.view()
        lane = {"role": "-", "regState": "-", "metaFile": "-", "log": None, "flushed": None, "confirmOffset": None,
                "epochFile": _entries(view["entries"]), "fields": {"file": " | ".join(view["file"]) or "(empty)"}}
        states.append(_state(i, action, _answer_text(answer) or ("done" if i else ""), None, {"cache": lane}, {"fields": {}}, [], {},
                             []))
    return {"kind": EPOCH_FILE, "policy": None, "options": {}, "processes": ["cache"], "states": states, "expect": None,
            "liveness": None, "noController": True}


def _retention(trace: Trace) -> dict[str, Any]:
    size = _validate_retention(trace)
    pre = trace.states[0]
    log = ReferenceRetention(pre["leo"], pre["epochs"], size)
    states = []
    for i, state in enumerate(trace.states):
        action, answer = state["action"], None
        if action["tag"] == "DeleteFilesBelow":
            log.delete(action["offset"])
        elif action["tag"] == "StartTransfer":
            code, start, entry = log.start(action["syncFromLastFile"])
            answer = {"code": code, "fromOffset": start, **({"entry": entry} if entry else {})}
        view = log.view()
        lane = {"role": "MASTER", "regState": "-", "metaFile": "-", "log": _cells(pre["leo"], _plain(pre["epochs"])), "flushed": None,
                "confirmOffset": None, "epochFile": _entries(view["entries"]), "minOffset": view["minOffset"],
                "fields": {"leo": str(pre["leo"]), "fileSize": str(size), "files": show(view["files"]), "minOffset": str(view["minOffset"])}}
        states.append(_state(i, action, _answer_text(answer) or ("done" if i else ""), None if answer is None else answer["code"],
                             {"master": lane}, {"fields": {}}, [], {}, []))
    return {"kind": RETENTION, "policy": None, "options": {}, "processes": ["master"], "states": states, "expect": None,
            "liveness": None, "noController": True}


KIND_BUILDERS = {TRUNCATION_STEP: _truncation_step, HANDSHAKE: _handshake, EPOCH_FILE: _epoch_file, RETENTION: _retention}


def explorer_data(path: str) -> dict[str, Any]:
    """The page's data: the trace's header, one entry per state (lanes, controller, action, outcome, broken properties
    and their marks), the violating states and the lasso's loop. A malformed trace raises ``TraceError``."""
    trace = load_trace(path)
    kind = trace.meta.get("kind")
    if kind is not None and kind not in KIND_BUILDERS:
        raise TraceError(path, None, "#meta.kind", f"unknown kind {show(kind)}; known: {', '.join(KIND_BUILDERS)} (or none: a walk)")
    _check_meta(trace, kind)
    data = KIND_BUILDERS[kind](trace) if kind is not None else _walk(trace)
    data.update(path=path, name=Path(path).name, description=str(trace.meta.get("description", "")), loop=trace.loop,
                violations=[s["index"] for s in data["states"] if s["broken"]])
    return data


# --- the page ---------------------------------------------------------------------------------------------------

def _asset(name: str) -> str:
    return (resources.files("autoswitch.conformance.html") / "assets" / name).read_text(encoding="utf-8")


def _script_json(data: Any) -> str:
    """JSON safe inside a <script> element: no ``</`` and no ``<!--`` closes or comments it."""
    return json.dumps(data, sort_keys=True).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def explorer_page(path: str) -> str:
    """The self-contained HTML page of the trace at ``path`` (issue 14's DOM contract; assets/explorer.js renders it)."""
    return _page(explorer_data(path))


def _page(data: dict[str, Any]) -> str:
    violations = ",".join(map(str, data["violations"]))
    loop = "" if data["loop"] is None else f' data-loop="{data["loop"]}"'
    title = html.escape(data["name"])
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} - autoswitch explorer</title>
<style>
{_asset("explorer.css")}
</style>
</head>
<body data-violations="{violations}"{loop}>
<header>
<h1>{title}</h1>
<p class="description">{html.escape(data["description"])}</p>
<p class="meta" id="meta"></p>
</header>
<nav class="controls">
<button id="home" type="button" title="first state (Home)">first</button>
<button id="prev" type="button" title="back (ArrowLeft or k)">&#x25C0; back</button>
<span class="position">state <span id="state-index" data-index="0">0</span> of <span id="state-last">{len(data["states"]) - 1}</span></span>
<button id="next" type="button" title="forward (ArrowRight or j)">forward &#x25B6;</button>
<button id="end" type="button" title="last state (End)">last</button>
<span class="keys">keys: &#x2190;/k back, &#x2192;/j forward, Home, End</span>
</nav>
<ol id="timeline"></ol>
<section id="action"></section>
<section id="verdict"></section>
<div id="lanes"></div>
<section id="changes"></section>
<p class="legend">A log's cells are its messages (offsets, for a component trace), coloured by epoch:
<span class="msg acked">m1</span> acked <span class="msg seen">m1</span> read by a consumer
<span class="msg unflushed">m1</span> not flushed <span class="msg confirmed">m1</span> below confirmOffset
<span class="msg missing">m1</span> lost: a message this process should hold; a red outline marks what the failing property
concerns.</p>
<script type="application/json" id="trace-data">{_script_json(data)}</script>
<script>
{_asset("explorer.js")}
</script>
</body>
</html>
"""


def _index_page(rows: list[tuple[str, str | None, dict[str, Any] | None, str | None]]) -> str:
    """``index.html`` of a directory of pages: each trace linked to its page, or its error."""
    items = []
    for trace, page, data, error in rows:
        if page is None:
            items.append(f'<li class="bad">{html.escape(trace)}: {html.escape(error or "")}</li>')
            continue
        assert data is not None
        broken = sorted({b for s in data["states"] for b in s["broken"]})
        verdict = f"fails: {', '.join(broken)}" if broken else "every property holds"
        items.append(f'<li><a href="{html.escape(page)}">{html.escape(trace)}</a> <span class="kind">{html.escape(data["kind"])}, '
                     f'{len(data["states"])} states</span> <span class="verdict">{html.escape(verdict)}</span>'
                     f'<div class="description">{html.escape(data["description"])}</div></li>')
    return f"""<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>autoswitch explorer: {len(rows)} traces</title>
<style>
{_asset("explorer.css")}
</style></head>
<body class="index" data-ready="1">
<h1>autoswitch explorer: {len(rows)} traces</h1>
<ul id="traces">
{chr(10).join(items)}
</ul>
</body>
</html>
"""


def write_page(trace: str, out: Path) -> dict[str, Any]:
    """Write the page of ``trace`` to the file ``out`` (atomically; its folder made); returns the page's data."""
    data = explorer_data(trace)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(out, _page(data).encode("utf-8"))
    return data


def page_name(trace: str, root: str) -> str:
    """The page of ``trace`` (found under the folder ``root``) in an output folder: its path under ``root``, ending
    ``.html`` for ``.itf.json`` or ``.json``."""
    rel = Path(trace).relative_to(root)
    name = rel.name.removesuffix(".json").removesuffix(".itf")
    return rel.with_name(name + ".html").as_posix()


def write_pages(traces: list[str], root: str, out: Path) -> Iterator[tuple[str, Path | None, Exception | None]]:
    """Write one page per trace (found under the folder ``root``) under ``out``, then ``index.html`` linking them; yields
    (trace, page, None) per page written and (trace, None, error) per trace that could not be: a malformed trace
    (``TraceError``, an ``InputError``) or an engine's failure, reported while the others are still written."""
    rows: list[tuple[str, str | None, dict[str, Any] | None, str | None]] = []
    for trace in traces:
        name = page_name(trace, root)
        try:
            page = file_under(out, name)
            data = write_page(trace, page)
        except Exception as e:  # noqa: BLE001 - one bad trace must not stop a folder
            rows.append((trace, None, None, str(e)))
            yield trace, None, e
            continue
        rows.append((trace, name, data, None))
        yield trace, page, None
    write_atomic(out / "index.html", _index_page(rows).encode("utf-8"))
