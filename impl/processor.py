"""A controller node's request entry (RocketMQ ``ControllerRequestProcessor`` in front of a
``DLedgerController``): request validation, and the leader check of ``DLedgerController.appendEvent``.

A replicated request (every one but BrokerHeartbeat) reaching a node that is not the DLedger leader is
answered ``CONTROLLER_NOT_LEADER`` before anything is computed or proposed. A heartbeat is handled by
the processor itself on every node (``handleBrokerHeartbeat``): refused with ``CONTROLLER_INVALID_REQUEST``
only when its brokerId is null. A node that becomes leader starts with no heartbeats
(:meth:`ControllerManager.failover`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from .controller import ControllerManager
from .protocol import BrokerHeartbeatRequest, Response, ResponseCode

_NOT_LEADER = Response(ResponseCode.CONTROLLER_NOT_LEADER)
_INVALID_REQUEST = Response(ResponseCode.CONTROLLER_INVALID_REQUEST)

Request = TypeVar("Request")


class ControllerRequestProcessor:
    """The requests of one controller node, which holds DLedger leadership or not."""

    __slots__ = ("controller", "is_leader")

    def __init__(self, controller: ControllerManager) -> None:
        self.controller = controller
        self.is_leader = True

    def replicated(self, handler: Callable[[Request], Response], request: Request) -> Response:
        """A request that goes through ``appendEvent``: CONTROLLER_NOT_LEADER off the leader."""
        return handler(request) if self.is_leader else _NOT_LEADER

    def broker_heartbeat(self, request: BrokerHeartbeatRequest) -> Response:
        """handleBrokerHeartbeat: a null brokerId (None) is an invalid request."""
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
