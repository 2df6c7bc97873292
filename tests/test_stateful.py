"""Hypothesis drives the reference model and the implementation with the same actions - registration
with crashes between its steps, lost responses, stale and arbitrary controller requests - and after every
step asserts: both agree on whether the action was enabled, on its outcome and on every variable; every
invariant and action property of MODEL.md §6 holds on both."""

from __future__ import annotations

from collections import Counter

import hypothesis.strategies as st
from hypothesis import HealthCheck, settings
from hypothesis.stateful import RuleBasedStateMachine, initialize, rule, run_state_machine_as_test

from autoswitch.conformance.engines import Config, make_engine
from autoswitch.reference import Options
from autoswitch.conformance.vocabulary import ACTIONS, TRIGGERS
from autoswitch.reference.invariants import violated_action_properties, violated_invariants
from autoswitch.reference.precondition import NotEnabled

PROCS = {"p1": "10.0.0.1:30911", "p2": "10.0.0.2:30911", "p3": "10.0.0.3:30911"}
ADDRS = [*PROCS.values(), "10.0.1.1:30911", "10.0.1.2:30911"]
IDS = st.integers(0, 5)
SMALL = st.integers(0, 4)
SETS = st.frozensets(st.integers(1, 4), max_size=4)
CHECK_CODES = st.sampled_from([f"{a};{t}" for a in ("10.9.9.9:1", ADDRS[0]) for t in range(3)])
MIN_STEPS, EXAMPLES = 50, 200  # required: EXAMPLES examples of MIN_STEPS+ steps (Hypothesis also tries some short ones)
STEPS_RUN: list[int] = []

CONTROLLER_REQUESTS = st.one_of(
    st.builds(dict, tag=st.just("GetNextBrokerId")),
    st.builds(dict, tag=st.just("ApplyBrokerId"), brokerId=IDS, checkCode=CHECK_CODES),
    st.builds(dict, tag=st.just("RegisterBrokerToController"), brokerId=IDS, addr=st.sampled_from(ADDRS)),
    st.builds(dict, tag=st.just("ElectMaster"), trigger=st.sampled_from(TRIGGERS), brokerId=IDS),
    st.builds(dict, tag=st.just("AlterSyncStateSet"), masterId=IDS, masterEpoch=SMALL, newSyncStateSet=SETS, syncStateSetEpoch=SMALL),
    st.builds(dict, tag=st.just("GetReplicaInfo")),
    st.builds(dict, tag=st.just("BrokerHeartbeat"), brokerId=st.integers(-1, 5), epoch=SMALL, maxOffset=SMALL,
              priority=st.integers(0, 2)),  # -1: a null brokerId (spec/README.md, "Trace kinds")
    st.builds(dict, tag=st.just("HeartbeatExpire"), brokerId=IDS),
    st.builds(dict, tag=st.just("ControllerFailover")),
    st.builds(dict, tag=st.just("ControllerElectScan")),
)
CLEAN = st.builds(dict, tag=st.just("CleanBrokerData"), brokerIds=SETS, cleanLiving=st.booleans())


class ModelsAgree(RuleBasedStateMachine):
    """Reference and implementation side by side; ``processes`` and the rules decide what is explored."""

    processes: dict[str, str] = PROCS

    def __init__(self) -> None:
        super().__init__()
        self.steps = 0
        self.ref = self.impl = None

    @initialize(unclean=st.booleans())
    def start(self, unclean: bool) -> None:
        config = Config(self.processes, Options(enable_elect_unclean_master=unclean))
        self.ref, self.impl = make_engine("reference", config), make_engine("impl", config)
        self.before = self._agreed_variables()

    def _outcome(self, engine, action):
        try:
            return dict(engine.step(action))
        except NotEnabled:
            return None

    def _agreed_variables(self) -> dict:
        v, w = self.ref.observed(), self.impl.observed()  # the variables and the trace-only ones
        assert v == w, {k: (v[k], w[k]) for k in v if v[k] != w.get(k)}
        return self.ref.variables()

    def run(self, action: dict) -> None:
        expected, actual = self._outcome(self.ref, action), self._outcome(self.impl, action)
        assert expected == actual, (action, expected, actual)
        after = self._agreed_variables()
        for engine in (self.ref, self.impl):
            assert violated_invariants(engine.variables()) == [], action
        assert violated_action_properties(self.before, after) == [], action
        self.before = after
        self.steps += 1

    def teardown(self) -> None:
        STEPS_RUN.append(self.steps)


