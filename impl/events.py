"""The controller's replicated events (RocketMQ ``EventMessage`` subclasses). A request handler computes
them without touching the state; the state machine applies them once they are committed to the log
(DLedger in RocketMQ; :class:`autoswitch.impl.controller.EventLog` here). Events are log entries: nothing
mutates one once it is proposed (they are plain attrs classes because frozen ones cost twice as much to build).
"""

from __future__ import annotations

from attrs import define


@define
class ApplyBrokerIdEvent:
    """Bind a new broker id to its address and checkCode; creates the broker set if it is unknown."""

    cluster_name: str
    broker_name: str
    broker_address: str
    new_broker_id: int
    register_check_code: str


@define
class UpdateBrokerAddressEvent:
    """A registered broker id came back with another address."""

    cluster_name: str
    broker_name: str
    broker_address: str
    broker_id: int


@define
class ElectMasterEvent:
    """``new_master_elected``: the master becomes ``new_master_broker_id`` with a fresh syncStateSet; else
    the master is cleared. Both bump the master epoch."""

    broker_name: str
    new_master_elected: bool
    new_master_broker_id: int


@define
class AlterSyncStateSetEvent:
    """Replace the syncStateSet (and bump its epoch)."""

    broker_name: str
    new_sync_state_set: frozenset[int]


@define
class CleanBrokerDataEvent:
    """Forget broker ids (empty: the whole broker set)."""

    broker_name: str
    broker_ids_to_clean: frozenset[int]


Event = ApplyBrokerIdEvent | UpdateBrokerAddressEvent | ElectMasterEvent | AlterSyncStateSetEvent | CleanBrokerDataEvent
