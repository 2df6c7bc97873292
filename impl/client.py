"""The brokers' RPC client to the controller (RocketMQ ``BrokerOuterAPI``), MODEL.md §3, and the network's
late requests (MODEL.md §9)."""

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
from .states import IllegalStateError

# the requests a broker's loops send that the network may hold and deliver late (SendLate)
LateRequest = BrokerHeartbeatRequest | RegisterBrokerToControllerRequest | ElectMasterRequest


class ControllerClient:
    """The brokers' RPC client to the controller leader (RocketMQ ``BrokerOuterAPI``).

    ``lose_next_response`` makes the transport drop the next response after the controller has applied
    the request: the caller gets None (a timeout). ``last_response`` is what the controller last sent,
    as a network observer sees it, delivered or not. ``in_flight``: each sender's request held by the
    network (at most one a sender), delivered later by :meth:`deliver_late`.
    """

    __slots__ = ("_controller", "lose_next_response", "last_response", "in_flight")

    def __init__(self, controller: ControllerManager | ControllerRequestProcessor) -> None:
        self._controller = controller
        self.lose_next_response = False
        self.last_response: Response | None = None
        self.in_flight: dict[str, LateRequest] = {}

    def send_late(self, sender: str, request: LateRequest) -> None:
        """SendLate (spec/Broker.tla): the network holds ``request``, built now on the sender's view; the
        sender times out and goes on."""
        if sender in self.in_flight:
            raise IllegalStateError(f"{sender} already has a request in flight")
        self.in_flight[sender] = request

    def deliver_late(self, sender: str) -> Response:
        """DeliverLate (spec/Broker.tla): the controller handles the held request as any other; nobody waits
        for the response (the sender timed out), which is dropped."""
        request = self.in_flight.pop(sender, None)
        if request is None:
            raise IllegalStateError(f"{sender} has no request in flight")
        controller = self._controller
        if isinstance(request, BrokerHeartbeatRequest):
            response = controller.broker_heartbeat(request)
        elif isinstance(request, RegisterBrokerToControllerRequest):
            response = controller.register_broker(request)
        else:
            response = controller.elect_master(request)
        self.last_response = response
        return response

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
