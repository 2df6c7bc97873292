"""RocketMQ 4.x master-slave HA (spec/MasterSlave.tla; designs.py): one pure function per action, named as the
spec's in snake_case. The code: 4.9's ``CommitLog.handleHA`` (a SYNC_MASTER waits for ``push2SlaveMaxOffset`` to
pass the write, answers FLUSH_SLAVE_TIMEOUT after ``slaveTimeout`` and SLAVE_NOT_AVAILABLE at once when
``HAService.isSlaveOK`` is false), ``HAService.HAClient`` (the slave reports its max offset and appends what the
master streams) and ``HAConnection`` (the master streams from the slave's reported offset). Differs: the master
streams from the slave's offset even for an empty slave (4.x starts at the master's last commit-log file, which is
offset 0 while a log fits in one file, as every log of the model does); ``push2SlaveMaxOffset`` is the largest
offset a connected slave reported; the producer sends one message at a time (a SYNC_MASTER takes a write only
when the previous one is answered).
"""

from __future__ import annotations

from frozendict import frozendict

from . import codes
from .broker import OK, require_process, with_process
from .precondition import require
from .replication import append_durably
from .state import DOWN, HA_NONE, HA_TRANSFER, MASTER, NO_MASTER, REGISTERED, SLAVE, Options, Process, System, evolve


def _configured_master(s: System) -> int:
    """The id of the process configured as MASTER (the name server's master address), or NO_MASTER."""
    return next((x.meta_file for x in s.procs.values() if x.broker_role == MASTER), NO_MASTER)


def _master_of(s: System, p: str, proc: Process) -> str:
    """MsMasterOf (spec/MasterSlave.tla): the name of the master slave ``p`` follows, which runs as MASTER over an
    uncut link."""
    q = s.process_of(proc.local_master_id)
    require(q is not None and s.procs[q].reg_state == REGISTERED and s.procs[q].role == MASTER,
            f"{p}'s master {proc.local_master_id} does not run as MASTER")
    assert q is not None
    require(frozenset({p, q}) not in s.partitions, f"the link {p}-{q} is cut (PartitionLink)")
    return q


def _link(s: System, p: str) -> tuple[Process, str, Process]:
    """MsLink (spec/MasterSlave.tla): a connected slave, its master's name and the master."""
    proc = require_process(s, p, REGISTERED)
    require(proc.role == SLAVE and proc.ha_state == HA_TRANSFER, f"{p} is not a connected slave")
    q = _master_of(s, p, proc)
    return proc, q, s.procs[q]


def _settle(s: System, q: str) -> System:
    """MsSettled (spec/MasterSlave.tla): the master's waiting write is acked once a slave reported its end
    (GroupTransferService: push2SlaveMaxOffset >= the request's next offset)."""
    m = s.procs[q]
    if m.confirm_offset < m.leo and max(m.acks.values(), default=-1) >= m.leo:
        answered = frozenset(msg for msg, _ in m.log[m.confirm_offset:])
        return with_process(s, q, evolve(m, confirm_offset=m.leo), acked=s.acked | answered)
    return s


def ms_write(s: System, p: str, opts: Options) -> tuple[System, frozendict]:
    """MsWrite (spec/MasterSlave.tla): the master appends; an ASYNC_MASTER acks at once, a SYNC_MASTER waits for a
    slave, or answers SLAVE_NOT_AVAILABLE (acked when producers take it for a success) when no connected slave is
    within haMaxGapNotInSync of the write's end."""
    proc = require_process(s, p, REGISTERED)
    require(proc.role == MASTER, f"{p} is not a master")
    require(proc.confirm_offset == proc.leo, f"{p} has a write waiting for a slave")
    msg, offset = s.next_msg, proc.leo
    proc = append_durably(proc, proc.log + ((msg, 0),), opts)
    s = with_process(s, p, proc, next_msg=msg + 1)
    written = frozendict(code=codes.SUCCESS, msg=msg, offset=offset)
    if not opts.sync_master:
        return with_process(s, p, evolve(proc, confirm_offset=proc.leo), acked=s.acked | {msg}), written
    if not proc.acks or proc.leo - max(proc.acks.values()) >= opts.ha_max_gap:
        acked = s.acked | {msg} if opts.slave_not_available_ok else s.acked
        return (with_process(s, p, evolve(proc, confirm_offset=proc.leo), acked=acked),
                frozendict(code=codes.SLAVE_NOT_AVAILABLE, msg=msg, offset=offset))
    return _settle(s, p), written


