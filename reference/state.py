"""Immutable state of the reference model (spec/State.tla; MODEL.md §2, §4): the controller of one broker
set, its broker processes, the environment and the ghost variables the invariants read. Differs in form:
the spec's flat variables (``variables.py`` maps them) are grouped here by owner into attrs classes.

Every class is frozen; an action returns a new state built with ``evolve``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from attrs import field, fields, frozen
from frozendict import frozendict

NO_MASTER = -1
NO_ID = 0  # "no broker id" in a process's files: broker ids start at 1
ELECT_MASTER_MAX_RETRY_COUNT = 3  # ControllerConfig.electMasterMaxRetryCount: tries of one election trigger

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

# HA connection state of a slave (MODEL.md §4): READY until the handshake truncated its log, then
# TRANSFER; NONE for a process that is not a slave. The handshake exchange is one atomic step.
HA_NONE = "NONE"
HA_READY = "READY"
HA_TRANSFER = "TRANSFER"

# The replication designs (Options.design): RocketMQ 5 controller mode (RIP-44), the 4.x master-slave HA it replaced,
# and DLedger mode (the commit log replicated by Raft), reference/designs.py.
CONTROLLER = "controller"
MASTER_SLAVE = "masterslave"
DLEDGER = "dledger"
DESIGNS = (CONTROLLER, MASTER_SLAVE, DLEDGER)

Entries = tuple[tuple[int, int], ...]  # a log: (msg, epoch); an epoch file: (epoch, startOffset)


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
    elect_tries_left: int = 0  # the leader's running election trigger: tries left, 0 = none

    @property
    def known(self) -> bool:
        return bool(self.replicas)


@frozen
class TempFile:
    """The ``brokerIdentity-temp`` file: the id asked for and the checkCode that proves ownership."""

    broker_id: int
    check_code: str


@frozen
class PendingAlter:
    """A master's AlterSyncStateSet whose outcome it does not know yet (MODEL.md §5, RocketMQ #5663).
    ``delivered``: the answer is on its way (AlterArrives); otherwise it was lost and the master learns
    the outcome only from the controller's replica info (SyncReplicaInfo)."""

    new_set: frozenset[int]
    code: str
    sync_state_set_epoch: int
    delivered: bool = True


@frozen
class Process:
    """One broker process. The identity files, the log with its flushed prefix, the epoch file and the
    confirmOffset checkpoint are on disk; the rest is volatile and lost by a crash."""

    addr: str
    meta_file: int = NO_ID
    temp_file: TempFile | None = None
    log: Entries = ()
    flushed: int = 0
    epoch_file: Entries = ()
    confirm_offset: int = 0
    reg_state: str = INITIAL
    role: str = NONE
    local_master_epoch: int = 0
    local_sync_state_set_epoch: int = 0
    local_master_id: int = NO_MASTER
    local_sync_state_set: frozenset[int] = frozenset()
    ha_state: str = HA_NONE
    acks: frozendict[int, int] = field(factory=frozendict)  # master: slave id -> acked offset (key = connected)
    pending_alter: PendingAlter | None = None
    # the designs RIP-44 replaced (reference/designs.py), on disk: the configured role (designs.BROKER_ROLES: 4.x's
    # brokerRole MASTER or SLAVE, DLEDGER for a DLedger member, NONE in controller mode) and DLedger's currentTerm
    broker_role: str = NONE
    term: int = 0

    @property
    def leo(self) -> int:
        return len(self.log)

    @property
    def up(self) -> bool:
        return self.reg_state != DOWN

    @property
    def broker_id(self) -> int:
        """BrokerIdOf (spec/State.tla)."""
        if self.meta_file != NO_ID:
            return self.meta_file
        return self.temp_file.broker_id if self.temp_file is not None else NO_ID


@frozen
class System:
    """The whole model: controller, processes, the environment (clock, next_msg) and the ghosts."""

    controller: Controller = field(factory=Controller)
    procs: frozendict[str, Process] = field(factory=frozendict)
    clock: int = 0  # timestamp source for fresh checkCodes
    next_msg: int = 1  # source of unique message ids
    master_history: frozenset[tuple[int, str]] = frozenset()  # ghost: (masterEpoch, process) pairs
    acked: frozenset[int] = frozenset()  # ghost: messages acknowledged to producers
    seen: frozenset[int] = frozenset()  # ghost: messages consumers have read
    # the network (MODEL.md §9): replication links cut between two processes (PartitionLink), and each process's
    # controller request computed on its view and not delivered yet (SendLate: a controller-level action record)
    partitions: frozenset[frozenset[str]] = frozenset()
    late: frozendict[str, frozendict] = field(factory=frozendict)
    # bookkeeping of the checker and TLC, not a trace variable: the budgeted faults taken so far (liveness.charged)
    faults: int = 0

    def process_of(self, broker_id: int) -> str | None:
        """The process whose meta file holds ``broker_id`` (unique while UniqueBrokerIds holds)."""
        return next((p for p, x in self.procs.items() if x.meta_file == broker_id and broker_id != NO_ID), None)


