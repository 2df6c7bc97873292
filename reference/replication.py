"""The data path (MODEL.md §5): one pure function per action of ``spec/Replication.tla``, named as the spec's
in snake_case. Each returns ``(system', outcome)``; a disabled action raises ``NotEnabled``."""

from __future__ import annotations

from frozendict import frozendict

from . import codes, designs, epoch_file
from . import controller as ctl
from .acks import ACK_RECOMPUTE, NO_RECOMPUTE, SET_RECOMPUTE, in_sync_count, settle_master
from .broker import OK, UP_STATES, guarded, with_process
from .precondition import require
from .state import HA_READY, HA_TRANSFER, MASTER, REGISTERED, SLAVE, Options, PendingAlter, Process, System, evolve
from .truncation import TRUNCATE


def _slave_link(s: System, p: str, ha_state: str) -> tuple[Process, str, Process]:
    """SlaveLink (spec/Replication.tla) past its guard (a REGISTERED slave), returning the slave, its master's name and
    the master; the link between them must not be cut (``partitions``)."""
    proc = s.procs[p]
    require(proc.ha_state == ha_state, f"{p} is not a slave in HA state {ha_state}")
    q = s.process_of(proc.local_master_id)
    require(q is not None, f"{p} follows broker {proc.local_master_id}, which no process holds")
    assert q is not None  # for mypy, which does not narrow through require
    master = s.procs[q]
    require(master.reg_state == REGISTERED and master.role == MASTER and master.local_master_epoch == proc.local_master_epoch,
            f"{q} is not master in epoch {proc.local_master_epoch}")
    require(frozenset({p, q}) not in s.partitions, f"the link {p}-{q} is cut (PartitionLink)")
    return proc, q, master


def append_durably(proc: Process, log: tuple, opts: Options) -> Process:
    """AppendDurably (spec/Replication.tla)."""
    return evolve(proc, log=log, flushed=proc.flushed if opts.async_flush else len(log))


@guarded("Write", REGISTERED, role=MASTER)
def write(s: System, p: str, opts: Options) -> tuple[System, frozendict]:
    """Write (spec/Replication.tla), with WrittenEpochFile inline."""
    proc = s.procs[p]
    if in_sync_count(proc, opts) < opts.min_in_sync_replicas:
        return s, frozendict(code=codes.IN_SYNC_REPLICAS_NOT_ENOUGH)
    msg, offset = s.next_msg, proc.leo
    if opts.policy != "rocketmq":  # Kafka's Log.append assigns the record's epoch (WrittenEpochFile)
        proc = evolve(proc, epoch_file=_kafka_assign(proc.epoch_file, proc.local_master_epoch, offset, opts))
    proc = append_durably(proc, proc.log + ((msg, proc.local_master_epoch),), opts)
    s = settle_master(with_process(s, p, proc, next_msg=msg + 1), p, opts, NO_RECOMPUTE)
    return s, frozendict(code=codes.SUCCESS, msg=msg, offset=offset)


def _ack_event(slave: Process, master: Process) -> str:
    """AckEvent (spec/Replication.tla)."""
    return ACK_RECOMPUTE if slave.meta_file in master.local_sync_state_set else NO_RECOMPUTE


def truncate_slave(epochs: epoch_file.Epochs, leo: int, confirm: int, master_epochs: epoch_file.Epochs, master_leo: int,
                   opts: Options) -> tuple[int, epoch_file.Epochs, int]:
    """Handshake's cut (spec/Replication.tla): TruncatePoint as ``TRUNCATE[policy]``, then the slave's epoch file
    and confirmOffset at the point; -1 (no point) leaves both as they were. The handshake trace kind runs it alone."""
    point = TRUNCATE[opts.policy](epochs, leo, confirm, master_epochs, master_leo, opts.kafka_leader_epoch_on_election)
    if point < 0:
        return point, epochs, confirm
    return point, epoch_file.truncate_suffix(epochs, point), min(confirm, point)


@guarded("Handshake", REGISTERED, role=SLAVE)
def handshake(s: System, p: str, opts: Options) -> tuple[System, frozendict]:
    """Handshake (spec/Replication.tla)."""
    proc, q, master = _slave_link(s, p, HA_READY)
    point, epochs, confirm = truncate_slave(proc.epoch_file, proc.leo, proc.confirm_offset, master.epoch_file, master.leo, opts)
    if point < 0:
        return s, frozendict(code=codes.NO_CONSISTENT_POINT, truncateOffset=-1)
    proc = evolve(proc, log=proc.log[:point], flushed=min(proc.flushed, point), epoch_file=epochs, confirm_offset=confirm,
                  ha_state=HA_TRANSFER)
    s = with_process(s, p, proc)
    master_after = evolve(master, acks=master.acks.set(proc.meta_file, point))
    s = settle_master(with_process(s, q, master_after), q, opts, _ack_event(proc, master))
    return s, frozendict(code=codes.OK, truncateOffset=point)


def _transfer_epoch_file(proc: Process, master: Process, opts: Options) -> epoch_file.Epochs | None:
    """CanTransferFrom and TransferEpochFile (spec/Replication.tla) in one: None where CanTransferFrom is
    false."""
    if opts.policy == "rocketmq":
        entry = epoch_file.entry_at_offset(master.epoch_file, proc.leo)
        return None if entry is None else epoch_file.append(proc.epoch_file, *entry)
    return _kafka_assign(proc.epoch_file, master.log[proc.leo][1], proc.leo, opts)


