"""The facts a state fixes for every later one (conformance/logs/facts.py), on which the search's pruning rests
(search._Problem.hopeless): no state of a behaviour contradicts what a later state shows, unless a step of the fact's
``breakers`` comes between. Checked on every state of every committed trace the reference replays from Init and of the
campaign's sampled walks, with a count of the checks each fact could have failed, so that none is vacuous; and each
fact's contradiction on a state built to break it."""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs
import pytest
from committed import replayed
from frozendict import frozendict

from autoswitch.conformance.engines import Config, make_engine
from autoswitch.conformance.logs import cut
from autoswitch.conformance.logs.bench import SAFETY, sampled_walks
from autoswitch.conformance.logs.events import CONTROLLER_NODE, Event, read_log
from autoswitch.conformance.logs.facts import ACROSS, BREAKERS, REG_STEPS, Expiries, Facts, Guards, Restarts, kinds_for
from autoswitch.conformance.logs.merge import Merged, merge
from autoswitch.conformance.logs.search import validate
from autoswitch.conformance.simulation.campaign import grid
from autoswitch.reference import Options, System, initial_system
from autoswitch.reference.actions import ACTIONS
from autoswitch.reference.invariants import CONTROLLER_VARS
from autoswitch.reference.state import LiveInfo, Replica
from autoswitch.reference.variables import variables

ALL = frozenset(BREAKERS)
CRASHES = ("Crash", "CrashTorn")


def _observations(v: Mapping[str, Any], nodes: Sequence[str]) -> list[dict[str, Any]]:
    """What a full log's line of each node would observe in the state whose variables are ``v``."""
    return [{name: v[name] for name in CONTROLLER_VARS} if node == CONTROLLER_NODE else
            {name: v[name][node] for name in ("metaFile", "localMasterEpoch", "log", "epochFile")} for node in nodes]


def _behaviour(config: Config, actions: Sequence[Mapping[str, Any]]) -> list[tuple[str, System]]:
    engine = make_engine("reference", config)
    out = [("Init", engine.state)]
    for action in actions:
        engine.step(action)
        out.append((action["tag"], engine.state))
    return out


def _check(behaviour: list[tuple[str, System]], options: Options, where: str, checked: Counter[str]) -> None:
    """Assert that no state contradicts the next one's observations, for the facts its step does not break, nor any
    later state's messages, epochs and epoch files; count, per fact, the checks where the later state showed what could
    contradict."""
    nodes = (CONTROLLER_NODE, *sorted(behaviour[0][1].procs))
    seen = [_observations(variables(s), nodes) for _, s in behaviour]
    unbroken = not any(tag in BREAKERS[kind] for tag, _ in behaviour for kind in ACROSS)
    later = (frozenset({"messages", "lost"}) | (ACROSS if unbroken else frozenset())) & kinds_for((), options)
    everything = Facts(nodes, list(zip(*seen, strict=True)), later)
    for i in range(len(behaviour) - 1):
        s = behaviour[i][1]
        why = everything.contradiction(s, (i + 1,) * len(nodes))
        assert why is None, f"{where}: state {i} and a later one: {why}"
        tag = behaviour[i + 1][0]
        kinds = kinds_for({tag}) - later
        why = Facts(nodes, [[o] for o in seen[i + 1]], kinds).contradiction(s, (0,) * len(nodes))
        assert why is None, f"{where}: state {i} and step {i + 1} ({tag}): {why}"
        c = s.controller
        checked["replicas"] += "replicas" in kinds and bool(c.replicas)
        checked["counters"] += "counters" in kinds and c.master_epoch > 0
        checked["metaFile"] += "metaFile" in kinds and any(p.meta_file for p in s.procs.values())
        checked["alive"] += "alive" in kinds and bool(c.alive)
        checked["messages"] += any(p.log for p in s.procs.values())
        checked["lost"] += any(p.log for p in behaviour[i + 1][1].procs.values()) and s.next_msg > 1
        checked["unwritten"] += unbroken and s.controller.master_epoch > 1 and any(
            m >= s.next_msg for _, w in behaviour[i + 1:] for p in w.procs.values() for m, _ in p.log)
        checked["epochFile"] += "epochFile" in later and any(
            e < s.controller.master_epoch and all(x.local_master_epoch != e for x in s.procs.values())
            for _, w in behaviour[i + 1:] for x in w.procs.values() for (e, _) in x.epoch_file[:-1])
        checked["localMasterEpoch"] += unbroken and any(
            0 != w.procs[p].local_master_epoch != x.local_master_epoch for _, w in behaviour[i + 1:] for p, x in s.procs.items())