def ms_connect(s: System, p: str) -> tuple[System, frozendict]:
    """MsConnect (spec/MasterSlave.tla): HAClient connects to the configured master and reports its max offset,
    which the master takes as the slave's ack and the offset to stream from."""
    proc = require_process(s, p, REGISTERED)
    require(proc.role == SLAVE and proc.ha_state != HA_TRANSFER, f"{p} is not a disconnected slave")
    q = _master_of(s, p, proc)
    master = s.procs[q]
    s = with_process(s, p, evolve(proc, ha_state=HA_TRANSFER))
    s = with_process(s, q, evolve(master, acks=master.acks.set(proc.meta_file, proc.leo)))
    return _settle(s, q), OK


def ms_transfer(s: System, p: str, opts: Options) -> tuple[System, frozendict]:
    """MsTransfer (spec/MasterSlave.tla): the master streams the entry at the slave's offset, which the slave
    appends whatever it holds before it (no epoch, no truncation)."""
    proc, _, master = _link(s, p)
    require(proc.leo < master.leo, f"{p} has the master's whole log")
    return with_process(s, p, append_durably(proc, proc.log + (master.log[proc.leo],), opts)), OK


def ms_ack(s: System, p: str) -> tuple[System, frozendict]:
    """MsAck (spec/MasterSlave.tla): the slave reports its max offset; the master's waiting write may be acked."""
    proc, q, master = _link(s, p)
    require(master.acks.get(proc.meta_file) != proc.leo, f"{q} already has {p}'s offset")
    return _settle(with_process(s, q, evolve(master, acks=master.acks.set(proc.meta_file, proc.leo))), q), OK


def ms_slave_timeout(s: System, p: str) -> tuple[System, frozendict]:
    """MsSlaveTimeout (spec/MasterSlave.tla): the waiting write is answered FLUSH_SLAVE_TIMEOUT (not acked)."""
    proc = require_process(s, p, REGISTERED)
    require(proc.role == MASTER and proc.confirm_offset < proc.leo, f"{p} has no write waiting")
    return with_process(s, p, evolve(proc, confirm_offset=proc.leo)), frozendict(code=codes.FLUSH_SLAVE_TIMEOUT)


def ms_restart(s: System, p: str) -> tuple[System, frozendict]:
    """MsRestart (spec/MasterSlave.tla): a down process starts in its configured role; a slave follows the
    configured master (the name server's), a master has no write waiting."""
    proc = require_process(s, p, DOWN)
    if proc.broker_role == MASTER:
        proc = evolve(proc, role=MASTER, confirm_offset=proc.leo, local_master_id=NO_MASTER)
    else:
        proc = evolve(proc, role=SLAVE, local_master_id=_configured_master(s))
    return with_process(s, p, evolve(proc, reg_state=REGISTERED, ha_state=HA_NONE, acks=frozendict())), OK


def operator_failover(s: System, p: str) -> tuple[System, frozendict]:
    """OperatorFailover (spec/MasterSlave.tla): with every configured master down, an operator reconfigures the
    running slave ``p`` as the master and restarts it so (nothing of its log is lost: a clean shutdown flushes);
    the old master's configuration becomes SLAVE, and every running slave follows ``p``."""
    proc = require_process(s, p, REGISTERED)
    require(proc.broker_role == SLAVE, f"{p} is not configured as a slave")
    alive = [q for q, x in s.procs.items() if x.broker_role == MASTER and x.reg_state != DOWN]
    require(not alive, f"the configured master {', '.join(alive)} still runs")
    procs = {}
    for q, x in s.procs.items():
        if q == p:
            x = evolve(x, broker_role=MASTER, role=MASTER, ha_state=HA_NONE, acks=frozendict(), confirm_offset=x.leo,
                       local_master_id=NO_MASTER)
        elif x.role == SLAVE:
            x = evolve(x, broker_role=SLAVE, local_master_id=proc.meta_file, ha_state=HA_NONE)
        else:  # down: it follows the configured master when it restarts (MsRestart)
            x = evolve(x, broker_role=SLAVE)
        procs[q] = x
    return evolve(s, procs=frozendict(procs)), OK

