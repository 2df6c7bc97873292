"""The verdict of ``autoswitch check`` on one spec configuration: the explicit-state checker's result,
what the configuration expects (controls.py; a liveness violation for ``MC_live_neg_*`` and the findings of
:data:`LIVENESS_FINDINGS`), the counterexample written as a trace (a lasso for liveness) and replayed on
both engines, and (optionally) TLC's counts and liveness verdict beside the checker's."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import attrs
from attrs import frozen

from autoswitch.conformance import controls
from autoswitch.conformance.check.checker import Checker, CheckResult, Progress, violation_trace_meta
from autoswitch.conformance.check.search import LOCAL, How, search
from autoswitch.conformance.check.specconfig import SpecConfigError, load_spec_config
from autoswitch.conformance.engines import KINDS
from autoswitch.conformance.paths import file_under
from autoswitch.conformance.tla.check import SKIPPED, ConfigCheck, check_with_tlc, expected_verdict
from autoswitch.conformance.tla.run import OK, VIOLATION
from autoswitch.conformance.trace.itf import write_trace
from autoswitch.conformance.trace.replay import VIOLATION as OTHER_FIRST
from autoswitch.conformance.trace.replay import Result, replay_file
from autoswitch.reference.invariants import ACTION_PROPERTIES
from autoswitch.reference.liveness import LIVENESS_BY_NAME

LIVENESS_VIOLATION = "liveness violation"
LIVENESS_CONTROLS = "MC_live_neg_"  # the liveness negative controls: any liveness property may be the one violated
# configurations where the code itself violates a liveness property (MODEL.md §9: a finding, not a control)
LIVENESS_FINDINGS = controls.FINDINGS
# how check_with_tlc (tla/check.py) reports TLC's temporal violation (it imports no trace of it)
TLC_TEMPORAL = "TLC reports a temporal property"


def expected(config: str, selected: Sequence[str] | None = None) -> str:
    """``liveness violation`` for the liveness controls, findings and liveness rows of controls.py (MC_live_ms), else
    ``violation`` or ``ok`` (expected_verdict).
    With ``selected`` (``check --invariant/--property``: only these checked): a violation when one of them is known
    broken (controls.config_breaks, the findings), of its kind; else ``ok``."""
    if selected is not None and (known := controls.config_breaks(config)) is not None:
        hit = next((p for p in selected if p in known or LIVENESS_FINDINGS.get(config) == p), None)
        return OK if hit is None else LIVENESS_VIOLATION if hit in LIVENESS_BY_NAME else VIOLATION
    if config.startswith(LIVENESS_CONTROLS) or config in LIVENESS_FINDINGS or controls.expected_violation(config) in LIVENESS_BY_NAME:
        return LIVENESS_VIOLATION
    return expected_verdict(config)


@frozen
class CheckVerdict:
    """One configuration checked: ``ok`` when the verdict is the expected one (the negative control's
    invariant, or none), every replay of the counterexample passes and, with TLC, both count the same
    states where both explored every state."""

    config: str
    expects: str  # "ok" | "violation" | "liveness violation"
    result: CheckResult
    source: Path  # the .cfg file checked (TLC checks the same file)
    trace: Path | None = None  # the counterexample, written as an ITF trace
    replays: tuple[Result, ...] = ()
    tlc: ConfigCheck | None = None
    selected: tuple[str, ...] | None = None  # check --invariant/--property: the properties checked; None: the .cfg's

    @property
    def verdict(self) -> str:
        v = self.result.violation
        if v is None:
            live = self.result.liveness
            return "ok" + (f"; {', '.join(live)} {'hold' if len(live) > 1 else 'holds'}" if live else "")
        if v.kind == "liveness":
            of = f" of {v.process}" if v.process else ""
            return f"{v.name}{of} violated, lasso of {len(v.states) - 1} steps (loop from {v.loop})"
        return f"{v.name}, {len(v.states) - 1} steps"

    @property
    def as_expected(self) -> bool:
        v = self.result.violation
        if v is None:
            return self.expects == OK
        if self.selected is not None and (known := controls.config_breaks(self.config)) is not None:
            return v.name in known or LIVENESS_FINDINGS.get(self.config) == v.name
        if v.kind == "liveness":  # a finding's property, a liveness row's (controls.py), any for MC_live_neg_*
            wanted = LIVENESS_FINDINGS.get(self.config) or controls.expected_violation(self.config)
            return self.expects == LIVENESS_VIOLATION and wanted in ("*", v.name)
        wanted = controls.expected_violation(self.config)
        return self.expects == VIOLATION and wanted in ("*", v.name)

    @property
    def exhaustive(self) -> bool:
        """Both the checker and TLC explored every state (no violation stopped either)."""
        return self.tlc is not None and self.result.violation is None and self.tlc.verdict == "ok"

    @property
    def same_as_tlc(self) -> bool:
        assert self.tlc is not None
        return (self.tlc.distinct_states, self.tlc.depth) == (self.result.distinct, self.result.depth)

    @property
    def liveness_compared(self) -> bool:
        """TLC gave a verdict on a configuration with liveness properties."""
        return self.tlc is not None and bool(self.result.liveness) and self.tlc.verdict in (OK, VIOLATION)

    @property
    def same_liveness_as_tlc(self) -> bool:
        """Both find a liveness violation, or neither (TLC names no temporal property: the verdict alone is compared)."""
        assert self.tlc is not None
        v = self.result.violation
        tlc_temporal = self.tlc.verdict == VIOLATION and (self.tlc.violated in LIVENESS_BY_NAME
                                                          or self.tlc.problem.startswith(TLC_TEMPORAL))
        return (v is not None and v.kind == "liveness") == tlc_temporal

    def replayed(self, r: Result) -> bool:
        """A replay passes; or, with only some properties checked, the engine agreed on every state and a property not
        checked broke first (a trace names one expected violation: e.g. a shortest NoPhantomRead that also loses an
        acknowledged message at that state)."""
        return r.ok or (self.selected is not None and r.status == OTHER_FIRST and r.field not in self.selected)

    @property
    def ok(self) -> bool:
        return (self.as_expected and all(map(self.replayed, self.replays)) and not (self.exhaustive and not self.same_as_tlc)
                and not (self.liveness_compared and not self.same_liveness_as_tlc)
                and not (self.tlc is not None and self.tlc.verdict not in (OK, VIOLATION, SKIPPED)))  # TLC gave no verdict


def load_checker(name: str, symmetry: bool, selected: Sequence[str] | None = None) -> Checker:
    """The checker of spec/NAME.cfg (SpecConfigError if NAME is not a configuration name, the configuration cannot
    be read, or it is too large for the checker); ``selected``: only these invariants, action and liveness properties
    (a liveness property only on a configuration with liveness properties: SPECIFICATION LiveSpec...)."""
    spec = load_spec_config(name)
    if selected is None:
        return Checker(spec, symmetry=symmetry)
    live = tuple(p for p in selected if p in LIVENESS_BY_NAME)
    if live and not spec.liveness:
        raise SpecConfigError(f"{spec.where}: {live[0]} is a liveness property: it is checked on a liveness configuration "
                              "(SPECIFICATION LiveSpec..., with its fairness), and this one has none")
    actions = {p.name for p in ACTION_PROPERTIES}
    return Checker(attrs.evolve(spec, liveness=live), symmetry, [p for p in selected if p not in actions and p not in live],
                   [p for p in selected if p in actions])


def check_config(checker: Checker, out: Path, replay: bool, on_progress: Callable[[Progress], None] | None = None,
                 every: float = 2.0, selected: Sequence[str] | None = None, how: How = LOCAL) -> CheckVerdict:
    """Run the checker (as ``how`` says: search.py); a counterexample is written to ``OUT/<config>.itf.json``
    (file_under: inside OUT) and (``replay``) replayed on every engine. ``selected``: the properties the checker
    checks, when not the .cfg's."""
    spec = checker.spec
    result = search(checker, how, on_progress, every=every)
    chosen = None if selected is None else tuple(selected)
    verdict = CheckVerdict(spec.name, expected(spec.name, chosen), result, spec.source, selected=chosen)
    if result.violation is None:
        return verdict
    path = file_under(out, f"{spec.name}.itf.json")
    write_trace(path, violation_trace_meta(spec, result.violation), list(result.violation.states), result.violation.loop)
    replays = tuple(replay_file(str(path), engine) for engine in KINDS) if replay else ()
    return attrs.evolve(verdict, trace=path, replays=replays)


def compare_with_tlc(verdict: CheckVerdict, out: Path) -> CheckVerdict:
    """The verdict with TLC's run of the same configuration beside it (its log under ``OUT/tlc``)."""
    return attrs.evolve(verdict, tlc=check_with_tlc(verdict.source, out / "tlc"))