def _check_expiries(behaviour: list[tuple[str, System]], where: str, checked: Counter[str]) -> None:
    """Assert that the unobserved faults facts.Expiries counts from each state are at most the breakers of ``alive``
    the behaviour takes after it, where the controller logs what ``alive`` is after every other step (and nothing of
    those); count the states where it counts some, and where as many as are taken."""
    seen = [j for j, (tag, _) in enumerate(behaviour) if j and tag not in BREAKERS["alive"]]
    events = tuple(Event(f"{CONTROLLER_NODE}.ndjson", n + 1, CONTROLLER_NODE, None, j, None, (),
                         {"alive": dict(behaviour[j][1].controller.alive)}, n) for n, j in enumerate(seen))
    expiries = Expiries(Merged(events, "clock", 0, (CONTROLLER_NODE,), (tuple(range(len(events))),)))
    taken = [tag in BREAKERS["alive"] for tag, _ in behaviour]
    for i, (_, s) in enumerate(behaviour):
        needed = expiries.needed(s, (bisect.bisect_right(seen, i),))
        breakers = sum(taken[i + 1:])
        assert needed <= breakers, f"{where}: state {i}: {needed} unobserved faults counted, {breakers} breakers taken"
        checked["expiries"] += needed > 0
        checked["expiries, as many"] += 0 < needed == breakers


def _check_restarts(behaviour: list[tuple[str, System]], where: str, checked: Counter[str]) -> None:
    """Assert that the unobserved crashes facts.Restarts counts from each state are at most the crashes the behaviour
    takes after it, where each process logs every other step it takes with the ``regState`` after it (and no crash or
    restart); count the states where it counts some, and where as many as are taken."""
    nodes = tuple(sorted(behaviour[0][1].procs))
    own: dict[str, list[int]] = {p: [] for p in nodes}  # per process, the states after its logged steps
    events: list[Event] = []
    for j, (tag, s) in enumerate(behaviour):
        before = behaviour[j - 1][1] if j else s
        mine = [p for p in nodes if before.procs[p] is not s.procs[p]] if j else []
        if tag in CRASHES or tag == "Restart" or len(mine) != 1:
            continue
        own[mine[0]].append(j)
        events.append(Event(f"{mine[0]}.ndjson", j, mine[0], None, j, {"tag": tag, "process": mine[0]}, (),
                            {"regState": s.procs[mine[0]].reg_state}, len(events)))
    by_node = tuple(tuple(e.index for e in events if e.node == p) for p in nodes)
    restarts = Restarts(Merged(tuple(events), "clock", 0, nodes, by_node))
    crashes = [tag in CRASHES for tag, _ in behaviour]
    for i, (_, s) in enumerate(behaviour):
        needed = restarts.needed(s, tuple(bisect.bisect_right(own[p], i) for p in nodes))
        taken = sum(crashes[i + 1:])
        assert needed <= taken, f"{where}: state {i}: {needed} unobserved crashes counted, {taken} taken"
        checked["restarts"] += needed > 0
        checked["restarts, as many"] += 0 < needed == taken


def _check_guards(behaviour: list[tuple[str, System]], actions: Sequence[Mapping[str, Any]], where: str,
                  checked: Counter[str]) -> None:
    """Assert that only a step of REG_STEPS changes a process's ``regState``, and only its own; and that where each
    process logs every step it takes (none unobserved), facts.Guards finds no state stuck; count the states where a
    process's next event has a guard its state passes only as its own."""
    nodes = tuple(sorted(behaviour[0][1].procs))
    for j in range(1, len(behaviour)):
        (tag, s), before, action = behaviour[j], behaviour[j - 1][1], actions[j - 1]
        moved = [p for p in nodes if s.procs[p].reg_state != before.procs[p].reg_state]
        assert not moved or (tag in REG_STEPS and moved == [action["process"]]), f"{where}: step {j} ({tag}) moves {moved}"
    own: dict[str, list[int]] = {p: [] for p in nodes}
    events: list[Event] = []
    for j, action in enumerate(actions, start=1):
        p = action.get("process")
        if p in own:
            own[p].append(j)
            events.append(Event(f"{p}.ndjson", j, p, None, j, action, (), {}, len(events)))
    by_node = tuple(tuple(e.index for e in events if e.node == p) for p in nodes)
    guards = Guards(Merged(tuple(events), "clock", 0, nodes, by_node), ())
    for i, (_, s) in enumerate(behaviour):
        consumed = tuple(bisect.bisect_right(own[p], i) for p in nodes)
        assert guards.stuck(s, consumed) is None, f"{where}: state {i}: {guards.stuck(s, consumed)}"
        checked["guards"] += any(row is not None and row[c] is not None for row, c in zip(guards.allowed, consumed, strict=True))


