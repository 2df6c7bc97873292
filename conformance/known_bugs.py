"""The known bugs the model reproduces (issue 11, item 4): one row per real RocketMQ or Kafka failure.

A row names the public reference (a GitHub issue or pull request of apache/rocketmq, a Kafka JIRA or KIP, the
project's own documentation, or, for a failure derived from the code and not reported upstream, the section of
``../shared/ROCKETMQ.md`` that derives it), the setting that re-creates it (a truncation policy and the ``Options``
fields that differ from the safe defaults, or a fault of MODEL.md §9), the property it breaks, its shortest known
counterexample (``traces/known-bugs/<id>.itf.json``, whose ``#meta.bug`` names the row) and the fixed setting
that holds. ``control`` names the row of controls.py (the registry of settings) that re-creates it, and the row takes
from it what the control states once: the policy, the options, the property, the fault, and, when the checker found
the counterexample, its spec configuration, length and initial predicate (:class:`KnownBug`).

``steps`` counts the actions after the configuration's initial state (``start``: ``Init``, or ``InitRegistered``,
which the trace reaches by the registration steps of conformance/check/checker.py first), as TLC prints a
counterexample; ``found_by`` says whether it is the checker's shortest within the bounds of ``config`` or the
shortest trace known (a hand-written scenario, or a trace built action by action on the reference).

A row's trace is written by :func:`adopt` from the checker's counterexample (``autoswitch check CONFIG``) or from the
committed scenario ``source``; tests check both reproduce the committed file byte for byte.

Safety rows are complete. The liveness rows need pieces merged later (the liveness checker, the ``MC_live_*``
configurations and their lasso traces): ``pending`` lists what is missing; ``autoswitch bugs --run ID``
(conformance/cli.py) runs whatever a row has.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from attrs import Factory, field, frozen

from autoswitch.conformance.cfgs import initial_predicate
from autoswitch.conformance.controls import Control, by_name, options_of
from autoswitch.conformance.engines import OPTION_FIELDS, Config, config_from_meta, make_engine
from autoswitch.conformance.trace.itf import load_trace
from autoswitch.reference import NotEnabled, Options
from autoswitch.reference.invariants import broken_properties
from autoswitch.reference.liveness import LIVENESS_BY_NAME

CHECKOUT = Path(__file__).resolve().parents[1]
KNOWN_BUGS_DIR = "traces/known-bugs"

REPORTED, DOCUMENTED, DERIVED = "reported", "documented", "derived"  # where a row's reference comes from
SAFETY, LIVENESS = "safety", "liveness"
CHECKER, SCENARIO, BUILT = "checker", "scenario", "built"  # found_by: how the trace was found
INIT, INIT_REGISTERED = "Init", "InitRegistered"

ROCKETMQ_ISSUE = "https://github.com/apache/rocketmq/issues/"
KAFKA_JIRA = "https://issues.apache.org/jira/browse/"
KAFKA_KIP = "https://cwiki.apache.org/confluence/display/KAFKA/"
ROCKETMQ_DEPLOY_DOC = "https://github.com/apache/rocketmq/blob/develop/docs/en/controller/deploy.md"
TABLE_PAGE = "docs/known-bugs.md"  # the page that shows markdown_table (a test keeps the two equal)


@frozen
class Fix:
    """The fixed setting: the row's setting with ``policy`` (None: the same) and ``options`` changed, and
    ``config``, a named configuration with the fix that holds the row's property (a spec configuration or a
    configuration of the simulation grid), checked where ``evidence`` says."""

    summary: str
    config: str
    evidence: str
    policy: str | None = None
    options: Mapping[str, Any] = {}


def _row(bug: KnownBug) -> Control:
    row = by_name(bug.control)
    if row is None:
        raise ValueError(f"known bug {bug.id}: control {bug.control!r} is no row of controls.py")
    return row


def _steps(bug: KnownBug) -> int | None:
    return _row(bug).steps if bug.found_by == CHECKER else None


def _start(bug: KnownBug) -> str:
    row = _row(bug)
    return (initial_predicate(row.cfg) or INIT) if bug.found_by == CHECKER and row.cfg else INIT


@frozen
class KnownBug:
    """One failure the model reproduces. Its setting is its ``control``'s, the row of controls.py that re-creates it,
    stated there once: the policy, the options, the property the row breaks and the fault its runs need; and, for a
    counterexample the checker found (``found_by`` CHECKER), the row's spec configuration, the counterexample's length
    there and the initial predicate it starts from (cfgs.py). A scenario's or a built trace gives its own ``steps`` and
    ``start``; a scenario is the row's trace (``source``)."""

    id: str
    title: str
    system: str  # "RocketMQ" | "Kafka"
    reference: str  # as TABLE_PAGE cites it
    url: str
    origin: str  # REPORTED | DOCUMENTED | DERIVED
    description: str  # one paragraph, from the public description (or the code, for DERIVED)
    fix: Fix
    control: str  # the row of controls.py with this setting
    found_by: str = CHECKER
    steps: int | None = field(default=Factory(_steps, takes_self=True))  # the counterexample's length after ``start``
    start: str = field(default=Factory(_start, takes_self=True))
    pending: tuple[str, ...] = ()  # what this row needs that is merged later
    def __attrs_post_init__(self) -> None:
        if self.property is None:
            raise ValueError(f"known bug {self.id}: control {self.control} is a safe setting")
        if self.found_by == CHECKER and (self.steps, self.start) != (_steps(self), _start(self)):
            raise ValueError(f"known bug {self.id}: the checker's counterexample has its control's steps and start")
        if self.found_by == SCENARIO and self.source is None:
            raise ValueError(f"known bug {self.id}: control {self.control} has no trace to adopt")

    @property
    def kind(self) -> str:
        return LIVENESS if self.property in LIVENESS_BY_NAME else SAFETY

    @property
    def trace(self) -> str:
        return f"{KNOWN_BUGS_DIR}/{self.id}.itf.json"

    @property
    def command(self) -> str:
        return f"autoswitch bugs --run {self.id}"

    @property
    def model_options(self) -> Options:
        return Options(policy=self.policy, **self.options)

    @property
    def fixed_options(self) -> Options:
        return Options(policy=self.fix.policy or self.policy, **{**self.options, **self.fix.options})

    @property
    def setting(self) -> str:
        """The setting in MODEL.md's names, as TABLE_PAGE shows it."""
        names = {f: name for name, f in OPTION_FIELDS.items()}
        parts = [] if self.policy == "rocketmq" else [f'policy "{self.policy}"']
        parts += [f"{names[k]} = {str(v).lower() if isinstance(v, bool) else v}" for k, v in self.options.items()]
        parts += [f"fault {self.fault}"] if self.fault else []
        return ", ".join(parts)

    # From the control (declared last: the field ``property`` would hide the builtin from the methods above): the policy
    # and the Options fields that differ from the safe defaults; the property (an invariant of reference/invariants.py or
    # a liveness property of reference/liveness.py); the fault of MODEL.md §9 the row needs (reference/liveness.py
    # NEW_FAULTS); the checker's spec configuration, spec/<config>.cfg, where autoswitch check (and TLC) find the
    # counterexample; a scenario's committed trace, which the row's trace is adopted from (``source``).
    policy: str = field(init=False, default=Factory(lambda b: _row(b).policy, takes_self=True))
    options: Mapping[str, Any] = field(init=False, default=Factory(lambda b: _row(b).options, takes_self=True))
    property: str = field(init=False, default=Factory(lambda b: _row(b).expects, takes_self=True))
    fault: str | None = field(init=False, default=Factory(lambda b: next(iter(_row(b).faults), None), takes_self=True))
    config: str | None = field(init=False, default=Factory(lambda b: _row(b).cfg if b.found_by == CHECKER else None,
                                                          takes_self=True))
    source: str | None = field(init=False, default=Factory(lambda b: _row(b).trace if b.found_by == SCENARIO else None,
                                                          takes_self=True))


