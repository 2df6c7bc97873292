"""A seeded mutator over the committed corpus, and the contract every mutated trace must keep on replay.

Input ``index`` of seed ``seed`` is one corpus trace (each trace kind as often) with one mutation, drawn
from ``random.Random(f"{seed}:{index}")``: the same seed and index give the same bytes. Each input is
replayed on both engines; the contract (:func:`judge`):

- no exception and no ERROR status (ERROR is an engine bug, never bad input);
- the engines agree: the same status at the same state, and for MALFORMED the same field;
- no wrong acceptance: a mutation marked ``must_refuse`` (it changes a checked value's type, writes an
  ITF value the format forbids, breaks a bound, or damages the JSON) never gives PASS.
"""

from __future__ import annotations

import copy
import functools
import json
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from attrs import frozen

from autoswitch.conformance.engines import KINDS
from autoswitch.conformance.engines.config import OPTION_CHOICES, OPTION_FIELDS, OPTION_RANGES, SET_OPTIONS
from autoswitch.conformance.trace.replay import ERROR, MALFORMED, META_KEYS, PASS, TEXT_META, Result, replay_file
from autoswitch.conformance.trace.validate import MAX_DEPTH, MAX_PROCESSES

RAW = "\u0000raw{}\u0000"  # a placeholder string replaced by raw JSON text after serialising (huge numbers, floats, repeated keys)


@frozen
class FuzzCase:
    """One mutated trace: ``text`` is the file's content."""

    index: int
    source: str
    mutation: str
    must_refuse: bool
    text: str


@frozen
class Outcome:
    case: FuzzCase
    results: tuple[Result, ...]
    broken: str | None  # what the input broke of the contract, None if nothing


class _Doc:
    """A trace document being mutated, with the raw JSON snippets to splice in."""

    def __init__(self, doc: dict[str, Any], rng: random.Random):
        self.doc, self.rng = doc, rng
        self.raw: dict[str, str] = {}

    def splice(self, text: str) -> str:
        key = RAW.format(len(self.raw))
        self.raw[key] = text
        return key

    def dumps(self) -> str:
        text = json.dumps(self.doc, indent=1)
        for key, raw in self.raw.items():
            text = text.replace(json.dumps(key), raw)
        return text

    def places(self, keep: Callable[[Any], bool] = lambda v: True) -> list[tuple[Any, Any, str]]:
        """Every (container, key, location) in the document whose value passes ``keep``, but the states' ``#meta``."""
        found: list[tuple[Any, Any, str]] = []

        def walk(node: Any, where: str) -> None:
            items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
            for k, v in items:
                here = f"{where}/{k}"
                if k == "#meta" and where.startswith("/states/"):
                    continue
                if keep(v):
                    found.append((node, k, here))
                walk(v, here)

        walk(self.doc, "")
        return found

    def pick(self, keep: Callable[[Any], bool] = lambda v: True) -> tuple[Any, Any, str] | None:
        places = self.places(keep)
        return self.rng.choice(places) if places else None


def _is_int(v: Any) -> bool:
    return (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, dict) and set(v) == {"#bigint"})


def _kind(v: Any) -> str:
    if isinstance(v, bool):
        return "bool"
    if _is_int(v):
        return "int"
    if isinstance(v, dict):
        return next((k for k in ("#set", "#tup", "#map") if k in v), "record")
    return type(v).__name__


_OTHER_TYPES: tuple[Any, ...] = ("x", "", 7, {"#bigint": "7"}, True, False, [], [1], {"#set": []}, {"#tup": [1, 2]},
                                 {"#map": []}, {"a": 1})
BIGINT_EDGES = (" 1 ", "+1", "01", "1.0", "-0", "", "1e3", "0x1", "١", "1_0", str(2**63), str(-(2**63) - 1), "9" * 4301)

# ---- mutations: each changes the document and says whether the result must be refused ----------------------


def _note(where: str) -> bool:
    """A place inside a note of ``#meta`` (a key no kind reads, e.g. ``source``): any value goes there."""
    parts = where.split("/")
    read = {"kind", *TEXT_META, *(k for keys in META_KEYS.values() for k in keys)}
    return len(parts) > 2 and parts[1] == "#meta" and parts[2] not in read


def replace_type(d: _Doc) -> bool:
    """A value replaced by one of another kind: refused, or a divergence, unless it is in a note."""
    place = d.pick()
    if place is None:
        return False
    node, key, where = place
    node[key] = copy.deepcopy(d.rng.choice([v for v in _OTHER_TYPES if _kind(v) != _kind(node[key])]))
    return not _note(where)