def test_on_every_committed_trace() -> None:
    checked: Counter[str] = Counter()
    traces = 0
    for name, (options, actions, behaviour) in replayed(lambda config, actions: (config.options, actions,
                                                                                  _behaviour(config, actions))):
        _check(behaviour, options, name, checked)
        _check_guards(behaviour, actions, name, checked)
        _check_expiries(behaviour, name, checked)
        _check_restarts(behaviour, name, checked)
        traces += 1
    assert traces >= 50 and all(checked[kind] >= 100 for kind in ALL - {"epochFile"}), (traces, checked)
    assert checked["epochFile"] >= 50, checked  # the Kafka policies' traces only (kinds_for)
    assert checked["expiries, as many"] >= 10 and checked["restarts, as many"] >= 10 and checked["guards"] >= 100, checked


def test_on_the_sampled_walks() -> None:
    """Walk 0 of each safety configuration at 80 steps (at 60 none shows an epoch file), where it passes (one fails its
    control and is not sampled)."""
    checked: Counter[str] = Counter()
    names = set()
    for name, walk, actions in sampled_walks(SAFETY, 1, 80, 1):
        behaviour = _behaviour(grid()[name].config, actions)
        _check(behaviour, grid()[name].config.options, f"{name} walk {walk}", checked)
        _check_guards(behaviour, actions, f"{name} walk {walk}", checked)
        _check_expiries(behaviour, f"{name} walk {walk}", checked)
        _check_restarts(behaviour, f"{name} walk {walk}", checked)
        names.add(name)
    assert len(names) >= len(SAFETY) - 1 and all(checked[kind] for kind in ALL), checked
    assert checked["expiries"] and checked["restarts"] and checked["guards"], checked


def _state() -> System:
    """Two processes: broker 1 bound at the controller (epoch 2) and alive, p1 holding messages 1 and 2 (epoch 1), nextMsg
    4."""
    s = initial_system({"p1": "10.0.0.1:30911", "p2": "10.0.0.2:30911"}, "controller")
    ctl = attrs.evolve(s.controller, replicas=frozendict({1: Replica("10.0.0.1:30911", "10.0.0.1:30911;0")}),
                       next_broker_id=2, master_epoch=2, sync_state_set_epoch=1, alive=frozendict({1: LiveInfo(1, 2, 0)}))
    p1 = attrs.evolve(s.procs["p1"], meta_file=1, log=((1, 1), (2, 1)))
    return attrs.evolve(s, controller=ctl, procs=s.procs.set("p1", p1), next_msg=4)


