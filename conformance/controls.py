"""The safe configurations and the negative controls of MODEL.md §6 and §8, in one table.

Each row names one setting of the model (a truncation policy and the ``Options`` fields that differ from
the safe defaults) and what it must show: ``invariant`` and ``liveness`` are None for a safe setting, else the
invariant its counterexample breaks (a negative control of safety) or the liveness property (reference/liveness.py)
its lasso or stuck run breaks (a negative control of liveness). The same row names where that setting is exercised:

- ``cfg``: the spec configuration ``spec/<cfg>.cfg`` (``autoswitch check``, ``autoswitch tla``, TLC);
  ``steps`` is the length of the shortest counterexample there (from ``INIT``, as TLC prints it);
- ``trace``: the committed trace (path under the repository) whose ``#meta.expect`` names the invariant;
- ``simulation``: the configuration of the simulation grid (``<options>-<policy>-<n>p``, ``...-live`` for liveness
  walks) whose walks must find it; ``tolerated``: further invariants the setting is known to break (a walk records
  them and goes on).

The liveness rows' spec configurations (spec/MC_live*.cfg) bound every fault (BoundAllFaults, MaxFaults 1). The code's
own behaviour breaks two properties (``Control.finding``, not controls): EventuallyRegistered under
ControllerMetadataLoss (row ``meta-loss``; the liveness walks of the simulation draw no ControllerMetadataLoss,
LIVE_WEIGHTS, its safety walks do), and EventuallyInSync after a second failover (row
``failover``), which every liveness walk tolerates (``findings``).

The designs RIP-44 replaced (MODEL.md §1; reference/designs.py) have rows of their own: ``options["design"]`` names the
design (``Control.design``; controller mode when absent) and ``processes`` the broker set's size where the verdict
depends on it (DLedger: two members have no majority once one fails). Their ``tolerated`` are further properties the
checker finds broken when checked alone (``autoswitch check CFG --invariant NAME``: the comparison, conformance/compare.py).
A setting inherits only the rows of its own design (``breaks``, ``liveness_breaks``).

``defaults`` says which default sets hold the row: ``check`` (``autoswitch check``, CI), ``tla``
(``autoswitch tla``), ``tlc`` (the TLC runs of tests/tools/test_spec_tlc.py) and ``simulate`` (the default grid of
``autoswitch simulate``). The readers keep the row order.

The option sets and the simulation grid are here too. An option set (``OPTION_SETS``; the designs', ``DESIGN_SETS``) is
a named setting, the Options fields that differ from the safe defaults, with the weights of its walks; a row above
takes its ``options`` from one (:func:`options_of`). The grid (:func:`grid`) names every simulation configuration,
``<options>-<policy>-<n>p`` (``-live``: liveness walks) and ``<design>-<n>p``; what a configuration must find and may
tolerate is read from the rows (``SimConfig.control``, ``SimConfig.tolerated``). The spec configurations
(spec/MC_*.cfg) are written from the table of cfgs.py, which takes a row's setting from the row naming it.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from attrs import frozen

from autoswitch.conformance.engines import Config
from autoswitch.conformance.errors import InputError
from autoswitch.reference import Options
from autoswitch.reference.state import CONTROLLER, DLEDGER, MASTER_SLAVE
from autoswitch.reference.truncation import POLICIES

CHECK, TLA, TLC, SIMULATE = "check", "tla", "tlc", "simulate"


@frozen
class Control:
    """One safe configuration or negative control."""

    name: str
    policy: str = "rocketmq"
    options: Mapping[str, Any] = {}  # Options fields that differ from the safe defaults
    invariant: str | None = None  # None: safe
    liveness: str | None = None  # the liveness property broken (reference/liveness.py); None: none
    cfg: str | None = None
    steps: int | None = None
    trace: str | None = None
    simulation: str | None = None
    tolerated: tuple[str, ...] = ()
    defaults: frozenset[str] = frozenset()
    processes: int | None = None  # the verdict holds for this many processes only; None: for any
    faults: tuple[str, ...] = ()  # a finding's: the fault actions its runs need (a walk that draws none cannot meet it)

    @property
    def design(self) -> str:
        """The replication design (reference/designs.py): ``options["design"]``, controller mode when absent."""
        return str(self.options.get("design", CONTROLLER))

    @property
    def model_options(self) -> Options:
        return Options(policy=self.policy, **self.options)

    @property
    def breaks(self) -> tuple[str, ...]:
        """The invariants this setting is known to break, the control first."""
        return () if self.invariant is None else (self.invariant, *self.tolerated)

    @property
    def liveness_breaks(self) -> tuple[str, ...]:
        """The liveness properties this setting is known to break, the control first."""
        return () if self.liveness is None else (self.liveness, *self.tolerated)

    def matches(self, policy: str, options: Mapping[str, Any], processes: int | None = None) -> bool:
        """A setting of ``policy`` and ``options`` (Options fields) takes this row's options (their values, defaults
        included), its design, and its process count if the row has one (None: the row must not need one)."""
        setting = Options(policy=policy, **options)
        return (self.design == setting.design and all(getattr(setting, k) == v for k, v in self.options.items())
                and self.processes in (None, processes))

    @property
    def finding(self) -> bool:
        """The code's own liveness failure (MODEL.md §9: a finding, not a control): a controller-mode row with a
        liveness property and no option changed."""
        return self.liveness is not None and not self.options and self.design == CONTROLLER

    @property
    def expects(self) -> str | None:
        """The property its configuration must break: the invariant, else the liveness property; None: safe."""
        return self.invariant or self.liveness


def _defaults(*names: str) -> frozenset[str]:
    return frozenset(names)


# ---- option sets ------------------------------------------------------------------------------------------------
# The weights of a walk's moves (campaign.MOVES: a process's protocol step, a fault, a stray request) and of a
# registered process's steps (1 when absent); ``lost`` is the probability that a request's response is lost. An
# option set's weights, a policy's (POLICY_WEIGHTS) and a liveness walk's (LIVE_WEIGHTS) override these
# (SimConfig.weights); a tag not in the action table is never drawn, whatever its weight.
DEFAULT_WEIGHTS: dict[str, float] = {
    "process": 90, "Crash": 2, "HeartbeatExpire": 1.5, "ControllerElectScan": 2, "ControllerFailover": 0.5, "request": 4,
    # MODEL.md §9: each about as often as a crash or less; the steps that end a partition or a late request more
    # often than they start (they draw only where there is one)
    "CrashTorn": 1, "ControllerMetadataLoss": 0.3, "PartitionLink": 1, "HealLink": 2, "SendLate": 1, "DeliverLate": 2,
    "WipeDisk": 1,
    "lost": 0.05,
    # the designs' steps by role (generate.DESIGN_STEPS; Flush and Consume 1): writes and transfers often, the
    # operator's failover as soon as a 4.x master is down (it is enabled only then)
    "MsWrite": 2, "MsSlaveTimeout": 0.5, "MsConnect": 1, "MsTransfer": 2, "MsAck": 1, "OperatorFailover": 3,
    "DlWrite": 2, "DlPush": 3, "DlElect": 1,
}


@frozen
class OptionSet:
    """Options of a configuration (Options fields) and its walks' weights; what they break is in the rows below.
    ``warm``: its liveness walks start from a healthy set (fair steps from Init to quiescence: campaign.run_walk)."""

    options: Mapping[str, Any]
    weights: Mapping[str, float] = {}
    warm: bool = False


# Fast leader changes (KIP-279): crashes, expiries and elections often, slaves handshaking with each new master.
FAST_LEADER = {"Crash": 6, "HeartbeatExpire": 4, "ControllerElectScan": 6, "SendElectMaster": 3, "Handshake": 3, "request": 1}

OPTION_SETS: dict[str, OptionSet] = {
    "safe": OptionSet({}),
    "allack-off": OptionSet({"all_ack_in_sync_state_set": False}),
    "union-off": OptionSet({"union_ack_fix": False}),  # RocketMQ #5663
    "unclean": OptionSet({"enable_elect_unclean_master": True}),
    "freeze-off": OptionSet({"confirm_freeze_fix": False}),  # RocketMQ #6662
    # Kafka's fast leader changes (KIP-279): unclean elections, acks from the local set, two in-sync replicas
    "fast-leader": OptionSet({"enable_elect_unclean_master": True, "all_ack_in_sync_state_set": False, "in_sync_replicas": 2},
                             FAST_LEADER),
    # Kafka 2.1.0's leader-epoch cache (KAFKA-7415) for the Kafka policies; nothing changes for rocketmq
    "kafka21": OptionSet({"kafka_leader_epoch_on_election": True}),
    # the liveness controls: RocketMQ at the snapshot (a re-entered epoch re-based), no periodic re-elect scan, a
    # startBasicService that is not retried
    "reentry-off": OptionSet({"epoch_reentry_fix": False}),
    # no master for ever: from a healthy set, the master crashes and the controller fails over (forgetting its heartbeat)
    # before it expires; the master stays down (Restart is not fair)
    "reelect-off": OptionSet({"reelect_scan": False}, {"process": 30, "Crash": 6, "ControllerFailover": 6, "HeartbeatExpire": 0.5},
                             warm=True),
    "retry-off": OptionSet({"register_retry": False}),
}
# The designs RIP-44 replaced (reference/designs.py): option set and process counts of each, named <design>-<n>p in the
# grid: 4.x ASYNC_MASTER and SYNC_MASTER (producers counting SLAVE_NOT_AVAILABLE as a success, the code's client),
# DLedger mode.
DESIGN_SETS: dict[str, tuple[OptionSet, tuple[int, ...]]] = {
    "ms-async": (OptionSet({"design": MASTER_SLAVE, "sync_master": False}), (2,)),
    "ms-sync": (OptionSet({"design": MASTER_SLAVE, "sync_master": True, "slave_not_available_ok": True}), (2,)),
    "dledger": (OptionSet({"design": DLEDGER}), (2, 3)),
}


def option_set(name: str) -> OptionSet:
    """The option set ``name`` of OPTION_SETS or DESIGN_SETS."""
    return OPTION_SETS[name] if name in OPTION_SETS else DESIGN_SETS[name][0]


def options_of(name: str) -> Mapping[str, Any]:
    """The options (Options fields) of the option set ``name``: a row's setting, stated once."""
    return option_set(name).options


