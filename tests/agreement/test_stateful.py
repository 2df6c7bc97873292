"""Hypothesis drives the reference model and the implementation with the same actions - registration
with crashes between its steps, lost responses, stale and arbitrary controller requests - each a checked
step (conformance/explore.py: both agree on whether the action was enabled, on its outcome and on every
variable); its invariants assert that both agree on every observed variable and that every invariant and
action property of MODEL.md §6 holds on both."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

import hypothesis.strategies as st
import pytest
from hypothesis import HealthCheck, settings
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test

from autoswitch.conformance.engines import Config, make_engine
from autoswitch.conformance.explore import check_step
from autoswitch.conformance.simulation.generate import REQUEST_TAGS, UNSAFE_REQUESTS, registered_steps, registration_step
from autoswitch.reference import Options
from autoswitch.reference.actions import (
    ACTIONS,
    ADDR,
    BROKER_ID,
    BROKER_IDS,
    CHECK_CODE,
    DATA,
    EPOCH,
    FLAG,
    LOST,
    OFFSET,
    PRIORITY,
    PROCESS,
    PROCESS_GROUP,
    TRIGGER,
    TRIGGERS,
    Kind,
    record,
    tags,
)
from autoswitch.reference.invariants import violated_action_properties, violated_invariants

PROCS = {"p1": "10.0.0.1:30911", "p2": "10.0.0.2:30911", "p3": "10.0.0.3:30911"}
ADDRS = [*PROCS.values(), "10.0.1.1:30911", "10.0.1.2:30911"]
SETS = st.frozensets(st.integers(1, 4), max_size=4)
pytestmark = pytest.mark.slow  # about 15 s a machine: EXAMPLES examples of MIN_STEPS+ steps (tests/README.md)
MIN_STEPS, EXAMPLES = 50, 200  # required: EXAMPLES examples of MIN_STEPS+ steps (Hypothesis also tries some short ones)
STEPS_RUN: list[int] = []

# A controller request's parameters, by kind (the action table's); -1: a null brokerId in a heartbeat
# (spec/README.md, "Trace kinds")
REQUEST_VALUES: dict[Kind, st.SearchStrategy[Any]] = {
    BROKER_ID: st.integers(0, 5), BROKER_IDS: SETS, ADDR: st.sampled_from(ADDRS), TRIGGER: st.sampled_from(TRIGGERS),
    CHECK_CODE: st.sampled_from([f"{a};{t}" for a in ("10.9.9.9:1", ADDRS[0]) for t in range(3)]),
    EPOCH: st.integers(0, 4), OFFSET: st.integers(0, 4), PRIORITY: st.integers(0, 2), FLAG: st.booleans(),
}
OVERRIDES = {("BrokerHeartbeat", "brokerId"): st.integers(-1, 5)}


def requests(request_tags: Iterable[str]) -> st.SearchStrategy[dict[str, Any]]:
    """Arbitrary requests of ``request_tags``, each parameter drawn from its kind's strategy."""
    return st.one_of(*(st.fixed_dictionaries({"tag": st.just(tag), **{
        name: OVERRIDES.get((tag, name), REQUEST_VALUES[kind]) for name, kind in ACTIONS[tag].params.items()}})
        for tag in request_tags))


class ModelsAgree(RuleBasedStateMachine):
    """Reference and implementation side by side; ``processes`` and the rules decide what is explored."""

    processes: dict[str, str] = PROCS

    def __init__(self) -> None:
        super().__init__()
        self.steps = 0
        self.ref = self.impl = None

    def _start(self, options: Options) -> None:
        config = Config(self.processes, options)
        self.ref, self.impl = make_engine("reference", config), make_engine("impl", config)
        self.before = self.after = self.ref.variables()

    @initialize(unclean=st.booleans())
    def start(self, unclean: bool) -> None:
        self._start(Options(enable_elect_unclean_master=unclean))

    def run(self, action: dict) -> None:
        failure, after = check_step(self.ref, self.impl, action, self.steps + 1, None, {})
        assert failure is None, (action, failure)
        if after is not None:
            self.before, self.after = self.after, after
        self.steps += 1

    @invariant()
    def models_agree(self) -> None:
        """Both engines agree on the variables and the trace-only ones."""
        v, w = self.ref.observed(), self.impl.observed()
        assert v == w, {k: (v[k], w[k]) for k in v if v[k] != w.get(k)}

    @invariant()
    def invariants_hold(self) -> None:
        for engine in (self.ref, self.impl):
            assert violated_invariants(engine.variables()) == []

    @invariant()
    def action_properties_hold(self) -> None:
        """On the last step taken."""
        assert violated_action_properties(self.before, self.after) == []

    def teardown(self) -> None:
        STEPS_RUN.append(self.steps)


# a process's actions without other parameters (Crash has a rule of its own), and the data path's
PLAIN_PROCESS_TAGS = tuple(t for t in tags(PROCESS_GROUP) if list(ACTIONS[t].params) == ["process"] and t != "Crash")
PLAIN_DATA_TAGS = tuple(t for t in tags(DATA) if list(ACTIONS[t].params) == ["process"])
ALTER_TAGS = tuple(t for t in tags(DATA) if t not in PLAIN_DATA_TAGS)  # Expand, Shrink


