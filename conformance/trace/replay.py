"""Replay a trace against an engine: run each state's ``action``, compare the ``outcome`` fields and
every variable the state carries, check the invariants of MODEL.md §6 on the engine's full state, and
report the first divergence (the model disagrees with the trace) apart from invariant violations (the
state is one the properties forbid). A trace may expect a violation in ``#meta.expect``:
``{"violation": "<invariant>", "state": <index>}`` - then the replay passes only if exactly that happens.
A state whose outcome is exactly ``{"code": "DISABLED"}`` says the model must not allow its action: it
passes only if the engine raises NotEnabled, and its variables are then those of the state before.

A lasso (a liveness counterexample: ITF's top-level ``loop``, conformance/check/liveness.py) expects
``{"liveness": NAME, "process": P, "loop": i}`` (``process`` for a per-process property only) and gives the domains of
Next in ``#meta.next``: its steps replay as a walk's, then :func:`check_lasso` checks that the last state closes the
loop, that the property's ``ok`` is false in every state of the loop and that the loop is weakly fair.

A trace with ``#meta.kind = "truncation-step"`` is not a walk from Init but one step from a given
pre-state (z3's truncation counterexamples, traces/z3), run by each engine's own truncation: see
:func:`replay_truncation_step`. The component kinds (``epoch-file``, ``handshake``, ``retention``) are replayed by ``components.py``.

Everything a trace gives is checked before an engine runs (a bad field is MALFORMED, naming the state
and the field, the same on both engines): the ITF values (``itf.load_trace``, ``validate.py``), ``#meta``
(its processes, options, expectation; a key of another kind is refused, not ignored), each action
against the action table, and each kind's own fields. A walk's variables are only compared with the
engine's, bools apart from ints (``vocabulary.same``): a value of the wrong type is a DIVERGENCE there.
ERROR is left for an engine that raises on valid input: a bug in it.

A walk may use the trace-only kinds of spec/README.md ("Trace kinds": ``#meta.brokerSets``, controller
leadership, a null brokerId, the identity files' contents): states are compared with the engine's
``observed()`` view; the invariants are checked on its ``variables()`` (the default set with the
processes) and the controller properties on each other set (:func:`broken_in_other_sets`).
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

import attrs
from attrs import frozen

from autoswitch.conformance.engines import make_engine
from autoswitch.conformance.engines.config import (
    Config,
    broker_sets_problem,
    config_from_meta,
    options_from_meta,
    processes_problem,
    show_name,
)
from autoswitch.conformance.errors import EXIT_INPUT, EXIT_INTERNAL, EXIT_OK, EXIT_VERDICT, NotAsked, batch_exit
from autoswitch.conformance.trace.components import KINDS, handshake
from autoswitch.conformance.trace.itf import Trace, TraceError, load_trace
from autoswitch.conformance.trace.result import (
    ABSENT,
    DIVERGENCE,
    ERROR,
    MALFORMED,
    MISSING_VIOLATION,
    NOT_ASKED,
    PASS,
    VIOLATION,
    Result,
    show,
    show_field,
)
from autoswitch.conformance.trace.vocabulary import (
    DISABLED,
    TRACE_VARS,
    action_problem,
    is_nat,
    is_pairs,
    network_problem,
    process_params,
    same,
    strict,
)
from autoswitch.reference import Options
from autoswitch.reference.actions import ACTIONS, SWITCHES
from autoswitch.reference.cluster import DEFAULT_BROKER, DEFAULT_CLUSTER
from autoswitch.reference.invariants import (
    ACTION_PROPERTIES,
    CONTROLLER_VARS,
    NETWORK_VARS,
    STATE_INVARIANTS,
    SYSTEM_VARS,
    broken_properties,
    violated_invariants,
)
from autoswitch.reference.liveness import LIVENESS_BY_NAME, NEW_FAULTS, Liveness, counts, fair_row
from autoswitch.reference.precondition import NotEnabled
from autoswitch.reference.state import CONTROLLER
from autoswitch.reference.variables import variables as reference_variables

INIT_OUTCOME = {"code": "OK"}  # state 0's outcome, when a trace writes one


_SET_INVARIANTS = [inv for inv in STATE_INVARIANTS if set(inv.reads) <= set(CONTROLLER_VARS)]
_SET_PROPERTIES = [prop for prop in ACTION_PROPERTIES if set(prop.reads) <= set(CONTROLLER_VARS)]


def broken_in_other_sets(before: Mapping[str, Mapping[str, Any]] | None, after: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The properties that read only controller variables, on each broker set but the default one
    (their processes are not modelled, so the process and data properties have nothing to read)."""
    broken = []
    for name, view in sorted(after.items()):
        broken += [inv.name for inv in _SET_INVARIANTS if not inv.holds(view)]
        if before is not None:
            broken += [prop.name for prop in _SET_PROPERTIES if not prop.holds(before[name], view)]
    return broken