# Kafka's hw truncation loses data when a slave crashes between its ack and the next transfer (which carries the
# confirmOffset) and handshakes again before the master shrinks it out of the set. The slave must be in the set first:
# Expand needs it caught up with the master, which rare writes and frequent expansions make likelier (with writes at 1
# and Expand at 1, 3 walks in 100 ever had two members); its walks never shrink (every other configuration does).
POLICY_WEIGHTS = {"hw": {"Crash": 6, "Handshake": 3, "Shrink": 0, "Ack": 2, "Write": 0.3, "Expand": 5, "AlterArrives": 5}}
PROCESS_COUNTS = (2, 3)
# A liveness walk loses no controller metadata: the code's brokers do not register again after it (EventuallyRegistered,
# the finding of the meta-loss row), and a slave whose master's epoch the controller forgot is never told the new one
# (EventuallyInSync); the checker's MC_live_meta covers it. Its safety walks inject it.
LIVE_WEIGHTS = {"ControllerMetadataLoss": 0}

# 4.x: consumers read what no slave has yet (every stored message is dispatched); the old master back as a slave with
# a message the new master lacks takes the new master's next one after it: the logs diverge (LogMatching, 8 steps with
# a third message) and it never catches up (EventuallyInSync).
# DLedger with 2 members: a write taken before the crash is never answered (no majority commits it)
_MS_BREAKS = ("NoPhantomRead", "LogMatching")
_DLEDGER2_LIVE_BREAKS = ("EventuallyAnswered",)
# the shortcuts of confirmOffset (ROCKETMQ.md §8.4): settings of rows only, in no configuration of the grid
_SHORTCUT_OFF = {"confirm_shortcut_fix": False}
_ZEROACK_OFF = {"confirm_zero_ack_fix": False}

