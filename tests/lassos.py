"""A lasso whose loop has several steps (the committed ones stutter in their last state), shared by the checker's
liveness tests (tests/tools/test_check_liveness.py) and the explorer's browser tests (tests/browser/).

Unbounded faults (BoundAllFaults FALSE): the controller loses its master after a failover and a crash loop keeps it
from electing one (the checker's lasso on MC_live_reg with BoundAllFaults FALSE: 12 steps, the loop from state 8)."""

from __future__ import annotations

from pathlib import Path

from autoswitch.conformance.check.specconfig import SpecConfig
from autoswitch.conformance.engines import trace_states
from autoswitch.conformance.trace.itf import write_trace

SEVERAL = [{"tag": "CreateTempFile", "process": "p1"}, {"tag": "SendApplyBrokerId", "process": "p1", "lost": False},
           {"tag": "WriteMetaFile", "process": "p1"}, {"tag": "DeleteTempFile", "process": "p1"},
           {"tag": "SendRegister", "process": "p1", "lost": False}, {"tag": "SendElectMaster", "process": "p1", "lost": False},
           {"tag": "ControllerElectScan"}, {"tag": "ControllerFailover"}, {"tag": "SendHeartbeat", "process": "p1"},
           {"tag": "Crash", "process": "p2"}, {"tag": "Restart", "process": "p2", "addr": "a2"},
           {"tag": "HeartbeatExpire", "brokerId": 1}]
SEVERAL_LOOP = 8
NEXT = {"brokerIds": [1, 2], "switches": [], "faults": []}


def write_several(path: Path, spec: SpecConfig) -> Path:
    """The lasso of SEVERAL in ``spec``'s configuration, written to ``path``: EventuallyMaster fails, the loop from
    state SEVERAL_LOOP."""
    write_trace(path, {**spec.meta(), "expect": {"liveness": "EventuallyMaster", "loop": SEVERAL_LOOP}, "next": NEXT},
                trace_states(spec.config(), SEVERAL), SEVERAL_LOOP)
    return path