PROPERTIES = tuple(p.name for p in (*STATE_INVARIANTS, *ACTION_PROPERTIES))
EXPECT_KEYS = ("violation", "state")
TOLERATED = "tolerated"  # #meta.expect's optional list of properties the trace may break before its own


def _tolerated(trace: Trace) -> frozenset[str]:
    """``#meta.expect.tolerated``: the properties a counterexample of one property checked alone (``autoswitch check CFG
    --invariant NAME``) breaks on its way, which the replay looks past to find the expected violation or lasso."""
    expect = trace.meta.get("expect")
    if not isinstance(expect, dict) or TOLERATED not in expect:
        return frozenset()
    names = expect[TOLERATED]
    if not isinstance(names, list) or not all(isinstance(n, str) and n in PROPERTIES for n in names):
        raise TraceError(trace.path, None, "#meta.expect.tolerated", f"a list of properties ({', '.join(PROPERTIES)}); "
                         f"got {show_name(names)}")
    return frozenset(names)


def _expected_violation(trace: Trace) -> tuple[str, int] | None:
    """``#meta.expect`` of a walk: exactly ``violation`` (a property of MODEL.md §6) and ``state`` (an index of the trace)
    (an at-end liveness expectation may carry them too: :func:`validate_at_end`)."""
    if "expect" not in trace.meta:
        return None
    expect = trace.meta["expect"]
    if _lasso_expected(trace):
        if not (isinstance(expect, dict) and expect.get("atEnd") is True and "violation" in expect):
            return None
        expect = {k: expect[k] for k in EXPECT_KEYS if k in expect}
    if not isinstance(expect, dict) or set(expect) - {TOLERATED} != set(EXPECT_KEYS):
        got = sorted(map(show_name, expect)) if isinstance(expect, dict) else show_name(expect)
        raise TraceError(trace.path, None, "#meta.expect", f"has exactly 'violation' (a property) and 'state' (an index); got {got}")
    name, at = expect["violation"], expect["state"]
    if not isinstance(name, str) or name not in PROPERTIES:
        raise TraceError(trace.path, None, "#meta.expect.violation", f"not a property: {show_name(name)}; known: {', '.join(PROPERTIES)}")
    if type(at) is not int or not 0 <= at < len(trace.states):
        raise TraceError(trace.path, None, "#meta.expect.state", f"an index of the trace's states, 0..{len(trace.states) - 1}; "
                         f"got {show_name(at)}")
    return name, at


_KNOWN_VARS = SYSTEM_VARS + tuple(TRACE_VARS)


def _trace_var_problem(name: str, value: Any) -> str | None:
    if name == "controllerLeader":
        return None if isinstance(value, bool) else f"must be a bool, got {show(value)}"
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        return f"must map process names to strings, got {show(value)}"
    return None


TEXT_META = ("format", "format-description", "description", "generator", "scenario")  # strings; other #meta keys are notes
# the #meta keys each kind reads (None: a walk); another kind's key is refused rather than ignored
META_KEYS: dict[str | None, tuple[str, ...]] = {None: ("processes", "policy", "options", "expect", "brokerSets", "next"),
                                                 "truncation-step": ("policy", "options", "expect"), "handshake": ("policy",),
                                                 "epoch-file": (), "retention": ("fileSize",)}


def _check_meta(trace: Trace, kind: str | None) -> None:
    """The free text of ``#meta`` is text, and no key another kind reads is given (it would be ignored)."""
    for name in TEXT_META:
        if name in trace.meta and not isinstance(trace.meta[name], str):
            raise TraceError(trace.path, None, f"#meta.{name}", f"must be a string, got {show_name(trace.meta[name])}")
    read = {k for keys in META_KEYS.values() for k in keys}
    extra = sorted(read & set(trace.meta) - set(META_KEYS[kind]))
    if extra:
        raise TraceError(trace.path, None, f"#meta.{extra[0]}", f"a {kind or 'walk'} trace does not read it; it reads "
                         f"{', '.join(META_KEYS[kind]) or 'none of ' + ', '.join(sorted(read))}")


def _broker_sets(trace: Trace) -> Mapping[str, str] | None:
    problem = broker_sets_problem(trace.meta)
    if problem:
        raise TraceError(trace.path, None, "#meta.brokerSets", problem)
    return trace.meta.get("brokerSets")