_CHECK_SAFE = "tests/tools/test_check.py::test_safe_config_holds_with_tlc_state_count[{}]"
_KAFKA_21_FIX = Fix(
    "policy kip279 with Kafka 2.1.0's epoch entry on election (KAFKA-7415)", "MC_data_kip279_epoch_fast",
    "docs/results/2026-11-23-data-path-tlc.md, TLC and the checker: LogMatching holds on every state up to 12 steps after registration "
    "(the counterexample needs 9); traces/kafka/K4-kip279-2.1.itf.json replays the K4 steps with the fix, every invariant "
    "holding; autoswitch simulate kafka21-kip279-2p", policy="kip279", options=options_of("kafka21"))
_ROCKETMQ_SAFE = "MC_data_reg1"
_ROCKETMQ_SAFE_EVIDENCE = _CHECK_SAFE.format(_ROCKETMQ_SAFE) + "; autoswitch simulate safe-rocketmq-2p, safe-rocketmq-3p"

KNOWN_BUGS: tuple[KnownBug, ...] = (
    # --- Kafka ------------------------------------------------------------------------------------------------
    KnownBug(
        "kafka-1211-loss", "high-watermark truncation loses an acknowledged message", "Kafka", "KAFKA-1211 (KIP-101)",
        KAFKA_JIRA + "KAFKA-1211", REPORTED,
        "Before KIP-101 a follower that restarts or becomes follower truncates its log to its own high watermark, "
        "which trails the leader's by one fetch round trip. A message both replicas hold and the producer had acknowledged "
        "can lie above the follower's high watermark: the follower drops it, the leader fails, the follower is elected and "
        "the acknowledged message is gone (KIP-101's first scenario). KIP-101 (Kafka 0.11.0.0) truncates by leader epoch "
        "instead, asking the leader where the follower's last epoch ends.",
        Fix("policy kip101 (KIP-101's leader epochs)", "MC_data_reg1_kip101",
            _CHECK_SAFE.format("MC_data_reg1_kip101") + "; traces/kafka/K1-kip101.itf.json", policy="kip101"),
        control="hw"),
    KnownBug(
        "kafka-1211-divergence", "high-watermark truncation lets two replicas diverge", "Kafka", "KAFKA-1211 (KIP-101)",
        KAFKA_JIRA + "KAFKA-1211", REPORTED,
        "KIP-101's second scenario: the leader holds a message the follower does not, the follower becomes leader (here an "
        "administrative election of a SyncStateSet member, as acks come from two replicas and not the whole set) and writes "
        "new messages at the same offsets; when the old leader follows, its high watermark tells it to keep its own message, "
        "and it then copies the new leader's later messages after it: the same offsets hold different messages on the two "
        "replicas for ever. KIP-101 alone does not fix this setting: with policy kip101 (Kafka 0.11) or kip279 (2.0) "
        "the same steps still diverge, the new leader having no entry for its epoch yet (KAFKA-7415's case).",
        _KAFKA_21_FIX, control="hw-logmatching"),
    KnownBug(
        "kip-279-divergence", "KIP-101's epoch lookup after fast leader changes", "Kafka", "KIP-279 (KAFKA-6361)",
        KAFKA_KIP + "KIP-279%3A+Fix+log+divergence+between+leader+and+follower+after+fast+leader+fail+over", REPORTED,
        "With KIP-101 a follower asks the leader where the follower's last epoch ends. After two quick leader changes the "
        "leader may never have had that epoch: Kafka 0.11's leader then answers the start of the next epoch it knows, which "
        "can lie beyond the point where the two logs differ, so the follower keeps a message the leader does not have and "
        "appends the leader's later messages after it: the logs diverge. KIP-279 (Kafka 2.0) answers with the largest epoch "
        "the leader has at or below the requested one and its end, and the follower truncates to the smaller end "
        "(traces/kafka/K3-kip279.itf.json: the same case under kip279 holds).",
        _KAFKA_21_FIX, control="kip101", found_by=SCENARIO, steps=40),
    KnownBug(
        "kafka-7415", "a new leader answers UNDEFINED for an epoch it has no entry for", "Kafka",
        "KAFKA-7415 (PR apache/kafka#5678)", KAFKA_JIRA + "KAFKA-7415", REPORTED,
        "In Kafka 2.0.0 a newly elected leader adds its epoch to its leader-epoch cache only when it appends its first "
        "record. A follower that asks about its last epoch before that write (here after an unclean election of an empty "
        "replica) gets UNDEFINED, falls back to its high watermark and keeps a record the leader does not have; the leader's "
        "next records are copied after it and the logs diverge. Kafka 2.1.0 records the epoch with the log end offset on "
        "election. Kafka 0.11.0.0's KIP-101 (policy kip101, MC_neg_kip101) breaks in the same 9 steps.",
        _KAFKA_21_FIX, control="kip279-noepoch"),
    # --- RocketMQ: reported -------------------------------------------------------------------------------------
    KnownBug(
        "rocketmq-5663", "acks counted against the old set while an expansion is in flight", "RocketMQ",
        "apache/rocketmq #5663 (fix PR #5798, 5.1.1)", ROCKETMQ_ISSUE + "5663", REPORTED,
        "When a slave catches up, the master reports the larger SyncStateSet to the controller but applies it only when "
        "the controller's answer arrives. Meanwhile acks are counted against the old set, so a write can be acknowledged "
        "with the master's copy alone while the controller's set already holds the slave; if the answer is lost and the "
        "master goes down, the controller elects the slave, which lacks the acknowledged message. PR #5798 (5.1.1) counts "
        "acks against the union of the local and the proposed set while the change is in flight.",
        Fix("unionAckFix = true (PR #5798)", _ROCKETMQ_SAFE, _ROCKETMQ_SAFE_EVIDENCE, options={"union_ack_fix": True}),
        control="union-off"),
    KnownBug(
        "rocketmq-6662", "confirmOffset moves on while a set member is disconnected", "RocketMQ",
        "apache/rocketmq #6662 (fix PR #6663, 5.1.1)", ROCKETMQ_ISSUE + "6662", REPORTED,
        "The master recomputed confirmOffset, the offset up to which consumers may read, from the acks of the slaves it was "
        "connected to, leaving out a SyncStateSet member whose connection was gone (the report: a partition with three "
        "brokers; with two replicas no ack arrives after the partition and nothing moves). Consumers then read messages "
        "that member lacks, and when it becomes master a consumed message is not in its log. PR #6663 keeps confirmOffset "
        "where it is while some member of the set has no connection. Here the member's broker crashes and the controller, "
        "which has not yet seen it go, elects it after the master's heartbeat expires.",
        Fix("confirmFreezeFix = true (PR #6663)", "safe-rocketmq-3p",
            "autoswitch simulate safe-rocketmq-3p (the default grid: no violation); MC_data3 (three processes, every fix "
            "on) by name", options={"confirm_freeze_fix": True}),
        control="freeze-off", found_by=BUILT, steps=17, start=INIT_REGISTERED),
    # --- RocketMQ: documented settings ----------------------------------------------------------------------------
    KnownBug(
        "rocketmq-unclean-election", "unclean election elects a replica without the acknowledged data", "RocketMQ",
        "RocketMQ docs, controller/deploy.md (enableElectUncleanMaster)", ROCKETMQ_DEPLOY_DOC, DOCUMENTED,
        "enableElectUncleanMaster = true lets the controller elect a replica outside the SyncStateSet when no member is "
        "alive; RocketMQ's deployment guide warns that it may elect a replica whose data lags and lose messages. Here the "
        "only member acknowledges a write and dies, and a replica that never copied the write becomes master.",
        Fix("enableElectUncleanMaster = false (the default)", _ROCKETMQ_SAFE, _ROCKETMQ_SAFE_EVIDENCE,
            options={"enable_elect_unclean_master": False}),
        control="unclean"),
    KnownBug(
        "rocketmq-allack-off", "acks from inSyncReplicas copies, not the whole SyncStateSet", "RocketMQ",
        "RocketMQ docs, controller/deploy.md (allAckInSyncStateSet)", ROCKETMQ_DEPLOY_DOC, DOCUMENTED,
        "With allAckInSyncStateSet = false (the code's default) a write is acknowledged once inSyncReplicas replicas "
        "(default 1) hold it, while any SyncStateSet member may be elected next; the deployment guide says only true "
        "guarantees that no message is lost. Here a write is acknowledged with the master's copy alone, the master dies "
        "and a member without it is elected.",
        Fix("allAckInSyncStateSet = true", _ROCKETMQ_SAFE, _ROCKETMQ_SAFE_EVIDENCE, options={"all_ack_in_sync_state_set": True}),
        control="allack-off"),
    # --- RocketMQ: derived from the code --------------------------------------------------------------------------
    KnownBug(
        "rocketmq-confirm-shortcut", "confirmOffset shortcut on a one-member local set during an expansion", "RocketMQ",
        "derived from the code, ROCKETMQ.md §8.4", "", DERIVED,
        "CommitLog.getConfirmOffset() answers maxPhyOffset when the master's local SyncStateSet has one member. During an "
        "expansion the local set stays {master} until the controller's answer arrives while the controller's set already "
        "holds the slave: producers wait for the slave (they count the union, #5798) but consumers may read everything. "
        "If the slave is elected before it copies a consumed message, that message is not in the new master's log. Not "
        "reported upstream (spec/README.md, \"confirmOffset findings\").",
        Fix("confirmShortcutFix = true (hypothetical: the shortcut on a one-member union)", _ROCKETMQ_SAFE,
            _CHECK_SAFE.format(_ROCKETMQ_SAFE) + " (MC_neg_shortcut is MC_data_reg1 with the fix off)",
            options={"confirm_shortcut_fix": True}),
        control="shortcut-off"),
    KnownBug(
        "rocketmq-confirm-zero-ack", "a member that acked offset 0 is left out of confirmOffset", "RocketMQ",
        "derived from the code, ROCKETMQ.md §8.4 (the `> 0` filter of PR #6729)", "", DERIVED,
        "computeConfirmOffset takes the minimum only over connections whose ack offset is positive, a filter added for "
        "connections that have not reported yet (-1, #6728 and PR #6729). A member with an empty log reports 0 and is "
        "skipped too: when the master learns the larger set, confirmOffset jumps to its log end while the new member holds "
        "nothing, a consumer reads the message, and if the member is elected the message is not in its log. Not reported "
        "upstream (spec/README.md, \"confirmOffset findings\").",
        Fix("confirmZeroAckFix = true (hypothetical: count acks >= 0)", _ROCKETMQ_SAFE,
            _CHECK_SAFE.format(_ROCKETMQ_SAFE) + " (MC_neg_zeroack is MC_data_reg1 with the fix off)",
            options={"confirm_zero_ack_fix": True}),
        control="zeroack-off"),
    KnownBug(
        "rocketmq-epoch-reentry", "a re-entered epoch moves its start and the replicas diverge", "RocketMQ",
        "derived from the code, ROCKETMQ.md §8.6 and §10 item 12", "", DERIVED,
        "changeToMaster(E) truncates the epoch file from E and appends (E, maxPhyOffset). A master that restarts before "
        "its heartbeat expires is still the controller's master and re-enters its own epoch, whose start moves to its "
        "current end: its data of that epoch is now filed under the previous one. A deposed master that kept writing in "
        "the previous epoch then finds that epoch with the same start and end on both sides, keeps its unacknowledged "
        "suffix and copies the new master's next messages after it: the logs diverge. Clean elections suffice.",
        Fix("epochReentryFix = true (hypothetical: truncate only the epochs above E)", _ROCKETMQ_SAFE,
            _ROCKETMQ_SAFE_EVIDENCE + "; traces/truncation/T9-epoch-reentry-fixed.itf.json", options={"epoch_reentry_fix": True}),
        control="reentry-off", found_by=SCENARIO, steps=32),
    # --- RocketMQ: liveness (lassos of the explicit-state checker on the MC_live_* configurations) ---
    KnownBug(
        "rocketmq-6382", "no re-election once the triggered retries fail", "RocketMQ",
        "apache/rocketmq #6382 (fix PR #6383, 5.1.1; first asked in #5009)", ROCKETMQ_ISSUE + "6382", REPORTED,
        "Before 5.1.1 the controller tried to elect a new master only when the master's heartbeat expired or its channel "
        "closed, a bounded number of times (#5009 asked what happens when those attempts fail: nothing retries; #6382: an "
        "election whose event fails to append leaves the state stale). PR #6383 adds a periodic scan that triggers an "
        "election for every set whose master is inactive while some member is alive. Without it a set whose retries "
        "happened while no member was alive stays without a master after members come back.",
        Fix("reelectScan = true (the periodic scan of 5.1.1)", "MC_live_reg", "autoswitch check MC_live_reg MC_live_data",
            options={"reelect_scan": True}),
        control="reelect-off"),
    KnownBug(
        "rocketmq-10875", "JRaft controller: the re-election scan's predicate is negated", "RocketMQ",
        "apache/rocketmq #8380 (PR #8383, not merged) and #10875 (fix PR #10885)", ROCKETMQ_ISSUE + "10875", REPORTED,
        "With the JRaft controller (5.2.0 on), checkNotActiveBroker passes the negation of isBrokerActive to the scan "
        "for sets needing a re-election, so the scan reports sets whose master is alive (#8380: unexpected elections when "
        "a slave is inactive) and misses those whose master is dead while a slave is alive (#10875). The expired master is "
        "still reported once, so the first election happens; what is lost is the retry, which the model states as "
        "reelectScan = false, as for #6382 (ROCKETMQ.md §6.4).",
        Fix("the predicate un-negated (PR #10885): reelectScan = true", "MC_live_reg",
            "autoswitch check MC_live_reg MC_live_data", options={"reelect_scan": True}),
        control="reelect-off"),
    KnownBug(
        "rocketmq-epoch-reentry-stuck", "a slave finds no consistent point after an epoch re-entry", "RocketMQ",
        "derived from the code, ROCKETMQ.md §8.6, §8.2 and §10 item 12", "", DERIVED,
        "The same re-entry as rocketmq-epoch-reentry: a restarted master re-adopts its epoch and moves the epoch's start "
        "to its log end. A slave holding the epoch's old start finds no (epoch, start) the two sides agree on above an "
        "earlier one it cannot use, so its handshake never finds a consistent point and it never leaves READY: it never "
        "copies the master's log again (ROCKETMQ.md §8.2: with no common epoch the slave never progresses).",
        Fix("epochReentryFix = true (hypothetical)", "MC_live_data", "autoswitch check MC_live_data",
            options={"epoch_reentry_fix": True}),
        control="reentry-off-live"),
    KnownBug(
        "rocketmq-controller-metadata-loss", "brokers stranded after the controller loses its metadata", "RocketMQ",
        "derived from the code, ROCKETMQ.md §7.5 and §7.2", "", DERIVED,
        "If the controller loses its replicas info (a wiped or replaced controller store), a registered broker's metadata "
        "poll gets METADATA_NOT_EXIST and registers again, which the controller refuses (the id was never applied there), "
        "and a restarted broker with a meta file never applies its id again: it stays unregistered for ever. No fix "
        "exists in RocketMQ at the snapshot; without the fault every broker registers.",
        Fix("none in RocketMQ: without the fault MC_live_reg holds", "MC_live_reg", "autoswitch check MC_live_reg"),
        control="meta-loss"),
)

