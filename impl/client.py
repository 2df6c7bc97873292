"""The brokers' RPC client to the controller (RocketMQ ``BrokerOuterAPI``), MODEL.md §3."""

from __future__ import annotations

from .controller import ControllerManager
from .processor import ControllerRequestProcessor
from .protocol import (
    AlterSyncStateSetRequest,
    ApplyBrokerIdRequest,
    BrokerHeartbeatRequest,
    ElectMasterRequest,
    GetNextBrokerIdRequest,
    GetReplicaInfoRequest,
    RegisterBrokerToControllerRequest,
    Response,
)


class ControllerClient:
    """The brokers' RPC client to the controller leader (RocketMQ ``BrokerOuterAPI``).

    ``lose_next_response`` makes the transport drop the next response after the controller has applied
    the request: the caller gets None (a timeout). ``last_response`` is what the controller last sent,
    as a network observer sees it, delivered or not.
    """

    __slots__ = ("_controller", "lose_next_response", "last_response")

    def __init__(self, controller: ControllerManager | ControllerRequestProcessor) -> None:
        self._controller = controller
        self.lose_next_response = False
        self.last_response: Response | None = None

    def get_next_broker_id(self, request: GetNextBrokerIdRequest) -> Response | None:
        response = self.last_response = self._controller.get_next_broker_id(request)
        return None if self.lose_next_response else response

    def apply_broker_id(self, request: ApplyBrokerIdRequest) -> Response | None:
        response = self.last_response = self._controller.apply_broker_id(request)
        return None if self.lose_next_response else response

    def register_broker(self, request: RegisterBrokerToControllerRequest) -> Response | None:
        response = self.last_response = self._controller.register_broker(request)
        return None if self.lose_next_response else response

    def elect_master(self, request: ElectMasterRequest) -> Response | None:
        response = self.last_response = self._controller.elect_master(request)
        return None if self.lose_next_response else response

    def alter_sync_state_set(self, request: AlterSyncStateSetRequest) -> Response | None:
        response = self.last_response = self._controller.alter_sync_state_set(request)
        return None if self.lose_next_response else response

    def get_replica_info(self, request: GetReplicaInfoRequest) -> Response | None:
        response = self.last_response = self._controller.get_replica_info(request)
        return None if self.lose_next_response else response

    def poll_replica_info(self, request: GetReplicaInfoRequest) -> Response:
        """The GetReplicaInfo poll that decides a broker-triggered election, in the same step: always
        delivered and not the step's observed response (a lost poll would only skip the election)."""
        return self._controller.get_replica_info(request)

    def broker_heartbeat(self, request: BrokerHeartbeatRequest) -> Response | None:
        response = self.last_response = self._controller.broker_heartbeat(request)
        return None if self.lose_next_response else response
