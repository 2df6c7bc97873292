"""The controller leader's liveness table (RocketMQ ``BrokerHeartbeatManager``), MODEL.md §3.

Soft state local to the leader: it is not replicated, and a controller failover empties it. Logically
keyed by ``(clusterName, brokerName, brokerId)``; stored as one table per broker set so that an election
fetches its set's table once.
"""

from __future__ import annotations

from collections.abc import Mapping


class BrokerLiveInfo:
    """What the last heartbeat of a broker id reported (mutated in place by the next heartbeat)."""

    __slots__ = ("epoch", "max_offset", "election_priority")

    def __init__(self, epoch: int, max_offset: int, election_priority: int) -> None:
        self.epoch = epoch
        self.max_offset = max_offset
        self.election_priority = election_priority


_NO_LIVE_BROKERS: Mapping[int, BrokerLiveInfo] = {}  # shared: callers only read a live table


class BrokerHeartbeatManager:
    """Live broker ids per broker set, with their reported (epoch, maxOffset, priority)."""

    __slots__ = ("_tables",)

    def __init__(self) -> None:
        self._tables: dict[tuple[str, str], dict[int, BrokerLiveInfo]] = {}

    def on_broker_heartbeat(
        self, cluster_name: str, broker_name: str, broker_id: int, epoch: int, max_offset: int, election_priority: int
    ) -> bool:
        """BrokerHeartbeat (reference ``broker_heartbeat``): marks the id alive. While the entry lives the
        reported (epoch, maxOffset) only moves forward; the priority is always the latest. True where the entry
        was added or changed."""
        key = (cluster_name, broker_name)
        table = self._tables.get(key)
        if table is None:
            table = self._tables[key] = {}
        info = table.get(broker_id)
        if info is None:
            table[broker_id] = BrokerLiveInfo(epoch, max_offset, election_priority)
            return True
        changed = info.election_priority != election_priority
        if epoch > info.epoch or (epoch == info.epoch and max_offset > info.max_offset):
            info.epoch = epoch
            info.max_offset = max_offset
            changed = True
        info.election_priority = election_priority
        return changed

    def on_broker_inactive(self, cluster_name: str, broker_name: str, broker_id: int) -> bool:
        """HeartbeatExpire (reference ``heartbeat_expire``): forget a live entry; False if there was none."""
        table = self._tables.get((cluster_name, broker_name))
        return table is not None and table.pop(broker_id, None) is not None

    def live_table(self, cluster_name: str, broker_name: str) -> Mapping[int, BrokerLiveInfo]:
        """The live ids of a broker set (read only for the caller)."""
        return self._tables.get((cluster_name, broker_name), _NO_LIVE_BROKERS)

    def is_broker_active(self, cluster_name: str, broker_name: str, broker_id: int) -> bool:
        return broker_id in self.live_table(cluster_name, broker_name)

    def clear(self) -> None:
        """ControllerFailover (reference ``controller_failover``): a new leader starts with no heartbeats."""
        self._tables.clear()
