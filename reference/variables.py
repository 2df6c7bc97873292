"""The reference state as the variables of spec/State.tla (TLA+ names, MODEL.md §7): the view traces carry
and the invariants read. Functions are dicts, records are dicts with string keys, sets are frozensets.

VARIABLES maps each variable to the function that reads it off a ``System``; ``variables`` builds them
all, ``LazyVariables`` only those a predicate reads (the model checker's transitions)."""

from __future__ import annotations

from collections.abc import Callable, ItemsView, Iterator, KeysView, Mapping, ValuesView
from typing import Any

from .state import NO_ID, Controller, Process, System

NO_TEMP = {"brokerId": NO_ID, "checkCode": ""}
NO_PENDING = {"newSyncStateSet": frozenset(), "code": "", "syncStateSetEpoch": -1, "delivered": False}


def _per_process(read: Callable[[Process], Any]) -> Callable[[System], dict[str, Any]]:
    return lambda s: {p: read(x) for p, x in s.procs.items()}


def _temp_file(x: Process) -> dict[str, Any]:
    t = x.temp_file
    return NO_TEMP if t is None else {"brokerId": t.broker_id, "checkCode": t.check_code}


def _pending_alter(x: Process) -> dict[str, Any]:
    a = x.pending_alter
    if a is None:
        return NO_PENDING
    return {"newSyncStateSet": a.new_set, "code": a.code, "syncStateSetEpoch": a.sync_state_set_epoch, "delivered": a.delivered}


CONTROLLER_VARIABLES: dict[str, Callable[[Controller], Any]] = {
    "replicas": lambda c: {b: {"addr": r.addr, "checkCode": r.check_code} for b, r in c.replicas.items()},
    "nextBrokerId": lambda c: c.next_broker_id,
    "masterId": lambda c: c.master_id,
    "masterEpoch": lambda c: c.master_epoch,
    "syncStateSet": lambda c: c.sync_state_set,
    "syncStateSetEpoch": lambda c: c.sync_state_set_epoch,
    "alive": lambda c: {b: {"epoch": e.epoch, "maxOffset": e.max_offset, "priority": e.priority} for b, e in c.alive.items()},
    "electTriesLeft": lambda c: c.elect_tries_left,
}


PROCESS_VARIABLES: dict[str, Callable[[Process], Any]] = {
    # registration
    "metaFile": lambda x: x.meta_file,
    "tempFile": _temp_file,
    "regState": lambda x: x.reg_state,
    "addr": lambda x: x.addr,
    "role": lambda x: x.role,
    "localMasterEpoch": lambda x: x.local_master_epoch,
    "localSyncStateSetEpoch": lambda x: x.local_sync_state_set_epoch,
    # the data path
    "log": lambda x: list(x.log),
    "flushed": lambda x: x.flushed,
    "epochFile": lambda x: list(x.epoch_file),
    "confirmOffset": lambda x: x.confirm_offset,
    "localMasterId": lambda x: x.local_master_id,
    "localSyncStateSet": lambda x: x.local_sync_state_set,
    "haState": lambda x: x.ha_state,
    "acks": lambda x: dict(x.acks),
    "pendingAlter": _pending_alter,
    # the designs RIP-44 replaced (designs.py): its configured role and its DLedger term, on disk
    "brokerRole": lambda x: x.broker_role,
    "term": lambda x: x.term,
}
_REGISTRATION = ("metaFile", "tempFile", "regState", "addr", "role", "localMasterEpoch", "localSyncStateSetEpoch")


def _on_controller(read: Callable[[Controller], Any]) -> Callable[[System], Any]:
    return lambda s: read(s.controller)


VARIABLES: dict[str, Callable[[System], Any]] = {
    # the controller
    **{name: _on_controller(read) for name, read in CONTROLLER_VARIABLES.items()},
    # each process: registration
    **{name: _per_process(PROCESS_VARIABLES[name]) for name in _REGISTRATION},
    # the environment (the checkCode clock) and a ghost (spec/State.tla's envVars, ghostVars)
    "clock": lambda s: s.clock,
    "masterHistory": lambda s: s.master_history,
    # each process: the data path, and the designs RIP-44 replaced
    **{name: _per_process(read) for name, read in PROCESS_VARIABLES.items() if name not in _REGISTRATION},
    # the environment's message source and the ghost message sets (msgVars)
    "nextMsg": lambda s: s.next_msg,
    "acked": lambda s: s.acked,
    "seen": lambda s: s.seen,
    # the network (MODEL.md §9): the replication links cut (a set of 2-sets of processes) and each process's late
    # controller request (process -> the controller-level action record); the fault budget is not a variable here
    "partitions": lambda s: s.partitions,
    "late": lambda s: {p: dict(r) for p, r in s.late.items()},
}


def controller_variables(c: Controller) -> dict[str, Any]:
    """The controller's variables alone."""
    return {name: read(c) for name, read in CONTROLLER_VARIABLES.items()}


def variables(s: System) -> dict[str, Any]:
    """All variables of the system (the spec's modelVars)."""
    return {name: read(s) for name, read in VARIABLES.items()}


class LazyVariables(dict[str, Any]):
    """The variables of ``s``, each built when first read (and kept): a Mapping of every variable, a dict of those built
    (so that a variable read again costs a dict lookup)."""

    def __init__(self, s: System):
        super().__init__()
        self._s = s

    def __missing__(self, name: str) -> Any:
        value = self[name] = VARIABLES[name](self._s)
        return value

    def get(self, name: str, default: Any = None) -> Any:  # type: ignore[override]
        return self[name] if name in VARIABLES else default

    def __contains__(self, name: object) -> bool:
        return name in VARIABLES

    def __iter__(self) -> Iterator[str]:
        return iter(VARIABLES)

    def __len__(self) -> int:
        return len(VARIABLES)

    def keys(self) -> KeysView[str]:  # type: ignore[override]
        return KeysView(self)

    def items(self) -> ItemsView[str, Any]:  # type: ignore[override]
        return ItemsView(self)

    def values(self) -> ValuesView[Any]:  # type: ignore[override]
        return ValuesView(self)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Mapping) and dict(self.items()) == dict(other.items())

    __hash__ = None  # type: ignore[assignment]
