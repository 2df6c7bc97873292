"""The spec's TLC configurations, ``spec/MC_*.cfg``, as one table: ``autoswitch configs`` writes them from it, and a
test checks that the committed files are exactly what it writes (as ``autoswitch scenarios`` and the traces).

A row gives what tells one configuration from another: the MC module it configures (its processes, addresses and
broker ids), the note of its first line, the bounds (MaxEpoch, MaxClock, MaxNextBrokerId, MaxMsgs), the initial
predicate or the liveness specification it starts from (``start``), the switches of Next and the fault budget, and the
properties it checks. Its setting, the policy and the Options fields that differ from the safe defaults, is the row's
of controls.py that names the configuration (``Control.cfg``), stated there once; a configuration no row names gives
its own (``policy``, ``options``). Every Options field is written, its default when the setting leaves it, as the spec
constant of its ``#meta`` name (engines.spec_constant): a new option needs nothing here, only ``autoswitch configs``.

The readers (check/specconfig.py, TLC) take the files as written; the table is not read at run time except by
:func:`initial_predicate` (a known bug's start, known_bugs.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs
from attrs import frozen

from autoswitch.conformance.check.specconfig import BOUNDS, FAULT_CONSTANTS, SPECIFICATIONS
from autoswitch.conformance.controls import by_cfg, options_of
from autoswitch.conformance.engines import OPTION_FIELDS, spec_constant
from autoswitch.conformance.tla.run import tla_value
from autoswitch.reference import Options
from autoswitch.reference.invariants import ACTION_PROPERTIES, STATE_INVARIANTS

SAFETY = tuple(i.name for i in STATE_INVARIANTS)  # every invariant of MODEL.md §6
CONTROLLER_SAFETY = ("TypeOK", "MasterInSyncStateSet", "SyncStateSetRegistered", "UniqueBrokerIds", "AtMostOneMasterPerEpoch")
LOG_MATCHING = ("TypeOK", "LogMatching")
ACTION = tuple(p.name for p in ACTION_PROPERTIES)
# The constants before the options, in the files' order; then every other option in Options' order, then the fault
# budget and the definitions the MC module gives.
_HEAD = ("EnableElectUncleanMaster", "AllowCleanBrokerData", *BOUNDS, "DataPath", "AnySetAlter", "Policy",
         "KafkaLeaderEpochOnElection")
_DEFINITIONS = ("Processes <- MC_Processes", "Addrs <- MC_Addrs", "BrokerIds <- MC_BrokerIds")


@frozen
class SpecCfg:
    """One spec configuration, ``spec/<name>.cfg``."""

    name: str
    module: str  # the MC module it configures (spec/<module>.tla)
    bounds: tuple[int, int, int, int]  # MaxEpoch, MaxClock, MaxNextBrokerId, MaxMsgs
    about: str  # the first line's note: what the configuration is and what it must show
    start: str = "Init"  # INIT's predicate (Init, InitRegistered, InitDesign) or SPECIFICATION's (specconfig.SPECIFICATIONS)
    invariants: tuple[str, ...] = SAFETY
    properties: tuple[str, ...] = ACTION  # action properties, or (a SPECIFICATION's) liveness properties
    data_path: bool = True
    any_set_alter: bool = False
    allow_clean_broker_data: bool = False
    faults: frozenset[str] = frozenset()  # the faults of MODEL.md §9 in Next
    max_faults: int = 0
    bound_all_faults: bool = False
    policy: str | None = None  # the setting of a configuration no row of controls.py names; None: its row's
    options: Mapping[str, Any] = {}

    @property
    def setting(self) -> Options:
        """The model options: the row of controls.py naming this configuration, else the configuration's own."""
        row = by_cfg(self.name)
        return row.model_options if row is not None else Options(policy=self.policy or "rocketmq", **self.options)

    @property
    def initial_predicate(self) -> str:
        """Init, InitRegistered or InitDesign: the predicate it starts from (a specification's, specconfig.SPECIFICATIONS)."""
        return SPECIFICATIONS.get(self.start, self.start)

    def constants(self) -> dict[str, Any]:
        """Every ``Name = value`` of CONSTANTS, in the file's order."""
        options = attrs.asdict(self.setting, recurse=False)
        values: dict[str, Any] = {
            "AllowCleanBrokerData": self.allow_clean_broker_data, **dict(zip(BOUNDS, self.bounds, strict=True)),
            "DataPath": self.data_path, "AnySetAlter": self.any_set_alter, "Policy": options.pop("policy"),
            **{spec_constant(name): options[field] for name, field in OPTION_FIELDS.items()},
            "Faults": self.faults, "MaxFaults": self.max_faults, "BoundAllFaults": self.bound_all_faults}
        assert set(FAULT_CONSTANTS) <= set(values)
        return {**{name: values[name] for name in _HEAD}, **{k: v for k, v in values.items() if k not in _HEAD}}

    def text(self) -> str:
        """The file's text."""
        lines = [f"\\* TLC configuration of {self.module}.tla: {self.about}", "CONSTANTS"]
        lines += [f"    {name} = {tla_value(value)}" for name, value in self.constants().items()]
        lines += [f"    {definition}" for definition in _DEFINITIONS]
        lines += ["", f"SPECIFICATION {self.start}" if self.start in SPECIFICATIONS else f"INIT {self.start}"]
        lines += [] if self.start in SPECIFICATIONS else ["NEXT Next"]
        lines += ["VIEW MC_View", "CONSTRAINT StateConstraint", "", "INVARIANTS", *(f"    {i}" for i in self.invariants)]
        if self.properties:
            lines += ["", "PROPERTIES", *(f"    {p}" for p in self.properties)]
        return "\n".join(lines) + "\n"


