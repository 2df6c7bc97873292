"""The designs RIP-44 replaced (MODEL.md §1; spec/Designs.tla), beside controller mode: what they share.

- RocketMQ 4.x master-slave HA (``masterslave.py``): each process's role is its configuration (``brokerRole``
  MASTER or SLAVE; RocketMQ's brokerId 0 is the MASTER), there is no controller and no epoch; a SYNC_MASTER acks a
  write once a slave has it, an ASYNC_MASTER at once; failover is an operator's action.
- DLedger mode (``dledger.py``), at the level of its guarantees: a Raft group of the broker set's processes, terms,
  votes to up-to-date logs, majority commit, the new leader's log wins.

Every design runs on the same ``System``: a process's ``meta_file`` holds its configured id (1..n in name order,
InitDesign), ``reg_state`` is REGISTERED while it runs and DOWN while it is down, ``role`` is MASTER (4.x master,
DLedger leader), SLAVE (4.x slave, DLedger follower) or NONE (down); the log holds ``(msg, epoch)`` with epoch 0
in 4.x and the entry's term in DLedger; ``confirm_offset`` is what consumers may read on a DLedger member (its
commit index) and, on a 4.x master, the end of the writes answered (4.x consumers read the whole log: ``visible``).
The controller's variables keep their Init values.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from frozendict import frozendict

from .state import (
    CONTROLLER,
    DLEDGER,
    DOWN,
    MASTER,
    MASTER_SLAVE,
    NO_MASTER,
    NONE,
    REGISTERED,
    SLAVE,
    Options,
    Process,
    System,
    evolve,
)

# the configured role of a process (the variable brokerRole): 4.x's brokerRole, a DLedger member's, controller mode's
CONFIGURED_DLEDGER = "DLEDGER"
BROKER_ROLES = (NONE, MASTER, SLAVE, CONFIGURED_DLEDGER)

Vars = Mapping[str, Any]


def design_of(v: Vars) -> str:
    """The design a state (by its variables) belongs to, read off ``brokerRole`` (spec/Designs.tla reads the
    constant Design; InitDesign fixes brokerRole from it, and no action changes a process's design): a trace
    without ``brokerRole`` is controller mode's."""
    roles = set(v.get("brokerRole", {}).values())
    if roles & {MASTER, SLAVE}:
        return MASTER_SLAVE
    return DLEDGER if CONFIGURED_DLEDGER in roles else CONTROLLER


def initial_system(processes: dict[str, str] | None = None, design: str = "controller") -> System:
    """The Init state: an empty controller and the given processes (name -> first address), just started. In the
    designs RIP-44 replaced, InitDesign (spec/Designs.tla): designs.initial_design."""
    procs = frozendict({p: Process(addr=a) for p, a in (processes or {}).items()})
    s = System(procs=procs)
    if design == CONTROLLER:
        return s
    return initial_design(s, design)


def initial_design(s: System, design: str) -> System:
    """InitDesign (spec/Designs.tla): every process runs (REGISTERED) with id 1..n in name order. 4.x: the first is
    the MASTER, the others its SLAVEs (following its id, not connected yet); DLedger: every member a follower of
    term 0 with no leader known."""
    procs = {}
    for i, (p, x) in enumerate(sorted(s.procs.items()), start=1):
        if design == MASTER_SLAVE:
            role = MASTER if i == 1 else SLAVE
            x = evolve(x, broker_role=role, role=role, local_master_id=NO_MASTER if i == 1 else 1)
        elif design == DLEDGER:
            x = evolve(x, broker_role=CONFIGURED_DLEDGER, role=SLAVE)
        else:
            raise ValueError(f"unknown design {design!r}: one of controller, masterslave, dledger")
        procs[p] = evolve(x, meta_file=i, reg_state=REGISTERED)
    return evolve(s, procs=frozendict(procs))


def max_term(v: Vars) -> int:
    return max(v["term"].values(), default=0)


def master_processes(v: Vars) -> list[str]:
    """MasterProcs (spec/Properties.tla): the processes the invariants hold to the master's duties. Controller
    mode: the process holding the controller's masterId; 4.x: every running MASTER; DLedger: every running leader
    of the highest term any process has (a leader of an older term has been deposed, it may not know yet)."""
    design = design_of(v)
    if design == CONTROLLER:
        m = v["masterId"]
        return [p for p, i in v["metaFile"].items() if m != NO_MASTER and i == m]
    running = [p for p in v["role"] if v["regState"][p] != DOWN and v["role"][p] == MASTER]
    return running if design == MASTER_SLAVE else [p for p in running if v["term"][p] == max_term(v)]


def visible(proc: Process, opts: Options) -> int:
    """Visible (spec/Replication.tla): how much of its log a process shows consumers. 4.x dispatches every
    message it stores (the ReputMessageService does not wait for a slave); the other designs show what is below
    confirmOffset."""
    return proc.leo if opts.design == MASTER_SLAVE else proc.confirm_offset

