"""Immutable state of the reference model: the controller of one broker set, its broker processes,
and the ghost variables the invariants read (MODEL.md §2, §4).

Every class is frozen; an action returns a new state built with ``attrs.evolve``.
"""

from __future__ import annotations

from attrs import field, frozen
from frozendict import frozendict

NO_MASTER = -1
NO_ID = 0  # "no broker id" in a process's files: broker ids start at 1

# Registration states of a process (MODEL.md §4), refined in spec/README.md: the arrows
# TEMP_DONE -> META_DONE and the failure arrow are split where the code takes two steps.
DOWN = "DOWN"
INITIAL = "INITIAL"
TEMP_DONE = "TEMP_DONE"
APPLY_FAILED = "APPLY_FAILED"
ID_APPLIED = "ID_APPLIED"
META_WRITTEN = "META_WRITTEN"
META_DONE = "META_DONE"
REGISTERED = "REGISTERED"

NONE = "NONE"
MASTER = "MASTER"
SLAVE = "SLAVE"


@frozen
class Replica:
    """What the controller stores for a broker id: its address and the checkCode that applied it."""

    addr: str
    check_code: str


@frozen
class LiveInfo:
    """The controller's soft liveness entry of a broker id: what its last heartbeat reported."""

    epoch: int
    max_offset: int
    priority: int


@frozen
class Controller:
    """Controller state of one broker set. ``replicas`` empty means the set is unknown."""

    replicas: frozendict[int, Replica] = field(factory=frozendict)
    next_broker_id: int = 1
    master_id: int = NO_MASTER
    master_epoch: int = 0
    sync_state_set: frozenset[int] = frozenset()
    sync_state_set_epoch: int = 0
    alive: frozendict[int, LiveInfo] = field(factory=frozendict)

    @property
    def known(self) -> bool:
        return bool(self.replicas)


@frozen
class TempFile:
    """The ``brokerIdentity-temp`` file: the id asked for and the checkCode that proves ownership."""

    broker_id: int
    check_code: str


@frozen
class Process:
    """One broker process. ``meta_file`` and ``temp_file`` are on disk; the rest is volatile."""

    addr: str
    meta_file: int = NO_ID
    temp_file: TempFile | None = None
    reg_state: str = INITIAL
    role: str = NONE
    local_master_epoch: int = 0
    local_sync_state_set_epoch: int = 0

    @property
    def up(self) -> bool:
        return self.reg_state != DOWN

    @property
    def broker_id(self) -> int:
        """The id the process works under: the meta file's, else the temp file's, else none."""
        if self.meta_file != NO_ID:
            return self.meta_file
        return self.temp_file.broker_id if self.temp_file is not None else NO_ID


@frozen
class System:
    """The whole model: controller, processes, the checkCode clock and the ghost master history."""

    controller: Controller = field(factory=Controller)
    procs: frozendict[str, Process] = field(factory=frozendict)
    clock: int = 0  # timestamp source for fresh checkCodes
    master_history: frozenset[tuple[int, str]] = frozenset()  # ghost: (masterEpoch, process) pairs


def initial_system(processes: dict[str, str] | None = None) -> System:
    """The Init state: an empty controller and the given processes (name -> first address), just started."""
    procs = frozendict({p: Process(addr=a) for p, a in (processes or {}).items()})
    return System(procs=procs)


@frozen
class Options:
    """Model options of MODEL.md §3 that the controller and broker actions read."""

    enable_elect_unclean_master: bool = False
