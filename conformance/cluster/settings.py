"""``--settings``: each name is a row of the model's configurations (``conformance/controls.py``) and the broker and
controller properties that set RocketMQ the same way, so that a run names the model configuration it is checked under."""

from __future__ import annotations

from collections.abc import Mapping

from attrs import frozen

from autoswitch.conformance import controls
from autoswitch.reference import Options


@frozen
class Setting:
    """One ``--settings`` value: the control row per broker count, and the properties it sets."""

    name: str
    rows: Mapping[int, str]  # brokers -> the row of conformance/controls.py
    broker: Mapping[str, str]  # MessageStoreConfig / BrokerConfig keys
    controller: Mapping[str, str]  # ControllerConfig keys (the controller embedded in the name server)
    about: str

    def control(self, brokers: int) -> controls.Control:
        row = controls.by_name(self.rows.get(brokers, self.rows[2]))
        assert row is not None, self.rows
        return row

    def options(self, brokers: int) -> Options:
        return self.control(brokers).model_options

    def describe(self, brokers: int) -> str:
        """One line: the model configuration, its options that differ from the safe defaults, and the model's word."""
        row = self.control(brokers)
        changed = ", ".join(f"{k}={v}" for k, v in sorted(row.options.items())) or "the safe defaults"
        verdict = ("the model says NoAckedMessageLost holds" if row.invariant is None
                   else f"the model says {row.invariant} can break ({row.cfg}, {row.trace})")
        return f"model configuration {row.name} (policy {row.policy}; {changed}): {verdict}"


_SYNC = {"flushDiskType": "SYNC_FLUSH", "minInSyncReplicas": "1", "inSyncReplicas": "1", "enableAutoInSyncReplicas": "false"}

SETTINGS: dict[str, Setting] = {
    s.name: s
    for s in (
        Setting("safe", {2: "safe-rocketmq", 3: "safe-rocketmq-3p"}, {**_SYNC, "allAckInSyncStateSet": "true"},
                {"enableElectUncleanMaster": "false"}, "acks from the whole SyncStateSet, no unclean election, sync flush"),
        Setting("allack-off", {2: "allack-off"}, {**_SYNC, "allAckInSyncStateSet": "false"},
                {"enableElectUncleanMaster": "false"}, "acks from inSyncReplicas = 1 (the master alone)"),
        Setting("unclean", {2: "unclean"}, {**_SYNC, "allAckInSyncStateSet": "true"},
                {"enableElectUncleanMaster": "true"}, "a broker outside the SyncStateSet may be elected"),
    )
}
