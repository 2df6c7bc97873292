"""What a trace can say beyond the spec's state (spec/README.md, "Trace kinds"), as a pure layer around
``System`` and ``step``: several broker sets, the controller node's DLedger leadership, request
validation (ControllerRequestProcessor), the identity files' contents and each process's configured
broker set (ReplicasManager.checkMetadataValid). None of it is a spec variable and none of it is in
``Next``: with the defaults (one set, a leader, processes configured as their files) a step is exactly
``step.step``.

The default broker set is ``DefaultCluster``/``broker-a``: the processes belong to it, and ``System``
holds its controller. The other sets' controllers are kept by brokerName (ReplicasInfoManager keys its
tables by brokerName); each is the pure ``Controller`` of one set, stepped by the same functions.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from attrs import evolve, field, frozen
from frozendict import frozendict

from . import codes
from . import controller as ctl
from .precondition import require
from .state import APPLY_FAILED, NO_ID, Controller, Options, System
from .step import step as system_step
from .variables import CONTROLLER_VARIABLES, variables

DEFAULT_CLUSTER = "DefaultCluster"
DEFAULT_BROKER = "broker-a"
DEFAULT_SET = (DEFAULT_CLUSTER, DEFAULT_BROKER)
NULL_BROKER_ID = -1  # a BrokerHeartbeat whose brokerId header is null (ITF has no null)
METADATA_INVALID = "METADATA_INVALID"  # register() returned false at checkMetadataValid: nothing was sent

# Requests that go through DLedgerController.appendEvent: refused with CONTROLLER_NOT_LEADER by a node
# that is not the leader. BrokerHeartbeat is handled by the processor itself, on every node.
REPLICATED = frozenset({"GetNextBrokerId", "ApplyBrokerId", "RegisterBrokerToController", "ElectMaster",
                        "AlterSyncStateSet", "GetReplicaInfo", "CleanBrokerData"})
# Process actions whose request a node that is not the leader refuses (the broker's cached leader
# address is stale): the broker reacts as its code does to a failed call (spec/README.md, "Trace kinds").
TO_LEADER = frozenset({"CreateTempFile", "SendApplyBrokerId", "SendRegister", "SendElectMaster", "SyncReplicaInfo",
                       "SendAlterSyncStateSet"})
NEED_LEADER = frozenset({"Expand", "Shrink"})  # not enabled without a leader (refinement 25)
LEADER_ONLY = frozenset({"ControllerElectScan", "ControllerFailover"})
# What a process configured for another set may do: it never sends a request there (refinement 24); the faults that
# send none, and the delivery of a request sent before (DeliverLate), happen anywhere.
RUN_ANYWHERE = frozenset({"LoadMetaFile", "LoadTempFile", "Crash", "Flush", "CrashTorn", "WipeDisk", "PartitionLink", "HealLink",
                          "DeliverLate"})
# The register() steps that run checkMetadataValid first, in the state where they do
# (RegisterState CREATE_TEMP_METADATA_FILE_DONE / CREATE_METADATA_FILE_DONE).
CHECKS_METADATA = {"SendApplyBrokerId": "TEMP_DONE", "SendRegister": "META_DONE"}


@frozen
class Cluster:
    """``system`` (processes and the default set), the other sets' controllers by brokerName with their
    cluster names, whether the controller node has leadership, and each process's configured
    (clusterName, brokerName) where it is not the default set. A process writes its identity files
    only while configured for the default set (elsewhere it sends no request, so it is never given an
    id to write), so every file names ``DEFAULT_SET``."""

    system: System
    sets: frozendict[str, Controller] = field(factory=frozendict)
    clusters: frozendict[str, str] = field(factory=lambda: frozendict({DEFAULT_BROKER: DEFAULT_CLUSTER}))
    leader: bool = True
    configs: frozendict[str, tuple[str, str]] = field(factory=frozendict)

    def config_of(self, process: str) -> tuple[str, str]:
        return self.configs.get(process, DEFAULT_SET)


def initial_cluster(system: System, broker_sets: Mapping[str, str] | None = None) -> Cluster:
    """Init with the declared sets (brokerName -> clusterName; the default set is always one)."""
    clusters = frozendict({DEFAULT_BROKER: DEFAULT_CLUSTER, **(broker_sets or {})})
    sets = frozendict({b: Controller() for b in clusters if b != DEFAULT_BROKER})
    return Cluster(system, sets, clusters)


def _outcome(code: str) -> frozendict:
    return frozendict(code=code)


def set_of(c: Cluster, action: Mapping[str, Any]) -> str:
    """The brokerName a controller-level action names (absent: the default set); raises ``NotEnabled`` for an undeclared one."""
    if "brokerName" not in action and "clusterName" not in action:
        return DEFAULT_BROKER
    broker = action.get("brokerName", DEFAULT_BROKER)
    require(broker in c.clusters, f"broker set {broker!r} is not declared in #meta.brokerSets")
    cluster = action.get("clusterName", c.clusters[broker])
    require(cluster == c.clusters[broker], f"{broker!r} belongs to cluster {c.clusters[broker]!r}, not {cluster!r}")
    return broker


def _with_system(c: Cluster, s: System) -> Cluster:
    """``evolve(c, system=s)``, built directly: it runs on every step of every replay."""
    return Cluster(s, c.sets, c.clusters, c.leader, c.configs)


def _without_set(action: Mapping[str, Any]) -> Mapping[str, Any]:
    if "brokerName" not in action and "clusterName" not in action:
        return action
    return {k: v for k, v in action.items() if k not in ("clusterName", "brokerName")}


def _on_set(c: Cluster, broker: str, action: Mapping[str, Any], opts: Options) -> tuple[Cluster, frozendict]:
    """A controller-level action on one set: the set's controller stands in for the default one."""
    plain = _without_set(action)
    if broker == DEFAULT_BROKER:
        s, outcome = system_step(c.system, plain, opts)
        return _with_system(c, s), outcome
    s, outcome = system_step(evolve(c.system, controller=c.sets[broker]), plain, opts)
    return evolve(c, sets=c.sets.set(broker, s.controller)), outcome