CONTROLS: tuple[Control, ...] = (
    # safe settings
    Control("safe-rocketmq", cfg="MC_data_reg1", simulation="safe-rocketmq-2p", defaults=_defaults(CHECK, SIMULATE)),
    Control("safe-rocketmq-3p", cfg="MC_data3", simulation="safe-rocketmq-3p", defaults=_defaults(SIMULATE)),
    Control("safe-kip279", "kip279", cfg="MC_data_reg1_kip279", simulation="safe-kip279-2p", defaults=_defaults(CHECK, SIMULATE)),
    Control("safe-kip279-3p", "kip279", simulation="safe-kip279-3p", defaults=_defaults(SIMULATE)),
    Control("kafka21-kip279", "kip279", options_of("kafka21"), simulation="kafka21-kip279-2p",
            defaults=_defaults(SIMULATE)),
    Control("safe-kip101", "kip101", cfg="MC_data_reg1_kip101", defaults=_defaults(CHECK)),
    Control("safe-data", cfg="MC_data", defaults=_defaults(TLA, TLC)),
    # negative controls (MODEL.md §6)
    Control("hw", "hw", invariant="NoAckedMessageLost", cfg="MC_neg_hw_reg1", steps=12, trace="traces/kafka/K1-hw.itf.json",
            simulation="safe-hw-2p", tolerated=("LogMatching",), defaults=_defaults(CHECK, SIMULATE)),
    Control("union-off", options=options_of("union-off"), invariant="NoAckedMessageLost", cfg="MC_neg_union", steps=16,
            trace="traces/negative/rocketmq-5663-expand-without-union.itf.json", simulation="union-off-rocketmq-2p",
            defaults=_defaults(CHECK, TLA, TLC, SIMULATE)),  # RocketMQ #5663
    Control("allack-off", options=options_of("allack-off"), invariant="NoAckedMessageLost", cfg="MC_neg_allack",
            steps=16, trace="traces/negative/all-ack-off-loses-acked.itf.json", simulation="allack-off-rocketmq-2p",
            defaults=_defaults(CHECK, TLA, TLC, SIMULATE)),
    Control("unclean", options=options_of("unclean"), invariant="NoAckedMessageLost", cfg="MC_neg_unclean",
            steps=14, trace="traces/negative/unclean-election-loses-acked.itf.json", simulation="unclean-rocketmq-2p",
            tolerated=("NoPhantomRead",), defaults=_defaults(CHECK, TLA, TLC, SIMULATE)),
    Control("hw-logmatching", "hw", {"all_ack_in_sync_state_set": False, "in_sync_replicas": 2}, "LogMatching",
            cfg="MC_neg_hw_logmatching", steps=12, trace="traces/kafka/K2-hw.itf.json", defaults=_defaults(CHECK, TLA, TLC)),
    # K4 as for kip279: 0.11.0.0 also falls back to the high watermark
    Control("kip101", "kip101", options_of("fast-leader"), "LogMatching", cfg="MC_neg_kip101", steps=9,
            trace="traces/kafka/K3-kip101.itf.json", simulation="fast-leader-kip101-2p",
            defaults=_defaults(CHECK, TLA, TLC, SIMULATE)),
    # K4: Kafka 2.0.0 without KAFKA-7415's epoch entry on election
    Control("kip279-noepoch", "kip279", options_of("fast-leader"), "LogMatching", cfg="MC_neg_kip279_noepoch", steps=9,
            trace="traces/kafka/K4-kip279.itf.json", simulation="fast-leader-kip279-2p",
            defaults=_defaults(CHECK, TLC, SIMULATE)),
    Control("shortcut-off", options=_SHORTCUT_OFF, invariant="NoPhantomRead", cfg="MC_neg_shortcut",
            steps=7, trace="traces/negative/rocketmq-confirm-shortcut-expand.itf.json", defaults=_defaults(CHECK)),
    Control("zeroack-off", options=_ZEROACK_OFF, invariant="NoPhantomRead", cfg="MC_neg_zeroack", steps=8,
            trace="traces/negative/rocketmq-confirm-zero-ack.itf.json", defaults=_defaults(CHECK)),
    # the two above at MaxEpoch 3 (MC_neg_* from registered brokers at MaxEpoch 2 otherwise): run with --workers 2 in CI
    # (tests/tools/test_check_e3.py)
    Control("shortcut-off-e3", options=_SHORTCUT_OFF, invariant="NoPhantomRead", cfg="MC_neg_shortcut_e3",
            steps=7),
    Control("zeroack-off-e3", options=_ZEROACK_OFF, invariant="NoPhantomRead", cfg="MC_neg_zeroack_e3",
            steps=8),
    # the larger hw configuration (131 s in TLC): in no default set
    Control("hw-data", "hw", invariant="NoAckedMessageLost", cfg="MC_neg_hw"),
    # the diverged logs also lose an acknowledged message (35 steps: simulate --configs reentry-off-rocketmq-2p-live, seed 1,
    # walk 639)
    Control("reentry-off", options=options_of("reentry-off"), invariant="LogMatching",
            trace="traces/negative/rocketmq-epoch-reentry-diverges.itf.json", tolerated=("NoAckedMessageLost",)),
    # RocketMQ 5.1.0 without #6662. Not in the default grid: with 5.1.0's rule (confirmOffset recomputed only on a
    # member's ack) the phantom read needs a third member acking while a disconnected one later wins the election;
    # 1,000 random walks of freeze-off-rocketmq-3p did not find it (README.md, "Simulation campaigns").
    Control("freeze-off", options=options_of("freeze-off"), invariant="NoPhantomRead", simulation="freeze-off-rocketmq-3p"),
    # liveness (MODEL.md §8): the code's retry loops hold, under every fault but the controller's metadata loss
    Control("live-reg", cfg="MC_live_reg", simulation="safe-rocketmq-2p-live", defaults=_defaults(SIMULATE)),
    Control("live-data", cfg="MC_live_data", simulation="safe-rocketmq-3p-live", defaults=_defaults(SIMULATE)),
    # a startBasicService that is not retried: a broker whose ApplyBrokerId failed never registers
    # (its walks too can meet the code's finding of MC_live_failover, EventuallyInSync: 1 walk in 1,000 at seed 1)
    Control("retry-off", options=options_of("retry-off"), liveness="EventuallyRegistered", cfg="MC_live_neg_retry",
            simulation="retry-off-rocketmq-2p-live", tolerated=("EventuallyInSync",), defaults=_defaults(SIMULATE)),
    # before 5.1.1 (#6383), or JRaft with #8380's negated predicate: no periodic re-elect scan, one election try
    # (its crash-heavy walks also meet the code's own finding of MC_live_failover: a slave left with an epoch the new
    # master never saw finds no consistent point, EventuallyInSync; tolerated, as an invariant row tolerates)
    Control("reelect-off", options=options_of("reelect-off"), liveness="EventuallyMaster", cfg="MC_live_neg_reelect",
            simulation="reelect-off-rocketmq-2p-live", tolerated=("EventuallyInSync",), defaults=_defaults(SIMULATE)),
    # RocketMQ at the snapshot: a restarted master re-adopting its epoch re-bases the epoch's start; a slave holding
    # the old start finds no consistent point and never leaves READY
    Control("reentry-off-live", options=options_of("reentry-off"), liveness="EventuallyInSync", cfg="MC_live_neg_reentry",
            simulation="reentry-off-rocketmq-2p-live", defaults=_defaults(SIMULATE)),
    # a finding (ROCKETMQ.md §7.5): a broker restarted after the controller lost its metadata stays META_DONE
    Control("meta-loss", liveness="EventuallyRegistered", cfg="MC_live_meta", faults=("ControllerMetadataLoss",)),
    # a finding: a slave whose old epoch holds no message finds no consistent point with a master elected after it and
    # never leaves READY (two master epochs; spec/README.md, "Liveness"); crash-heavy walks of every liveness
    # configuration can meet it, so they tolerate it (SimConfig.tolerated)
    Control("failover", liveness="EventuallyInSync", cfg="MC_live_failover"),
    # the designs RIP-44 replaced (issue 15; conformance/compare.py checks each property alone). Their cfgs run in
    # seconds (CI); their walks join the default grid once the grid has their configurations. 4.x master-slave loses
    # an acknowledged message on the operator's failover, ASYNC_MASTER at once, SYNC_MASTER after SLAVE_NOT_AVAILABLE
    Control("ms-async", options=options_of("ms-async"), invariant="NoAckedMessageLost", cfg="MC_ms_async", steps=3,
            trace="traces/designs/ms-async-NoAckedMessageLost.itf.json", simulation="ms-async-2p", tolerated=_MS_BREAKS,
            defaults=_defaults(CHECK)),
    Control("ms-sync", options=options_of("ms-sync"), invariant="NoAckedMessageLost", cfg="MC_ms_sync", steps=3,
            trace="traces/designs/ms-sync-NoAckedMessageLost.itf.json", simulation="ms-sync-2p", tolerated=_MS_BREAKS,
            defaults=_defaults(CHECK)),
    # DLedger: safe with 2 and 3 replicas; with 2, one crash leaves no majority: no leader, no write acked again
    Control("dledger-2", options=options_of("dledger"), cfg="MC_dledger2", simulation="dledger-2p", processes=2, defaults=_defaults(CHECK)),
    Control("dledger-3", options=options_of("dledger"), cfg="MC_dledger3", simulation="dledger-3p", processes=3,
            defaults=_defaults(CHECK)),
    # 4.x has no automatic failover: a crashed master stays down (restarts are not fair)
    Control("live-ms", options=options_of("ms-sync"), liveness="EventuallyMaster", cfg="MC_live_ms", simulation="ms-sync-2p-live",
            tolerated=("EventuallyInSync",),
            trace="traces/designs/ms-sync-EventuallyMaster.itf.json"),
    Control("live-dledger-2", options=options_of("dledger"), liveness="EventuallyMaster", cfg="MC_live_dledger2",
            simulation="dledger-2p-live", tolerated=_DLEDGER2_LIVE_BREAKS, processes=2,
            trace="traces/designs/dledger-2-EventuallyMaster.itf.json"),
    Control("live-dledger-3", options=options_of("dledger"), cfg="MC_live_dledger3", simulation="dledger-3p-live", processes=3),
)