@pytest.mark.parametrize(("node", "observed", "fact"), [
    (CONTROLLER_NODE, {"replicas": {1: {"addr": "10.0.1.1:30911", "checkCode": "10.0.0.1:30911;7"}}}, "replicas"),
    (CONTROLLER_NODE, {"replicas": {2: {"addr": "10.0.0.2:30911", "checkCode": "10.0.0.2:30911;3"}}}, "replicas"),
    (CONTROLLER_NODE, {"masterEpoch": 1}, "counters"),
    (CONTROLLER_NODE, {"nextBrokerId": 1}, "counters"),
    ("p2", {"log": [(1, 1), (2, 2)]}, "messages"),
    ("p2", {"log": [(2, 1)]}, "messages"),
    ("p2", {"log": [(1, 1), (2, 1), (3, 1)]}, "lost"),
    ("p2", {"log": [(1, 1), (2, 1), (4, 1)]}, "unwritten"),
    ("p1", {"metaFile": 2}, "metaFile"),
    ("p2", {"localMasterEpoch": 1}, "localMasterEpoch"),
    ("p2", {"epochFile": [(1, 0), (2, 3)]}, "epochFile"),
    (CONTROLLER_NODE, {"alive": {2: {"epoch": 0, "maxOffset": 0, "priority": 0}}}, "alive"),
])
def test_each_fact_contradicted(node: str, observed: dict[str, Any], fact: str) -> None:
    """A later observation each fact of _state forbids is a contradiction of that fact, and of no other kind's; what
    the state allows (the same values, a larger counter, a message not yet written, at the controller's epoch) is
    none."""
    s, nodes = _state(), (CONTROLLER_NODE, "p1", "p2")
    later = [[observed] if n == node else [] for n in nodes]
    why = Facts(nodes, later, ALL).contradiction(s, (0, 0, 0))
    assert why is not None and why.startswith(f"{fact}:"), why
    assert Facts(nodes, later, ALL - {fact}).contradiction(s, (0, 0, 0)) is None
    consumed = tuple(int(n == node) for n in nodes)  # the observation consumed: no longer later
    assert Facts(nodes, later, ALL).contradiction(s, consumed) is None
    allowed = [[{"replicas": {1: {"addr": "10.0.1.1:30911", "checkCode": "10.0.0.1:30911;0"},
                              2: {"addr": "10.0.0.2:30911", "checkCode": "10.0.0.2:30911;3"}},
                 "masterEpoch": 3, "nextBrokerId": 2,
                 "alive": {1: {"epoch": 1, "maxOffset": 2, "priority": 0}, 2: {"epoch": 0, "maxOffset": 0, "priority": 0}}}],
               [{"metaFile": 1, "localMasterEpoch": 0, "log": [(1, 1), (2, 1), (4, 2)], "epochFile": [(1, 0), (2, 2)]}],
               [{"metaFile": 2, "localMasterEpoch": 2, "log": [(1, 1)]}]]
    assert Facts(nodes, allowed, ALL).contradiction(s, (0, 0, 0)) is None


@pytest.mark.parametrize(("actions", "fact"), [
    ([{"tag": "ControllerMetadataLoss"}], "replicas"),
    ([{"tag": "CleanBrokerData", "brokerIds": frozenset({1}), "cleanLiving": True}], "replicas"),
    ([{"tag": "ControllerMetadataLoss"}], "counters"),
    ([{"tag": "Crash", "process": "p1"}, {"tag": "WipeDisk", "process": "p1"}], "metaFile"),
    ([{"tag": "HeartbeatExpire", "brokerId": 1}], "alive"),
    ([{"tag": "ControllerFailover"}], "alive"),
    ([{"tag": "ControllerMetadataLoss"}], "alive"),
])
def test_each_breaker_breaks_its_fact(actions: list[dict[str, Any]], fact: str) -> None:
    """Where a breaker is taken, the state after it contradicts the fact of the state before: the search could not
    use the fact in a log where the breaker may happen."""
    s = w = _state()
    for action in actions:
        w, _ = ACTIONS[action["tag"]].run(w, action, Options())  # type: ignore[misc]
    nodes = (CONTROLLER_NODE, "p1", "p2")
    later = Facts(nodes, [[o] for o in _observations(variables(w), nodes)], frozenset({fact}))
    why = later.contradiction(s, (0, 0, 0))
    assert why is not None and why.startswith(f"{fact}:"), why
    assert fact not in kinds_for(a["tag"] for a in actions)