def bool_for_int(d: _Doc) -> bool:
    place = d.pick(_is_int)
    if place is None:
        return False
    node, key, where = place
    node[key] = d.rng.choice([True, False])
    return not _note(where)


def int_for_bool(d: _Doc) -> bool:
    place = d.pick(lambda v: isinstance(v, bool))
    if place is None:
        return False
    node, key, where = place
    node[key] = int(node[key]) if d.rng.random() < 0.5 else {"#bigint": str(int(node[key]))}
    return not _note(where)


def other_int(d: _Doc) -> bool:
    """An int replaced by another, within range: edges of the model's values (no oracle: only no crash, agreement)."""
    place = d.pick(_is_int)
    if place is None:
        return False
    node, key, _ = place
    node[key] = {"#bigint": str(d.rng.choice([-1, 0, 1, 2, 3, 100, 2**31, 2**62, -(2**63), 2**63 - 1]))}
    return False


def float_for_int(d: _Doc) -> bool:
    place = d.pick(_is_int)
    if place is None:
        return False
    node, key, _ = place
    value = int(node[key]["#bigint"]) if isinstance(node[key], dict) else node[key]
    node[key] = d.splice(d.rng.choice([f"{value}.0", f"{value}e0", "NaN", "Infinity", f"{value}.5"]))
    return True


def bigint_edge(d: _Doc) -> bool:
    place = d.pick(_is_int)
    if place is None:
        return False
    node, key, where = place
    node[key] = {"#bigint": d.rng.choice(BIGINT_EDGES)}
    return not _note(where)


def huge_number(d: _Doc) -> bool:
    place = d.pick(_is_int)
    if place is None:
        return False
    node, key, where = place
    node[key] = d.splice(d.rng.choice(["9" * 4301, str(2**53), str(-(2**63)), "1" + "0" * 30]))
    return not _note(where)


def deep_nesting(d: _Doc) -> bool:
    place = d.pick()
    if place is None:
        return False
    node, key, _ = place
    depth = d.rng.choice([MAX_DEPTH + 1, 5_000, 100_000])
    node[key] = d.splice("[" * depth + "]" * depth)
    return True


def delete_field(d: _Doc) -> bool:
    place = d.pick(lambda v: isinstance(v, dict) and len(v) > 0 and not set(v) & {"#bigint", "#tup", "#set", "#map"})
    if place is None:
        return False
    node, key, _ = place
    del node[key][d.rng.choice(sorted(node[key]))]
    return False


def repeat_field(d: _Doc) -> bool:
    """A key written twice in one object (json keeps the last: the format has no such thing)."""
    place = d.pick(lambda v: isinstance(v, dict) and len(v) > 0)
    if place is None:
        return False
    node, key, _ = place
    name = d.rng.choice(sorted(node[key]))
    node[key][d.splice(json.dumps(name) + ": " + json.dumps(node[key][name]) + ', "_"')] = 0  # "name": value, "_": 0
    return True


def rename_field(d: _Doc) -> bool:
    place = d.pick(lambda v: isinstance(v, dict) and len(v) > 0)
    if place is None:
        return False
    node, key, _ = place
    name = d.rng.choice(sorted(node[key]))
    node[key] = {(k + d.rng.choice(["x", "_", "#", " "]) if k == name else k): v for k, v in node[key].items()}
    return False


def states_shuffle(d: _Doc) -> bool:
    states = d.doc.get("states")
    if not isinstance(states, list) or not states:
        return False
    i = d.rng.randrange(len(states))
    choice = d.rng.choice(["delete", "repeat", "swap"])
    if choice == "delete":
        del states[i]
    elif choice == "repeat":
        states.insert(i, copy.deepcopy(states[i]))
    else:
        j = d.rng.randrange(len(states))
        states[i], states[j] = states[j], states[i]
    return False


def unknown_process(d: _Doc) -> bool:
    place = d.pick(lambda v: isinstance(v, dict) and isinstance(v.get("process"), str))
    if place is None:
        return False
    place[0][place[1]]["process"] = d.rng.choice(["nobody", "p9", "P1"])
    return False


UNSAFE_NAMES = ("..", ".", "a/b", "..\\x", "", "x" * 33, "p\x1b[31m", "p\r", "[bold]p[/bold]", "p q", "é")


