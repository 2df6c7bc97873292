"""The distance the log search prunes by and orders its steps by (conformance/logs/distance.py): no behaviour gets from a
state to what a later state shows of the counters in fewer steps than the distance says. Checked between every two
states of every committed trace the reference replays from Init and of the campaign's sampled walks, each node's line
observing what a full log's would, with a count of the pairs where the distance is positive and where it is the steps
between (so that the check is neither vacuous nor loose everywhere)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import attrs
from committed import replayed
from frozendict import frozendict

from autoswitch.conformance.engines import Config, make_engine
from autoswitch.conformance.logs.bench import SAFETY, sampled_walks
from autoswitch.conformance.logs.distance import BROKER_HEARTBEAT, LOCAL, Terms
from autoswitch.conformance.logs.events import CONTROLLER_NODE, Event
from autoswitch.conformance.logs.facts import COUNTERS
from autoswitch.conformance.simulation.campaign import grid
from autoswitch.reference import System, initial_system
from autoswitch.reference.broker import crash
from autoswitch.reference.state import MASTER, LiveInfo, Options
from autoswitch.reference.variables import variables


def _event(node: str, observe: Mapping[str, Any]) -> Event:
    return Event(f"{node}.ndjson", 2, node, None, 1, None, (), dict(observe))


def _lines(v: Mapping[str, Any], nodes: Sequence[str]) -> list[Event]:
    """What a full log's line of each node would observe of the counters in the state whose variables are ``v``."""
    process = (*LOCAL, "acks", "log", "confirmOffset", "flushed", "epochFile")
    return [_event(node, {name: v[name] for name in (*COUNTERS, "alive")} if node == CONTROLLER_NODE else
                   {name: v[name][node] for name in process}) for node in nodes]


def _states(config: Config, actions: Sequence[Mapping[str, Any]]) -> list[System]:
    engine = make_engine("reference", config)
    out = [engine.state]
    for action in actions:
        engine.step(action)
        out.append(engine.state)
    return out


def _check(actions: Sequence[Mapping[str, Any]], states: Sequence[System], where: str, counted: Counter[str],
           config: Config) -> None:
    beat = not any(a["tag"] == BROKER_HEARTBEAT for a in actions)
    within = not config.options.async_flush
    nodes = (CONTROLLER_NODE, *sorted(states[0].procs))
    for j, later in enumerate(states):
        for e in _lines(variables(later), nodes):
            terms = Terms.of(e, beat, within)
            if terms is None:
                continue
            assert terms.steps(later) == 0, f"{where}: state {j}, {e.node}: {terms}"
            for i in range(j):
                d = terms.steps(states[i])
                assert d <= j - i, f"{where}: from state {i} to {e.node}'s line at state {j}: distance {d}, {terms}"
                counted["positive"] += d > 0
                counted["tight"] += 0 < d == j - i


def test_on_every_committed_trace() -> None:
    counted: Counter[str] = Counter()
    checked = 0
    for name, (actions, states, config) in replayed(lambda config, actions: (actions, _states(config, actions), config)):
        _check(actions, states, name, counted, config)
        checked += 1
    assert checked >= 50 and counted["positive"] >= 1000 and counted["tight"] >= 100, (checked, counted)


def test_on_the_sampled_walks() -> None:
    """Walk 0 of each safety configuration, where it passes (one fails its control and is not sampled)."""
    counted: dict[str, Counter[str]] = {}
    for name, walk, actions in sampled_walks(SAFETY, 1, 60, 1):
        counted[name] = Counter()
        config = grid()[name].config
        _check(actions, _states(config, actions), f"{name} walk {walk}", counted[name], config)
    assert len(counted) >= len(SAFETY) - 1 and all(c["tight"] for c in counted.values()), counted