@guarded("Transfer", REGISTERED, role=SLAVE)
def transfer(s: System, p: str, opts: Options) -> tuple[System, frozendict]:
    """Transfer (spec/Replication.tla)."""
    proc, _, master = _slave_link(s, p, HA_TRANSFER)
    require(proc.leo < master.leo, f"{p} has all of the master's log")
    ef = _transfer_epoch_file(proc, master, opts)
    require(ef is not None, f"{p}'s master has no epoch entry for offset {proc.leo}")
    assert ef is not None
    entry = master.log[proc.leo]
    proc = append_durably(evolve(proc, epoch_file=ef), proc.log + (entry,), opts)
    proc = evolve(proc, confirm_offset=min(master.confirm_offset, proc.leo))
    return with_process(s, p, proc), OK


def _kafka_assign(filed: epoch_file.Epochs, epoch: int, offset: int, opts: Options) -> epoch_file.Epochs:
    """KafkaAssign (spec/EpochFile.tla) with the option KafkaLeaderEpochOnElection."""
    return epoch_file.kafka_assign(filed, epoch, offset, opts.kafka_leader_epoch_on_election)


@guarded("Ack", REGISTERED, role=SLAVE)
def ack(s: System, p: str, opts: Options) -> tuple[System, frozendict]:
    """Ack (spec/Replication.tla)."""
    proc, q, master = _slave_link(s, p, HA_TRANSFER)
    require(master.acks.get(proc.meta_file) != proc.leo, f"{q} already has {p}'s offset")
    master_after = evolve(master, acks=master.acks.set(proc.meta_file, proc.leo))
    s = settle_master(with_process(s, q, master_after), q, opts, _ack_event(proc, master))
    return s, OK


def _propose(s: System, p: str, proc: Process, new_set: frozenset[int], lost: bool) -> tuple[System, frozendict]:
    """Propose (spec/Replication.tla)."""
    c, answer = ctl.alter_sync_state_set(s.controller, proc.meta_file, proc.local_master_epoch, new_set,
                                         proc.local_sync_state_set_epoch)
    pending = PendingAlter(new_set, answer["code"], answer["syncStateSetEpoch"], delivered=not lost)
    return with_process(s, p, evolve(proc, pending_alter=pending), controller=c), answer


@guarded("Expand", REGISTERED, role=MASTER)
def expand(s: System, p: str, broker_id: int, lost: bool, opts: Options) -> tuple[System, frozendict]:
    """Expand (spec/Replication.tla)."""
    proc = s.procs[p]
    require(proc.pending_alter is None, f"{p} has an alter in flight")
    require(broker_id not in proc.local_sync_state_set and broker_id in proc.acks, f"{broker_id} is in the set or not connected")
    offset = proc.acks[broker_id]
    require(offset >= proc.confirm_offset and offset >= epoch_file.last_start(proc.epoch_file), f"{broker_id} has not caught up")
    require(s.process_of(broker_id) not in opts.async_learners, f"{broker_id} is an async learner")
    return _propose(s, p, proc, proc.local_sync_state_set | {broker_id}, lost)


@guarded("Shrink", REGISTERED, role=MASTER)
def shrink(s: System, p: str, broker_id: int, lost: bool, opts: Options) -> tuple[System, frozendict]:
    """Shrink (spec/Replication.tla)."""
    proc = s.procs[p]
    require(proc.pending_alter is None, f"{p} has an alter in flight")
    require(broker_id in proc.local_sync_state_set and broker_id != proc.meta_file, f"{broker_id} is not another member")
    require(proc.acks.get(broker_id, -1) < proc.leo, f"{broker_id} is connected and caught up")
    return _propose(s, p, proc, proc.local_sync_state_set - {broker_id}, lost)


@guarded("AlterArrives", REGISTERED)
def alter_arrives(s: System, p: str, opts: Options) -> tuple[System, frozendict]:
    """AlterArrives (spec/Replication.tla)."""
    proc = s.procs[p]
    pending = proc.pending_alter
    require(pending is not None and pending.delivered, f"{p} has no answer on its way")
    assert pending is not None
    applied = (pending.code == codes.SUCCESS and proc.role == MASTER
               and pending.sync_state_set_epoch > proc.local_sync_state_set_epoch)
    if applied:
        proc = evolve(proc, local_sync_state_set=pending.new_set, local_sync_state_set_epoch=pending.sync_state_set_epoch)
    s = with_process(s, p, evolve(proc, pending_alter=None))
    recompute = SET_RECOMPUTE if applied else NO_RECOMPUTE
    return (settle_master(s, p, opts, recompute) if proc.role == MASTER else s), frozendict(code=pending.code)


@guarded("Flush", *UP_STATES)
def flush(s: System, p: str) -> tuple[System, frozendict]:
    """Flush (spec/Replication.tla)."""
    proc = s.procs[p]
    require(proc.flushed < proc.leo, f"{p} has nothing to flush")
    return with_process(s, p, evolve(proc, flushed=proc.leo)), OK


@guarded("Consume", REGISTERED)
def consume(s: System, p: str, opts: Options) -> tuple[System, frozendict]:
    """Consume (spec/Replication.tla), of what the design shows (designs.visible)."""
    proc = s.procs[p]
    visible = frozenset(msg for msg, _ in proc.log[: designs.visible(proc, opts)])
    require(proc.role != "NONE" and not visible <= s.seen, f"{p} shows nothing new")
    return evolve(s, seen=s.seen | visible), OK

