"""A controller node's request entry (RocketMQ ``ControllerRequestProcessor`` in front of a
``DLedgerController``): request validation, and the leader check of ``DLedgerController.appendEvent``.

A replicated request (every one but BrokerHeartbeat) reaching a node that is not the DLedger leader is
answered ``CONTROLLER_NOT_LEADER`` before anything is computed or proposed. A heartbeat is handled by
the processor itself on every node (``handleBrokerHeartbeat``): refused with ``CONTROLLER_INVALID_REQUEST``
only when its brokerId is null. A node that becomes leader starts with no heartbeats
(:meth:`ControllerManager.failover`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .controller import ControllerManager
from .event_log import CONTROLLER_NODE, EventSink
from .protocol import (
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

_NOT_LEADER = Response(ResponseCode.CONTROLLER_NOT_LEADER)
_INVALID_REQUEST = Response(ResponseCode.CONTROLLER_INVALID_REQUEST)


class ControllerRequestProcessor:
    """The requests of one controller node, which holds DLedger leadership or not: what the brokers'
    client and the controller-level trace steps call (the request methods of :class:`ControllerManager`,
    behind the checks)."""

    __slots__ = ("controller", "is_leader", "events")

    def __init__(self, controller: ControllerManager, events: EventSink | None = None) -> None:
        self.controller = controller
        self.is_leader = True
        self.events = events

    def log_request(self, action: Mapping[str, Any]) -> None:
        """A request from a client other than the run's brokers (an admin tool; a stray or repeated request), logged on
        receipt as the controller's step ``action`` (docs/INSTRUMENTING.md): a broker logs its own requests as its
        steps (``SendElectMaster``...), and a request is one step of the model, so the two never both log one."""
        if self.events is not None:
            self.events.emit(CONTROLLER_NODE, action)

    def get_next_broker_id(self, request: GetNextBrokerIdRequest) -> Response:
        return self.controller.get_next_broker_id(request) if self.is_leader else _NOT_LEADER

    def apply_broker_id(self, request: ApplyBrokerIdRequest) -> Response:
        return self.controller.apply_broker_id(request) if self.is_leader else _NOT_LEADER

    def register_broker(self, request: RegisterBrokerToControllerRequest) -> Response:
        return self.controller.register_broker(request) if self.is_leader else _NOT_LEADER

    def elect_master(self, request: ElectMasterRequest) -> Response:
        return self.controller.elect_master(request) if self.is_leader else _NOT_LEADER

    def alter_sync_state_set(self, request: AlterSyncStateSetRequest) -> Response:
        return self.controller.alter_sync_state_set(request) if self.is_leader else _NOT_LEADER

    def get_replica_info(self, request: GetReplicaInfoRequest) -> Response:
        return self.controller.get_replica_info(request) if self.is_leader else _NOT_LEADER

    def clean_broker_data(self, request: CleanBrokerDataRequest) -> Response:
        return self.controller.clean_broker_data(request) if self.is_leader else _NOT_LEADER

    def broker_heartbeat(self, request: BrokerHeartbeatRequest) -> Response:
        """handleBrokerHeartbeat, on every node: a null brokerId (None) is an invalid request."""
        if request.broker_id is None:
            return _INVALID_REQUEST
        return self.controller.broker_heartbeat(request)

    def leader_lost(self) -> None:
        """The node steps down (DLedger role CANDIDATE or FOLLOWER): it stops scheduling requests."""
        self.is_leader = False

    def leader_elected(self) -> None:
        """The node becomes leader again; its liveness table starts empty, as after ControllerFailover."""
        self.is_leader = True
        self.controller.failover()