def test_rocketmqs_epoch_file_need_not_name_its_messages_epochs() -> None:
    """Why the epochFile fact is the Kafka policies' only: p1, master of epoch 1 with no message, crashes and keeps
    (1, 0) (refinement 38); elected in epoch 3 its append (3, 0) is refused, so its message 1 is written at epoch 3
    under the entry of epoch 1, and once (5, 1) is filed the file covers offset 0 at epoch 1, which no log holds."""
    config = Config({"p1": "10.0.0.1:30911"}, Options())
    boot = [{"tag": "CreateTempFile", "process": "p1"}, {"tag": "SendApplyBrokerId", "process": "p1", "lost": False},
            {"tag": "WriteMetaFile", "process": "p1"}, {"tag": "DeleteTempFile", "process": "p1"},
            {"tag": "SendRegister", "process": "p1", "lost": False}, {"tag": "SendHeartbeat", "process": "p1"},
            {"tag": "SendElectMaster", "process": "p1", "lost": False}]
    again = [{"tag": "Crash", "process": "p1"}, {"tag": "HeartbeatExpire", "brokerId": 1}, {"tag": "ControllerElectScan"},
             {"tag": "Restart", "process": "p1", "addr": "10.0.0.1:30911"}, {"tag": "LoadMetaFile", "process": "p1"},
             {"tag": "SendRegister", "process": "p1", "lost": False}, {"tag": "SendHeartbeat", "process": "p1"},
             {"tag": "SendElectMaster", "process": "p1", "lost": False}]
    behaviour = _behaviour(config, [*boot, *again, {"tag": "Write", "process": "p1"}, *again])
    last = behaviour[-1][1].procs["p1"]
    assert (last.log, last.epoch_file) == (((1, 3),), ((1, 0), (5, 1)))
    nodes = (CONTROLLER_NODE, "p1")
    seen = [_observations(variables(s), nodes) for _, s in behaviour]
    why = Facts(nodes, list(zip(*seen, strict=True)), frozenset({"epochFile"})).contradiction(behaviour[10][1], (0, 0))
    assert why is not None and why.startswith("epochFile:"), why
    assert "epochFile" not in kinds_for((), config.options)
    assert "epochFile" in kinds_for((), Options(policy="kip279"))


def test_a_breaker_among_the_events_holds_back_the_observations_it_may_precede(tmp_path: Path) -> None:
    """p1 binds broker id 1, the controller loses its metadata (a logged event), then p2 binds id 1 to its own
    checkCode. Before the loss, the controller's later observation of id 1 is no contradiction (the loss may come
    before it: Facts.of's threat); without the threat it would be one; after the loss it is used, and the state
    before the loss contradicts it. The search explains the full log and the controller's alone."""
    config = grid()["safe-rocketmq-2p"].config
    actions = [{"tag": "CreateTempFile", "process": "p1"}, {"tag": "SendApplyBrokerId", "process": "p1", "lost": False},
               {"tag": "ControllerMetadataLoss"},
               {"tag": "CreateTempFile", "process": "p2"}, {"tag": "SendApplyBrokerId", "process": "p2", "lost": False}]
    full = cut.walk_log(config, actions)
    log = read_log(full.write(tmp_path / "full"))
    merged = merge(log)
    before = _behaviour(config, actions)[2][1]  # id 1 bound to p1's checkCode
    consumed = tuple(sum(1 for i in ids if merged.events[i].clock <= 2) for ids in merged.by_node)
    assert Facts.of(merged, ALL).contradiction(before, consumed) is None
    unthreatened = Facts(merged.nodes, [[merged.events[i].observe for i in ids] for ids in merged.by_node], ALL)
    assert (unthreatened.contradiction(before, consumed) or "").startswith("replicas:")
    after_loss = tuple(sum(1 for i in ids if merged.events[i].clock <= 3) for ids in merged.by_node)
    assert (Facts.of(merged, ALL).contradiction(before, after_loss) or "").startswith("replicas:")
    for cut_log in (full, cut.controller_view(full)):
        verdict = validate(read_log(cut_log.write(tmp_path / str(len(cut_log.events)))))
        assert verdict.ok, verdict.describe()


def test_a_process_that_cannot_register_unobserved_is_stuck_before_an_event_its_state_fails() -> None:
    """p1's next event is a SendRegister (guard META_DONE) and p1 is INITIAL: stuck where no step that changes p1's
    ``regState`` may be unobserved, not where one may (a CreateTempFile of p1's), nor where another node logs one of
    p1's, nor once the event is consumed."""
    s = _state()
    register = Event("p1.ndjson", 1, "p1", None, 1, {"tag": "SendRegister", "process": "p1"}, (), {}, 0)
    merged = Merged((register,), "clock", 0, ("p1", "p2"), ((0,), ()))
    assert (Guards(merged, [{"tag": "Write", "process": "p1"}]).stuck(s, (0, 0)) or "").startswith("regState: p1 is INITIAL")
    assert Guards(merged, []).stuck(s, (1, 0)) is None
    assert Guards(merged, [{"tag": "CreateTempFile", "process": "p1"}]).stuck(s, (0, 0)) is None
    load = Event("p2.ndjson", 1, "p2", None, 0, {"tag": "LoadMetaFile", "process": "p1"}, (), {}, 1)
    merged = Merged((register, load), "clock", 0, ("p1", "p2"), ((0,), (1,)))
    assert Guards(merged, []).stuck(s, (0, 0)) is None