def test_each_term() -> None:
    s = initial_system({"p1": "a:1", "p2": "b:1"}, "controller")
    controller = _event(CONTROLLER_NODE, {"masterEpoch": 3, "nextBrokerId": 2})
    assert Terms.of(controller, True).steps(s) == 3  # type: ignore[union-attr]  # masterEpoch 0 -> 3
    local = Terms.of(_event("p1", {"localMasterEpoch": 2}), True)
    assert local is not None and local.steps(s) == 2  # from the controller's masterEpoch 0
    assert local.steps(attrs.evolve(s, procs=s.procs.set("p1", attrs.evolve(s.procs["p1"], local_master_epoch=2)))) == 0
    # an alive entry: the heartbeat, and the entries its sender lacks (p1 and p2 have no broker id yet: either may be 1)
    alive = {1: {"epoch": 0, "maxOffset": 4, "priority": 0}}
    assert Terms.of(_event(CONTROLLER_NODE, {"alive": alive}), True).steps(s) == 1 + 4  # type: ignore[union-attr]
    assert Terms.of(_event(CONTROLLER_NODE, {"alive": alive}), False) is None  # a controller-level heartbeat takes any
    beaten = attrs.evolve(s, controller=attrs.evolve(s.controller, alive=s.controller.alive.set(1, LiveInfo(0, 4, 0))))
    assert Terms.of(_event(CONTROLLER_NODE, {"alive": alive}), True).steps(beaten) == 0  # type: ignore[union-attr]
    # a late heartbeat pending delivers what its sender had when it was sent (faults.late_request): that report only
    heartbeat = Terms.of(_event(CONTROLLER_NODE, {"alive": alive}), True)
    assert heartbeat is not None
    late = {"tag": BROKER_HEARTBEAT, "brokerId": 1, "epoch": 0, "maxOffset": 4, "priority": 0}
    assert heartbeat.steps(attrs.evolve(s, late=s.late.set("p1", frozendict(late)))) == 1
    for other in ({**late, "maxOffset": 3}, {**late, "brokerId": 2}):
        assert heartbeat.steps(attrs.evolve(s, late=s.late.set("p1", frozendict(other)))) == 1 + 4, other
    # a heartbeat from a log longer than it reports: a step cuts the log first (both processes may be broker 1)
    longer = attrs.evolve(s.procs["p1"], log=tuple((m, 1) for m in range(6)))
    assert heartbeat.steps(attrs.evolve(s, procs=s.procs.set("p1", longer).set("p2", longer))) == 1 + 1
    acked = Terms.of(_event("p1", {"acks": {2: 4}}), True)  # a Handshake cuts the slave's log and sets the ack at once
    assert acked is not None and acked.steps(attrs.evolve(s, procs=s.procs.set("p2", longer))) == 1
    assert Terms.of(_event("p2", {"log": [(1, 1), (2, 1)]}), True).steps(s) == 2  # type: ignore[union-attr]


def test_what_a_log_end_bounds() -> None:
    """A process's confirmOffset, flushed offset and epoch file's last start are each at most its log end: the entries
    its log lacks of each are steps (a Write or Transfer appends one)."""
    s = initial_system({"p1": "a:1", "p2": "b:1"}, "controller")
    for observe, steps in (({"confirmOffset": 3}, 3), ({"flushed": 2}, 2), ({"epochFile": [(1, 0), (2, 4)]}, 4),
                           ({"confirmOffset": 1, "log": [(1, 1), (2, 1)]}, 2)):
        terms = Terms.of(_event("p1", observe), True)
        assert terms is not None and terms.steps(s) == steps, observe
    written = attrs.evolve(s, procs=s.procs.set("p1", attrs.evolve(s.procs["p1"], log=((1, 1), (2, 1), (3, 1)))))
    assert Terms.of(_event("p1", {"confirmOffset": 3}), True).steps(written) == 0  # type: ignore[union-attr]
    # with asynchronous flush a crash keeps an entry past the recovered log end (refinement 38): no term
    assert Terms.of(_event("p1", {"epochFile": [(1, 0), (2, 4)]}), True, epochs_within_log=False) is None
    assert Terms.of(_event("p1", {"flushed": 2, "epochFile": [(1, 0), (2, 4)]}), True, False).steps(s) == 2  # type: ignore[union-attr]


def test_an_async_flush_crash_keeps_an_epoch_entry_past_the_log_end() -> None:
    """Why the epoch file's term needs synchronous flush: a master that files epoch 2 at its log end 1 with nothing
    flushed crashes with an empty log and keeps (2, 1), so a state shows a last start the log does not reach."""
    options = Options(async_flush=True)
    s = initial_system({"p1": "a:1"}, "controller")
    master = attrs.evolve(s.procs["p1"], meta_file=1, reg_state="REGISTERED", role=MASTER, log=((1, 1),), flushed=0,
                          epoch_file=((1, 0), (2, 1)), local_sync_state_set=frozenset({1}))
    s = attrs.evolve(s, procs=s.procs.set("p1", master))
    down, _ = crash(s, "p1", options)
    assert (down.procs["p1"].leo, down.procs["p1"].epoch_file) == (0, ((1, 0), (2, 1)))
