"""The implementation's options (MODEL.md §3-§5), one object: :class:`ImplConfig` holds the controller's
(:class:`~autoswitch.impl.controller.ControllerConfig`) and the data path's (:class:`HAConfig`); beside
them a broker's own configuration (:class:`BrokerConfig`: the set it belongs to).

Each field has the name of the reference ``Options`` field it stands for, so that an adapter builds an
``ImplConfig`` from an ``Options`` by name (``conformance``'s adapter does); an option is declared here
where the implementation reads it.
"""

from __future__ import annotations

from attrs import field, frozen

from .controller import ControllerConfig
from .truncation import POLICIES, TRUNCATE, Truncate


def _known_policy(instance: object, attribute: object, policy: str) -> None:
    if policy not in TRUNCATE:
        raise ValueError(f"unknown truncation policy {policy!r}; expected one of {', '.join(POLICIES)}")


@frozen
class BrokerConfig:
    """The broker set a broker belongs to."""

    cluster_name: str
    broker_name: str


@frozen
class HAConfig:
    """The brokers' options (reference ``Options`` minus the controller's): the data path's, and
    ``register_retry`` that the registration reads (``ReplicasManager.abandon_temp_file``); ``truncate`` is the
    policy's handshake rule (``impl/truncation.py``)."""

    policy: str = field(default="rocketmq", validator=_known_policy)
    all_ack_in_sync_state_set: bool = True
    min_in_sync_replicas: int = 1
    in_sync_replicas: int = 1
    async_flush: bool = False
    async_learners: frozenset[str] = field(default=frozenset(), converter=frozenset)
    union_ack_fix: bool = True
    confirm_freeze_fix: bool = True
    kafka_leader_epoch_on_election: bool = False
    confirm_shortcut_fix: bool = True
    confirm_zero_ack_fix: bool = True
    epoch_reentry_fix: bool = True
    register_retry: bool = True  # startBasicService retried after a failed ApplyBrokerId (ReplicasManager)
    # the replication design (controller mode, 4.x master-slave, DLedger) and 4.x's options (reference Options)
    design: str = "controller"
    sync_master: bool = True
    slave_not_available_ok: bool = True
    ha_max_gap: int = 2
    truncate: Truncate = field(init=False, eq=False, repr=False)

    @truncate.default
    def _truncate(self) -> Truncate:
        return TRUNCATE[self.policy]


@frozen
class ImplConfig:
    """Every option of the implementation: the controller's and the data path's."""

    controller: ControllerConfig = field(factory=ControllerConfig)
    ha: HAConfig = field(factory=HAConfig)
