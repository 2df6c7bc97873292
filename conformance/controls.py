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
simulation/campaign.py LIVE_WEIGHTS, its safety walks do), and EventuallyInSync after a second failover (row
``failover``), which every liveness walk tolerates (``findings``).

The designs RIP-44 replaced (MODEL.md §1; reference/designs.py) have rows of their own: ``options["design"]`` names the
design (``Control.design``; controller mode when absent) and ``processes`` the broker set's size where the verdict
depends on it (DLedger: two members have no majority once one fails). Their ``tolerated`` are further properties the
checker finds broken when checked alone (``autoswitch check CFG --invariant NAME``: the comparison, conformance/compare.py).
A setting inherits only the rows of its own design (``breaks``, ``liveness_breaks``).

``defaults`` says which default sets hold the row: ``check`` (``autoswitch check``, CI), ``tla``
(``autoswitch tla``), ``tlc`` (the TLC runs of tests/tools/test_spec_tlc.py) and ``simulate`` (the default grid of
``autoswitch simulate``). The readers keep the row order.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from attrs import frozen

from autoswitch.reference import Options
from autoswitch.reference.state import CONTROLLER, DLEDGER, MASTER_SLAVE

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


# Kafka's fast leader changes (KIP-279): unclean elections, acks from the local set, two in-sync replicas.
_FAST_LEADER = {"enable_elect_unclean_master": True, "all_ack_in_sync_state_set": False, "in_sync_replicas": 2}

# the designs RIP-44 replaced (reference/designs.py): 4.x ASYNC_MASTER and SYNC_MASTER (producers counting
# SLAVE_NOT_AVAILABLE as a success, the code's client), DLedger mode; what each breaks besides its control
_MS_ASYNC = {"design": MASTER_SLAVE, "sync_master": False}
_MS_SYNC = {"design": MASTER_SLAVE, "sync_master": True, "slave_not_available_ok": True}
_DLEDGER = {"design": DLEDGER}
# 4.x: consumers read what no slave has yet (every stored message is dispatched); the old master back as a slave with
# a message the new master lacks takes the new master's next one after it: the logs diverge (LogMatching, 8 steps with
# a third message) and it never catches up (EventuallyInSync).
# DLedger with 2 members: a write taken before the crash is never answered (no majority commits it)
_MS_BREAKS = ("NoPhantomRead", "LogMatching")
_DLEDGER2_LIVE_BREAKS = ("EventuallyAnswered",)