def _validate_sets(trace: Trace, i: int, state: Mapping[str, Any], sets: Mapping[str, str] | None) -> None:
    """A controller-level action names a declared set under its cluster; with ``#meta.brokerSets`` a
    controller variable is a function of exactly the declared brokerNames."""
    action = state["action"]
    if "process" not in action and ("brokerName" in action or "clusterName" in action):
        broker = action.get("brokerName", DEFAULT_BROKER)
        declared = sets or {DEFAULT_BROKER: DEFAULT_CLUSTER}
        if broker not in declared:
            raise TraceError(trace.path, i, "action.brokerName", f"{broker!r} is not a declared broker set; "
                             f"declared: {', '.join(sorted(declared))} (#meta.brokerSets)")
        if action.get("clusterName", declared[broker]) != declared[broker]:
            raise TraceError(trace.path, i, "action.clusterName", f"{broker!r} belongs to cluster {declared[broker]!r}")
    if sets is None:
        return
    for name in CONTROLLER_VARS:
        if name in state and (not isinstance(state[name], dict) or set(state[name]) != set(sets)):
            raise TraceError(trace.path, i, name, f"with #meta.brokerSets, a function of the brokerNames {', '.join(sorted(sets))}")


def _validate(trace: Trace, processes: Collection[str], design: str = CONTROLLER) -> None:
    """Check the trace's shape against the vocabulary before running anything; an action's ``process``
    is one of ``processes``, its tag one of ``design``'s Next (ActionDef.designs; Init aside)."""
    sets = _broker_sets(trace)
    for i, state in enumerate(trace.states):
        for name in state:
            if name not in ("action", "outcome") and name not in _KNOWN_VARS:
                raise TraceError(trace.path, i, name, f"not a model variable; known: {', '.join(_KNOWN_VARS)}")
            problem = _trace_var_problem(name, state[name]) if name in TRACE_VARS else None
            if problem:
                raise TraceError(trace.path, i, name, problem)
            bad = network_problem(name, state[name], processes) if name in NETWORK_VARS else None
            if bad:
                raise TraceError(trace.path, i, *bad)
        if "action" not in state:
            raise TraceError(trace.path, i, "action", "every state needs an action record")
        problem = action_problem(state["action"])
        if problem:
            raise TraceError(trace.path, i, *problem)
        tag = state["action"]["tag"]
        if tag != "Init" and design not in ACTIONS[tag].designs:
            raise TraceError(trace.path, i, "action.tag", f"{tag} is not an action of the {design} design (#meta.options.design); "
                             f"its actions: {', '.join(t for t, a in ACTIONS.items() if design in a.designs and t != 'Init')}")
        for param in process_params(state["action"]["tag"]):
            if state["action"][param] not in processes:
                raise TraceError(trace.path, i, f"action.{param}", f"{show_name(state['action'][param])} is not a declared process; "
                                 f"declared: {', '.join(sorted(processes)) or 'none'}")
        _validate_sets(trace, i, state, sets)
        if (i == 0) != (state["action"]["tag"] == "Init"):
            raise TraceError(trace.path, i, "action.tag", "the first state, and only it, is 'Init'")
        outcome = state.get("outcome")
        if outcome is not None and (not isinstance(outcome, dict) or not isinstance(outcome.get("code"), str)):
            raise TraceError(trace.path, i, "outcome", "must be a record with a string 'code'")
        if i == 0 and outcome is not None and not same(outcome, INIT_OUTCOME):
            raise TraceError(trace.path, 0, "outcome", f"Init has no answer to compare: its outcome is {{code: \"OK\"}} "
                             f"or absent; got {show(outcome)}")


def validate_walk(trace: Trace) -> tuple[Config, tuple[str, int] | Lasso | AtEnd | None]:
    """A walk from Init checked before anything runs: its config (``#meta``), its states against the
    vocabulary, and the violation it expects (``#meta.expect``), if any: an invariant or action property and the
    state where it fails, or a lasso (:func:`validate_lasso`)."""
    _check_meta(trace, None)
    config, field, problem = config_from_meta(trace.meta)
    if config is None:
        raise TraceError(trace.path, None, field, problem)
    _validate(trace, config.processes, config.options.design)
    return config, validate_at_end(trace, config) or validate_lasso(trace, config) or _expected_violation(trace)


@frozen
class AtEnd:
    """A liveness walk's failure (conformance/simulation/fair.py): after its faults stopped and a fair schedule ran to
    quiescence, ``ok(process)`` of ``prop`` is false at the trace's last state; ``violation``: an invariant it is
    known to break on the way, or None."""

    prop: Liveness
    process: str | None
    violation: tuple[str, int] | None


AT_END_KEYS = ("liveness", "process", "atEnd", "violation", "state")


