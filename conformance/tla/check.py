"""``autoswitch tla``: model-check the spec's configurations with TLC or Apalache, import what the tool
found as replayable traces and replay them on the reference and the implementation.

Per configuration NAME (spec/NAME.cfg, or the path of a NAME.cfg: specconfig.config_path) everything goes to
``OUT/NAME/``, NAME being the file's checked stem, and every path written is checked to stay inside OUT
(paths.path_under, file_under, folder_under):
- TLC: ``tlc.log`` (TLC's output) and, for a counterexample, ``counterexample.itf.json``;
- Apalache: ``apalache.log``, ``spec/`` (the modules and ``APA_NAME.tla`` with the config's constants),
  ``out/`` and ``run/`` (Apalache's own output), ``counterexample.itf.json`` (its ``violation1``) and,
  for ``simulate``, ``example<N>.itf.json`` (its ``example<N>``), each imported by ``tla_import``.
Earlier results in ``OUT/NAME/`` are removed first, so the folder shows one run.

A tool's verdict needs its exit code and the output that goes with it (tla/run.py); a counterexample it
reports must also be imported. Otherwise the run has verdict ``error`` (the tool failed: no verdict), which
fails the command (exit 1) like a wrong verdict; it never holds.

Expected verdicts: every configuration a row of controls.py expects broken (the negative controls, the liveness
controls and the code's findings) must give a violation, every other configuration must hold. An imported counterexample must replay on both engines to the
violation the tool reported, at the state where it reported it (``#meta.expect``); a TLC liveness counterexample is a
lasso (``loop``, ``#meta.expect.liveness``) naming the property whose ``ok`` fails throughout its loop, which must be
the one LIVENESS_VIOLATED expects; a simulation trace (no violation) must replay with every invariant holding.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from attrs import asdict, frozen

from autoswitch.conformance import controls
from autoswitch.conformance.check.specconfig import SpecConfig, load_spec_config
from autoswitch.conformance.paths import file_under, folder_under
from autoswitch.conformance.tla.import_ import (
    Imported,
    TraceImportError,
    apalache_states,
    import_states,
    liveness_broken,
    replay_both,
)
from autoswitch.conformance.tla.run import (
    ERROR,
    OK,
    VIOLATION,
    find_apalache,
    find_tlc,
    project_state,
    run_apalache,
    run_tlc,
    tlc_missing_reason,
)
from autoswitch.conformance.tla.tlc_output import TlcTraceError, parse_tlc_lasso, parse_tlc_trace
from autoswitch.conformance.trace.replay import Result
from autoswitch.reference.state import CONTROLLER

SKIPPED = "skipped"
DEFAULT_CONFIGS = tuple(c.cfg for c in controls.in_default(controls.TLA) if c.cfg)
COUNTEREXAMPLE = "counterexample.itf.json"
_TLC_VERSION = re.compile(r"TLC2 Version (\S+)")


# The liveness configurations whose property fails (spec/README.md, "Liveness"): the controls, and the code's findings
# (controls.py: MC_live_meta, MC_live_failover), in controller mode (a design's lasso may break any of its row's).
LIVENESS_VIOLATED = {c.cfg: c.liveness for c in controls.CONTROLS if c.cfg and c.liveness and c.design == CONTROLLER}


def expected_verdict(config: str) -> str:
    """``violation`` for a configuration controls.py expects broken (a control or a finding: every LIVENESS_VIOLATED
    configuration is a row), ``ok`` for every other configuration."""
    return OK if controls.expected_violation(config) is None else VIOLATION


@frozen
class TraceCheck:
    """One imported trace and its replay on each engine."""

    path: str
    expect: str | None  # "<violation> at state <i>", None for a trace that must hold throughout
    results: tuple[Result, ...]

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.results)

    def summary(self) -> str:
        """``both: <what happened>`` when the engines pass, else each engine's first problem."""
        if self.ok:
            return f"both: {self.expect}, as expected" if self.expect else "both: pass, every invariant holds"
        return "; ".join(f"{r.engine}: " + ((r.message or "pass") if r.ok else f"{r.status} at state {r.state} ({r.field}: {r.actual or r.message})")
                         for r in self.results)


