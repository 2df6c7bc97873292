"""The faults of MODEL.md §9 (spec/Broker.tla and spec/Controller.tla): one pure function per fault action, named as
the spec's in snake_case. Each returns ``(system', outcome)``; a disabled action raises ``NotEnabled``. The budget
(``System.faults``, liveness.charged) is the checker's: these functions never touch it.

The network's state is ``System.partitions`` (the replication links cut, each the 2-set of its ends; the guard of
Handshake, Transfer and Ack is replication.py's) and ``System.late`` (per process, the controller request computed
on its view and not delivered yet: the record of the controller-level action, exactly its parameters).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from frozendict import frozendict

from . import epoch_file
from .broker import OK, UP_STATES, crash_keeping, elect_wanted, guarded, require_process, with_process
from .precondition import require
from .state import DOWN, HA_READY, HA_TRANSFER, META_DONE, NO_ID, REGISTERED, SLAVE, Controller, Options, System, evolve

LATE_REQUESTS = ("BrokerHeartbeat", "RegisterBrokerToController", "ElectMaster")  # what SendLate may compute


@guarded("CrashTorn", *UP_STATES)
def crash_torn(s: System, p: str, opts: Options) -> tuple[System, frozendict]:
    """CrashTorn (spec/Broker.tla): Crash, with the last flushed record torn and cut by recovery. Enabled only
    where that record was never confirmed, acknowledged to a producer, reported to a master, or (unless ``p`` is a
    slave, whose master has it) copied by another process: a master's torn record a slave already holds is left out."""
    proc = s.procs[p]
    kept = min(proc.flushed, proc.leo)
    require(kept > proc.confirm_offset, f"{p} has no unconfirmed flushed record to tear")
    require(proc.log[kept - 1][0] not in s.acked, f"{p}'s record at offset {kept - 1} was acknowledged")
    reported = [q for q, x in s.procs.items() if proc.meta_file in x.acks and x.acks[proc.meta_file] >= kept]
    require(not reported, f"{p}'s record at offset {kept - 1} was reported to {', '.join(reported)}")
    copied = [] if proc.role == SLAVE else [q for q, x in s.procs.items()
                                            if q != p and x.leo >= kept and x.log[kept - 1] == proc.log[kept - 1]]
    require(not copied, f"{p}'s record at offset {kept - 1} is already in the log of {', '.join(copied)}")
    return crash_keeping(s, p, kept - 1, opts, torn=True), OK


def controller_metadata_loss(s: System) -> tuple[System, frozendict]:
    """ControllerMetadataLoss (spec/Controller.tla): the controller knowing the set restarts as the initial one.
    The brokers notice nothing (a REGISTERED one stays as it is)."""
    require(s.controller.known, "the controller does not know the set")
    return evolve(s, controller=Controller()), OK


def _link(s: System, p: str, peer: str) -> frozenset[str]:
    require(p in s.procs and peer in s.procs, f"unknown process {p!r} or {peer!r}")
    require(p != peer, f"{p} has no replication link to itself")
    return frozenset({p, peer})


def partition_link(s: System, p: str, peer: str, lost: bool) -> tuple[System, frozendict]:
    """PartitionLink (spec/Broker.tla): the replication link between ``p`` and ``peer`` is cut, both ways. With
    ``lost`` the HA connection between them breaks (the slave goes READY, the master forgets its ack); without, it
    stays and transfers and acks wait for HealLink."""
    link = _link(s, p, peer)
    require(link not in s.partitions, f"the link {p}-{peer} is already cut")
    s = evolve(s, partitions=s.partitions | {link})
    if not lost:
        return s, OK
    for slave, master in ((p, peer), (peer, p)):
        x, m = s.procs[slave], s.procs[master]
        if x.ha_state == HA_TRANSFER and x.local_master_id == m.meta_file:
            s = with_process(s, slave, evolve(x, ha_state=HA_READY))
            s = with_process(s, master, evolve(m, acks=m.acks.delete(x.meta_file) if x.meta_file in m.acks else m.acks))
    return s, OK


def heal_link(s: System, p: str, peer: str) -> tuple[System, frozendict]:
    """HealLink (spec/Broker.tla)."""
    link = _link(s, p, peer)
    require(link in s.partitions, f"the link {p}-{peer} is not cut")
    return evolve(s, partitions=s.partitions - {link}), OK


def late_request(s: System, p: str, request: str) -> dict[str, Any]:
    """LateRequest (spec/Broker.tla): the record of ``request`` as ``p`` computes it now (SendHeartbeat's,
    SendRegister's, SendElectMaster's); raises ``NotEnabled`` where p would not send it."""
    require(request in LATE_REQUESTS, f"{request!r} is not a request SendLate computes; one of {', '.join(LATE_REQUESTS)}")
    if request == "RegisterBrokerToController":
        proc = require_process(s, p, META_DONE, REGISTERED)
        return {"tag": request, "brokerId": proc.meta_file, "addr": proc.addr}
    proc = require_process(s, p, REGISTERED)
    if request == "BrokerHeartbeat":
        return {"tag": request, "brokerId": proc.meta_file, "epoch": epoch_file.last_epoch(proc.epoch_file),
                "maxOffset": proc.leo, "priority": 0}
    require(elect_wanted(s, proc), f"{p} knows a live master: it does not ask for an election")
    return {"tag": request, "trigger": "broker", "brokerId": proc.meta_file}


def send_late(s: System, p: str, request: str) -> tuple[System, frozendict]:
    """SendLate (spec/Broker.tla): ``p``'s request, computed on its view now, is delivered later (DeliverLate);
    the process times out and goes on."""
    require(p not in s.late, f"{p} already has a request in flight")
    return evolve(s, late=s.late.set(p, frozendict(late_request(s, p, request)))), OK


def deliver_late(s: System, p: str, run: Callable[[System, Mapping[str, Any]], tuple[System, frozendict]]
                 ) -> tuple[System, frozendict]:
    """DeliverLate (spec/Controller.tla): the controller applies ``p``'s late request as the controller-level action
    of its tag does (``run``: the action table's function); its answer is the outcome; no process changes."""
    require(p in s.late, f"{p} has no request in flight")
    after, answer = run(s, s.late[p])
    return evolve(after, late=after.late.delete(p)), answer


@guarded("WipeDisk", DOWN)
def wipe_disk(s: System, p: str) -> tuple[System, frozendict]:
    """WipeDisk (spec/Broker.tla): a down process's disk is replaced; it restarts as a new broker."""
    proc = s.procs[p]
    return with_process(s, p, evolve(proc, meta_file=NO_ID, temp_file=None, log=(), flushed=0, epoch_file=(), confirm_offset=0)), OK