def validate_at_end(trace: Trace, config: Config) -> AtEnd | None:
    """``#meta.expect = {"liveness": NAME, "process": P, "atEnd": true}`` (``process`` exactly for a per-process
    property; ``violation`` and ``state`` optionally, together), strictly; None for any other expectation."""
    expect, path = trace.meta.get("expect"), trace.path
    if not (isinstance(expect, dict) and "atEnd" in expect):
        return None
    if expect["atEnd"] is not True or trace.loop is not None or set(expect) - set(AT_END_KEYS) \
            or ("violation" in expect) != ("state" in expect):
        raise TraceError(path, None, "#meta.expect", "an at-end liveness expectation has 'liveness', 'atEnd': true, 'process' for a "
                         "per-process property, optionally 'violation' with 'state', and no loop")
    prop = LIVENESS_BY_NAME.get(expect.get("liveness")) if isinstance(expect.get("liveness"), str) else None
    if prop is None:
        raise TraceError(path, None, "#meta.expect.liveness", f"not a liveness property: {show_name(expect.get('liveness'))}; "
                         f"known: {', '.join(LIVENESS_BY_NAME)}")
    process = expect.get("process")
    if prop.per_process != (process is not None) or (process is not None and (not isinstance(process, str)
                                                                                or process not in config.processes)):
        raise TraceError(path, None, "#meta.expect.process", f"{prop.name} {'needs' if prop.per_process else 'takes no'} 'process' "
                         f"(a declared process: {', '.join(sorted(config.processes))}); got {show_name(process)}")
    return AtEnd(prop, process, _expected_violation(trace))


# --- lassos (liveness counterexamples) ---------------------------------------------------------------

LASSO_NEXT = {"brokerIds": "a list of broker ids (ints from 1)", "switches": "a list of the TRUE switches of Next",
              "faults": "a list of the configuration's Faults"}


def _lasso_expected(trace: Trace) -> bool:
    expect = trace.meta.get("expect")
    return isinstance(expect, dict) and "liveness" in expect


@frozen
class Lasso:
    """What a lasso trace expects: ``[]<>ok(process)`` of ``prop`` violated by the loop from state ``loop``."""

    prop: Liveness
    process: str | None
    loop: int
    broker_ids: tuple[int, ...]
    switches: frozenset[str]
    faults: frozenset[str]

    def switch(self, name: str) -> bool:
        return name in self.switches


def validate_lasso(trace: Trace, config: Config) -> Lasso | None:
    """A lasso's fields, strictly: ``loop`` only with ``#meta.expect.liveness`` and equal to ``#meta.expect.loop``,
    ``process`` exactly for a per-process property (a declared process), ``#meta.next`` only here and well formed,
    and the last state's variables equal to those of ``states[loop]`` (the last step closes the loop)."""
    path, meta = trace.path, trace.meta
    if not _lasso_expected(trace):
        if trace.loop is not None:
            raise TraceError(path, None, "loop", "only a lasso has a loop: #meta.expect names the liveness property it violates")
        if "next" in meta:
            raise TraceError(path, None, "#meta.next", "only a lasso (#meta.expect.liveness) reads it")
        return None
    expect = meta["expect"]
    prop = LIVENESS_BY_NAME.get(expect["liveness"]) if isinstance(expect["liveness"], str) else None
    if prop is None:
        raise TraceError(path, None, "#meta.expect.liveness", f"not a liveness property: {show_name(expect['liveness'])}; "
                         f"known: {', '.join(LIVENESS_BY_NAME)}")
    keys = ("liveness", "process", "loop") if prop.per_process else ("liveness", "loop")
    if set(expect) - {TOLERATED} != set(keys):
        raise TraceError(path, None, "#meta.expect", f"a lasso of {prop.name} has exactly {', '.join(map(repr, keys))} "
                         f"(and optionally {TOLERATED!r})"
                         f"got {sorted(map(show_name, expect))}")
    process = expect.get("process")
    if prop.per_process and (not isinstance(process, str) or process not in config.processes):
        raise TraceError(path, None, "#meta.expect.process", f"{show_name(process)} is not a declared process; "
                         f"declared: {', '.join(sorted(config.processes))}")
    if trace.loop is None:
        raise TraceError(path, None, "loop", "a lasso (#meta.expect.liveness) has a top-level 'loop', the index its loop starts at")
    if type(expect["loop"]) is not int or expect["loop"] != trace.loop:
        raise TraceError(path, None, "#meta.expect.loop", f"must be the trace's loop, {trace.loop}; got {show_name(expect['loop'])}")
    nxt = meta.get("next")
    if not isinstance(nxt, dict) or set(nxt) != set(LASSO_NEXT):
        raise TraceError(path, None, "#meta.next", f"a lasso gives the domains of Next: exactly {', '.join(LASSO_NEXT)}")
    ids, switches, faults = nxt["brokerIds"], nxt["switches"], nxt["faults"]
    known = {"brokerIds": lambda x: type(x) is int and 1 <= x <= 64, "switches": lambda x: x in SWITCHES,
             "faults": lambda x: x in NEW_FAULTS}
    for key, ok in known.items():
        if not isinstance(nxt[key], list) or not all(isinstance(x, int | str) and ok(x) for x in nxt[key]) \
                or len(set(nxt[key])) != len(nxt[key]):
            raise TraceError(path, None, f"#meta.next.{key}", f"{LASSO_NEXT[key]}, each once; got {show_name(nxt[key])}")
    last = len(trace.states) - 1
    first, final = trace.states[trace.loop], trace.states[last]
    for name in sorted(set(first) | set(final)):
        if name not in ("action", "outcome") and not same(first.get(name, ABSENT), final.get(name, ABSENT)):
            raise TraceError(path, last, name, f"the last state closes the loop: it must equal state {trace.loop} "
                             f"(there {show(first.get(name, ABSENT))}, here {show(final.get(name, ABSENT))})")
    return Lasso(prop, process, trace.loop, tuple(ids), frozenset(switches), frozenset(faults))