def _failover(c: Cluster) -> Cluster:
    """A new leader starts with an empty heartbeat table, for every set (ControllerFailover)."""
    system = evolve(c.system, controller=ctl.controller_failover(c.system.controller)[0])
    return evolve(c, system=system, sets=frozendict({b: ctl.controller_failover(x)[0] for b, x in c.sets.items()}))


def step(c: Cluster, action: Mapping[str, Any], opts: Options) -> tuple[Cluster, frozendict]:
    """One action of a trace; raises ``NotEnabled`` as ``step.step`` does."""
    tag = action["tag"]
    if tag == "ControllerLeaderLost":
        require(c.leader, "the controller has no leader")
        return evolve(c, leader=False), _outcome(codes.OK)
    if tag == "ControllerLeaderElected":
        require(not c.leader, "the controller already has a leader")
        return evolve(_failover(c), leader=True), _outcome(codes.OK)
    if tag in LEADER_ONLY:
        require(c.leader, f"{tag}: the controller has no leader")
        if tag == "ControllerFailover":
            return _failover(c), _outcome(codes.OK)
    if "process" not in action:
        broker = set_of(c, action)
        if tag in REPLICATED and not c.leader:
            return c, _outcome(codes.CONTROLLER_NOT_LEADER)
        if tag == "BrokerHeartbeat" and action["brokerId"] == NULL_BROKER_ID:
            return c, _outcome(codes.CONTROLLER_INVALID_REQUEST)
        return _on_set(c, broker, action, opts)
    return _process_step(c, action, opts)


def _refused_by_non_leader(c: Cluster, action: Mapping[str, Any], opts: Options) -> tuple[Cluster, frozendict]:
    """A broker's request answered CONTROLLER_NOT_LEADER: enabled as the action is; nothing is applied,
    no checkCode timestamp is taken (getNextBrokerId returned null), and only a refused ApplyBrokerId
    changes the broker (APPLY_FAILED, then AbandonTempFile: ReplicasManager.register clears the temp file
    whenever applyBrokerId fails). Every other step keeps the broker as it was (the call threw)."""
    system_step(c.system, action, opts)  # raises NotEnabled where the action is not enabled
    outcome = _outcome(codes.CONTROLLER_NOT_LEADER)
    if action["tag"] != "SendApplyBrokerId":
        return c, outcome
    p = action["process"]
    failed = evolve(c.system.procs[p], reg_state=APPLY_FAILED)
    return _with_system(c, evolve(c.system, procs=c.system.procs.set(p, failed))), outcome