class SystemMachine(ModelsAgree):
    """Three broker processes and raw controller requests (all but CleanBrokerData, which by design can
    hand a live process's id to another: see traces/regressions)."""

    data = False  # whether a REGISTERED process also takes data-path steps (generate.registered_steps)

    @rule(p=st.sampled_from(sorted(PROCS)), lost=st.booleans(), addr=st.sampled_from(ADDRS), pick=st.integers(0, 99),
          new_set=SETS, broker_id=st.integers(1, 3))
    def advance(self, p: str, lost: bool, addr: str, pick: int, new_set: frozenset, broker_id: int) -> None:
        """Take the next step of ``p``'s protocol (most of the exploration goes this way)."""
        if self.after["regState"][p] == "REGISTERED":
            steps = registered_steps(self.after, p, self.data)
            tag = steps[pick % len(steps)]
        else:
            tag = registration_step(self.after, p)
        self.run(record(tag, {PROCESS: p, LOST: lost, ADDR: addr, BROKER_IDS: new_set, BROKER_ID: broker_id}))

    @rule(p=st.sampled_from(sorted(PROCS)))
    def crash(self, p: str) -> None:
        self.run({"tag": "Crash", "process": p})

    @rule(p=st.sampled_from(sorted(PROCS)), tag=st.sampled_from(PLAIN_PROCESS_TAGS))
    def any_process_action(self, p: str, tag: str) -> None:
        """Possibly disabled: both models must refuse the same actions."""
        self.run({"tag": tag, "process": p})

    @rule(action=requests(REQUEST_TAGS))
    def controller_request(self, action: dict) -> None:
        self.run(action)

    @rule(now=st.integers(0, 3))
    def leadership(self, now: int) -> None:
        """The controller node loses or regains DLedger leadership (a trace kind; one draw in four acts):
        meanwhile every request, the brokers' too, answers CONTROLLER_NOT_LEADER."""
        if now == 0:
            leader = self.ref.observed()["controllerLeader"]
            self.run({"tag": "ControllerLeaderLost" if leader else "ControllerLeaderElected"})

    @rule(p=st.sampled_from(sorted(PROCS)), cluster=st.sampled_from(["DefaultCluster", "OtherCluster"]),
          broker=st.sampled_from(["broker-a", "broker-b"]))
    def reconfigure(self, p: str, cluster: str, broker: str) -> None:
        """A crash and a restart under a possibly other cluster/broker name (a trace kind:
        checkMetadataValid)."""
        self.run({"tag": "Crash", "process": p})
        self.run({"tag": "Restart", "process": p, "addr": PROCS[p], "clusterName": cluster, "brokerName": broker})


class ControllerMachine(ModelsAgree):
    """The controller alone under arbitrary requests, CleanBrokerData included."""

    processes: dict[str, str] = {}

    @rule(action=requests((*REQUEST_TAGS, "CleanBrokerData")))
    def request(self, action: dict) -> None:
        self.run(action)


class DataMachine(SystemMachine):
    """SystemMachine plus the data path, under the safe options of MODEL.md §6 with each truncation policy
    that must keep them (``rocketmq``, ``kip279`` with Kafka 2.0.0's or 2.1.0's epoch cache) and synchronous
    or asynchronous learners: every invariant must hold. Its rules never draw the operator-only requests
    that can put a lagging member in the set (generate.UNSAFE_REQUESTS) nor a process's arbitrary
    SendAlterSyncStateSet (the data path's Expand/Shrink replace them)."""

    data = True

    @initialize(policy=st.sampled_from(["rocketmq", "kip279"]), learner=st.booleans(), kafka21=st.booleans())
    def start(self, policy: str, learner: bool, kafka21: bool) -> None:
        self._start(Options(policy=policy, async_learners=frozenset({"p3"}) if learner else frozenset(),
                            kafka_leader_epoch_on_election=kafka21))

    @rule(action=requests(t for t in REQUEST_TAGS if t not in UNSAFE_REQUESTS))
    def controller_request(self, action: dict) -> None:
        self.run(action)

    @rule(p=st.sampled_from(sorted(PROCS)), tag=st.sampled_from(PLAIN_DATA_TAGS))
    def data_step(self, p: str, tag: str) -> None:
        self.run({"tag": tag, "process": p})

    @rule(p=st.sampled_from(sorted(PROCS)), tag=st.sampled_from(ALTER_TAGS), broker_id=st.integers(1, 3), lost=st.booleans())
    def alter(self, p: str, tag: str, broker_id: int, lost: bool) -> None:
        self.run({"tag": tag, "process": p, "brokerId": broker_id, "lost": lost})


def _run(machine: type[ModelsAgree]) -> None:
    STEPS_RUN.clear()
    run_state_machine_as_test(machine, settings=settings(
        max_examples=EXAMPLES + EXAMPLES // 2, stateful_step_count=70, deadline=None, suppress_health_check=[HealthCheck.too_slow]))
    long_runs = sum(1 for n in STEPS_RUN if n >= MIN_STEPS)
    assert long_runs >= EXAMPLES, f"only {long_runs} examples ran {MIN_STEPS}+ steps: {Counter(STEPS_RUN).most_common(5)}"


def test_system_models_agree() -> None:
    _run(SystemMachine)


def test_controller_models_agree() -> None:
    _run(ControllerMachine)


def test_data_path_models_agree() -> None:
    _run(DataMachine)