BY_ID = {b.id: b for b in KNOWN_BUGS}

def by_id(bug_id: str) -> KnownBug | None:
    return BY_ID.get(bug_id)


def adopt(bug: KnownBug, source: str | Path, root: Path = CHECKOUT) -> Path:
    """Write ``source`` (a counterexample of ``autoswitch check``, or the committed scenario ``bug.source``) as the
    row's trace under ``root``: the same states (and ``loop``, for a lasso) byte for byte, its ``#meta`` with the row's
    ``bug`` and ``reference`` added, its description prefixed with the row's title, and a scenario's name replaced by
    the file it came from (relative to the checkout)."""
    source = Path(source)
    doc = json.loads(source.read_text())
    meta = {k: v for k, v in doc["#meta"].items() if k != "scenario"}
    if "scenario" in doc["#meta"]:
        meta["source"] = str(source.resolve().relative_to(CHECKOUT))
    meta["description"] = f"known bug {bug.id} ({bug.reference}): {bug.title}. {meta.get('description', '')}"
    meta.update(bug=bug.id, reference=bug.reference)
    head = json.dumps({"#meta": meta, "params": doc.get("params", []), "vars": doc["vars"]}, indent=1)[:-2]
    lines = [json.dumps(state, separators=(",", ":")) for state in doc["states"]]
    tail = "".join(f',\n {json.dumps(k)}: {json.dumps(v)}' for k, v in doc.items() if k not in ("#meta", "params", "vars", "states"))
    path = root / bug.trace
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(head + ',\n "states": [\n  ' + ",\n  ".join(lines) + "\n ]" + tail + "\n}\n")
    return path


