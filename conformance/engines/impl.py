"""The adapter the conformance suite drives: one broker set (``DefaultCluster`` / ``broker-a``) with its
controller and broker processes, stepped by the action records of ``reference/actions.py`` (MODEL.md §7)
and observed as the reference's variables (``reference/variables.py``). It is the one place that knows
both the implementation and the reference: it builds the :class:`~autoswitch.impl.config.ImplConfig` from the
reference's ``Options`` (:func:`impl_config`), turns the implementation's ``IllegalStateError`` into
``NotEnabled``, and its domain values (responses, offsets, None) into trace outcomes.

Controller-level tags send the request to the controller directly (an admin tool or an outside trace);
process-level tags drive a broker's ``ReplicasManager``, its HA service or HA client. A ``lost`` flag
makes the transport drop that step's response after the controller applied the request. Both go through
the controller node's ``ControllerRequestProcessor`` (leadership, request validation), and so does a late
request (``SendLate``: built by the broker now, held by the client's network, applied by ``DeliverLate``). The trace kinds of
spec/README.md ("Trace kinds") are run here too: controller requests naming other declared broker sets
(the controller keeps every set), leadership changes, and :meth:`ImplSystem.observed` with the identity
files as the disk holds them.

The designs RIP-44 replaced (``Options.design``, reference/designs.py): the adapter provisions each disk as
InitDesign says (``impl/store_config.py``: the identity file and ``broker.conf``) before the processes start, steps
the 4.x tags on a broker's ``MasterSlaveManager`` and the DLedger tags on its ``DLedgerServer``, refuses a tag that
is not an action of the configuration's design (the network's faults aside), and reads ``brokerRole`` and ``term``
off each disk.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any, TypeVar

import attrs

from autoswitch.conformance.engines.config import Config
from autoswitch.conformance.errors import InputError
from autoswitch.impl.broker import BrokerConfig, BrokerProcess, CheckCodeClock
from autoswitch.impl.client import ControllerClient, LateRequest
from autoswitch.impl.config import HAConfig, ImplConfig
from autoswitch.impl.controller import ControllerConfig, ControllerManager
from autoswitch.impl.dledger import DLedgerServer, load_term
from autoswitch.impl.epoch_file import EpochFile
from autoswitch.impl.event_log import CHANGES_LOGGED, CLOCK_COUNTS_STEPS, LOGGED_CHANGES, LOGGED_REQUESTS, LOGGED_STEPS, EventSink
from autoswitch.impl.fs import OS_FILE_SYSTEM, FileSystem
from autoswitch.impl.ha import BrokerSet
from autoswitch.impl.master_slave import MasterSlaveManager, PutMessageStatus, operator_failover
from autoswitch.impl.metadata import META_FILE, TEMP_META_FILE, load_meta, load_temp
from autoswitch.impl.processor import ControllerRequestProcessor
from autoswitch.impl.protocol import (
    EXPIRED_TERM,
    IN_SYNC_REPLICAS_NOT_ENOUGH,
    METADATA_INVALID,
    NO_CONSISTENT_POINT,
    NO_MASTER_ID,
    AlterSyncStateSetRequest,
    ApplyBrokerIdRequest,
    BrokerHeartbeatRequest,
    CleanBrokerDataRequest,
    ElectMasterRequest,
    GetNextBrokerIdRequest,
    GetReplicaInfoRequest,
    RegisterBrokerToControllerRequest,
    Response,
    ResponseCode,
)
from autoswitch.impl.replicas_manager import ReplicasManager
from autoswitch.impl.states import IllegalStateError, Role
from autoswitch.impl.storage import FileStorage, MemoryStorage, Storage, UnsafeName, safe_dir_name
from autoswitch.impl.store_config import initial_configs, load_store_config, provision
from autoswitch.reference.actions import ACTIONS
from autoswitch.reference.precondition import NotEnabled
from autoswitch.reference.state import CONTROLLER, Options

CLUSTER_NAME = "DefaultCluster"
BROKER_NAME = "broker-a"
DEFAULT_CONFIG = BrokerConfig(CLUSTER_NAME, BROKER_NAME)
NULL_BROKER_ID = -1  # a trace's null brokerId (spec/README.md, "Trace kinds")
_SUCCESS = ResponseCode.SUCCESS.name
# Data-path alters are not enabled without a controller leader (refinement 25).
_NEED_LEADER = frozenset({"Expand", "Shrink"})
# What a process configured for another broker set than the default may do: it never sends a request
# there (SendApplyBrokerId and SendRegister refuse at checkMetadataValid: its files name the default set).
_RUN_ANYWHERE = frozenset({"LoadMetaFile", "LoadTempFile", "SendApplyBrokerId", "SendRegister", "Crash", "Flush", "Restart"})
# The network's faults, which every design's replication reads (a cut link stops a 4.x slave's transfer, a DLedger
# push or vote): taken in any design, though only controller mode's Next has them.
_EVERY_DESIGN = frozenset({"PartitionLink", "HealLink"})

Outcome = dict[str, Any]
_Running = TypeVar("_Running", MasterSlaveManager, DLedgerServer)


@cache  # one ImplConfig per Options (a campaign builds an engine per walk)
def impl_config(options: Options) -> ImplConfig:
    """The implementation's options from the reference's, by field name: the ``ControllerConfig`` fields
    go to the controller, every other ``Options`` field to ``HAConfig`` (an option the implementation does
    not declare is a TypeError here)."""
    values = attrs.asdict(options, recurse=False)
    controller = {f.name for f in attrs.fields(ControllerConfig)}
    return ImplConfig(
        controller=ControllerConfig(**{k: v for k, v in values.items() if k in controller}),
        ha=HAConfig(**{k: v for k, v in values.items() if k not in controller}),
    )


def _outcome(response: Response | None) -> Outcome:
    """A controller response as a trace outcome: ``code`` by name, the header fields, the syncStateSet.
    ``response`` is the client's last response: None only before the first request."""
    assert response is not None, "no request was sent"
    body = response.body
    if body is None:
        return {"code": response.name, **response.header}
    return {"code": response.name, **response.header, "syncStateSet": body}