class SystemMachine(ModelsAgree):
    """Three broker processes and raw controller requests (all but CleanBrokerData, which by design can
    hand a live process's id to another: see traces/regressions)."""

    @rule(p=st.sampled_from(sorted(PROCS)), lost=st.booleans(), addr=st.sampled_from(ADDRS), pick=st.integers(0, 4), new_set=SETS)
    def advance(self, p: str, lost: bool, addr: str, pick: int, new_set: frozenset) -> None:
        """Take the next step of ``p``'s protocol (most of the exploration goes this way)."""
        state = self.before["regState"][p]
        tag = {
            "DOWN": "Restart", "TEMP_DONE": "SendApplyBrokerId", "APPLY_FAILED": "AbandonTempFile", "ID_APPLIED": "WriteMetaFile",
            "META_WRITTEN": "DeleteTempFile", "META_DONE": "SendRegister",
        }.get(state)
        if state == "INITIAL":
            tag = "LoadMetaFile" if self.before["metaFile"][p] else "LoadTempFile" if self.before["tempFile"][p]["brokerId"] else "CreateTempFile"
        if state == "REGISTERED":
            tag = ["SendHeartbeat", "SendElectMaster", "SyncReplicaInfo", "SendAlterSyncStateSet", "SendHeartbeat"][pick]
        params = {"process": p, "lost": lost, "addr": addr, "newSyncStateSet": new_set}
        self.run({"tag": tag, **{k: params[k] for k in ACTIONS[tag]}})

    @rule(p=st.sampled_from(sorted(PROCS)))
    def crash(self, p: str) -> None:
        self.run({"tag": "Crash", "process": p})

    @rule(p=st.sampled_from(sorted(PROCS)), tag=st.sampled_from(["LoadMetaFile", "LoadTempFile", "CreateTempFile", "WriteMetaFile",
                                                                  "DeleteTempFile", "AbandonTempFile", "SyncReplicaInfo"]))
    def any_process_action(self, p: str, tag: str) -> None:
        """Possibly disabled: both models must refuse the same actions."""
        self.run({"tag": tag, "process": p})

    @rule(action=CONTROLLER_REQUESTS)
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

    @rule(action=st.one_of(CONTROLLER_REQUESTS, CLEAN))
    def request(self, action: dict) -> None:
        self.run(action)


class DataMachine(SystemMachine):
    """SystemMachine plus the data path, under the safe options of MODEL.md §6 with each truncation policy
    that must keep them (``rocketmq``, ``kip279`` with Kafka 2.0.0's or 2.1.0's epoch cache) and synchronous
    or asynchronous learners: every invariant must hold. Operator-only requests that can put a lagging member
    in the set are left out, as are the arbitrary AlterSyncStateSet rules of the parent (the data path's
    Expand/Shrink replace them)."""

    @initialize(policy=st.sampled_from(["rocketmq", "kip279"]), learner=st.booleans(), kafka21=st.booleans())
    def start(self, policy: str, learner: bool, kafka21: bool) -> None:
        options = Options(policy=policy, async_learners=frozenset({"p3"}) if learner else frozenset(),
                          kafka_leader_epoch_on_election=kafka21)
        config = Config(self.processes, options)
        self.ref, self.impl = make_engine("reference", config), make_engine("impl", config)
        self.before = self._agreed_variables()

    @rule(p=st.sampled_from(sorted(PROCS)), tag=st.sampled_from(["Write", "Write", "Handshake", "Transfer", "Transfer", "Ack",
                                                                  "AlterArrives", "Flush", "Consume"]))
    def data_step(self, p: str, tag: str) -> None:
        self.run({"tag": tag, "process": p})

    @rule(p=st.sampled_from(sorted(PROCS)), tag=st.sampled_from(["Expand", "Shrink"]), broker_id=st.integers(1, 3), lost=st.booleans())
    def alter(self, p: str, tag: str, broker_id: int, lost: bool) -> None:
        self.run({"tag": tag, "process": p, "brokerId": broker_id, "lost": lost})

    def run(self, action: dict) -> None:
        if action["tag"] in ("AlterSyncStateSet", "ApplyBrokerId", "RegisterBrokerToController", "SendAlterSyncStateSet"):
            return
        super().run(action)


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