def _compare(trace: Trace, engine_name: str, index: int, expected: Mapping[str, Any], actual: Mapping[str, Any], consumed: int) -> Result | None:
    for name, want in expected.items():
        if name in ("action", "outcome"):
            continue
        got, want = strict(actual.get(name, ABSENT)), strict(want)
        if got != want:
            field = name
            if isinstance(want, dict) and isinstance(got, dict):  # name the first differing key
                key = next(k for k in sorted(set(want) | set(got), key=repr) if want.get(k, ABSENT) != got.get(k, ABSENT))
                field, want, got = f"{name}[{key!r}]", want.get(key, ABSENT), got.get(key, ABSENT)
            return Result(trace.path, engine_name, DIVERGENCE, len(trace.states), consumed, index, field, show_field(want), show_field(got),
                          f"variable {name} differs after {expected['action']['tag']}")
    return None


def replay_trace(trace: Trace, engine_name: str) -> Result:
    """Replay a decoded trace on a fresh engine of the given kind."""
    kind = trace.meta.get("kind")
    if kind is not None and (not isinstance(kind, str) or kind not in (TRUNCATION_STEP, *KINDS)):
        known = ", ".join(map(repr, (TRUNCATION_STEP, *KINDS)))
        raise TraceError(trace.path, None, "#meta.kind", f"unknown kind {show_name(kind)}; known: {known} (or none: a walk from Init)")
    _check_meta(trace, kind)
    if kind in KINDS:
        return KINDS[kind](trace, engine_name)
    if kind == TRUNCATION_STEP:
        return replay_truncation_step(trace, engine_name)
    config, expected = validate_walk(trace)
    lasso = expected if isinstance(expected, Lasso) else None
    at_end = expected if isinstance(expected, AtEnd) else None
    expected_violation = None if isinstance(expected, Lasso) else at_end.violation if at_end is not None else expected
    tolerated = _tolerated(trace)
    engine = make_engine(engine_name, config)
    n = len(trace.states)
    first_violation: tuple[str, int] | None = None
    in_loop: list[dict[str, Any]] = []  # a lasso's variables on the engine, from state ``loop`` on
    before, sets_before = engine.variables(), engine.other_sets()
    for i, state in enumerate(trace.states):
        if i > 0:
            action = state["action"]
            refused = same(state.get("outcome"), {"code": DISABLED})
            try:
                outcome = engine.step(action)
            except NotEnabled as e:
                if not refused:
                    return Result(trace.path, engine_name, DIVERGENCE, n, i, i, "action", "enabled", "not enabled", f"{action['tag']}: {e}")
                outcome = {"code": DISABLED}
                changed = _compare(trace, engine_name, i, {"action": action, **before}, engine.variables(), i)
                if changed:
                    return attrs.evolve(changed, message=f"the refused {action['tag']} changed {changed.field}")
            else:
                if refused:
                    return Result(trace.path, engine_name, DIVERGENCE, n, i, i, "outcome.code", show(DISABLED), show(outcome.get("code")),
                                  f"{action['tag']} is enabled; the trace says the model must refuse it")
            for key, want in (state.get("outcome") or {}).items():
                got = outcome.get(key, ABSENT)
                if not same(want, got):
                    return Result(trace.path, engine_name, DIVERGENCE, n, i, i, f"outcome.{key}", show_field(want), show_field(got),
                                  f"{action['tag']} answered differently")
        after, sets_after = engine.variables(), engine.other_sets()
        if lasso is not None and i >= lasso.loop:
            in_loop.append(after)
        divergence = _compare(trace, engine_name, i, state, engine.observed(), i)
        if divergence:
            return divergence
        if first_violation is None:
            broken = broken_properties(before if i > 0 else None, after)
            broken += broken_in_other_sets(sets_before if i > 0 else None, sets_after)
            broken = [b for b in broken if b not in tolerated]
            if broken:
                first_violation = (broken[0], i)
        before, sets_before = after, sets_after
    if first_violation != expected_violation:
        if first_violation is None:
            name, at = expected_violation
            return Result(trace.path, engine_name, MISSING_VIOLATION, n, n, at, name, "violated", "holds",
                          f"the trace expects {name} to fail at state {at}")
        name, at = first_violation
        want = None if expected_violation is None else f"{expected_violation[0]} at state {expected_violation[1]}"
        return Result(trace.path, engine_name, VIOLATION, n, n, at, name, want, f"{name} at state {at}", f"invariant {name} fails")
    if lasso is not None:
        return check_lasso(trace, engine_name, config, lasso, in_loop)
    if at_end is not None:
        of = f" of {at_end.process}" if at_end.process else ""
        if at_end.prop.ok(before, at_end.process):
            return Result(trace.path, engine_name, MISSING_VIOLATION, n, n, n - 1, at_end.prop.name, "violated", "holds",
                          f"{at_end.prop.name}{of} holds at the last state: the walk does not end stuck")
        return Result(trace.path, engine_name, PASS, n, n, message=f"{at_end.prop.name}{of} is not ok at the end, as expected")
    note = "" if expected_violation is None else f"{expected_violation[0]} fails at state {expected_violation[1]}, as expected"
    return Result(trace.path, engine_name, PASS, n, n, message=note)