CFGS: tuple[SpecCfg, ...] = (
    SpecCfg("MC_data", "MC_data", (2, 2, 3, 1), "safe: rocketmq truncation, allAck, no unclean election, sync flush, "
            "both fixes; every property holds."),
    SpecCfg("MC_data3", "MC_data3", (2, 3, 4, 1), "three processes, safe settings from registered brokers "
            "(InitRegistered), one message; every property holds. Run by name (not in CI).",
            start="InitRegistered"),
    SpecCfg("MC_data_kip279", "MC_data", (2, 2, 3, 1), "safe: as MC_data with Kafka KIP-279 truncation; every property "
            "holds.",
            policy="kip279"),
    SpecCfg("MC_data_kip279_epoch_fast", "MC_data", (3, 2, 3, 3), "MC_neg_kip279_noepoch with Kafka 2.1.0's "
            "leader-epoch cache (KAFKA-7415: the new leader assigns its epoch at its LEO): LogMatching holds.",
            start="InitRegistered", invariants=LOG_MATCHING, properties=(), policy="kip279",
            options={**options_of("fast-leader"), **options_of("kafka21")}),
    SpecCfg("MC_data_reg1", "MC_data", (2, 2, 3, 1), "small (autoswitch check's default set, CI): safe settings from "
            "registered brokers (InitRegistered) with one message; every property holds.",
            start="InitRegistered"),
    SpecCfg("MC_data_reg1_e3", "MC_data", (3, 2, 3, 1), "MC_data_reg1 at MaxEpoch 3 (rocketmq, safe settings from "
            "registered brokers, one message); every property holds. Run by name (not in CI).",
            start="InitRegistered"),
    SpecCfg("MC_data_reg1_e3_nomsg", "MC_data", (3, 2, 3, 0), "MC_data_reg1_e3 without messages (MaxMsgs 0: the "
            "controller, elections and epoch files at MaxEpoch 3, no write); every property holds. Small enough for CI.",
            start="InitRegistered"),
    SpecCfg("MC_data_reg1_kip101", "MC_data", (2, 2, 3, 1), "small (CI): MC_data_reg1 with Kafka KIP-101 truncation and "
            "clean elections only; every property holds (KIP-101 breaks only under unclean leader changes: MC_neg_kip101).",
            start="InitRegistered"),
    SpecCfg("MC_data_reg1_kip279", "MC_data", (2, 2, 3, 1), "small (CI): MC_data_reg1 with Kafka KIP-279 truncation; "
            "every property holds.",
            start="InitRegistered"),
    SpecCfg("MC_data_reg1_kip279_e3", "MC_data", (3, 2, 3, 1), "MC_data_reg1_kip279 with MaxEpoch 3 and Kafka 2.1.0's "
            "leader-epoch cache (KAFKA-7415: the new leader assigns its epoch at its LEO); every property holds.",
            start="InitRegistered", policy="kip279", options=options_of("kafka21")),
    SpecCfg("MC_data_registered", "MC_data", (2, 2, 3, 3), "safe, from registered brokers (InitRegistered) with three "
            "messages: rocketmq truncation, allAck, no unclean election, sync flush, both fixes; every property holds.",
            start="InitRegistered"),
    SpecCfg("MC_dledger2", "MC_designs", (3, 0, 1, 2), "DLedger mode, two members, three terms, two messages: every "
            "invariant holds.",
            start="InitDesign"),
    SpecCfg("MC_dledger3", "MC_designs3", (2, 0, 1, 1), "DLedger mode, three members, two terms, one message: every "
            "invariant holds.",
            start="InitDesign"),
    SpecCfg("MC_faults", "MC_live", (2, 3, 4, 1), "safety under the new faults: MC_data_reg1 with CrashTorn, "
            "PartitionLink, SendLate and WipeDisk, every fault bounded, two per behaviour (a crash and a wipe: the wiped "
            "broker registers again as id 3); every property holds.",
            start="InitRegistered", faults=frozenset({"CrashTorn", "PartitionLink", "SendLate", "WipeDisk"}),
            max_faults=2, bound_all_faults=True),
    SpecCfg("MC_faults_meta", "MC_live", (2, 2, 3, 1), "safety under ControllerMetadataLoss: MC_data_reg1 where the "
            "controller may forget everything once; every property holds.",
            start="InitRegistered", faults=frozenset({"ControllerMetadataLoss"}), max_faults=1),
    SpecCfg("MC_live_data", "MC_live", (1, 2, 3, 1), "from registered brokers, data path with one message, every fault "
            "bounded (one), one master epoch: EventuallyInSync, EventuallyAnswered and EventuallyMaster hold.",
            start="LiveSpecRegistered", properties=("EventuallyInSync", "EventuallyAnswered", "EventuallyMaster"),
            max_faults=1, bound_all_faults=True),
    SpecCfg("MC_live_dledger2", "MC_designs", (3, 0, 1, 2), "DLedger mode, two members, three terms, two messages, "
            "every fault bounded (one): EventuallyMaster violated (one crash leaves no majority).",
            start="LiveSpecDesign", properties=("EventuallyMaster",), max_faults=1, bound_all_faults=True),
    SpecCfg("MC_live_dledger3", "MC_designs3", (2, 0, 1, 2), "DLedger mode, three members, two terms, two messages, "
            "every fault bounded (one): EventuallyMaster, EventuallyAnswered, EventuallyInSync and EventuallyRegistered "
            "hold.",
            start="LiveSpecDesign",
            properties=("EventuallyMaster", "EventuallyAnswered", "EventuallyInSync", "EventuallyRegistered"),
            max_faults=1, bound_all_faults=True),
    SpecCfg("MC_live_failover", "MC_live", (3, 2, 3, 1), "from registered brokers, data path with one message, every "
            "fault bounded (one), master epochs up to 3: EventuallyInSync is violated by the code (a finding: a failover "
            "before the slave holds the first epoch leaves the old master, now a slave, with no common epoch and no "
            "consistent point; ROCKETMQ.md §8.2); EventuallyAnswered and EventuallyMaster hold (TLC, about 9 minutes: see "
            "spec/README.md).",
            start="LiveSpecRegistered", properties=("EventuallyInSync",), max_faults=1, bound_all_faults=True),
    SpecCfg("MC_live_meta", "MC_live", (3, 2, 3, 0), "from registered brokers, controller only, ControllerMetadataLoss "
            "and one more fault; EventuallyRegistered is violated by the code (a finding: a restarted broker never "
            "registers again).",
            start="LiveSpecRegistered", invariants=CONTROLLER_SAFETY, properties=("EventuallyRegistered",),
            data_path=False, faults=frozenset({"ControllerMetadataLoss"}), max_faults=2, bound_all_faults=True),
    SpecCfg("MC_live_ms", "MC_designs", (2, 0, 1, 2), "RocketMQ 4.x master-slave (SYNC_MASTER), two messages (its "
            "safety is MC_ms_sync's: TypeOK only here), every fault bounded (one): EventuallyMaster violated (the master "
            "crashes and nothing fails over: restarts and the operator are not fair).",
            start="LiveSpecDesign", invariants=("TypeOK",),
            properties=("EventuallyMaster", "EventuallyInSync", "EventuallyAnswered"), max_faults=1,
            bound_all_faults=True),
    SpecCfg("MC_live_neg_reelect", "MC_live", (3, 2, 3, 0), "from registered brokers, data path without messages, two "
            "faults, ReelectScan = FALSE (no periodic re-elect scan, before #6383); EventuallyMaster is violated.",
            start="LiveSpecRegistered", invariants=CONTROLLER_SAFETY, properties=("EventuallyMaster",), max_faults=2,
            bound_all_faults=True),
    SpecCfg("MC_live_neg_reentry", "MC_live", (1, 2, 3, 1), "MC_live_data (one master epoch) with EpochReentryFix = "
            "FALSE (RocketMQ at the snapshot): a restarted master re-adopting its epoch re-bases its start, the slave finds "
            "no consistent point; EventuallyInSync is violated.",
            start="LiveSpecRegistered", invariants=CONTROLLER_SAFETY, properties=("EventuallyInSync",), max_faults=1,
            bound_all_faults=True),
    SpecCfg("MC_live_neg_retry", "MC_live", (3, 3, 3, 0), "MC_live_reg with RegisterRetry = FALSE (a failed "
            "ApplyBrokerId is not retried); EventuallyRegistered is violated.",
            start="LiveSpec", invariants=CONTROLLER_SAFETY, properties=("EventuallyRegistered",), data_path=False,
            max_faults=1, bound_all_faults=True),
    SpecCfg("MC_live_reg", "MC_live", (3, 3, 3, 0), "from Init, controller only, every fault bounded (one); "
            "EventuallyRegistered and EventuallyMaster hold.",
            start="LiveSpec", invariants=CONTROLLER_SAFETY, properties=("EventuallyRegistered", "EventuallyMaster"),
            data_path=False, max_faults=1, bound_all_faults=True),
    SpecCfg("MC_medium", "MC_medium", (3, 3, 4, 0), "not run in CI; see spec/README.md for the measured figures.",
            data_path=False, any_set_alter=True),
    SpecCfg("MC_ms_async", "MC_designs", (2, 0, 1, 3), "RocketMQ 4.x master-slave, ASYNC_MASTER (the master acks a "
            "write at once): NoAckedMessageLost violated (an acked write lost on the operator's failover).",
            start="InitDesign"),
    SpecCfg("MC_ms_sync", "MC_designs", (2, 0, 1, 3), "RocketMQ 4.x master-slave, SYNC_MASTER with producers taking "
            "SLAVE_NOT_AVAILABLE for a success (the code's client): NoAckedMessageLost violated (a write answered "
            "SLAVE_NOT_AVAILABLE lost on the operator's failover).",
            start="InitDesign"),
    SpecCfg("MC_neg_allack", "MC_data", (3, 2, 3, 2), "negative control: allAckInSyncStateSet = FALSE (InSyncReplicas "
            "1) -> NoAckedMessageLost."),
    SpecCfg("MC_neg_hw", "MC_data", (3, 2, 3, 2), "negative control: Kafka high-watermark truncation (before KIP-101) "
            "-> NoAckedMessageLost (K1)."),
    SpecCfg("MC_neg_hw_logmatching", "MC_data", (3, 2, 3, 3), "negative control, from registered brokers: Kafka "
            "high-watermark truncation with acks from InSyncReplicas = 2 -> LogMatching (K2, traces/kafka/K2-hw.itf.json).",
            start="InitRegistered", invariants=LOG_MATCHING, properties=()),
    SpecCfg("MC_neg_hw_reg1", "MC_data", (2, 2, 3, 1), "negative control, small (CI): MC_data_reg1 with Kafka "
            "high-watermark truncation -> NoAckedMessageLost (K1).",
            start="InitRegistered"),
    SpecCfg("MC_neg_kip101", "MC_data", (3, 2, 3, 3), "negative control, from registered brokers: Kafka KIP-101 "
            "truncation, unclean election, acks from InSyncReplicas = 2 -> LogMatching (the shortest is K4, "
            "traces/kafka/K4-kip279.itf.json, shared with kip279 2.0.0; K3, traces/kafka/K3-kip101.itf.json, is longer).",
            start="InitRegistered", invariants=LOG_MATCHING, properties=()),
    SpecCfg("MC_neg_kip279_noepoch", "MC_data", (3, 2, 3, 3), "negative control, from registered brokers: Kafka 2.0.0 "
            "KIP-279 truncation without KAFKA-7415 (no epoch entry on election), unclean election, acks from InSyncReplicas "
            "= 2 -> LogMatching.",
            start="InitRegistered", invariants=LOG_MATCHING, properties=()),
    SpecCfg("MC_neg_shortcut", "MC_data", (2, 2, 3, 1), "negative control: RocketMQ at the snapshot, getConfirmOffset "
            "answers the LEO while the LOCAL set is {master} although an Expand is in flight (ConfirmShortcutFix = FALSE) "
            "-> NoPhantomRead.",
            start="InitRegistered"),
    SpecCfg("MC_neg_shortcut_e3", "MC_data", (3, 2, 3, 1), "negative control: RocketMQ at the snapshot, "
            "getConfirmOffset answers the LEO while the LOCAL set is {master} although an Expand is in flight "
            "(ConfirmShortcutFix = FALSE) -> NoPhantomRead. At MaxEpoch 3 (CI: the negative controls at MaxEpoch 3).",
            start="InitRegistered"),
    SpecCfg("MC_neg_unclean", "MC_data", (3, 2, 3, 2), "negative control: unclean election -> NoAckedMessageLost."),
    SpecCfg("MC_neg_union", "MC_data", (3, 2, 3, 2), "negative control: acks counted against the local set only while "
            "an alter is in flight (RocketMQ #5663) -> NoAckedMessageLost."),
    SpecCfg("MC_neg_zeroack", "MC_data", (2, 2, 3, 1), "negative control: RocketMQ at the snapshot, "
            "computeConfirmOffset skips a connected member's ack of 0, so a set member with an empty log does not hold "
            "confirmOffset back (ConfirmZeroAckFix = FALSE) -> NoPhantomRead.",
            start="InitRegistered"),
    SpecCfg("MC_neg_zeroack_e3", "MC_data", (3, 2, 3, 1), "negative control: RocketMQ at the snapshot, "
            "computeConfirmOffset skips a connected member's ack of 0, so a set member with an empty log does not hold "
            "confirmOffset back (ConfirmZeroAckFix = FALSE) -> NoPhantomRead. At MaxEpoch 3 (CI: the negative controls at "
            "MaxEpoch 3).",
            start="InitRegistered"),
    SpecCfg("MC_small", "MC_small", (3, 2, 3, 0), "see spec/README.md for the measured figures.",
            data_path=False, any_set_alter=True),
)

BY_NAME = {c.name: c for c in CFGS}


def _check_table() -> None:
    """Each name once; a configuration a row of controls.py names takes that row's setting and states none of its own."""
    if len(BY_NAME) != len(CFGS):
        raise ImportError("cfgs.CFGS names a configuration twice")
    restated = [c.name for c in CFGS if by_cfg(c.name) is not None and (c.policy is not None or c.options)]
    if restated:
        raise ImportError(f"cfgs.CFGS: {', '.join(restated)} restate the setting of the row of controls.py naming them")


_check_table()


def initial_predicate(cfg: str) -> str | None:
    """The initial predicate spec/CFG.cfg starts from (Init, InitRegistered, InitDesign); None: not a row."""
    row = BY_NAME.get(cfg)
    return None if row is None else row.initial_predicate


def write_cfgs(root: str | Path) -> list[Path]:
    """Write every configuration as ``<root>/<name>.cfg``; returns the paths."""
    paths = []
    for cfg in CFGS:
        path = Path(root) / f"{cfg.name}.cfg"
        path.write_text(cfg.text())
        paths.append(path)
    return paths