@frozen
class ConfigCheck:
    """The result of one tool on one configuration."""

    config: str
    tool: str
    expected: str
    verdict: str  # ok | violation | error | skipped
    violated: str | None = None
    distinct_states: int | None = None
    depth: int | None = None
    seconds: float = 0.0
    folder: str = ""
    traces: tuple[TraceCheck, ...] = ()
    problem: str = ""  # why it was skipped, the tool's error, or why a trace could not be imported

    @property
    def ok(self) -> bool:
        """Checked, the verdict the configuration expects, and every imported trace replays as it should."""
        imported = self.verdict != VIOLATION or bool(self.traces)
        return self.verdict == self.expected and not self.problem and imported and all(t.ok for t in self.traces)

    def to_json(self) -> dict:
        return {**asdict(self, recurse=False), "ok": self.ok,
                "traces": [{"path": t.path, "expect": t.expect, "ok": t.ok, "results": [r.to_json() for r in t.results]}
                           for t in self.traces]}


def _fresh_folder(out: Path, config: str) -> Path:
    """``OUT/CONFIG`` (inside OUT: folder_under) emptied of an earlier run's files."""
    folder = folder_under(out, config)
    tool_folders = [folder / sub for sub in ("spec", "out", "run")]
    for path in [folder / "tlc.log", folder / "apalache.log", *folder.glob("*.itf.json"), *tool_folders]:
        if path.is_symlink() or path.is_file():  # a link is removed, never followed
            path.unlink()
        elif path in tool_folders and path.is_dir():  # any other folder in the way is refused when written (file_under)
            shutil.rmtree(path)
    return folder


def _check_trace(path: Path, expect: dict | None) -> TraceCheck:
    text = (None if expect is None else f"liveness {expect['liveness']} (lasso)" if "liveness" in expect
            else f"{expect['violation']} at state {expect['state']}")
    return TraceCheck(str(path), text, replay_both(path))


def skipped(configs: list[str], tool: str, reason: str) -> list[ConfigCheck]:
    return [ConfigCheck(c, tool, expected_verdict(c), SKIPPED, problem=reason) for c in configs]


def check_with_tlc(config: str | Path, out: Path, *, workers: int = 1, timeout: float | None = None) -> ConfigCheck:
    """TLC on spec/CONFIG.cfg (or the .cfg file CONFIG names); a counterexample is imported to
    ``OUT/<name>/counterexample.itf.json`` and replayed."""
    cfg = load_spec_config(config)
    config = cfg.name
    if find_tlc() is None:
        return skipped([config], "tlc", tlc_missing_reason())[0]
    folder = _fresh_folder(out, config)
    result = run_tlc(cfg.source.parent / f"{cfg.module}.tla", cfg.source, workers=workers, timeout=timeout)
    log = file_under(folder, "tlc.log")
    log.write_text(result.output)
    common = dict(config=config, tool="tlc", expected=expected_verdict(config), verdict=result.verdict,
                  violated=result.violated, distinct_states=result.distinct_states, depth=result.depth,
                  seconds=result.seconds, folder=str(folder))
    if result.verdict == ERROR:
        return ConfigCheck(**common, problem=f"{result.problem}: see {log}")
    if result.verdict != VIOLATION:
        return ConfigCheck(**common)
    if result.violation_kind not in ("invariant", "action property", "temporal property"):
        return ConfigCheck(**common, problem=f"TLC reports a {result.violation_kind}: no trace to import")
    version = _TLC_VERSION.search(result.output)
    tool = f"TLC {version.group(1) if version else '?'}, -workers {workers} -fp 1"
    try:
        if result.violation_kind == "temporal property":
            imported = _import_lasso(result.output, cfg, tool)
            common["violated"] = imported.meta["expect"]["liveness"]
        else:
            imported = import_states(parse_tlc_trace(result.output), cfg, violation=result.violated, tool=tool)
    except (TlcTraceError, TraceImportError) as e:
        return ConfigCheck(**{**common, "verdict": ERROR},
                           problem=f"TLC reports {result.violated or 'a temporal property'} violated but its trace cannot be read, "
                                   f"no verdict: {log}: {e}")
    if result.violation_kind == "temporal property" and common["violated"] != LIVENESS_VIOLATED.get(config, common["violated"]):
        return ConfigCheck(**common, problem=f"TLC's lasso breaks {common['violated']}, expected {LIVENESS_VIOLATED[config]}")
    path = imported.write(file_under(folder, COUNTEREXAMPLE))
    return ConfigCheck(**common, traces=(_check_trace(path, imported.meta.get("expect")),))