def in_default(tool: str) -> tuple[Control, ...]:
    """The rows in ``tool``'s default set, in table order."""
    return tuple(c for c in CONTROLS if tool in c.defaults)


def by_name(name: str) -> Control | None:
    return next((c for c in CONTROLS if c.name == name), None)


def by_cfg(cfg: str) -> Control | None:
    return next((c for c in CONTROLS if c.cfg == cfg), None)


def expected_violation(cfg: str) -> str | None:
    """The property (invariant or liveness property) spec/CFG.cfg must break; None: every property must hold. A
    configuration outside the table is a negative control when it is named ``MC_neg_*`` or ``MC_live_neg_*`` (then any
    violation will do: ``"*"``)."""
    row = by_cfg(cfg)
    if row is not None:
        return row.expects
    return "*" if cfg.startswith(("MC_neg_", "MC_live_neg_")) else None


def config_breaks(cfg: str) -> tuple[str, ...] | None:
    """Every property spec/CFG.cfg is known to break when checked alone (its row's ``breaks`` and ``liveness_breaks``;
    none outside the table); None for a negative control outside the table (any violation will do)."""
    row = by_cfg(cfg)
    if row is not None:
        return (*row.breaks, *row.liveness_breaks)
    return None if expected_violation(cfg) == "*" else ()