CONTROLS: tuple[Control, ...] = (
    # safe settings
    Control("safe-rocketmq", cfg="MC_data_reg1", simulation="safe-rocketmq-2p", defaults=_defaults(CHECK, SIMULATE)),
    Control("safe-rocketmq-3p", cfg="MC_data3", simulation="safe-rocketmq-3p", defaults=_defaults(SIMULATE)),
    Control("safe-kip279", "kip279", cfg="MC_data_reg1_kip279", simulation="safe-kip279-2p", defaults=_defaults(CHECK, SIMULATE)),
    Control("safe-kip279-3p", "kip279", simulation="safe-kip279-3p", defaults=_defaults(SIMULATE)),
    Control("kafka21-kip279", "kip279", {"kafka_leader_epoch_on_election": True}, simulation="kafka21-kip279-2p",
            defaults=_defaults(SIMULATE)),
    Control("safe-kip101", "kip101", cfg="MC_data_reg1_kip101", defaults=_defaults(CHECK)),
    Control("safe-data", cfg="MC_data", defaults=_defaults(TLA, TLC)),
    # negative controls (MODEL.md §6)
    Control("hw", "hw", invariant="NoAckedMessageLost", cfg="MC_neg_hw_reg1", steps=12, trace="traces/kafka/K1-hw.itf.json",
            simulation="safe-hw-2p", tolerated=("LogMatching",), defaults=_defaults(CHECK, SIMULATE)),
    Control("union-off", options={"union_ack_fix": False}, invariant="NoAckedMessageLost", cfg="MC_neg_union", steps=16,
            trace="traces/negative/rocketmq-5663-expand-without-union.itf.json", simulation="union-off-rocketmq-2p",
            defaults=_defaults(CHECK, TLA, TLC, SIMULATE)),  # RocketMQ #5663
    Control("allack-off", options={"all_ack_in_sync_state_set": False}, invariant="NoAckedMessageLost", cfg="MC_neg_allack",
            steps=16, trace="traces/negative/all-ack-off-loses-acked.itf.json", simulation="allack-off-rocketmq-2p",
            defaults=_defaults(CHECK, TLA, TLC, SIMULATE)),
    Control("unclean", options={"enable_elect_unclean_master": True}, invariant="NoAckedMessageLost", cfg="MC_neg_unclean",
            steps=14, trace="traces/negative/unclean-election-loses-acked.itf.json", simulation="unclean-rocketmq-2p",
            tolerated=("NoPhantomRead",), defaults=_defaults(CHECK, TLA, TLC, SIMULATE)),
    Control("hw-logmatching", "hw", {"all_ack_in_sync_state_set": False, "in_sync_replicas": 2}, "LogMatching",
            cfg="MC_neg_hw_logmatching", steps=12, trace="traces/kafka/K2-hw.itf.json", defaults=_defaults(CHECK, TLA, TLC)),
    # K4 as for kip279: 0.11.0.0 also falls back to the high watermark
    Control("kip101", "kip101", _FAST_LEADER, "LogMatching", cfg="MC_neg_kip101", steps=9,
            trace="traces/kafka/K3-kip101.itf.json", simulation="fast-leader-kip101-2p",
            defaults=_defaults(CHECK, TLA, TLC, SIMULATE)),
    # K4: Kafka 2.0.0 without KAFKA-7415's epoch entry on election
    Control("kip279-noepoch", "kip279", _FAST_LEADER, "LogMatching", cfg="MC_neg_kip279_noepoch", steps=9,
            trace="traces/kafka/K4-kip279.itf.json", simulation="fast-leader-kip279-2p",
            defaults=_defaults(CHECK, TLC, SIMULATE)),
    Control("shortcut-off", options={"confirm_shortcut_fix": False}, invariant="NoPhantomRead", cfg="MC_neg_shortcut",
            steps=7, trace="traces/negative/rocketmq-confirm-shortcut-expand.itf.json", defaults=_defaults(CHECK)),
    Control("zeroack-off", options={"confirm_zero_ack_fix": False}, invariant="NoPhantomRead", cfg="MC_neg_zeroack", steps=8,
            trace="traces/negative/rocketmq-confirm-zero-ack.itf.json", defaults=_defaults(CHECK)),
    # the two above at MaxEpoch 3 (MC_neg_* from registered brokers at MaxEpoch 2 otherwise): run with --workers 2 in CI
    # (tests/tools/test_check_e3.py)
    Control("shortcut-off-e3", options={"confirm_shortcut_fix": False}, invariant="NoPhantomRead", cfg="MC_neg_shortcut_e3",
            steps=7),
    Control("zeroack-off-e3", options={"confirm_zero_ack_fix": False}, invariant="NoPhantomRead", cfg="MC_neg_zeroack_e3",
            steps=8),
    # the larger hw configuration (131 s in TLC): in no default set
    Control("hw-data", "hw", invariant="NoAckedMessageLost", cfg="MC_neg_hw"),
    # the diverged logs also lose an acknowledged message (35 steps: simulate --configs reentry-off-rocketmq-2p-live, seed 1,
    # walk 639)
    Control("reentry-off", options={"epoch_reentry_fix": False}, invariant="LogMatching",
            trace="traces/negative/rocketmq-epoch-reentry-diverges.itf.json", tolerated=("NoAckedMessageLost",)),
    # RocketMQ 5.1.0 without #6662. Not in the default grid: with 5.1.0's rule (confirmOffset recomputed only on a
    # member's ack) the phantom read needs a third member acking while a disconnected one later wins the election;
    # 1,000 random walks of freeze-off-rocketmq-3p did not find it (README.md, "Simulation campaigns").
    Control("freeze-off", options={"confirm_freeze_fix": False}, invariant="NoPhantomRead", simulation="freeze-off-rocketmq-3p"),
    # liveness (MODEL.md §8): the code's retry loops hold, under every fault but the controller's metadata loss
    Control("live-reg", cfg="MC_live_reg", simulation="safe-rocketmq-2p-live", defaults=_defaults(SIMULATE)),
    Control("live-data", cfg="MC_live_data", simulation="safe-rocketmq-3p-live", defaults=_defaults(SIMULATE)),
    # a startBasicService that is not retried: a broker whose ApplyBrokerId failed never registers
    # (its walks too can meet the code's finding of MC_live_failover, EventuallyInSync: 1 walk in 1,000 at seed 1)
    Control("retry-off", options={"register_retry": False}, liveness="EventuallyRegistered", cfg="MC_live_neg_retry",
            simulation="retry-off-rocketmq-2p-live", tolerated=("EventuallyInSync",), defaults=_defaults(SIMULATE)),
    # before 5.1.1 (#6383), or JRaft with #8380's negated predicate: no periodic re-elect scan, one election try
    # (its crash-heavy walks also meet the code's own finding of MC_live_failover: a slave left with an epoch the new
    # master never saw finds no consistent point, EventuallyInSync; tolerated, as an invariant row tolerates)
    Control("reelect-off", options={"reelect_scan": False}, liveness="EventuallyMaster", cfg="MC_live_neg_reelect",
            simulation="reelect-off-rocketmq-2p-live", tolerated=("EventuallyInSync",), defaults=_defaults(SIMULATE)),
    # RocketMQ at the snapshot: a restarted master re-adopting its epoch re-bases the epoch's start; a slave holding
    # the old start finds no consistent point and never leaves READY
    Control("reentry-off-live", options={"epoch_reentry_fix": False}, liveness="EventuallyInSync", cfg="MC_live_neg_reentry",
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
    Control("ms-async", options=_MS_ASYNC, invariant="NoAckedMessageLost", cfg="MC_ms_async", steps=3,
            trace="traces/designs/ms-async-NoAckedMessageLost.itf.json", simulation="ms-async-2p", tolerated=_MS_BREAKS,
            defaults=_defaults(CHECK)),
    Control("ms-sync", options=_MS_SYNC, invariant="NoAckedMessageLost", cfg="MC_ms_sync", steps=3,
            trace="traces/designs/ms-sync-NoAckedMessageLost.itf.json", simulation="ms-sync-2p", tolerated=_MS_BREAKS,
            defaults=_defaults(CHECK)),
    # DLedger: safe with 2 and 3 replicas; with 2, one crash leaves no majority: no leader, no write acked again
    Control("dledger-2", options=_DLEDGER, cfg="MC_dledger2", simulation="dledger-2p", processes=2, defaults=_defaults(CHECK)),
    Control("dledger-3", options=_DLEDGER, cfg="MC_dledger3", simulation="dledger-3p", processes=3,
            defaults=_defaults(CHECK)),
    # 4.x has no automatic failover: a crashed master stays down (restarts are not fair)
    Control("live-ms", options=_MS_SYNC, liveness="EventuallyMaster", cfg="MC_live_ms", simulation="ms-sync-2p-live",
            tolerated=("EventuallyInSync",),
            trace="traces/designs/ms-sync-EventuallyMaster.itf.json"),
    Control("live-dledger-2", options=_DLEDGER, liveness="EventuallyMaster", cfg="MC_live_dledger2",
            simulation="dledger-2p-live", tolerated=_DLEDGER2_LIVE_BREAKS, processes=2,
            trace="traces/designs/dledger-2-EventuallyMaster.itf.json"),
    Control("live-dledger-3", options=_DLEDGER, cfg="MC_live_dledger3", simulation="dledger-3p-live", processes=3),
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