def with_fix(path: str | Path, options: Options) -> tuple[int, str | None, list[str]]:
    """The actions of the walk at ``path`` run on the reference under ``options`` (the fixed setting): how many were
    taken, the first that the fix refuses (None: all were taken) and the properties broken on the way (the first
    state each breaks at, by name)."""
    trace = load_trace(path)
    config, _, problem = config_from_meta(trace.meta)
    if config is None:
        raise ValueError(f"{path}: {problem}")
    engine = make_engine("reference", Config(config.processes, options, config.broker_sets))
    before, broken = engine.variables(), list[str]()
    for i, state in enumerate(trace.states[1:], 1):
        action = state["action"]
        try:
            engine.step(action)
        except NotEnabled:
            return i - 1, action["tag"], broken
        after = engine.variables()
        broken += [name for name in broken_properties(before, after) if name not in broken]
        before = after
    return len(trace.states) - 1, None, broken


@frozen
class Check:
    """One part of reproducing a row: ``ok`` None when it was not run here (``detail`` says where it is checked)."""

    what: str
    ok: bool | None
    detail: str


def reproduce(bug: KnownBug, check_fixed: bool = True, out: Path | None = None) -> list[Check]:
    """Reproduce ``bug`` (``autoswitch bugs --run``): its trace replays on both engines to its violation; for a
    safety row, the trace's actions under the fixed setting break nothing; the fixed configuration holds (the checker,
    when ``check_fixed`` and it is one of the small configurations of controls.py, its counterexample if any under
    ``out``)."""
    from autoswitch.conformance.check.specconfig import spec_dir
    from autoswitch.conformance.controls import SMALL_CONFIGS
    from autoswitch.conformance.engines import KINDS
    from autoswitch.conformance.trace.replay import replay_file

    checks = []
    path = CHECKOUT / bug.trace
    if path.is_file():
        results = [replay_file(str(path), engine) for engine in KINDS]
        checks.append(Check("counterexample", all(r.ok for r in results), "; ".join(r.describe() for r in results)))
    else:
        checks.append(Check("counterexample", False, f"{bug.trace} is missing" + (f" (pending: {', '.join(bug.pending)})"
                                                                                 if bug.pending else "")))
    if bug.kind == SAFETY and path.is_file():
        taken, refused, broken = with_fix(path, bug.fixed_options)
        how = f"the fix refuses {refused} after {taken} steps" if refused else f"all {taken} steps run"
        checks.append(Check(f"with {bug.fix.summary}", bug.property not in broken,
                            f"{how}; broken: {', '.join(broken) if broken else 'nothing'}"))
    cfg = bug.fix.config
    if check_fixed and cfg in SMALL_CONFIGS and (spec_dir() / f"{cfg}.cfg").is_file():
        from autoswitch.conformance.check.verdict import check_config, load_checker

        verdict = check_config(load_checker(cfg, False), out or CHECKOUT / "out" / "check", replay=True)
        checks.append(Check(f"fixed setting {cfg}", verdict.ok and verdict.result.violation is None,
                            f"autoswitch check {cfg}: {verdict.verdict}, {verdict.result.distinct:,} distinct states"
                            + (f"; counterexample {verdict.trace}" if verdict.trace else "")))
    else:
        checks.append(Check(f"fixed setting {cfg}", None, f"not run here: {bug.fix.evidence}"))
    return checks


def _shortest(bug: KnownBug) -> str:
    if bug.steps is None:
        return "(lasso, after the merge)"
    how = {CHECKER: "shortest (checker)", SCENARIO: "scenario", BUILT: "built"}[bug.found_by]
    how = "lasso, " + how if bug.kind == LIVENESS else how
    after = "" if bug.start == INIT else " after registration"
    return f"{bug.steps} steps{after}, {how}"


def markdown_table(bugs: tuple[KnownBug, ...] = KNOWN_BUGS) -> str:
    """The catalogue's table (TABLE_PAGE, "Known bugs the model reproduces"), one line per row."""
    lines = ["| bug | reference | setting | property | shortest counterexample | fixed setting | reproduce |",
             "|---|---|---|---|---|---|---|"]
    for b in bugs:
        ref = f"[{b.reference}]({b.url})" if b.url else b.reference
        fixed = f"{b.fix.summary}: `{b.fix.config}`"
        status = " (pending the merge)" if b.pending else ""
        lines.append(f"| `{b.id}`: {b.title}{status} | {ref} | {b.setting or '-'} | `{b.property}` | {_shortest(b)} | {fixed} "
                     f"| `{b.command}` |")
    return "\n".join(lines) + "\n"