def unsafe_process(d: _Doc) -> bool:
    meta = d.doc.get("#meta")
    if not isinstance(meta, dict):
        return False
    processes: dict[str, Any] = meta["processes"] if isinstance(meta.get("processes"), dict) else {}
    processes[d.rng.choice(UNSAFE_NAMES)] = "addr"
    meta["processes"] = processes
    return True


def many_processes(d: _Doc) -> bool:
    meta = d.doc.get("#meta")
    if not isinstance(meta, dict):
        return False
    meta["processes"] = {f"p{i}": f"10.0.0.{i}" for i in range(d.rng.choice([MAX_PROCESSES + 1, 3_000]))}
    return True


def option_out_of_range(d: _Doc) -> bool:
    meta = d.doc.get("#meta")
    if not isinstance(meta, dict):
        return False
    options: dict[str, Any] = meta["options"] if isinstance(meta.get("options"), dict) else {}
    name = d.rng.choice(sorted(OPTION_FIELDS))
    if name in SET_OPTIONS:
        value: Any = d.rng.choice([["nobody"], "p1", [1], ["p1", "p1"]])
    elif name in OPTION_RANGES:
        low, high = OPTION_RANGES[name]
        value = d.rng.choice([low - 1, high + 1, -5, True, "1", 1.5])
    elif name in OPTION_CHOICES:
        value = d.rng.choice(["", "Controller", "raft", 1, None, [OPTION_CHOICES[name][0]]])
    else:
        value = d.rng.choice([1, 0, "true", None])
    options[name] = d.splice("1.5") if value == 1.5 else value
    meta["options"] = options
    return True


def bad_expect(d: _Doc) -> bool:
    meta = d.doc.get("#meta")
    if not isinstance(meta, dict):
        return False
    expect: dict[str, Any] = meta["expect"] if isinstance(meta.get("expect"), dict) else {"violation": "TypeOK", "state": 0}
    choice = d.rng.choice(["no violation", "unknown key", "state out of range", "state bool", "unknown property"])
    if choice == "no violation":
        expect.pop("violation", None)
    elif choice == "unknown key":
        expect["violatoin"] = "TypeOK"
    elif choice == "state out of range":
        expect["state"] = d.rng.choice([-1, 10_000])
    elif choice == "state bool":
        expect["state"] = True
    else:
        expect["violation"] = "NoSuchProperty"
    meta["expect"] = expect
    return True


def control_characters(d: _Doc) -> bool:
    place = d.pick(lambda v: isinstance(v, str))
    if place is None:
        return False
    node, key, _ = place
    node[key] = node[key] + d.rng.choice(["\x1b[2J", "\r", "\x07", "\x9b31m", "[bold red]", "\u202e"])
    return False


def _bad_network_value(d: _Doc, names: list[str]) -> tuple[str, Any]:
    """A value of ``partitions`` or ``late`` (MODEL.md §9) that validation must refuse."""
    p = d.rng.choice(names)
    beat = {"tag": "BrokerHeartbeat", "brokerId": 1, "epoch": 0, "maxOffset": 0, "priority": 0}
    bad = d.rng.choice([
        ("partitions", {"#set": [{"#set": [p]}]}), ("partitions", {"#set": [{"#set": [p, "nobody"]}]}),
        ("partitions", {"#set": [p]}), ("partitions", [[p, p]]),
        ("late", {"#map": [["nobody", beat]]}), ("late", {"#map": [[p, {"tag": "GetReplicaInfo"}]]}),
        ("late", {"#map": [[p, {k: v for k, v in beat.items() if k != "epoch"}]]}),
        ("late", {"#map": [[p, {**beat, "brokerName": "broker-a"}]]}), ("late", {"#map": [[p, {**beat, "brokerId": "x"}]]}),
        ("late", {"#map": [[p, {"tag": "SendHeartbeat", "process": p}]]}),
    ])
    return bad[0], copy.deepcopy(bad[1])


def bad_fault_value(d: _Doc) -> bool:
    """A fault's parameter (``peer``, ``request``) or a network variable (``partitions``, ``late``) given a value the
    vocabulary refuses: an undeclared process, a request SendLate never computes, a link that is not two processes."""
    states = d.doc.get("states")
    if not isinstance(states, list) or not states or not all(isinstance(s, dict) for s in states):
        return False
    actions = [s["action"] for s in states if isinstance(s.get("action"), dict) and {"peer", "request"} & set(s["action"])]
    if actions and d.rng.random() < 0.5:
        action = d.rng.choice(actions)
        if "peer" in action:
            action["peer"] = "nobody"
        else:
            action["request"] = d.rng.choice(["GetReplicaInfo", "SendHeartbeat", ""])
        return True
    meta = d.doc.get("#meta")
    processes = meta.get("processes") if isinstance(meta, dict) else None
    name, value = _bad_network_value(d, sorted(processes) if isinstance(processes, dict) and processes else ["p1"])
    d.rng.choice(states)[name] = value
    if isinstance(d.doc.get("vars"), list) and name not in d.doc["vars"]:
        d.doc["vars"].append(name)
    return True