def _process_step(c: Cluster, action: Mapping[str, Any], opts: Options) -> tuple[Cluster, frozendict]:
    tag, process = action["tag"], action["process"]
    require(tag not in NEED_LEADER or c.leader, f"{tag}: the controller has no leader (refinement 25)")
    if tag == "Restart":
        old = c.config_of(process)
        config = (action.get("clusterName", old[0]), action.get("brokerName", old[1]))
        s, outcome = system_step(c.system, _without_set(action), opts)
        configs = c.configs.delete(process) if process in c.configs else c.configs
        return evolve(c, system=s, configs=configs if config == DEFAULT_SET else configs.set(process, config)), outcome
    if process in c.configs:  # configured for another set than its files (checkMetadataValid) name
        state = CHECKS_METADATA.get(tag)
        if state is not None and process in c.system.procs and c.system.procs[process].reg_state == state:
            return c, _outcome(METADATA_INVALID)
        require(tag in RUN_ANYWHERE, f"{tag}: {process} is configured for {c.configs[process]}; processes run in the default set")
    if tag in TO_LEADER and not c.leader:
        return _refused_by_non_leader(c, action, opts)
    late = c.system.late.get(process) if tag == "DeliverLate" else None
    if late is not None and late["tag"] in REPLICATED and not c.leader:  # the late request reaches a node that is not the leader
        return _with_system(c, evolve(c.system, late=c.system.late.delete(process))), _outcome(codes.CONTROLLER_NOT_LEADER)
    s, outcome = system_step(c.system, action, opts)
    return _with_system(c, s), outcome


def is_spec_step(c: Cluster, action: Mapping[str, Any]) -> bool:
    """The action is a spec action of the default set as ``step.step`` runs it: no other set named, the
    controller has a leader, no null brokerId (what the controller's own encodings may compare)."""
    return (action.get("brokerName", DEFAULT_BROKER) == DEFAULT_BROKER and c.leader
            and not (action["tag"] == "BrokerHeartbeat" and action["brokerId"] == NULL_BROKER_ID))


def meta_file_content(c: Cluster, process: str) -> str:
    """``brokerIdentity`` as BrokerMetadata.encodeToStr writes it; "" when there is none."""
    x = c.system.procs[process]
    if x.meta_file == NO_ID:
        return ""
    return f"{DEFAULT_CLUSTER}#{DEFAULT_BROKER}#{x.meta_file}"


def temp_file_content(c: Cluster, process: str) -> str:
    """``brokerIdentity-temp`` as TempBrokerMetadata.encodeToStr writes it; "" when there is none."""
    t = c.system.procs[process].temp_file
    if t is None:
        return ""
    return f"{DEFAULT_CLUSTER}#{DEFAULT_BROKER}#{t.broker_id}#{t.check_code}"


def trace_variables(c: Cluster) -> dict[str, Any]:
    """The trace-only variables (spec/README.md, "Trace kinds")."""
    procs = c.system.procs
    return {
        "controllerLeader": c.leader,
        "metaFileContent": {p: meta_file_content(c, p) for p in procs},
        "tempFileContent": {p: temp_file_content(c, p) for p in procs},
        "brokerConfig": {p: "#".join(c.config_of(p)) for p in procs},
    }


def set_controllers(c: Cluster) -> dict[str, Controller]:
    """Every declared set's controller by brokerName."""
    return {DEFAULT_BROKER: c.system.controller, **c.sets}


def observed(c: Cluster, multi_set: bool) -> dict[str, Any]:
    """What a trace compares: the spec's variables (with ``multi_set`` each controller variable a
    function brokerName -> value) and the trace-only variables."""
    view = variables(c.system)
    if multi_set:
        per_set = set_controllers(c)
        for name, read in CONTROLLER_VARIABLES.items():
            view[name] = {b: read(x) for b, x in per_set.items()}
    return {**view, **trace_variables(c)}