def _record(action: Mapping[str, Any]) -> tuple:
    return tuple(sorted((k, strict(v)) for k, v in action.items()))


def unfair_instance(trace: Trace, config: Config, lasso: Lasso) -> Mapping[str, Any] | None:
    """A fairness instance (reference/liveness.py) of the Next records of ``lasso``'s domains that is enabled in every
    state of the loop and never taken in it, measured on the reference; None if the loop is weakly fair."""
    from autoswitch.conformance.explore import next_actions
    from autoswitch.reference import step

    engine = make_engine("reference", config)
    systems = [engine.state] if lasso.loop == 0 else []
    for i, state in enumerate(trace.states[1:], 1):
        engine.step(state["action"])
        if i >= lasso.loop:
            systems.append(engine.state)
    domains = _LassoDomains(tuple(sorted(config.processes)), {p: (a,) for p, a in config.processes.items()}, lasso,
                            config.options.design)
    taken = set()
    for s, w, state in zip(systems[:-1], systems[1:], trace.states[lasso.loop + 1:], strict=True):
        if s != w and counts(fair_row(state["action"]), reference_variables(s), state["action"]):
            taken.add(_record(state["action"]))
    for record in next_actions(domains):
        row = fair_row(record)
        if row is None or _record(record) in taken:
            continue
        always = True
        for s in systems:
            try:
                w, _ = step(s, record, config.options)
            except NotEnabled:
                always = False
                break
            if w == s or not counts(row, reference_variables(s), record):
                always = False
                break
        if always:
            return record
    return None


@frozen
class _LassoDomains:
    """The domains of Next a lasso's ``#meta`` gives (explore.Domains)."""

    processes: tuple[str, ...]
    addrs: Mapping[str, tuple[str, ...]]
    lasso: Lasso

    @property
    def broker_ids(self) -> tuple[int, ...]:
        return self.lasso.broker_ids

    design: str

    @property
    def faults(self) -> frozenset[str]:
        return self.lasso.faults

    def switch(self, name: str) -> bool:
        return self.lasso.switch(name)

    def bound(self, name: str) -> int:
        raise ValueError(f"a lasso gives no bound {name}")


def check_lasso(trace: Trace, engine_name: str, config: Config, lasso: Lasso, in_loop: list[dict[str, Any]]) -> Result:
    """After a lasso's steps replayed (``in_loop``: the engine's variables from state ``loop`` on): the last state
    equals state ``loop`` on the engine, ``ok`` is false in every state of the loop, and the loop is weakly fair
    (:func:`unfair_instance`). A loop that is no counterexample is MISSING_VIOLATION (exit 1)."""
    path, n, prop, loop = trace.path, len(trace.states), lasso.prop, lasso.loop
    first, last = in_loop[0], in_loop[-1]
    differs = next((name for name in first if not same(first[name], last.get(name, ABSENT))), None)
    if differs is not None:
        return Result(path, engine_name, DIVERGENCE, n, n, n - 1, differs, show_field(first[differs]), show_field(last.get(differs, ABSENT)),
                      f"the last state does not close the loop: {differs} differs from state {loop}")
    of = f" of {lasso.process}" if lasso.process else ""
    for j, v in enumerate(in_loop):
        if prop.ok(v, lasso.process):
            return Result(path, engine_name, MISSING_VIOLATION, n, n, loop + j, prop.name, "violated", "holds",
                          f"{prop.name}{of} holds at state {loop + j}, inside the loop: the lasso does not violate it")
    record = unfair_instance(trace, config, lasso)
    if record is not None:
        return Result(path, engine_name, MISSING_VIOLATION, n, n, loop, "loop", "a weakly fair loop", f"{show(record)} never taken",
                      f"{show(record)} is enabled in every state of the loop and never taken: the loop is not fair")
    how = f"stuttering for ever in state {loop}" if loop == n - 1 else f"a fair loop of {n - 1 - loop} steps from state {loop}"
    return Result(path, engine_name, PASS, n, n, message=f"liveness violation {prop.name}{of} reproduced: {how}")