@frozen
class Options:
    """Model options of MODEL.md §3-§5. The defaults are the safe settings: RocketMQ's truncation,
    acks from the whole syncStateSet, no unclean election, synchronous flush, both fixes on."""

    enable_elect_unclean_master: bool = False
    policy: str = "rocketmq"
    all_ack_in_sync_state_set: bool = True
    min_in_sync_replicas: int = 1
    in_sync_replicas: int = 1
    async_flush: bool = False
    async_learners: frozenset[str] = frozenset()
    union_ack_fix: bool = True  # RocketMQ #5663: count acks against local ∪ proposed set while an alter is in flight
    confirm_freeze_fix: bool = True  # RocketMQ #6662: freeze confirmOffset while a set member has no connection
    kafka_leader_epoch_on_election: bool = False  # Kafka 2.1.0's leader-epoch cache (KAFKA-7415) for the Kafka policies
    # hypothetical (False = RocketMQ at the snapshot): getConfirmOffset's one-member shortcut reads the counted set
    confirm_shortcut_fix: bool = True
    # hypothetical (False = RocketMQ at the snapshot): computeConfirmOffset counts acks of 0 too
    confirm_zero_ack_fix: bool = True
    # hypothetical (False = RocketMQ at the snapshot): changeToMaster keeps a re-entered epoch's start offset
    epoch_reentry_fix: bool = True
    # False = before 5.1.1 (#6383), or JRaft with #8380's negated predicate: no periodic re-elect scan; only the
    # expiry of the master's heartbeat starts the controller's election trigger
    reelect_scan: bool = True
    # hypothetical (False = a startBasicService that is not retried): a broker whose ApplyBrokerId failed stays
    # APPLY_FAILED instead of starting again from INITIAL
    register_retry: bool = True
    # the replication design (DESIGNS): the options below act only in the 4.x master-slave design
    design: str = CONTROLLER
    # 4.x brokerRole of the master: SYNC_MASTER (True: a write waits for a slave) or ASYNC_MASTER (False: acked at once)
    sync_master: bool = True
    # 4.x producers treat SLAVE_NOT_AVAILABLE (no slave connected, or too far behind) as a success: the code's client
    # (False: a hypothetical client that treats it as a failure)
    slave_not_available_ok: bool = True
    # 4.x haMaxGapNotInSync in messages: a slave further behind than this after the write is not available
    ha_max_gap: int = 2


T = TypeVar("T")
_EVOLVERS: dict[type, tuple[Callable[[Any, dict[str, Any]], Any], frozenset[str]]] = {}


def _evolver(cls: type) -> tuple[Callable[[Any, dict[str, Any]], Any], frozenset[str]]:
    """``cls``'s evolve as one generated call of its constructor (as attrs generates ``__init__``): each field from
    the changes, else from the instance; and the names of the fields."""
    names = [f.name for f in fields(cls)]  # type: ignore[arg-type]
    source = f"def evolve(inst, changes):\n    get = changes.get\n    return cls({', '.join(f'get({n!r}, inst.{n})' for n in names)})"
    scope: dict[str, Any] = {"cls": cls}
    exec(source, scope)  # noqa: S102 - generated from the field names of a class of this module
    return scope["evolve"], frozenset(names)


def evolve(inst: T, **changes: Any) -> T:
    """``attrs.evolve`` for the frozen classes here, at a lower cost: the model checker builds a state or two on every
    transition. Like it, refuses a change of a field the class does not have."""
    found = _EVOLVERS.get(type(inst))
    if found is None:
        found = _EVOLVERS[type(inst)] = _evolver(type(inst))
    make, names = found
    if changes.keys() - names:
        raise TypeError(f"{type(inst).__name__} has no field {', '.join(sorted(changes.keys() - names))}")
    return make(inst, changes)  # type: ignore[no-any-return]