class ImplSystem:
    """The implementation of one broker set, steppable like the reference model. With ``storage="file"``
    each process's disk is the directory ``root/<process name>`` (a name that is not one plain directory
    entry is an InputError) on the file system ``fs``. With ``event_dir`` the implementation writes its event log there
    (one NDJSON file per node, docs/INSTRUMENTING.md), its logical clock advanced by every step; :meth:`close` ends it."""

    def __init__(
        self,
        processes: Mapping[str, str],
        options: Options | None = None,
        *,
        storage: str = "memory",
        root: str | None = None,
        broker_sets: Mapping[str, str] | None = None,
        fs: FileSystem = OS_FILE_SYSTEM,
        event_dir: str | None = None,
    ) -> None:
        if storage not in ("memory", "file"):
            raise ValueError(f"unknown storage backend {storage!r}")
        if storage == "file" and root is None:
            raise ValueError("the file storage backend needs a root directory")
        config = impl_config(options or Options())
        # the run's event log (impl/event_log.py), its header the configuration as a trace's #meta says it, the steps
        # logged every time, and that the clock counts steps (step() ticks it once per step)
        self._events = None if event_dir is None else EventSink(
            event_dir, {**Config(dict(processes), options or Options()).to_meta(), "complete": list(LOGGED_STEPS),
                        CLOCK_COUNTS_STEPS: True, CHANGES_LOGGED: {node: list(names) for node, names in LOGGED_CHANGES.items()}})
        self._controller = ControllerManager(config.controller, self._events)
        self._processor = ControllerRequestProcessor(self._controller, self._events)  # the node the brokers and traces call
        # the sets a trace observes (brokerName -> clusterName); None: the default set, variables as today
        self._broker_sets = None if broker_sets is None else dict(broker_sets)
        self._client = ControllerClient(self._processor)
        self._clock = CheckCodeClock()
        self._master_history: set[tuple[int, str]] = set()
        # Requests without parameters are built once (handlers never mutate a request).
        self._next_broker_id_request = GetNextBrokerIdRequest(CLUSTER_NAME, BROKER_NAME)
        self._replica_info_request = GetReplicaInfoRequest(CLUSTER_NAME, BROKER_NAME)
        self._controller_elect_request = ElectMasterRequest(CLUSTER_NAME, BROKER_NAME, None)
        self._broker_set = BrokerSet(config.ha)
        self._design = config.ha.design
        disks: dict[str, Storage] = {
            name: MemoryStorage() if root is None or storage == "memory" else FileStorage(_process_root(root, name), fs)
            for name in processes
        }
        if self._design != CONTROLLER:  # InitDesign: the operator provisions each disk before the first start
            for name, (broker_id, store_config) in initial_configs(list(processes), self._design, config.ha.sync_master).items():
                provision(disks[name], DEFAULT_CONFIG, broker_id, store_config)
        self._processes: dict[str, BrokerProcess] = {}
        for name, address in processes.items():
            self._processes[name] = BrokerProcess(
                name, DEFAULT_CONFIG, disks[name], address, self._client, self._clock, self._record_master, self._broker_set,
                self._events,
            )

    def close(self) -> None:
        """Close the event log's files (nothing without ``event_dir``)."""
        if self._events is not None:
            self._events.close()

    def _record_master(self, process: str, master_epoch: int) -> None:
        """Ghost variable: which process acted as master in which master epoch."""
        self._master_history.add((master_epoch, process))

    def step(self, action: Mapping[str, Any]) -> Outcome:
        """Apply one action record; raises ``NotEnabled`` if it is not enabled in this state (the
        implementation's ``IllegalStateError`` included)."""
        if self._events is not None:
            self._events.tick()
        tag = action["tag"]
        run = _STEPS.get(tag)
        if run is None:
            raise NotEnabled(f"unknown action tag {tag!r}")
        if self._design not in ACTIONS[tag].designs and tag not in _EVERY_DESIGN:
            raise NotEnabled(f"{tag} is not an action of the {self._design} design")
        process = action.get("process")
        if process is not None:
            if tag in _NEED_LEADER and not self._processor.is_leader:
                raise NotEnabled(f"{tag}: the controller has no leader (refinement 25)")
            if tag not in _RUN_ANYWHERE and _broker(self, process).config != DEFAULT_CONFIG:
                raise NotEnabled(f"{tag}: {process} is configured for another broker set; processes run in the default set")
        if process is None and tag in _REQUESTS:  # a controller-level request: a client other than the brokers sends it
            self._processor.log_request(action)
        try:
            return run(self, action)
        except IllegalStateError as e:
            raise NotEnabled(str(e)) from None

    def _set(self, a: Mapping[str, Any]) -> tuple[str, str]:
        """The (clusterName, brokerName) a controller-level action names: the default set when absent."""
        broker_name = a.get("brokerName", BROKER_NAME)
        sets = self._broker_sets or {BROKER_NAME: CLUSTER_NAME}
        if broker_name not in sets:
            raise NotEnabled(f"broker set {broker_name!r} is not declared")
        cluster_name = a.get("clusterName", sets[broker_name])
        if cluster_name != sets[broker_name]:
            raise NotEnabled(f"{broker_name!r} belongs to cluster {sets[broker_name]!r}, not {cluster_name!r}")
        return cluster_name, broker_name

    # ---- controller-level actions -------------------------------------------------------------------

    def _get_next_broker_id(self, a: Mapping[str, Any]) -> Outcome:
        cluster_name, broker_name = self._set(a)
        request = (self._next_broker_id_request if broker_name == BROKER_NAME
                   else GetNextBrokerIdRequest(cluster_name, broker_name))  # fmt: skip
        return _outcome(self._processor.get_next_broker_id(request))

    def _apply_broker_id(self, a: Mapping[str, Any]) -> Outcome:
        request = ApplyBrokerIdRequest(*self._set(a), a["brokerId"], a["checkCode"])
        return _outcome(self._processor.apply_broker_id(request))

    def _register_broker(self, a: Mapping[str, Any]) -> Outcome:
        request = RegisterBrokerToControllerRequest(*self._set(a), a["brokerId"], a["addr"])
        return _outcome(self._processor.register_broker(request))

    def _elect_master(self, a: Mapping[str, Any]) -> Outcome:
        trigger = a["trigger"]
        cluster_name, broker_name = self._set(a)
        if trigger == "controller":
            request = (self._controller_elect_request if broker_name == BROKER_NAME
                       else ElectMasterRequest(cluster_name, broker_name, None))  # fmt: skip
        else:
            request = ElectMasterRequest(cluster_name, broker_name, a["brokerId"], trigger == "admin")
        return _outcome(self._processor.elect_master(request))

    def _alter_sync_state_set(self, a: Mapping[str, Any]) -> Outcome:
        request = AlterSyncStateSetRequest(
            *self._set(a),
            a["masterId"],
            a["masterEpoch"],
            frozenset(a["newSyncStateSet"]),
            a["syncStateSetEpoch"],
        )
        return _outcome(self._processor.alter_sync_state_set(request))

    def _get_replica_info(self, a: Mapping[str, Any]) -> Outcome:
        cluster_name, broker_name = self._set(a)
        request = (self._replica_info_request if broker_name == BROKER_NAME
                   else GetReplicaInfoRequest(cluster_name, broker_name))  # fmt: skip
        return _outcome(self._processor.get_replica_info(request))

    def _broker_heartbeat(self, a: Mapping[str, Any]) -> Outcome:
        broker_id = None if a["brokerId"] == NULL_BROKER_ID else a["brokerId"]
        request = BrokerHeartbeatRequest(*self._set(a), broker_id, a["epoch"], a["maxOffset"], a["priority"])
        return _outcome(self._processor.broker_heartbeat(request))

    def _heartbeat_expire(self, a: Mapping[str, Any]) -> Outcome:
        broker_id = a["brokerId"]
        if not self._controller.on_broker_inactive(*self._set(a), broker_id):
            raise NotEnabled(f"HeartbeatExpire: broker {broker_id} is not alive")
        return {"code": "OK"}

    def _controller_failover(self, a: Mapping[str, Any]) -> Outcome:
        if not self._processor.is_leader:
            raise NotEnabled("ControllerFailover: the controller has no leader")
        self._controller.failover()
        return {"code": "OK"}

    def _controller_metadata_loss(self, a: Mapping[str, Any]) -> Outcome:
        if BROKER_NAME not in self._controller.replicas_info.replica_info_table:
            raise NotEnabled("ControllerMetadataLoss: the controller does not know the broker set")
        self._controller.lose_metadata()
        return {"code": "OK"}

    def _controller_leader_lost(self, a: Mapping[str, Any]) -> Outcome:
        if not self._processor.is_leader:
            raise NotEnabled("the controller has no leader")
        self._processor.leader_lost()
        return {"code": "OK"}

    def _controller_leader_elected(self, a: Mapping[str, Any]) -> Outcome:
        if self._processor.is_leader:
            raise NotEnabled("the controller already has a leader")
        self._processor.leader_elected()
        return {"code": "OK"}

    def _clean_broker_data(self, a: Mapping[str, Any]) -> Outcome:
        request = CleanBrokerDataRequest(*self._set(a), frozenset(a["brokerIds"]), a["cleanLiving"])
        return _outcome(self._processor.clean_broker_data(request))

    def _controller_elect_scan(self, a: Mapping[str, Any]) -> Outcome:
        if not self._processor.is_leader:
            raise NotEnabled("ControllerElectScan: the scan runs on the leader only")
        response = self._controller.scan_inactive_master(*self._set(a))
        if response is None:
            raise NotEnabled("no re-election needed")
        return _outcome(response)

    # ---- process-level actions ----------------------------------------------------------------------

    def _send_alter_sync_state_set(self, a: Mapping[str, Any]) -> Outcome:
        manager = _running_manager(self, a["process"])
        client = self._client
        _losing(client, a["lost"], manager.send_alter_sync_state_set, frozenset(a["newSyncStateSet"]))
        return _outcome(client.last_response)

    def _crash(self, a: Mapping[str, Any]) -> Outcome:
        _broker(self, a["process"]).crash()
        return {"code": "OK"}

    def _restart(self, a: Mapping[str, Any]) -> Outcome:
        broker = _broker(self, a["process"])
        config = BrokerConfig(a.get("clusterName", broker.config.cluster_name), a.get("brokerName", broker.config.broker_name))
        broker.restart(a["addr"], config)
        return {"code": "OK"}

    def _crash_torn(self, a: Mapping[str, Any]) -> Outcome:
        _broker(self, a["process"]).crash_torn()
        return {"code": "OK"}

    def _wipe_disk(self, a: Mapping[str, Any]) -> Outcome:
        _broker(self, a["process"]).wipe_disk()
        return {"code": "OK"}

    def _partition_link(self, a: Mapping[str, Any]) -> Outcome:
        self._broker_set.partition_link(a["process"], a["peer"], a["lost"])
        return {"code": "OK"}

    def _heal_link(self, a: Mapping[str, Any]) -> Outcome:
        self._broker_set.heal_link(a["process"], a["peer"])
        return {"code": "OK"}

    def _send_late(self, a: Mapping[str, Any]) -> Outcome:
        build = _LATE_REQUESTS.get(a["request"])
        if build is None:
            raise NotEnabled(f"SendLate: {a['request']!r} is not a request a broker sends late")
        manager = _running_manager(self, a["process"])
        manager.send_late(build(manager))
        return {"code": "OK"}

    def _deliver_late(self, a: Mapping[str, Any]) -> Outcome:
        return _outcome(self._client.deliver_late(a["process"]))

    def _flush(self, a: Mapping[str, Any]) -> Outcome:
        _broker(self, a["process"]).flush()
        return {"code": "OK"}

    # ---- data-path actions --------------------------------------------------------------------------

    def _write(self, a: Mapping[str, Any]) -> Outcome:
        written = _running_manager(self, a["process"]).ha_service.write()
        if written is None:
            return {"code": IN_SYNC_REPLICAS_NOT_ENOUGH}
        msg, offset = written
        return {"code": _SUCCESS, "msg": msg, "offset": offset}

    def _handshake(self, a: Mapping[str, Any]) -> Outcome:
        point = _running_manager(self, a["process"]).ha_client.handshake()
        return {"code": NO_CONSISTENT_POINT if point < 0 else "OK", "truncateOffset": point}

    def _transfer(self, a: Mapping[str, Any]) -> Outcome:
        _running_manager(self, a["process"]).ha_client.transfer()
        return {"code": "OK"}

    def _ack(self, a: Mapping[str, Any]) -> Outcome:
        _running_manager(self, a["process"]).ha_client.ack()
        return {"code": "OK"}

    def _expand(self, a: Mapping[str, Any]) -> Outcome:
        service = _running_manager(self, a["process"]).ha_service
        client = self._client
        _losing(client, a["lost"], service.expand, a["brokerId"])
        return _outcome(client.last_response)

    def _shrink(self, a: Mapping[str, Any]) -> Outcome:
        service = _running_manager(self, a["process"]).ha_service
        client = self._client
        _losing(client, a["lost"], service.shrink, a["brokerId"])
        return _outcome(client.last_response)

    def _alter_arrives(self, a: Mapping[str, Any]) -> Outcome:
        return {"code": _running_manager(self, a["process"]).alter_arrives().name}

    def _consume(self, a: Mapping[str, Any]) -> Outcome:
        _running_manager(self, a["process"])
        _broker(self, a["process"]).consume()
        return {"code": "OK"}

    # ---- the designs RIP-44 replaced: 4.x master-slave, DLedger ---------------------------------------

    def _ms_write(self, a: Mapping[str, Any]) -> Outcome:
        status, msg, offset = _running_as(self, a["process"], MasterSlaveManager).ha_service.put_message()
        return {"code": _SUCCESS if status is PutMessageStatus.PUT_OK else status.name, "msg": msg, "offset": offset}

    def _ms_connect(self, a: Mapping[str, Any]) -> Outcome:
        _running_as(self, a["process"], MasterSlaveManager).ha_client.connect_master()
        return {"code": "OK"}

    def _ms_transfer(self, a: Mapping[str, Any]) -> Outcome:
        _running_as(self, a["process"], MasterSlaveManager).ha_client.dispatch_read_request()
        return {"code": "OK"}

    def _ms_ack(self, a: Mapping[str, Any]) -> Outcome:
        _running_as(self, a["process"], MasterSlaveManager).ha_client.report_slave_max_offset()
        return {"code": "OK"}

    def _ms_slave_timeout(self, a: Mapping[str, Any]) -> Outcome:
        return {"code": _running_as(self, a["process"], MasterSlaveManager).ha_service.slave_timeout().name}

    def _design_restart(self, a: Mapping[str, Any]) -> Outcome:
        _broker(self, a["process"]).start()
        return {"code": "OK"}

    def _operator_failover(self, a: Mapping[str, Any]) -> Outcome:
        operator_failover(self._broker_set, a["process"])
        return {"code": "OK"}

    def _dl_elect(self, a: Mapping[str, Any]) -> Outcome:
        return {"code": "OK", "term": _running_as(self, a["process"], DLedgerServer).leader_elector.elect()}

    def _dl_write(self, a: Mapping[str, Any]) -> Outcome:
        msg, offset = _running_as(self, a["process"], DLedgerServer).append_as_leader()
        return {"code": _SUCCESS, "msg": msg, "offset": offset}

    def _dl_push(self, a: Mapping[str, Any]) -> Outcome:
        accepted, value = _running_as(self, a["process"], DLedgerServer).entry_pusher.push(a["peer"])
        return {"code": _SUCCESS, "offset": value} if accepted else {"code": EXPIRED_TERM, "term": value}

    # ---- observation --------------------------------------------------------------------------------

    def _set_variables(self, cluster_name: str, broker_name: str) -> dict[str, Any]:
        """The controller variables of one broker set."""
        info = self._controller.replicas_info
        replica = info.replica_info_table.get(broker_name)
        sync = info.sync_state_set_info_table.get(broker_name)
        alive = self._controller.heartbeat_manager.live_table(cluster_name, broker_name)
        return {
            "replicas": {}
            if replica is None
            else {b: {"addr": e.address, "checkCode": e.register_check_code} for b, e in replica.broker_id_table.items()},
            "nextBrokerId": 1 if replica is None else replica.next_assign_broker_id,
            "masterId": NO_MASTER_ID if sync is None else sync.master_broker_id,
            "masterEpoch": 0 if sync is None else sync.master_epoch,
            "syncStateSet": frozenset() if sync is None else sync.sync_state_set,
            "syncStateSetEpoch": 0 if sync is None else sync.sync_state_set_epoch,
            "alive": {
                b: {"epoch": i.epoch, "maxOffset": i.max_offset, "priority": i.election_priority}
                for b, i in alive.items()
            },
            "electTriesLeft": self._controller.elect_tries_left.get(broker_name, 0),
        }

    def other_sets(self) -> dict[str, dict[str, Any]]:
        """The controller variables of each declared set but the default one, by brokerName."""
        sets = self._broker_sets or {}
        return {b: self._set_variables(c, b) for b, c in sets.items() if b != BROKER_NAME}

    def observed(self) -> dict[str, Any]:
        """What a trace compares (spec/README.md, "Trace kinds"): the variables, with declared broker
        sets each controller variable a function brokerName -> value, and the trace-only variables."""
        view = self.variables()
        if self._broker_sets is not None:
            per_set = {BROKER_NAME: {name: view[name] for name in self._set_variables(CLUSTER_NAME, BROKER_NAME)},
                       **self.other_sets()}
            for name in per_set[BROKER_NAME]:
                view[name] = {b: values[name] for b, values in per_set.items()}
        processes = self._processes.items()
        view["controllerLeader"] = self._processor.is_leader
        view["metaFileContent"] = {name: b.storage.read(META_FILE) or "" for name, b in processes}
        view["tempFileContent"] = {name: b.storage.read(TEMP_META_FILE) or "" for name, b in processes}
        view["brokerConfig"] = {name: f"{b.config.cluster_name}#{b.config.broker_name}" for name, b in processes}
        return view

    def variables(self) -> dict[str, Any]:
        """The reference's variables (``reference/variables.py``), read from the implementation's state."""
        meta_file: dict[str, int] = {}
        temp_file: dict[str, dict[str, Any]] = {}
        reg_state: dict[str, str] = {}
        addr: dict[str, str] = {}
        role: dict[str, str] = {}
        local_master_epoch: dict[str, int] = {}
        local_sync_state_set_epoch: dict[str, int] = {}
        log: dict[str, list[tuple[int, int]]] = {}
        flushed: dict[str, int] = {}
        epoch_file: dict[str, list[tuple[int, int]]] = {}
        confirm_offset: dict[str, int] = {}
        local_master_id: dict[str, int] = {}
        local_sync_state_set: dict[str, frozenset[int]] = {}
        ha_state: dict[str, str] = {}
        acks: dict[str, dict[int, int]] = {}
        pending_alter: dict[str, dict[str, Any]] = {}
        broker_role: dict[str, str] = {}
        term: dict[str, int] = {}
        for name, broker in self._processes.items():
            meta = load_meta(broker.storage)
            temp = load_temp(broker.storage)
            manager = broker.replicas_manager
            meta_file[name] = meta.broker_id if meta is not None else 0
            temp_file[name] = (
                {"brokerId": temp.broker_id, "checkCode": temp.register_check_code}
                if temp is not None
                else {"brokerId": 0, "checkCode": ""}
            )
            reg_state[name] = broker.register_state.value
            addr[name] = broker.address
            role[name] = Role.NONE.value if manager is None else manager.role.value
            controller_mode = isinstance(manager, ReplicasManager)
            local_master_epoch[name] = manager.master_epoch if controller_mode else 0
            local_sync_state_set_epoch[name] = manager.sync_state_set_epoch if controller_mode else 0
            broker_role[name] = _broker_role(broker.storage)
            term[name] = load_term(broker.storage)
            log[name] = list(broker.commit_log.entries)
            flushed[name] = broker.commit_log.flushed
            epoch_file[name] = broker.epoch_file.entries()
            confirm_offset[name] = broker.confirm_offset
            if manager is None:
                local_master_id[name] = NO_MASTER_ID
                local_sync_state_set[name] = frozenset()
                ha_state[name] = "NONE"
                acks[name] = {}
                pending = None
            elif not isinstance(manager, ReplicasManager):  # the designs RIP-44 replaced: no epochs, no syncStateSet
                local_master_id[name] = manager.master_id
                local_sync_state_set[name] = frozenset()
                ha_state[name] = manager.ha_client.ha_state.value
                acks[name] = dict(manager.ha_service.acks)
                pending = None
            else:
                service = manager.ha_service
                local_master_id[name] = manager.master_id
                local_sync_state_set[name] = service.sync_state_set
                ha_state[name] = manager.ha_client.ha_state.value
                acks[name] = dict(service.acks)
                pending = service.pending_alter
            pending_alter[name] = (
                {"newSyncStateSet": pending.new_sync_state_set, "code": pending.response.name,
                 "syncStateSetEpoch": pending.response.header["syncStateSetEpoch"], "delivered": pending.delivered}
                if pending is not None
                else {"newSyncStateSet": frozenset(), "code": "", "syncStateSetEpoch": -1, "delivered": False}
            )  # fmt: skip
        return {
            **self._set_variables(CLUSTER_NAME, BROKER_NAME),
            "metaFile": meta_file,
            "tempFile": temp_file,
            "regState": reg_state,
            "addr": addr,
            "role": role,
            "localMasterEpoch": local_master_epoch,
            "localSyncStateSetEpoch": local_sync_state_set_epoch,
            "clock": self._clock.now,
            "masterHistory": frozenset(self._master_history),
            "log": log,
            "flushed": flushed,
            "epochFile": epoch_file,
            "confirmOffset": confirm_offset,
            "localMasterId": local_master_id,
            "localSyncStateSet": local_sync_state_set,
            "haState": ha_state,
            "acks": acks,
            "pendingAlter": pending_alter,
            "nextMsg": self._broker_set.next_msg,
            "acked": frozenset(self._broker_set.acked),
            "seen": frozenset(self._broker_set.seen),
            "partitions": frozenset(self._broker_set.partitions),
            "late": {p: _late_record(r) for p, r in self._client.in_flight.items()},
            "brokerRole": broker_role,
            "term": term,
        }

    def truncation_point(self, pre: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """A slave's Handshake from given inputs (the handshake trace kind: ``slaveEpochs``, ``slaveLeo``,
        ``slaveConfirmOffset``, ``masterEpochs``, ``masterLeo``), by this broker set's truncation policy and
        epoch file (ReplicasManager.handshake): the outcome and the slave's ``slaveEpochs``, ``slaveLeo`` and
        ``slaveConfirmOffset`` after it; no point (-1) leaves them as they were."""
        config = self._broker_set.config
        slave, master = EpochFile(), EpochFile()
        for f, entries in ((slave, pre["slaveEpochs"]), (master, pre["masterEpochs"])):
            for epoch, start in entries:
                f.append(epoch, start)
        leo, confirm = pre["slaveLeo"], pre["slaveConfirmOffset"]
        point = config.truncate(slave, leo, confirm, master, pre["masterLeo"], config.kafka_leader_epoch_on_election)
        if point < 0:
            return {"code": NO_CONSISTENT_POINT, "truncateOffset": -1}, {"slaveEpochs": slave.entries(), "slaveLeo": leo,
                                                                           "slaveConfirmOffset": confirm}
        slave.truncate_suffix_by_offset(point)
        return {"code": "OK", "truncateOffset": point}, {"slaveEpochs": slave.entries(), "slaveLeo": point,
                                                         "slaveConfirmOffset": min(confirm, point)}


def _late_record(request: LateRequest) -> dict[str, Any]:
    """A request in flight as the controller-level action record that applies it (the variable ``late``)."""
    if isinstance(request, BrokerHeartbeatRequest):
        return {"tag": "BrokerHeartbeat", "brokerId": request.broker_id, "epoch": request.epoch, "maxOffset": request.max_offset,
                "priority": request.election_priority}
    if isinstance(request, RegisterBrokerToControllerRequest):
        return {"tag": "RegisterBrokerToController", "brokerId": request.broker_id, "addr": request.broker_address}
    return {"tag": "ElectMaster", "trigger": "broker", "brokerId": request.broker_id}


# SendLate's request -> the ReplicasManager builder of that request (on the broker's view now)
_LATE_REQUESTS: dict[str, Callable[[ReplicasManager], LateRequest]] = {
    "BrokerHeartbeat": ReplicasManager.heartbeat_request,
    "RegisterBrokerToController": ReplicasManager.register_request,
    "ElectMaster": ReplicasManager.elect_request,
}


def _process_root(root: str, process: str) -> str:
    """The directory of ``process``'s disk under ``root``; an InputError for a name that is not one plain
    directory entry (the trace layer checks names too)."""
    try:
        return os.path.join(root, safe_dir_name(process))
    except UnsafeName as e:
        raise InputError(str(e)) from None


def _broker(system: ImplSystem, process: str) -> BrokerProcess:
    """The process named ``process``; NotEnabled for an unknown one."""
    broker = system._processes.get(process)
    if broker is None:
        raise NotEnabled(f"unknown process {process!r}")
    return broker


def _broker_role(storage: Storage) -> str:
    """The variable ``brokerRole`` off a broker's ``broker.conf``: NONE without one (controller mode), DLEDGER for a
    DLedger member, else 4.x's MASTER (SYNC_MASTER, ASYNC_MASTER) or SLAVE."""
    config = load_store_config(storage)
    if config is None:
        return "NONE"
    if config.enable_dleger_commit_log:
        return "DLEDGER"
    return "MASTER" if config.is_master else "SLAVE"


def _running_as(system: ImplSystem, process: str, kind: type[_Running]) -> _Running:
    """The volatile state of a running broker of the design ``kind`` (MasterSlaveManager, DLedgerServer)."""
    manager = _broker(system, process).replicas_manager
    if not isinstance(manager, kind):
        raise NotEnabled(f"{process} is DOWN or not a running {kind.__name__}")
    return manager


def _running_manager(system: ImplSystem, process: str) -> ReplicasManager:
    """The ReplicasManager of a running process; NotEnabled for an unknown or a DOWN one."""
    broker = _broker(system, process)
    if broker.replicas_manager is None:
        raise NotEnabled(f"{process} is DOWN")
    return broker.replicas_manager


def _losing(client: ControllerClient, lost: bool, call: Callable[..., Any], *args: Any) -> Any:
    """``call(*args)`` with the transport dropping the responses when ``lost`` (a step's ``lost`` flag).
    A plain function, not a context manager: it runs on every lossy step (``autoswitch bench``)."""
    client.lose_next_response = lost
    try:
        return call(*args)
    finally:
        client.lose_next_response = False


def _process_step(
    method: Callable[[ReplicasManager], bool | None], *, calls_controller: bool, lossy: bool, checks_metadata: bool = False
) -> Callable[[ImplSystem, Mapping[str, Any]], Outcome]:
    """The step of a ReplicasManager action. Its outcome is the controller's response when it sends a
    request (delivered or lost), else OK; a ``lossy`` action's ``lost`` flag drops the response. A
    register() step that ``checks_metadata`` and returns False sent nothing: METADATA_INVALID."""

    def run(system: ImplSystem, a: Mapping[str, Any]) -> Outcome:
        manager = _running_manager(system, a["process"])
        client = system._client
        sent = _losing(client, a["lost"], method, manager) if lossy else method(manager)
        if checks_metadata and sent is False:
            return {"code": METADATA_INVALID}
        return _outcome(client.last_response) if calls_controller else {"code": "OK"}

    return run


_REQUESTS = frozenset(LOGGED_REQUESTS)  # the controller-level requests, which the processor logs

# tag -> the step, called with the system and the action record (built once, not per system)
_STEPS: dict[str, Callable[[ImplSystem, Mapping[str, Any]], Outcome]] = {
    "GetNextBrokerId": ImplSystem._get_next_broker_id,
    "ApplyBrokerId": ImplSystem._apply_broker_id,
    "RegisterBrokerToController": ImplSystem._register_broker,
    "ElectMaster": ImplSystem._elect_master,
    "AlterSyncStateSet": ImplSystem._alter_sync_state_set,
    "GetReplicaInfo": ImplSystem._get_replica_info,
    "BrokerHeartbeat": ImplSystem._broker_heartbeat,
    "HeartbeatExpire": ImplSystem._heartbeat_expire,
    "ControllerFailover": ImplSystem._controller_failover,
    "CleanBrokerData": ImplSystem._clean_broker_data,
    "ControllerElectScan": ImplSystem._controller_elect_scan,
    "ControllerLeaderLost": ImplSystem._controller_leader_lost,
    "ControllerLeaderElected": ImplSystem._controller_leader_elected,
    "LoadMetaFile": _process_step(ReplicasManager.load_meta_file, calls_controller=False, lossy=False),
    "LoadTempFile": _process_step(ReplicasManager.load_temp_file, calls_controller=False, lossy=False),
    "CreateTempFile": _process_step(ReplicasManager.create_temp_file, calls_controller=True, lossy=False),
    "SendApplyBrokerId": _process_step(
        ReplicasManager.send_apply_broker_id, calls_controller=True, lossy=True, checks_metadata=True
    ),
    "AbandonTempFile": _process_step(ReplicasManager.abandon_temp_file, calls_controller=False, lossy=False),
    "WriteMetaFile": _process_step(ReplicasManager.write_meta_file, calls_controller=False, lossy=False),
    "DeleteTempFile": _process_step(ReplicasManager.delete_temp_file, calls_controller=False, lossy=False),
    "SendRegister": _process_step(ReplicasManager.send_register, calls_controller=True, lossy=True, checks_metadata=True),
    "SendElectMaster": _process_step(ReplicasManager.send_elect_master, calls_controller=True, lossy=True),
    "SyncReplicaInfo": _process_step(ReplicasManager.sync_replica_info, calls_controller=True, lossy=False),
    "SendHeartbeat": _process_step(ReplicasManager.send_heartbeat, calls_controller=True, lossy=False),
    "SendAlterSyncStateSet": ImplSystem._send_alter_sync_state_set,
    "Crash": ImplSystem._crash,
    "Restart": ImplSystem._restart,
    "Write": ImplSystem._write,
    "Handshake": ImplSystem._handshake,
    "Transfer": ImplSystem._transfer,
    "Ack": ImplSystem._ack,
    "Expand": ImplSystem._expand,
    "Shrink": ImplSystem._shrink,
    "AlterArrives": ImplSystem._alter_arrives,
    "Flush": ImplSystem._flush,
    "Consume": ImplSystem._consume,
    "CrashTorn": ImplSystem._crash_torn,
    "PartitionLink": ImplSystem._partition_link,
    "HealLink": ImplSystem._heal_link,
    "SendLate": ImplSystem._send_late,
    "DeliverLate": ImplSystem._deliver_late,
    "WipeDisk": ImplSystem._wipe_disk,
    "ControllerMetadataLoss": ImplSystem._controller_metadata_loss,
    "MsRestart": ImplSystem._design_restart,
    "OperatorFailover": ImplSystem._operator_failover,
    "MsWrite": ImplSystem._ms_write,
    "MsConnect": ImplSystem._ms_connect,
    "MsTransfer": ImplSystem._ms_transfer,
    "MsAck": ImplSystem._ms_ack,
    "MsSlaveTimeout": ImplSystem._ms_slave_timeout,
    "DlElect": ImplSystem._dl_elect,
    "DlRestart": ImplSystem._design_restart,
    "DlWrite": ImplSystem._dl_write,
    "DlPush": ImplSystem._dl_push,
}
