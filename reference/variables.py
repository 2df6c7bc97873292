"""The reference state as the spec's variables (TLA+ names, MODEL.md §7): the view traces carry and the
invariants read. Functions are dicts, records are dicts with string keys, sets are frozensets."""

from __future__ import annotations

from typing import Any

from .state import NO_ID, Controller, System


def controller_variables(c: Controller) -> dict[str, Any]:
    return {
        "replicas": {b: {"addr": r.addr, "checkCode": r.check_code} for b, r in c.replicas.items()},
        "nextBrokerId": c.next_broker_id,
        "masterId": c.master_id,
        "masterEpoch": c.master_epoch,
        "syncStateSet": c.sync_state_set,
        "syncStateSetEpoch": c.sync_state_set_epoch,
        "alive": {b: {"epoch": e.epoch, "maxOffset": e.max_offset, "priority": e.priority} for b, e in c.alive.items()},
    }


def variables(s: System) -> dict[str, Any]:
    """All variables of the system: the controller's, each process's, the clock and the ghost history."""
    procs = s.procs
    return {
        **controller_variables(s.controller),
        "metaFile": {p: x.meta_file for p, x in procs.items()},
        "tempFile": {
            p: {"brokerId": x.temp_file.broker_id, "checkCode": x.temp_file.check_code}
            if x.temp_file is not None
            else {"brokerId": NO_ID, "checkCode": ""}
            for p, x in procs.items()
        },
        "regState": {p: x.reg_state for p, x in procs.items()},
        "addr": {p: x.addr for p, x in procs.items()},
        "role": {p: x.role for p, x in procs.items()},
        "localMasterEpoch": {p: x.local_master_epoch for p, x in procs.items()},
        "localSyncStateSetEpoch": {p: x.local_sync_state_set_epoch for p, x in procs.items()},
        "clock": s.clock,
        "masterHistory": s.master_history,
        **data_variables(s),
    }


def data_variables(s: System) -> dict[str, Any]:
    """The data path's variables: logs, epoch files, HA state, acks, and the ghost message sets."""
    procs = s.procs
    return {
        "log": {p: list(x.log) for p, x in procs.items()},
        "flushed": {p: x.flushed for p, x in procs.items()},
        "epochFile": {p: list(x.epochs) for p, x in procs.items()},
        "confirmOffset": {p: x.confirm_offset for p, x in procs.items()},
        "localMasterId": {p: x.local_master_id for p, x in procs.items()},
        "localSyncStateSet": {p: x.local_sync_state_set for p, x in procs.items()},
        "haState": {p: x.ha_state for p, x in procs.items()},
        "acks": {p: dict(x.acks) for p, x in procs.items()},
        "pendingAlter": {
            p: {"newSyncStateSet": x.pending_alter.new_set, "code": x.pending_alter.code,
                "syncStateSetEpoch": x.pending_alter.sync_state_set_epoch, "delivered": x.pending_alter.delivered}
            if x.pending_alter is not None
            else NO_PENDING
            for p, x in procs.items()
        },
        "nextMsg": s.next_msg,
        "acked": s.acked,
        "seen": s.seen,
    }


NO_PENDING = {"newSyncStateSet": frozenset(), "code": "", "syncStateSetEpoch": -1, "delivered": False}
