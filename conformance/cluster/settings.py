"""``--settings``: each name is a row of the model's configurations (``conformance/controls.py``) and the broker and
controller properties that set RocketMQ the same way, so that a run names the model configuration it is checked under.

``async-flush`` has no row there (no spec configuration sets ``AsyncFlush``): its model configuration is
:data:`ASYNC_FLUSH`, the options of the hand-written trace T2 (``traces/truncation/T2-async-flush-loss.itf.json``), which
breaks NoAckedMessageLost at the master's crash. A kill -9 keeps what a broker wrote to its mapped commit log (the
page cache outlives the process), so the row also turns on RocketMQ's ``transientStorePoolEnable``: the master writes
to off-heap buffers committed to the file every 200 ms, and a kill -9 loses what was not committed, as the model's
``Crash`` with ``AsyncFlush`` loses the unflushed tail."""

from __future__ import annotations

from collections.abc import Mapping

from attrs import frozen

from autoswitch.conformance import controls
from autoswitch.reference import Options


@frozen
class Setting:
    """One ``--settings`` value: the control row per broker count, and the properties it sets."""

    name: str
    rows: Mapping[int, str | controls.Control]  # brokers -> the row of conformance/controls.py (or a row of its own)
    broker: Mapping[str, str]  # MessageStoreConfig / BrokerConfig keys
    controller: Mapping[str, str]  # ControllerConfig keys (the controller embedded in the name server)
    about: str

    def control(self, brokers: int) -> controls.Control:
        named = self.rows.get(brokers, self.rows[2])
        row = named if isinstance(named, controls.Control) else controls.by_name(named)
        assert row is not None, self.rows
        return row

    def options(self, brokers: int) -> Options:
        return self.control(brokers).model_options

    def describe(self, brokers: int) -> str:
        """One line: the model configuration, its options that differ from the safe defaults, and the model's word."""
        row = self.control(brokers)
        changed = ", ".join(f"{k}={v}" for k, v in sorted(row.options.items())) or "the safe defaults"
        where = ", ".join(w for w in (row.cfg, row.trace) if w)
        verdict = ("the model says NoAckedMessageLost holds" if row.invariant is None
                   else f"the model says {row.invariant} can break ({where})")
        return f"model configuration {row.name} (policy {row.policy}; {changed}): {verdict}"

    def verdict(self, brokers: int) -> str:
        """The model's word, short: where it is checked (the spec configuration, else the trace) and what it says."""
        row = self.control(brokers)
        where = f"`{row.cfg}`" if row.cfg else f"`{row.trace}`" if row.trace else row.name
        return (f"{where}: holds" if row.invariant is None else f"{where}: can lose ({row.invariant})")

    @property
    def safe(self) -> bool:
        """The model says NoAckedMessageLost holds under this setting (every broker count)."""
        return all(self.control(n).invariant is None for n in self.rows)


ASYNC_FLUSH = controls.Control("async-flush", options={"async_flush": True}, invariant="NoAckedMessageLost",
                               trace="traces/truncation/T2-async-flush-loss.itf.json")

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
        Setting("async-flush", {2: ASYNC_FLUSH},
                {**_SYNC, "allAckInSyncStateSet": "true", "flushDiskType": "ASYNC_FLUSH", "transientStorePoolEnable": "true"},
                {"enableElectUncleanMaster": "false"}, "asynchronous flush: the master's writes held off-heap until "
                "committed (transientStorePoolEnable), so a kill -9 loses the uncommitted tail"),
    )
}