def _import_lasso(output: str, cfg: SpecConfig, tool: str) -> Imported:
    """TLC's liveness counterexample as a lasso trace, naming the property (TLC 2.18 does not): the first
    liveness property of the configuration whose ``ok`` fails throughout the loop (import_.liveness_broken)."""
    spec_states, loop = parse_tlc_lasso(output)
    projected = [project_state(s) for s in spec_states]
    name = liveness_broken(projected, loop, cfg.liveness)
    if name is None:
        raise TraceImportError(f"no liveness property of {cfg.where} ({', '.join(cfg.liveness) or 'none'}) fails "
                               f"throughout the loop from state {loop}")
    return import_states(spec_states, cfg, tool=tool, violation=name, loop=loop)


def check_with_apalache(config: str | Path, out: Path, *, mode: str = "check", length: int = 10, max_run: int = 10,
                        timeout: float | None = None) -> ConfigCheck:
    """Apalache (``check`` or ``simulate``) on CONFIG's constants and invariants; its ITF traces are
    imported and replayed. Apalache checks INVARIANTS only (the cfg's PROPERTIES are not passed) and has
    no state constraint: its bound is ``length`` steps."""
    cfg = load_spec_config(config)
    config = cfg.name
    if find_apalache() is None:
        return skipped([config], "apalache", "apalache-mc not on PATH and no $APALACHE_HOME/bin/apalache-mc")[0]
    folder = _fresh_folder(out, config)
    result = run_apalache(cfg.source.parent, config, cfg.module, cfg.constants, folder, length=length,
                          invariants=cfg.invariants, init=cfg.init, mode=mode, max_run=max_run, timeout=timeout)
    log = file_under(folder, "apalache.log")
    log.write_text(result.output)
    common = dict(config=config, tool=f"apalache {mode}", expected=expected_verdict(config), verdict=result.verdict,
                  violated=result.violated, depth=length, seconds=result.seconds, folder=str(folder))
    if result.verdict == ERROR:
        return ConfigCheck(**common, problem=f"{result.problem}: see {log}")
    traces = []
    try:
        found = import_apalache_traces(result.run_dir, folder, cfg, result.violated, f"Apalache {mode}, --length {length}")
    except TraceImportError as e:
        return ConfigCheck(**{**common, "verdict": ERROR}, problem=f"Apalache's trace cannot be imported, no verdict: {e}")
    for path, expect in found:
        traces.append(_check_trace(path, expect))
    return ConfigCheck(**common, traces=tuple(traces))


def apalache_trace_files(run_dir: Path) -> list[tuple[Path, bool]]:
    """``(file, is_violation)`` of Apalache's numbered ITF traces in ``run_dir`` (``violation1.itf.json``,
    ``example1.itf.json``, ...; the unnumbered ``violation.itf.json``/``example.itf.json`` repeat the
    first one and are used only when no numbered file exists)."""
    found: list[tuple[Path, bool]] = []
    for stem, is_violation in (("violation", True), ("example", False)):
        numbered = sorted((p for p in run_dir.glob(f"{stem}[0-9]*.itf.json")
                           if re.fullmatch(rf"{stem}\d{{1,6}}\.itf\.json", p.name)), key=lambda p: int(re.sub(r"\D", "", p.name)))
        plain = run_dir / f"{stem}.itf.json"
        found += [(p, is_violation) for p in (numbered or ([plain] if plain.is_file() else []))]
    return found


def import_apalache_traces(run_dir: Path, folder: Path, cfg: SpecConfig, violated: str | None, tool: str) -> list[tuple[Path, dict | None]]:
    """Import Apalache's ITF traces of ``run_dir`` into ``folder``: the first violation trace as
    ``counterexample.itf.json`` (expecting ``violated`` at its last state), examples as ``example<N>.itf.json``."""
    written = []
    violations = 0
    for source, is_violation in apalache_trace_files(run_dir):
        if is_violation and violations:
            continue  # --max-error 1: one counterexample
        try:
            imported = import_states(apalache_states(source), cfg, tool=tool, violation=violated if is_violation else None)
        except TraceImportError as e:
            raise TraceImportError(str(e) if str(e).startswith(str(source)) else f"{source}: {e}") from None
        target = file_under(folder, COUNTEREXAMPLE if is_violation else source.name)
        imported.write(target)
        violations += is_violation
        written.append((target, imported.meta.get("expect")))
    return written


def write_report(out: Path, checks: list[ConfigCheck]) -> Path:
    path = file_under(out, "report.json")
    out.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps([c.to_json() for c in checks], indent=1) + "\n")
    return path