def breaks(policy: str, options: Mapping[str, Any], processes: int | None = None) -> tuple[str, ...]:
    """What a setting is known to break, the control first. Controller mode: the rows of exactly this Kafka policy and
    these options, then those of the policy alone, then the RocketMQ rows whose options are among these (e.g. unclean
    election together with acks from the local set breaks what each breaks alone). The other designs: the rows of the
    design whose options (and process count, if they name one) the setting takes."""
    if (design := Options(policy=policy, **options).design) != CONTROLLER:
        return tuple(dict.fromkeys(name for c in CONTROLS if c.design == design and c.matches(policy, options, processes)
                                   for name in c.breaks))
    controller = [c for c in CONTROLS if c.design == CONTROLLER]
    kafka = [c for c in controller if policy != "rocketmq" and c.policy == policy]
    exact = [c.invariant for c in kafka if c.invariant and c.options == options]
    alone = [name for c in kafka if not c.options for name in c.breaks]
    mixed = [name for c in controller if c.policy == "rocketmq" and c.options and c.options.items() <= options.items()
             for name in c.breaks]
    return tuple(dict.fromkeys([*exact, *alone, *mixed]))


def findings(drawn: Collection[str]) -> tuple[str, ...]:
    """The liveness properties the code itself breaks (the rows that are findings) in runs that draw the fault actions
    ``drawn``: a finding needing a fault not drawn is left out."""
    return tuple(dict.fromkeys(c.liveness for c in CONTROLS if c.finding and c.liveness and set(c.faults) <= set(drawn)))


