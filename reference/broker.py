"""Broker-process actions (MODEL.md §4): one pure function per action of ``spec/Broker.tla``, named as the
spec's in snake_case; the registration arrows and the ``lost`` parameter are explained there. Each action
returns ``(system', outcome)``; a disabled action raises ``NotEnabled``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar, cast

from attrs import frozen
from frozendict import frozendict

from . import codes, epoch_file
from . import controller as ctl
from .acks import NO_RECOMPUTE, SET_RECOMPUTE, settle_master
from .precondition import require
from .state import (
    APPLY_FAILED,
    DOWN,
    HA_NONE,
    HA_READY,
    HA_TRANSFER,
    ID_APPLIED,
    INITIAL,
    MASTER,
    META_DONE,
    META_WRITTEN,
    NO_ID,
    NO_MASTER,
    NONE,
    REGISTERED,
    SLAVE,
    TEMP_DONE,
    Options,
    Process,
    System,
    TempFile,
    evolve,
)

OK = frozendict(code=codes.OK)
_ELECT_ACCEPTED = (codes.SUCCESS, codes.CONTROLLER_MASTER_STILL_EXIST)
UP_STATES = (INITIAL, TEMP_DONE, APPLY_FAILED, ID_APPLIED, META_WRITTEN, META_DONE, REGISTERED)


def require_process(s: System, p: str, *states: str) -> Process:
    """The process ``p``, which must be in one of ``states``."""
    require(p in s.procs, f"unknown process {p!r}")
    proc = s.procs[p]
    require(proc.reg_state in states, f"{p} is {proc.reg_state}, not {'/'.join(states)}")
    return proc


@frozen
class Guard:
    """The first precondition of a process action: its process is in one of the registration ``states`` and, where
    ``role`` is given, has that role."""

    states: tuple[str, ...]
    role: str | None = None

    def admits(self, proc: Process) -> bool:
        return proc.reg_state in self.states and (self.role is None or proc.role == self.role)


GUARDS: dict[str, Guard] = {}  # the tag of a guarded process action -> its Guard
F = TypeVar("F", bound=Callable[..., Any])


def guarded(tag: str, *states: str, role: str | None = None) -> Callable[[F], F]:
    """The reference function ``f(s, p, ...)`` of the process action ``tag``, run only where ``p`` passes its Guard
    (else ``NotEnabled``, as ``require_process`` and the role check say); ``GUARDS`` keeps the Guard, so that the
    checker skips the action in the states it rules out without running it."""
    guard = GUARDS[tag] = Guard(states, role)

    def wrap(f: F) -> F:
        @functools.wraps(f)
        def run(s: System, p: str, *args: Any) -> Any:
            proc = require_process(s, p, *guard.states)
            require(role is None or proc.role == role, f"{p} is not a {str(role).lower()}")
            return f(s, p, *args)

        return cast(F, run)

    return wrap


def with_process(s: System, p: str, proc: Process, **changes) -> System:
    """``s`` with process ``p`` replaced by ``proc`` (and other System fields changed)."""
    return evolve(s, procs=s.procs.set(p, proc), **changes)


def _adopt_role(s: System, p: str, outcome: frozendict, opts: Options) -> System:
    """AdoptRole (spec/Broker.tla), with its guard AdoptEnabled."""
    proc = s.procs[p]
    master_id, epoch = outcome.get("masterId", NO_MASTER), outcome.get("masterEpoch", -1)
    if master_id == NO_MASTER or epoch <= proc.local_master_epoch:
        return s
    common = dict(local_master_epoch=epoch, local_sync_state_set_epoch=outcome["syncStateSetEpoch"], local_master_id=master_id,
                  acks=frozendict(), pending_alter=None)
    s = _drop_connections_to(s, proc.meta_file)
    if master_id != proc.broker_id:
        return with_process(s, p, evolve(proc, role=SLAVE, ha_state=HA_READY, local_sync_state_set=frozenset(), **common))
    members = outcome["syncStateSet"]
    proc = evolve(proc, role=MASTER, ha_state=HA_NONE, local_sync_state_set=members,
                  epoch_file=new_master_epoch_file(proc.epoch_file, epoch, proc.leo, opts), **common)
    return settle_master(with_process(s, p, proc, master_history=s.master_history | {(epoch, p)}), p, opts, SET_RECOMPUTE)


def new_master_epoch_file(ef: epoch_file.Epochs, epoch: int, leo: int, opts: Options) -> epoch_file.Epochs:
    """NewMasterEpochFile (spec/Broker.tla)."""
    if opts.policy == "rocketmq":
        return epoch_file.change_to_master(ef, epoch, leo, opts.epoch_reentry_fix)
    if opts.kafka_leader_epoch_on_election:
        return epoch_file.kafka_assign(ef, epoch, leo, True)
    return ef


def _drop_connections_to(s: System, broker_id: int) -> System:
    """DroppedHa and DroppedAcks (spec/Broker.tla) in one pass."""
    if broker_id == NO_ID:
        return s
    procs = s.procs
    for q, x in s.procs.items():
        if x.ha_state == HA_TRANSFER and x.local_master_id == broker_id:
            procs = procs.set(q, evolve(x, ha_state=HA_READY))
        elif broker_id in x.acks:
            procs = procs.set(q, evolve(x, acks=x.acks.delete(broker_id)))
    return evolve(s, procs=procs)


@guarded("LoadMetaFile", INITIAL)
def load_meta_file(s: System, p: str) -> tuple[System, frozendict]:
    """LoadMetaFile (spec/Broker.tla)."""
    proc = s.procs[p]
    require(proc.meta_file != NO_ID, f"{p} has no meta file")
    return with_process(s, p, evolve(proc, reg_state=META_DONE)), OK


@guarded("LoadTempFile", INITIAL)
def load_temp_file(s: System, p: str) -> tuple[System, frozendict]:
    """LoadTempFile (spec/Broker.tla)."""
    proc = s.procs[p]
    require(proc.meta_file == NO_ID and proc.temp_file is not None, f"{p} has a meta file or no temp file")
    return with_process(s, p, evolve(proc, reg_state=TEMP_DONE)), OK


@guarded("CreateTempFile", INITIAL)
def create_temp_file(s: System, p: str) -> tuple[System, frozendict]:
    """CreateTempFile (spec/Broker.tla); the checkCode is the string ``addr;clock`` (the spec's record
    ``[addr, ts]``)."""
    proc = s.procs[p]
    require(proc.meta_file == NO_ID and proc.temp_file is None, f"{p} already has an identity file")
    _, answer = ctl.get_next_broker_id(s.controller)
    temp = TempFile(answer["nextBrokerId"], f"{proc.addr};{s.clock}")
    return with_process(s, p, evolve(proc, temp_file=temp, reg_state=TEMP_DONE), clock=s.clock + 1), answer


@guarded("SendApplyBrokerId", TEMP_DONE)
def send_apply_broker_id(s: System, p: str, lost: bool) -> tuple[System, frozendict]:
    """SendApplyBrokerId (spec/Broker.tla)."""
    proc = s.procs[p]
    assert proc.temp_file is not None  # TEMP_DONE: LoadTempFile or CreateTempFile left one
    c, answer = ctl.apply_broker_id(s.controller, proc.temp_file.broker_id, proc.temp_file.check_code)
    ok = answer["code"] == codes.SUCCESS and not lost
    return with_process(s, p, evolve(proc, reg_state=ID_APPLIED if ok else APPLY_FAILED), controller=c), answer


@guarded("AbandonTempFile", APPLY_FAILED)
def abandon_temp_file(s: System, p: str, opts: Options) -> tuple[System, frozendict]:
    """AbandonTempFile (spec/Broker.tla); disabled without RegisterRetry (the broker stays APPLY_FAILED)."""
    proc = s.procs[p]
    require(opts.register_retry, f"{p} does not retry its registration (registerRetry off)")
    return with_process(s, p, evolve(proc, temp_file=None, reg_state=INITIAL)), OK


@guarded("WriteMetaFile", ID_APPLIED)
def write_meta_file(s: System, p: str) -> tuple[System, frozendict]:
    """WriteMetaFile (spec/Broker.tla)."""
    proc = s.procs[p]
    assert proc.temp_file is not None  # ID_APPLIED follows TEMP_DONE, which has a temp file
    return with_process(s, p, evolve(proc, meta_file=proc.temp_file.broker_id, reg_state=META_WRITTEN)), OK


@guarded("DeleteTempFile", META_WRITTEN)
def delete_temp_file(s: System, p: str) -> tuple[System, frozendict]:
    """DeleteTempFile (spec/Broker.tla)."""
    proc = s.procs[p]
    return with_process(s, p, evolve(proc, temp_file=None, reg_state=META_DONE)), OK


@guarded("SendRegister", META_DONE)
def send_register(s: System, p: str, lost: bool, opts: Options) -> tuple[System, frozendict]:
    """SendRegister (spec/Broker.tla)."""
    proc = s.procs[p]
    c, answer = ctl.register_broker(s.controller, proc.meta_file, proc.addr)
    s = evolve(s, controller=c)
    if answer["code"] != codes.SUCCESS or lost:
        return s, answer
    s = with_process(s, p, evolve(proc, reg_state=REGISTERED))
    return _adopt_role(s, p, answer, opts), answer


@guarded("SendElectMaster", REGISTERED)
def send_elect_master(s: System, p: str, lost: bool, opts: Options) -> tuple[System, frozendict]:
    """SendElectMaster (spec/Broker.tla)."""
    proc = s.procs[p]
    require(elect_wanted(s, proc), f"{p} knows a live master: it does not ask for an election")
    c, answer = ctl.elect_master(s.controller, "broker", proc.meta_file, opts)
    s = evolve(s, controller=c)
    if lost or answer["code"] not in _ELECT_ACCEPTED:
        return s, answer
    return _adopt_role(s, p, answer, opts), answer


def elect_wanted(s: System, proc: Process) -> bool:
    """ElectWanted (spec/Broker.tla)."""
    _, poll = ctl.get_replica_info(s.controller)
    return proc.local_master_id == NO_MASTER or (
        poll["code"] == codes.SUCCESS and poll["masterId"] == NO_MASTER and poll["masterEpoch"] > proc.local_master_epoch
    )


@guarded("SyncReplicaInfo", REGISTERED)
def sync_replica_info(s: System, p: str, opts: Options) -> tuple[System, frozendict]:
    """SyncReplicaInfo (spec/Broker.tla). Differs in form: the master's part runs after an adoption too,
    where it changes nothing (the spec's branches exclude each other, as its comment says)."""
    proc = s.procs[p]
    _, answer = ctl.get_replica_info(s.controller)
    if answer["code"] != codes.SUCCESS:
        return s, answer
    s = _adopt_role(s, p, answer, opts)
    proc = s.procs[p]
    if proc.role == MASTER and answer["masterId"] == proc.meta_file and answer["masterEpoch"] == proc.local_master_epoch:
        newer = answer["syncStateSetEpoch"] > proc.local_sync_state_set_epoch
        if newer:
            proc = evolve(proc, local_sync_state_set_epoch=answer["syncStateSetEpoch"], local_sync_state_set=answer["syncStateSet"])
        if proc.pending_alter is not None and not proc.pending_alter.delivered:
            proc = evolve(proc, pending_alter=None)
        s = settle_master(with_process(s, p, proc), p, opts, SET_RECOMPUTE if newer else NO_RECOMPUTE)
    return s, answer


@guarded("SendHeartbeat", REGISTERED)
def send_heartbeat(s: System, p: str) -> tuple[System, frozendict]:
    """SendHeartbeat (spec/Broker.tla)."""
    proc = s.procs[p]
    c, answer = ctl.broker_heartbeat(s.controller, proc.meta_file, epoch_file.last_epoch(proc.epoch_file), proc.leo, 0)
    return evolve(s, controller=c), answer


@guarded("SendAlterSyncStateSet", REGISTERED, role=MASTER)
def send_alter_sync_state_set(s: System, p: str, new_set: frozenset[int], lost: bool, opts: Options) -> tuple[System, frozendict]:
    """SendAlterSyncStateSet (spec/Broker.tla)."""
    proc = s.procs[p]
    c, answer = ctl.alter_sync_state_set(
        s.controller, proc.meta_file, proc.local_master_epoch, new_set, proc.local_sync_state_set_epoch
    )
    s = evolve(s, controller=c)
    if answer["code"] == codes.SUCCESS and not lost:
        proc = evolve(proc, local_sync_state_set_epoch=answer["syncStateSetEpoch"], local_sync_state_set=new_set)
        s = settle_master(with_process(s, p, proc), p, opts, SET_RECOMPUTE)
    return s, answer


@guarded("Crash", *UP_STATES)
def crash(s: System, p: str, opts: Options) -> tuple[System, frozendict]:
    """Crash (spec/Broker.tla)."""
    proc = s.procs[p]
    return crash_keeping(s, p, proc.flushed, opts), OK


def recovered_epoch_file(epochs: epoch_file.Epochs, kept: int, opts: Options, torn: bool = False) -> epoch_file.Epochs:
    """RecoveredEpochFile (spec/Broker.tla): RocketMQ's restart keeps the file whole, Kafka's recovery cuts it
    to the log end; CrashTorn (``torn``) keeps the earlier cut (refinement 38)."""
    return epochs if opts.policy == "rocketmq" and not torn else epoch_file.truncate_suffix(epochs, kept)


def crash_keeping(s: System, p: str, kept: int, opts: Options, torn: bool = False) -> System:
    """CrashKeeping (spec/Broker.tla): ``p`` goes down with the first ``kept`` entries of its log (Crash keeps the
    flushed prefix, CrashTorn, ``torn``, one entry less)."""
    proc = s.procs[p]
    log = proc.log[:kept]
    down = Process(addr=proc.addr, meta_file=proc.meta_file, temp_file=proc.temp_file, log=log, flushed=len(log),
                   epoch_file=recovered_epoch_file(proc.epoch_file, len(log), opts, torn),
                   confirm_offset=min(proc.confirm_offset, len(log)), reg_state=DOWN, broker_role=proc.broker_role, term=proc.term)
    return with_process(_drop_connections_to(s, proc.meta_file), p, down)


@guarded("Restart", DOWN)
def restart(s: System, p: str, addr: str) -> tuple[System, frozendict]:
    """Restart (spec/Broker.tla); ``addr`` is not checked against the spec's ``Addrs[p]`` (the caller's
    configuration)."""
    proc = s.procs[p]
    return with_process(s, p, evolve(proc, addr=addr, reg_state=INITIAL, role=NONE)), OK


def controller_elect_scan(s: System, opts: Options) -> tuple[System, frozendict]:
    """ControllerElectScan (spec/Broker.tla)."""
    require(ctl.needs_reelect(s.controller, opts), "no re-election needed")
    c, answer = ctl.elect_scan(s.controller, opts)
    return evolve(s, controller=c), answer

