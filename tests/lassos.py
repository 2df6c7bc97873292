"""A lasso whose loop has several steps (the committed ones stutter in their last state), shared by the checker's
liveness tests (tests/tools/test_check_liveness.py) and the explorer's browser tests (tests/browser/).

Unbounded faults (BoundAllFaults FALSE): the master's expiry starts an election that finds nobody alive and clears the
master; after a controller failover a loop of heartbeats, expiries and a crash keeps the controller from electing
one (14 steps, the loop from state 10)."""

from __future__ import annotations

from pathlib import Path

from autoswitch.conformance.check.specconfig import SpecConfig
from autoswitch.conformance.engines import trace_states
from autoswitch.conformance.trace.itf import write_trace

SEVERAL = [{"tag": "CreateTempFile", "process": "p1"}, {"tag": "SendApplyBrokerId", "process": "p1", "lost": False},
           {"tag": "WriteMetaFile", "process": "p1"}, {"tag": "DeleteTempFile", "process": "p1"},
           {"tag": "SendRegister", "process": "p1", "lost": False}, {"tag": "SendHeartbeat", "process": "p1"},
           {"tag": "SendElectMaster", "process": "p1", "lost": False}, {"tag": "HeartbeatExpire", "brokerId": 1},
           {"tag": "ControllerElectScan"}, {"tag": "ControllerFailover"}, {"tag": "SendHeartbeat", "process": "p1"},
           {"tag": "Crash", "process": "p2"}, {"tag": "Restart", "process": "p2", "addr": "a2"},
           {"tag": "HeartbeatExpire", "brokerId": 1}]
SEVERAL_LOOP = 10
NEXT = {"brokerIds": [1, 2], "switches": [], "faults": []}


def write_several(path: Path, spec: SpecConfig) -> Path:
    """The lasso of SEVERAL in ``spec``'s configuration, written to ``path``: EventuallyMaster fails, the loop from
    state SEVERAL_LOOP."""
    write_trace(path, {**spec.meta(), "expect": {"liveness": "EventuallyMaster", "loop": SEVERAL_LOOP}, "next": NEXT},
                trace_states(spec.config(), SEVERAL), SEVERAL_LOOP)
    return path