FINDINGS = {c.cfg: c.liveness for c in CONTROLS if c.finding and c.cfg and c.liveness}  # spec configuration -> property


def liveness_breaks(policy: str, options: Mapping[str, Any], processes: int | None = None) -> tuple[str, ...]:
    """The liveness properties a setting is known to break (breaks' rules for the rows with ``liveness``): controller
    mode, the rows of this policy (Kafka) or of RocketMQ whose options are among these (the finding ``meta-loss`` is not
    a setting's: it is the fault's, its row has no options); the other designs, the rows of the design that match."""
    if (design := Options(policy=policy, **options).design) != CONTROLLER:
        return tuple(dict.fromkeys(name for c in CONTROLS if c.design == design and c.matches(policy, options, processes)
                                   for name in c.liveness_breaks))
    return tuple(dict.fromkeys(name for c in CONTROLS if c.design == CONTROLLER and c.liveness and c.options
                               and c.policy in (policy, "rocketmq") and c.options.items() <= options.items()
                               for name in c.liveness_breaks))


SMALL_CONFIGS = tuple(c.cfg for c in in_default(CHECK) if c.cfg)


# ---- the simulation grid ----------------------------------------------------------------------------------------
LIVE_SUFFIX = "-live"
# The safe configurations and the negative controls of the rows (freeze-off, RocketMQ 5.1.0 without #6662, is not
# among them: see its row).
DEFAULT_CONFIGS = tuple(c.simulation for c in in_default(SIMULATE) if c.simulation)