TRUNCATION_STEP = "truncation-step"
WITHIN_COMMON_PREFIX = "TruncateWithinCommonPrefix"  # the slave keeps at most the two logs' common prefix
_PRE_STATE = ("role", "log", "epochFile", "confirmOffset")
TRUNCATION_EXPECT = {"violation": str, "truncationPoint": int, "commonPrefix": int}  # commonPrefix optional


_PRE_TYPES = {"log": (is_pairs, "a list of <<msg, epoch>> entries"), "epochFile": (is_pairs, "a list of <<epoch, startOffset>> entries"),
              "confirmOffset": (is_nat, "an offset (an int >= 0)")}


def _validate_truncation_step(trace: Trace) -> tuple[Options, str, str]:
    """The options, the MASTER and the SLAVE of a truncation-step trace, every field checked."""
    path, n = trace.path, len(trace.states)
    options, field, problem = options_from_meta(trace.meta, {})
    if options is None:
        raise TraceError(path, None, field, problem)
    expect = trace.meta.get("expect")
    if (not isinstance(expect, dict) or expect.get("violation") != WITHIN_COMMON_PREFIX or "truncationPoint" not in expect
            or set(expect) - set(TRUNCATION_EXPECT) or not all(type(v) is TRUNCATION_EXPECT[k] for k, v in expect.items())):
        raise TraceError(path, None, "#meta.expect", f"has 'violation': {WITHIN_COMMON_PREFIX!r}, 'truncationPoint' (an int) and "
                         "optionally 'commonPrefix' (an int), nothing else")
    if n != 2:
        raise TraceError(path, None, "states", f"a {TRUNCATION_STEP} trace has two states, the pre-state and the Handshake; got {n}")
    pre, after = trace.states
    for i, state in enumerate(trace.states):
        for name in state:
            if name not in ("action", "outcome", *_PRE_STATE):
                raise TraceError(path, i, name, f"not a field of a {TRUNCATION_STEP} trace; known: action, outcome, {', '.join(_PRE_STATE)}")
        outcome = state.get("outcome", {"code": "OK"})
        if not isinstance(outcome, dict) or not isinstance(outcome.get("code"), str):
            raise TraceError(path, i, "outcome", "must be a record with a string 'code'")
    if not same(pre.get("action"), {"tag": "Init"}):
        raise TraceError(path, 0, "action", "the pre-state's action is {tag: 'Init'}")
    for name in _PRE_STATE:
        if name not in pre:
            raise TraceError(path, 0, name, f"the pre-state needs {', '.join(_PRE_STATE)}")
    roles = pre["role"]
    if not isinstance(roles, dict) or not same(sorted(roles.values(), key=repr), ["MASTER", "SLAVE"]):
        raise TraceError(path, 0, "role", f"needs exactly one MASTER and one SLAVE, got {show(roles)}")
    for p in roles:
        problem = processes_problem({p: ""})
        if problem:
            raise TraceError(path, 0, "role", problem)
    master, slave = (next(p for p, r in roles.items() if r == role) for role in ("MASTER", "SLAVE"))
    for i, state in enumerate(trace.states):
        for name, (ok, what) in _PRE_TYPES.items():
            if name not in state:
                continue
            if not isinstance(state[name], dict) or set(state[name]) != set(roles):
                raise TraceError(path, i, name, f"must map exactly the processes {master!r} and {slave!r}")
            bad = next((p for p, v in state[name].items() if not ok(v)), None)
            if bad is not None:
                raise TraceError(path, i, f"{name}[{bad!r}]", f"must be {what}, got {show(state[name][bad])}")
    if not same(after.get("action"), {"tag": "Handshake", "process": slave}):
        raise TraceError(path, 1, "action", f"must be the SLAVE's Handshake(process={slave!r})")
    return options, master, slave


def _common_prefix(a: list, b: list) -> int:
    return next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))


