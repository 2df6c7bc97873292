"""The event log the implementation writes when asked (spec/README.md "Event logs", docs/INSTRUMENTING.md): one NDJSON
file per node in a directory, each line an event in the model's vocabulary, so that ``autoswitch validate`` checks a
run of the implementation as it would check a real cluster's logs.

An event is ``{"node", "ts", "clock", "action"?, "observe"?}``: ``ts`` in milliseconds from the sink's ``now`` (the
implementation's clock; by default a monotonic wall clock), ``clock`` the logical clock of the run (:meth:`EventSink.tick`,
one tick per step the system takes: the events of one step share it, and a node's events keep their order). Values are
ITF JSON: ints and strings as themselves, sets ``{"#set": [...]}``, tuples ``{"#tup": [...]}``, a dict with a non-string
key ``{"#map": [[k, v], ...]}``, other dicts records. The emitting objects hold an ``EventSink`` or None (the default:
nothing is written and nothing computed).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Mapping
from typing import IO, Any

CONTROLLER_NODE = "controller"  # the node name of the controller's events
# the steps the implementation logs every time it takes one (docs/INSTRUMENTING.md): a log's header says so
# (``complete``), and the search never takes one unlogged
# the controller-level requests of clients other than the run's brokers (ControllerRequestProcessor.log_request)
LOGGED_REQUESTS = ("GetNextBrokerId", "ApplyBrokerId", "RegisterBrokerToController", "ElectMaster", "AlterSyncStateSet",
                   "GetReplicaInfo", "BrokerHeartbeat", "CleanBrokerData")
LOGGED_STEPS = (
    "LoadMetaFile", "LoadTempFile", "CreateTempFile", "SendApplyBrokerId", "AbandonTempFile", "WriteMetaFile", "DeleteTempFile",
    "SendRegister", "SendElectMaster", "SyncReplicaInfo", "SendHeartbeat", "SendAlterSyncStateSet", "AlterArrives",
    "Write", "Expand", "Shrink", "Handshake", "Transfer", "Ack", "Crash", "CrashTorn", "WipeDisk", "Restart", "Flush", "Consume",
    "HeartbeatExpire", "ControllerElectScan", "ControllerFailover", "ControllerMetadataLoss", *LOGGED_REQUESTS,
)
# the variables whose every change the implementation logs, per node (a log's header: ``changesLogged``): the controller
# logs the broker set's tables after each event it applies (ReplicasInfoManager.apply_event) and after a metadata loss,
# and its live table after each heartbeat that moves it, each expiry, failover and metadata loss (ControllerManager)
LOGGED_CHANGES = {CONTROLLER_NODE: ("replicas", "nextBrokerId", "masterId", "masterEpoch", "syncStateSet", "syncStateSetEpoch",
                                    "alive")}
# The header's claims (spec/README.md, "Event logs"; read by conformance/logs/events.py): that every event's clock is the
# number of its step in the run, and, per node, the variables whose every change that node logs.
CLOCK_COUNTS_STEPS = "clockCountsSteps"
CHANGES_LOGGED = "changesLogged"


def itf(value: Any) -> Any:
    """A value as ITF JSON (the encoding of conformance/trace/itf.py ``encode``, ints left plain)."""
    if isinstance(value, bool | str | int):
        return value
    if isinstance(value, frozenset | set):
        return {"#set": sorted((itf(v) for v in value), key=_key)}
    if isinstance(value, tuple):
        return {"#tup": [itf(v) for v in value]}
    if isinstance(value, list):
        return [itf(v) for v in value]
    if isinstance(value, Mapping):
        if all(isinstance(k, str) for k in value):
            return {k: itf(v) for k, v in value.items()}
        return {"#map": sorted(([itf(k), itf(v)] for k, v in value.items()), key=lambda kv: _key(kv[0]))}
    raise TypeError(f"cannot write {value!r} as ITF")


def _key(encoded: Any) -> str:
    return json.dumps(encoded, sort_keys=True)


def _monotonic_ms() -> Callable[[], int]:
    start = time.monotonic_ns()
    return lambda: (time.monotonic_ns() - start) // 1_000_000


class EventSink:
    """Writes events to ``directory/<node>.ndjson`` (created on first use), each line flushed. ``header``: the
    ``meta`` object written as each file's first line (the run's processes, options, policy). ``now``: milliseconds."""

    __slots__ = ("directory", "header", "clock", "_now", "_files")

    def __init__(self, directory: str, header: Mapping[str, Any] | None = None, now: Callable[[], int] | None = None) -> None:
        os.makedirs(directory, exist_ok=True)
        self.directory = directory
        self.header = None if header is None else dict(header)
        self.clock = 0
        self._now = now or _monotonic_ms()
        self._files: dict[str, IO[str]] = {}

    def tick(self) -> None:
        """The next step of the run: the logical clock advances."""
        self.clock += 1

    def emit(self, node: str, action: Mapping[str, Any] | None = None, observe: Mapping[str, Any] | None = None) -> None:
        """One event of ``node``: the action it took (``tag`` and the parameters it knows) and/or the model variables it
        observed just now (its own values for a per-process variable)."""
        event: dict[str, Any] = {"node": node, "ts": self._now(), "clock": self.clock}
        if action is not None:
            event["action"] = itf(dict(action))
        if observe is not None:
            event["observe"] = {name: itf(value) for name, value in observe.items()}
        out = self._files.get(node)
        if out is None:
            out = self._files[node] = open(os.path.join(self.directory, f"{node}.ndjson"), "w", encoding="utf-8")
            if self.header is not None:
                out.write(json.dumps({"meta": self.header}) + "\n")
        out.write(json.dumps(event) + "\n")
        out.flush()

    def close(self) -> None:
        for out in self._files.values():
            out.close()
        self._files.clear()