def controller_mode(name: str) -> bool:
    """Whether configuration ``name`` of the grid is RocketMQ's controller mode (what the real code can answer)."""
    options = grid()[name].config.options
    return options.policy == "rocketmq" and options.design == CONTROLLER


@frozen
class SimConfig:
    """One configuration of the grid; ``live``: its walks are liveness walks (simulation/campaign.py)."""

    name: str
    option_set: str
    policy: str
    processes: int
    live: bool = False

    @property
    def config(self) -> Config:
        procs = {f"p{i}": f"10.0.0.{i}:30911" for i in range(1, self.processes + 1)}
        return Config(procs, Options(policy=self.policy, **option_set(self.option_set).options))

    @property
    def breaks(self) -> tuple[str, ...]:
        """Properties these settings are known to break (the rows); the first is the negative control's. A liveness
        configuration's are the liveness properties first, then the invariants."""
        options = option_set(self.option_set).options
        safety = breaks(self.policy, options, self.processes)
        return (*liveness_breaks(self.policy, options, self.processes), *safety) if self.live else safety

    @property
    def control(self) -> str | None:
        """The property a campaign must find broken here, or None: a safe configuration."""
        if self.live:
            live = liveness_breaks(self.policy, option_set(self.option_set).options, self.processes)
            return live[0] if live else None
        return self.breaks[0] if self.breaks else None

    @property
    def tolerated(self) -> tuple[str, ...]:
        """Known breaks other than the control: recorded when they fail, but a walk goes on to look
        for the control (as a TLC negative-control config checks only its invariant). A liveness configuration also
        tolerates the code's own findings its walks can meet (findings)."""
        drawn = [move for move, weight in self.weights().items() if weight > 0] if self.live else []
        found = findings(drawn) if self.live else ()
        return tuple(dict.fromkeys(b for b in (*self.breaks, *found) if b != self.control))

    @property
    def warm(self) -> bool:
        """Its walks start from a healthy set (OptionSet.warm; liveness walks only)."""
        return self.live and option_set(self.option_set).warm

    def weights(self, overrides: Mapping[str, float] = {}) -> dict[str, float]:
        """The walks' weights: the defaults, the policy's, the option set's, a liveness walk's, then ``overrides``."""
        live = LIVE_WEIGHTS if self.live else {}
        return {**DEFAULT_WEIGHTS, **POLICY_WEIGHTS.get(self.policy, {}), **option_set(self.option_set).weights, **live,
                **overrides}