def truncation_post(engine_name: str, options: Options, pre: Mapping[str, Any], master: str, slave: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The SLAVE's Handshake on a truncation-step pre-state (:func:`handshake`): its outcome and the state after it."""
    outcome, cut = handshake(engine_name, options.policy, {
        "slaveEpochs": pre["epochFile"][slave], "slaveLeo": len(pre["log"][slave]), "slaveConfirmOffset": pre["confirmOffset"][slave],
        "masterEpochs": pre["epochFile"][master], "masterLeo": len(pre["log"][master])}, options.kafka_leader_epoch_on_election)
    post = {**pre, "log": {**pre["log"], slave: pre["log"][slave][:cut["slaveLeo"]]}, "epochFile": {**pre["epochFile"], slave: cut["slaveEpochs"]},
            "confirmOffset": {**pre["confirmOffset"], slave: cut["slaveConfirmOffset"]}}
    return outcome, post


def replay_truncation_step(trace: Trace, engine_name: str) -> Result:
    """A truncation-step trace: state 0 is a given pre-state - ``role`` (one MASTER, one SLAVE), ``log``,
    ``epochFile`` and ``confirmOffset`` of both - and state 1 the SLAVE's Handshake. The engine's
    truncation (:func:`handshake`) computes the point and the slave's cut; state 1's outcome and variables must match it (a variable the
    pre-state lacks is absent after the step), the point must be ``#meta.expect.truncationPoint``, and
    it must break ``#meta.expect.violation`` = TruncateWithinCommonPrefix: the slave keeps more than the
    two logs' common prefix. The pre-state must satisfy the invariants it carries (EpochFileWellFormed,
    LogMatching, ConfirmOffsetBound)."""
    path, n = trace.path, len(trace.states)
    options, master, slave = _validate_truncation_step(trace)
    policy, expect = options.policy, trace.meta["expect"]
    pre, after = trace.states
    broken = violated_invariants(pre)
    if broken:
        return Result(path, engine_name, VIOLATION, n, 0, 0, broken[0], None, f"{broken[0]} at state 0",
                      f"the given pre-state breaks {broken[0]}")
    outcome, post = truncation_post(engine_name, options, pre, master, slave)
    for key, want in (after.get("outcome") or {}).items():
        got = outcome.get(key, ABSENT)
        if not same(want, got):
            return Result(path, engine_name, DIVERGENCE, n, 1, 1, f"outcome.{key}", show_field(want), show_field(got),
                          "Handshake answered differently")
    divergence = _compare(trace, engine_name, 1, after, {name: post.get(name, ABSENT) for name in after}, 1)
    if divergence:
        return divergence
    point = outcome["truncateOffset"]
    if point != expect["truncationPoint"]:
        return Result(path, engine_name, DIVERGENCE, n, 1, 1, "#meta.expect.truncationPoint", show(expect["truncationPoint"]),
                      show(point), f"{policy} truncates elsewhere")
    broken = violated_invariants(post)
    if broken:
        return Result(path, engine_name, VIOLATION, n, n, 1, broken[0], None, f"{broken[0]} at state 1", f"invariant {broken[0]} fails")
    shared = _common_prefix(pre["log"][master], pre["log"][slave])
    if "commonPrefix" in expect and expect["commonPrefix"] != shared:
        return Result(path, engine_name, DIVERGENCE, n, 1, 1, "#meta.expect.commonPrefix", show(expect["commonPrefix"]), show(shared),
                      "the logs share another prefix")
    if point <= shared:
        return Result(path, engine_name, MISSING_VIOLATION, n, n, 1, WITHIN_COMMON_PREFIX, "violated", "holds",
                      f"the slave keeps {point} entries, within the common prefix of {shared}")
    return Result(path, engine_name, PASS, n, n, message=f"{WITHIN_COMMON_PREFIX} fails at state 1, as expected: {policy} keeps "
                                                         f"{point} entries, the logs share {shared}")


def replay_file(path: str, engine_name: str) -> Result:
    """Load and replay one file; a malformed file becomes a MALFORMED result, never an exception."""
    try:
        return replay_trace(load_trace(path), engine_name)
    except TraceError as e:
        return Result(e.path, engine_name, MALFORMED, state=e.state, field=e.field, message=e.message)
    except NotAsked as e:
        return Result(path, engine_name, NOT_ASKED, message=str(e))
    except Exception as e:  # noqa: BLE001 - one broken engine step must not stop a batch
        return Result(path, engine_name, ERROR, message=f"{type(e).__name__}: {e}")


_EXIT = {PASS: EXIT_OK, NOT_ASKED: EXIT_OK, DIVERGENCE: EXIT_VERDICT, VIOLATION: EXIT_VERDICT, MISSING_VIOLATION: EXIT_VERDICT, MALFORMED: EXIT_INPUT,
         ERROR: EXIT_INTERNAL}


def replay_exit_code(results: list[Result]) -> int:
    """The exit code of a replay (conformance/errors.py): 3 if an engine raised, else 1 if a verdict
    failed, else 2 if a trace was malformed, else 0."""
    return batch_exit(_EXIT[r.status] for r in results)


def trace_files(paths: list[str]) -> list[str]:
    """The ``*.json`` files named or found under the given paths, each folder walked recursively and
    sorted. A path named is taken as it is (a FIFO or a device is then refused by ``load_trace``, not
    read); inside a folder, a symbolic link to a folder is not followed (no cycle, nothing outside the
    folder), a link to a file is read like the file it names."""
    found: list[str] = []
    for p in map(Path, paths):
        if p.is_dir():
            walked = os.walk(p)  # followlinks=False
            found.extend(sorted(str(Path(root) / f) for root, _, files in walked for f in files if f.endswith(".json")))
        else:
            found.append(str(p))
    return found
