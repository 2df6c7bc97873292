"""The wire protocol between brokers and the controller (MODEL.md §3), shaped like RocketMQ 5.x's
``ResponseCode`` and ``*RequestHeader`` classes.

Requests name their broker set by ``clusterName`` and ``brokerName``; a response carries a code, the
header fields of the request kind (under the trace names of MODEL.md §7: ``masterId``, ``masterAddr``,
``masterEpoch``, ``syncStateSetEpoch``, ``nextBrokerId``) and a body (the ``syncStateSet`` for
RegisterBrokerToController and GetReplicaInfo, as RocketMQ's ``SyncStateSet`` body). The broker-side
outcome codes are at the end: every code of the implementation is in this module.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import IntEnum
from typing import Any

from attrs import define

NO_MASTER_ID = -1  # "no master" in a header (RocketMQ sends null; the trace vocabulary uses -1)
NO_BROKER_ID = 0  # broker ids start at 1


class ResponseCode(IntEnum):
    """RocketMQ ``ResponseCode`` numbers of the controller protocol."""

    SUCCESS = 0
    CONTROLLER_FENCED_MASTER_EPOCH = 2000
    CONTROLLER_FENCED_SYNC_STATE_SET_EPOCH = 2001
    CONTROLLER_INVALID_MASTER = 2002
    CONTROLLER_INVALID_REPLICAS = 2003
    CONTROLLER_MASTER_NOT_AVAILABLE = 2004
    CONTROLLER_INVALID_REQUEST = 2005
    CONTROLLER_BROKER_NOT_ALIVE = 2006
    CONTROLLER_NOT_LEADER = 2007
    CONTROLLER_BROKER_METADATA_NOT_EXIST = 2008
    CONTROLLER_INVALID_CLEAN_BROKER_METADATA = 2009
    CONTROLLER_BROKER_NEED_TO_BE_REGISTERED = 2010
    CONTROLLER_MASTER_STILL_EXIST = 2011
    CONTROLLER_ELECT_MASTER_FAILED = 2012
    CONTROLLER_ALTER_SYNC_STATE_SET_FAILED = 2013
    CONTROLLER_BROKER_ID_INVALID = 2014
    CONTROLLER_JRAFT_INTERNAL_ERROR = 2015
    CONTROLLER_BROKER_LIVE_INFO_NOT_EXISTS = 2016


# Shared headers. Like every response header they are read only: a response is immutable once built.
EMPTY_HEADER: Mapping[str, Any] = {}
# The header of a response naming no master (none exists, or none alive where only a live one counts).
NO_MASTER_HEADER: Mapping[str, Any] = {"masterId": NO_MASTER_ID, "masterAddr": "", "masterEpoch": -1, "syncStateSetEpoch": -1}


class Response:
    """A controller answer: ``code`` (and its ``name``), header fields and an optional body (the
    syncStateSet).

    Immutable by convention: the controller shares constant responses between calls, so no caller may
    mutate ``header``.
    """

    __slots__ = ("code", "name", "header", "body")

    def __init__(
        self, code: ResponseCode, header: Mapping[str, Any] = EMPTY_HEADER, body: frozenset[int] | None = None
    ) -> None:
        self.code = code
        self.name: str = code._name_  # the plain attribute behind the (slow) ``name`` property
        self.header = header
        self.body = body

    def __repr__(self) -> str:
        return f"Response({self.name}, {dict(self.header)}, {self.body})"


@define
class GetNextBrokerIdRequest:
    """GetNextBrokerIdRequestHeader: which id a new broker of this set should try to apply."""

    cluster_name: str
    broker_name: str


@define
class ApplyBrokerIdRequest:
    """ApplyBrokerIdRequestHeader: bind ``applied_broker_id`` to ``register_check_code`` (``addr;timestamp``)."""

    cluster_name: str
    broker_name: str
    applied_broker_id: int
    register_check_code: str


@define
class RegisterBrokerToControllerRequest:
    """RegisterBrokerToControllerRequestHeader: a broker with a persisted id reports its current address."""

    cluster_name: str
    broker_name: str
    broker_id: int
    broker_address: str


@define
class ElectMasterRequest:
    """ElectMasterRequestHeader. ``broker_id`` None marks the controller's own trigger (RocketMQ sends
    null); ``designate_elect`` marks the admin trigger that designates ``broker_id``."""

    cluster_name: str
    broker_name: str
    broker_id: int | None
    designate_elect: bool = False


@define
class AlterSyncStateSetRequest:
    """AlterSyncStateSetRequestHeader plus its SyncStateSet body: the master's proposal, fenced by its epochs."""

    cluster_name: str
    broker_name: str
    master_broker_id: int
    master_epoch: int
    new_sync_state_set: frozenset[int]
    sync_state_set_epoch: int


@define
class GetReplicaInfoRequest:
    """GetReplicaInfoRequestHeader: the master and the syncStateSet of a broker set."""

    cluster_name: str
    broker_name: str


@define
class BrokerHeartbeatRequest:
    """BrokerHeartbeatRequestHeader: liveness plus what the election ranks (epoch, maxOffset, priority).
    ``broker_id`` None is a header without brokerId (refused by the processor)."""

    cluster_name: str
    broker_name: str
    broker_id: int | None
    epoch: int
    max_offset: int
    election_priority: int


@define
class CleanBrokerDataRequest:
    """CleanBrokerDataRequestHeader (admin): forget ``broker_ids_to_clean`` (empty: the whole set)."""

    cluster_name: str
    broker_name: str
    broker_ids_to_clean: frozenset[int]
    clean_living_broker: bool = False


SUCCESS = ResponseCode.SUCCESS  # module constant: enum class attribute access is slow on hot paths
MASTER_STILL_EXIST = ResponseCode.CONTROLLER_MASTER_STILL_EXIST

# Broker-side outcome codes, under RocketMQ's names where it has one (they are no controller responses):
# a write refused by minInSyncReplicas (PutMessageStatus), a handshake without a consistent point, a
# register() that returned false at checkMetadataValid (nothing sent), and a transfer start
# (``retention``) with no data left or no epoch entry for it.
IN_SYNC_REPLICAS_NOT_ENOUGH = "IN_SYNC_REPLICAS_NOT_ENOUGH"
NO_CONSISTENT_POINT = "NO_CONSISTENT_POINT"
METADATA_INVALID = "METADATA_INVALID"
NO_DATA = "NO_DATA"
NO_EPOCH = "NO_EPOCH"
# DLedger's answer to a push from a leader of an older term (DLedgerResponseCode); 4.x's write statuses are
# impl/master_slave.py's PutMessageStatus.
EXPIRED_TERM = "EXPIRED_TERM"
