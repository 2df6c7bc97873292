"""The controller (RocketMQ ``ControllerManager`` over a ``DLedgerController``), MODEL.md §1-§3.

A request runs as one atomic step: the handler of :class:`ReplicasInfoManager` computes the response and
the events from the current state, the events are proposed to the replicated log and, once committed,
applied to the state machine (here the log is local and commits at once, as a single-node DLedger
group would). The liveness table and the running election triggers are the leader's soft state:
:meth:`ControllerManager.failover` empties them. :meth:`ControllerManager.lose_metadata` is the fault of
MODEL.md §9 where the replicated store itself is lost.
"""

from __future__ import annotations

from collections.abc import Callable

from attrs import frozen

from .event_log import CONTROLLER_NODE, EventSink
from .events import Event
from .heartbeat import BrokerHeartbeatManager
from .protocol import (
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
from .replicas_info import ReplicasInfoManager

_HEARTBEAT_ACK = Response(ResponseCode.SUCCESS)  # constant, shared


@frozen
class ControllerConfig:
    """Controller options of MODEL.md §3."""

    enable_elect_unclean_master: bool = False
    elect_master_max_retry_count: int = 3  # tries of one controller-triggered election
    reelect_scan: bool = True  # scanInactiveMasterAndTriggerReelect (5.1.1+, #6383); False: only the master's expiry triggers


class EventLog:
    """The replicated event log (DLedger's committed entries): appended on commit, replayable."""

    __slots__ = ("entries",)

    def __init__(self) -> None:
        self.entries: list[Event] = []

    def replay(self, state_machine: ReplicasInfoManager) -> None:
        """Apply every committed event, in order, to a (fresh) state machine: how a follower catches up."""
        for event in self.entries:
            state_machine.apply_event(event)


class ControllerManager:
    """The controller leader: request entry points, the replicated log and state machine, heartbeats."""

    __slots__ = ("config", "replicas_info", "heartbeat_manager", "event_log", "elect_tries_left", "_append", "get_next_broker_id",
                 "get_replica_info", "_events")

    def __init__(self, config: ControllerConfig | None = None, events: EventSink | None = None) -> None:
        """``events``: the sink of the controller's events (docs/INSTRUMENTING.md), None for none."""
        self.config = config or ControllerConfig()
        self._events = events
        self.replicas_info = ReplicasInfoManager(self.config.enable_elect_unclean_master, events)
        self.heartbeat_manager = BrokerHeartbeatManager()
        self.event_log = EventLog()
        # broker name -> tries left of its running election trigger (absent: none running)
        self.elect_tries_left: dict[str, int] = {}
        self._append = self.event_log.entries.append
        # Read-only requests propose nothing: the state machine answers them directly.
        self.get_next_broker_id: Callable[[GetNextBrokerIdRequest], Response] = self.replicas_info.get_next_broker_id
        self.get_replica_info: Callable[[GetReplicaInfoRequest], Response] = self.replicas_info.get_replica_info

    def _commit(self, events: tuple[Event, ...]) -> None:
        """Propose the events, and apply them once committed (immediately: the log is local)."""
        apply_event = self.replicas_info.apply_event
        for event in events:
            self._append(event)
            apply_event(event)

    def apply_broker_id(self, request: ApplyBrokerIdRequest) -> Response:
        """ApplyBrokerId (reference ``apply_broker_id``)."""
        response, events = self.replicas_info.apply_broker_id(request)
        if events:
            self._commit(events)
        return response

    def register_broker(self, request: RegisterBrokerToControllerRequest) -> Response:
        """RegisterBrokerToController (reference ``register_broker``)."""
        alive = self.heartbeat_manager.live_table(request.cluster_name, request.broker_name)
        response, events = self.replicas_info.register_broker(request, alive)
        if events:
            self._commit(events)
        return response

    def elect_master(self, request: ElectMasterRequest) -> Response:
        """ElectMaster (reference ``elect_master``)."""
        alive = self.heartbeat_manager.live_table(request.cluster_name, request.broker_name)
        response, events = self.replicas_info.elect_master(request, alive)
        if events:
            self._commit(events)
        return response

    def alter_sync_state_set(self, request: AlterSyncStateSetRequest) -> Response:
        """AlterSyncStateSet (reference ``alter_sync_state_set``)."""
        alive = self.heartbeat_manager.live_table(request.cluster_name, request.broker_name)
        response, events = self.replicas_info.alter_sync_state_set(request, alive)
        if events:
            self._commit(events)
        return response

    def broker_heartbeat(self, request: BrokerHeartbeatRequest) -> Response:
        """BrokerHeartbeat (reference ``broker_heartbeat``): leader-local, not replicated."""
        assert request.broker_id is not None, "the processor refuses a header without brokerId"
        changed = self.heartbeat_manager.on_broker_heartbeat(
            request.cluster_name,
            request.broker_name,
            request.broker_id,
            request.epoch,
            request.max_offset,
            request.election_priority,
        )
        if changed and self._events is not None:  # the entry it added or changed (event_log.LOGGED_CHANGES)
            self._events.emit(CONTROLLER_NODE, observe={"alive": self._live(request.cluster_name, request.broker_name)})
        return _HEARTBEAT_ACK

    def _live(self, cluster_name: str, broker_name: str) -> dict[int, dict[str, int]]:
        """The controller variable ``alive`` of one broker set: the live table's entries."""
        return {b: {"epoch": i.epoch, "maxOffset": i.max_offset, "priority": i.election_priority}
                for b, i in self.heartbeat_manager.live_table(cluster_name, broker_name).items()}

    def clean_broker_data(self, request: CleanBrokerDataRequest) -> Response:
        """CleanBrokerData (reference ``clean_broker_data``)."""
        alive = self.heartbeat_manager.live_table(request.cluster_name, request.broker_name)
        response, events = self.replicas_info.clean_broker_data(request, alive)
        if events:
            self._commit(events)
        return response

    def on_broker_inactive(self, cluster_name: str, broker_name: str, broker_id: int) -> bool:
        """HeartbeatExpire (reference ``heartbeat_expire``): forget a live entry; False if there was none.
        The expiry of the master's entry starts the election trigger (onBrokerInactive of the master:
        electMasterMaxRetryCount tries), in every version."""
        if not self.heartbeat_manager.on_broker_inactive(cluster_name, broker_name, broker_id):
            return False
        if self._events is not None:
            self._events.emit(CONTROLLER_NODE, {"tag": "HeartbeatExpire", "brokerId": broker_id},
                              {"alive": self._live(cluster_name, broker_name)})
        sync = self.replicas_info.sync_state_set_info_table.get(broker_name)
        if sync is not None and sync.master_broker_id == broker_id:
            self.elect_tries_left[broker_name] = self.config.elect_master_max_retry_count
        return True

    def lose_metadata(self) -> None:
        """ControllerMetadataLoss (spec/Controller.tla): the DLedger store is wiped (the committed events and
        the state machine built from them) and the controller restarts with no heartbeats and no election
        trigger; the brokers are not told."""
        names = self.replicas_info.broker_names()
        self.event_log.entries.clear()
        self.replicas_info.clear()
        self.heartbeat_manager.clear()
        self.elect_tries_left.clear()
        if self._events is not None:  # the tables as they are now, of the one broker set it knew (event_log.LOGGED_CHANGES)
            observe = {**self.replicas_info.observed(names[0]), "alive": {}} if len(names) == 1 else None
            self._events.emit(CONTROLLER_NODE, {"tag": "ControllerMetadataLoss"}, observe)

    def failover(self) -> None:
        """ControllerFailover (reference ``controller_failover``): the new leader has the replicated state
        but no heartbeats, and does not continue the old leader's election triggers. The new leader logs it
        (RocketMQ: DLedgerController's RoleChangeHandler on LEADER, JRaftController.onLeaderStart)."""
        self.heartbeat_manager.clear()
        self.elect_tries_left.clear()
        if self._events is not None:
            self._events.emit(CONTROLLER_NODE, {"tag": "ControllerFailover"}, {"alive": {}})

    def needs_reelect(self, cluster_name: str, broker_name: str) -> bool:
        """NeedsReelect (reference ``needs_reelect``): an election trigger is running, or (with the re-elect
        scan, scanNeedReelectBrokerSets) a master exists and is not alive while some registered id is."""
        if broker_name in self.elect_tries_left:
            return True
        if not self.config.reelect_scan:
            return False
        sync = self.replicas_info.sync_state_set_info_table.get(broker_name)
        if sync is None or sync.master_broker_id == NO_MASTER_ID:
            return False
        alive = self.heartbeat_manager.live_table(cluster_name, broker_name)
        if sync.master_broker_id in alive:
            return False
        replica = self.replicas_info.replica_info_table.get(broker_name)
        return replica is not None and any(b in alive for b in replica.broker_id_table)

    def scan_inactive_master(self, cluster_name: str, broker_name: str) -> Response | None:
        """ControllerElectScan (reference ``controller_elect_scan``): one try of triggerElectMaster, the
        first of a new trigger when :meth:`needs_reelect` or the next of a running one; SUCCESS ends the
        trigger, any other code leaves one try fewer. None when there is nothing to do."""
        if not self.needs_reelect(cluster_name, broker_name):
            return None
        if self._events is not None:
            self._events.emit(CONTROLLER_NODE, {"tag": "ControllerElectScan"})
        left = self.elect_tries_left.pop(broker_name, self.config.elect_master_max_retry_count)
        response = self.elect_master(ElectMasterRequest(cluster_name, broker_name, None))
        if response.code is not ResponseCode.SUCCESS and left > 1:
            self.elect_tries_left[broker_name] = left - 1
        return response