MUTATIONS: dict[str, Callable[[_Doc], bool]] = {f.__name__: f for f in (
    replace_type, bool_for_int, int_for_bool, other_int, float_for_int, bigint_edge, huge_number, deep_nesting, delete_field,
    repeat_field, rename_field, states_shuffle, unknown_process, unsafe_process, many_processes, option_out_of_range,
    bad_expect, control_characters, bad_fault_value)}
TEXT_MUTATIONS = ("truncate_text",)


@functools.lru_cache(maxsize=4)
def by_kind(corpus: tuple[Path, ...]) -> dict[str, list[Path]]:
    """The corpus's traces by ``#meta.kind`` ("walk" for none), so that each kind is drawn as often."""
    kinds: dict[str, list[Path]] = {}
    for path in corpus:
        try:
            kind = str(json.loads(path.read_text()).get("#meta", {}).get("kind", "walk"))
        except (ValueError, AttributeError):
            kind = "unreadable"
        kinds.setdefault(kind, []).append(path)
    return {k: kinds[k] for k in sorted(kinds)}


MAX_DRAWS = 100  # a draw whose mutation finds no place in its trace (no process field, no bool) is drawn again


def make_case(corpus: list[Path], seed: int, index: int) -> FuzzCase:
    """Input ``index`` of ``seed``: a trace kind, a trace of it and one mutation, drawn from their own generator;
    drawn again while the mutation leaves the trace as it was, so that every input is a changed trace."""
    rng = random.Random(f"{seed}:{index}")
    kinds = by_kind(tuple(corpus))
    for _ in range(MAX_DRAWS):
        traces = kinds[rng.choice(list(kinds))]
        source = traces[rng.randrange(len(traces))]
        text = source.read_text()
        mutation = rng.choice([*MUTATIONS, *TEXT_MUTATIONS])
        if mutation == "truncate_text":
            return FuzzCase(index, str(source), mutation, True, text[: rng.randrange(len(text.rstrip()) - 1)])
        doc = _Doc(json.loads(text), rng)
        must_refuse = MUTATIONS[mutation](doc)
        mutated = doc.dumps()
        if mutated != json.dumps(json.loads(text), indent=1):
            return FuzzCase(index, str(source), mutation, must_refuse, mutated)
    raise RuntimeError(f"fuzz: no mutation changed a trace in {MAX_DRAWS} draws (seed {seed}, input {index})")


def judge(case: FuzzCase, results: tuple[Result, ...]) -> str | None:
    """What ``results`` (one per engine) break of the contract (the module's docstring), or None."""
    for r in results:
        if r.status == ERROR:
            return f"{r.engine} gave ERROR: {r.message}"
    first = results[0]
    for r in results[1:]:
        if (r.status, r.state) != (first.status, first.state) or (r.status == MALFORMED and r.field != first.field):
            return (f"the engines disagree: {first.engine} {first.status} at state {first.state} field {first.field!r}, "
                    f"{r.engine} {r.status} at state {r.state} field {r.field!r}")
    if case.must_refuse and first.status == PASS:
        return f"{case.mutation} must be refused, but the trace passes"
    return None


def run_case(case: FuzzCase, folder: Path) -> Outcome:
    """Replay ``case`` on every engine from a file in ``folder``; an exception is a broken contract too."""
    path = folder / f"input-{case.index}.itf.json"
    path.write_text(case.text)
    try:
        results = tuple(replay_file(str(path), engine) for engine in KINDS)
    except Exception as e:  # noqa: BLE001 - the contract says replay_file never raises: report it
        return Outcome(case, (), f"replay raised {type(e).__name__}: {e}")
    finally:
        path.unlink()
    return Outcome(case, results, judge(case, results))


def fuzz(corpus: list[Path], seed: int, indices: range | list[int], folder: Path) -> Iterator[Outcome]:
    """The outcome of each input of ``indices``, in order."""
    for index in indices:
        yield run_case(make_case(corpus, seed, index), folder)