def grid() -> dict[str, SimConfig]:
    """Every configuration: option sets x policies x process counts x (safety, liveness), then the designs' (DESIGN_SETS)
    x their process counts x (safety, liveness), by name."""
    out = {}
    for o in OPTION_SETS:
        for policy in POLICIES:
            for n in PROCESS_COUNTS:
                for live in (False, True):
                    name = f"{o}-{policy}-{n}p" + (LIVE_SUFFIX if live else "")
                    out[name] = SimConfig(name, o, policy, n, live)
    for o, (_, counts) in DESIGN_SETS.items():
        for n in counts:
            for live in (False, True):
                name = f"{o}-{n}p" + (LIVE_SUFFIX if live else "")
                out[name] = SimConfig(name, o, "rocketmq", n, live)
    return out


def select(patterns: Sequence[str]) -> list[SimConfig]:
    """The configurations whose names match any of ``patterns`` (exact names or shell globs), in
    grid order; a pattern matching nothing, or no pattern at all, is an error naming the known configurations."""
    configs = grid()
    designs = ", ".join(f"{o}-{n}p" for o, (_, counts) in DESIGN_SETS.items() for n in counts)
    known = (f"names are <options>-<policy>-<n>p (safety walks) or <options>-<policy>-<n>p{LIVE_SUFFIX} (liveness walks) with "
             f"options {', '.join(OPTION_SETS)}, policies {', '.join(POLICIES)}, n in {PROCESS_COUNTS}; the designs RIP-44 "
             f"replaced: {designs} (and {LIVE_SUFFIX} of each)")
    if not patterns:
        raise InputError(f"no configuration named; {known}")
    chosen: list[str] = []
    for pattern in patterns:
        hits = [n for n in configs if fnmatch.fnmatchcase(n, pattern)]
        if not hits:
            raise InputError(f"no configuration matches {pattern!r}; {known}")
        chosen.extend(h for h in hits if h not in chosen)
    return [configs[n] for n in configs if n in chosen]
