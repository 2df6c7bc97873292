"""Running the TLA+ tools on the spec (spec/), and reading spec states in the reference vocabulary.

- TLC: found through the ``TLA2TOOLS_JAR`` environment variable (the path of ``tla2tools.jar``) and a
  ``java`` on ``PATH``. ``run_tlc`` copies the modules and the configuration into a fresh temporary
  directory and runs TLC there (states folder and any trace files stay out of the repository), with a
  fixed fingerprint polynomial so that two runs explore the same way.
- Apalache: ``apalache-mc`` on ``PATH`` or ``$APALACHE_HOME/bin/apalache-mc``. ``apalache_command``
  builds ``check`` (bounded) and ``simulate`` command lines; ``run_apalache`` runs one on a
  configuration's constants (``apalache_module``) in a given folder.

A verdict needs a tool's exit code AND the output that goes with it (no output, no verdict): anything else
is ``"error"`` (the tool failed: no verdict, which fails), with ``problem`` saying what was missing.
- TLC ``ok``: exit 0, "Model checking completed. No error has been found.", the final state counts and the
  depth, no violation message. ``violation``: an exit code of a violation (10-14), TLC's message naming it,
  the final state counts and depth (a truncated output has none; for "Temporal properties were violated", whose
  run prints no depth, the lasso's end instead), no "No error has been found" (the trace itself is read by
  tlc_output.py; tla/check.py fails the run when it cannot be read, and names the liveness property TLC 2.18 does not).
- Apalache ``ok``: exit 0, "The outcome is: NoError", no ``violation*.itf.json`` in the run folder and, for
  ``simulate --save-runs``, at least one ``example*.itf.json``. ``violation``: exit 12, "The outcome is: Error",
  the ``state invariant K violated`` line naming an invariant of ``--inv`` and a ``violation*.itf.json``
  (tla/check.py fails the run when it cannot be imported).
- ``project_state``: the spec pads ``action`` and ``outcome`` to one record type (Apalache needs that)
  and writes a checkCode as a record ``[addr, ts]``; this maps a spec state to the reference's
  vocabulary (MODEL.md §7, reference/actions.py) so that a model-checker trace can be replayed; it drops the
  budget's count ``faults`` (not a trace variable) and reduces each record of ``late`` like ``action``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from attrs import frozen

OK, VIOLATION, ERROR = "ok", "violation", "error"

# TLC's exit codes (tlc2.output.EC.ExitStatus): 10 assumption, 11 deadlock, 12 safety (invariant),
# 13 liveness / action property, 14 assertion; anything else non-zero is a tool, parse or config error.
_TLC_VIOLATION_CODES = {10, 11, 12, 13, 14}
_TLC_FP_INDEX = 1  # fixed fingerprint polynomial: TLC picks one at random otherwise

_NUM = r"(?<![\d,])(\d{1,3}(?:,\d{3}){0,6}|\d{1,20})"  # TLC prints counts with thousands separators
_STATS = re.compile(_NUM + r" states generated, " + _NUM + r" distinct states found")
_DEPTH = re.compile(r"The depth of the complete state graph search is (\d{1,9})\b")
_TLC_DONE = "Model checking completed. No error has been found."
_LASSO_END = re.compile(r"^(?:Back to state \d{1,9}\b|State \d{1,9}: Stuttering)", re.M)
_VIOLATIONS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"Error: Invariant (\w+) is violated"), "invariant"),
    (re.compile(r"Error: Action property (\w+) is violated"), "action property"),
    (re.compile(r"Error: Temporal properties were violated"), "temporal property"),
    (re.compile(r"Error: Deadlock reached"), "deadlock"),
    (re.compile(r"Error: Assumption (.*) is false"), "assumption"),
)


@frozen
class Tlc:
    """How to start TLC: the java executable and the tla2tools.jar path."""

    java: str
    jar: str


@frozen
class TlcResult:
    """The outcome of one TLC run.

    ``verdict`` is ``"ok"`` (state space exhausted, nothing violated), ``"violation"`` (an invariant,
    property, deadlock or assumption failed: ``violated`` names it when TLC does, ``violation_kind``
    says which kind) or ``"error"`` (TLC could not check: parse error, bad config, timeout, crash).
    The counts are those of TLC's last statistics line (``None`` if it printed none).
    """

    verdict: str
    exit_code: int | None
    distinct_states: int | None
    states_generated: int | None
    depth: int | None
    violated: str | None
    violation_kind: str | None
    seconds: float
    output: str
    problem: str = ""  # for "error": why there is no verdict

    @property
    def ok(self) -> bool:
        return self.verdict == OK


def find_tlc() -> Tlc | None:
    """TLC if ``TLA2TOOLS_JAR`` names an existing file and ``java`` is on ``PATH``, else None."""
    jar = os.environ.get("TLA2TOOLS_JAR", "")
    java = shutil.which("java")
    if not jar or not Path(jar).is_file() or java is None:
        return None
    return Tlc(java=java, jar=jar)


def tlc_missing_reason() -> str:
    """Why ``find_tlc`` returned None, in words (for skip messages)."""
    jar = os.environ.get("TLA2TOOLS_JAR", "")
    if not jar:
        return "TLA2TOOLS_JAR not set"
    if not Path(jar).is_file():
        return f"TLA2TOOLS_JAR={jar} is not a file"
    if shutil.which("java") is None:
        return "java not found on PATH"
    return "TLC found"


def find_apalache() -> str | None:
    """``apalache-mc`` on ``PATH``, else ``$APALACHE_HOME/bin/apalache-mc`` if executable, else None."""
    found = shutil.which("apalache-mc")
    if found:
        return found
    home = os.environ.get("APALACHE_HOME")
    if home:
        candidate = Path(home) / "bin" / "apalache-mc"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


def _count(text: str) -> int:
    return int(text.replace(",", ""))


def parse_tlc_output(output: str, exit_code: int | None, seconds: float = 0.0) -> TlcResult:
    """Read the verdict, the statistics and the violated property out of TLC's output: ``ok`` and
    ``violation`` only when the exit code and the output agree (the module docstring), else ``error``."""
    stats = _STATS.findall(output)
    generated, distinct = (_count(stats[-1][0]), _count(stats[-1][1])) if stats else (None, None)
    depth_match = _DEPTH.findall(output)
    depth = int(depth_match[-1]) if depth_match else None
    violated = kind = None
    for pattern, what in _VIOLATIONS:
        m = pattern.search(output)
        if m:
            violated, kind = (m.group(1) if m.groups() else None), what
            break
    done = _TLC_DONE in output
    # the final counts and depth close every complete run, with or without a violation: no counts, a truncated output.
    # A liveness counterexample ends in its lasso's loop instead of the depth (TLC prints none then).
    closing = (("the lasso's end ('Back to state N' or 'State N: Stuttering')", _LASSO_END.search(output))
               if kind == "temporal property" else ("the depth", depth_match))
    missing = [what for what, there in ((repr(_TLC_DONE), done or exit_code != 0), ("the state counts", stats),
                                        closing) if not there]
    problem = ""
    if exit_code == 0:
        problem = (f"TLC exited 0 but reports a {kind}" if kind is not None
                   else f"TLC exited 0 but its output lacks {', '.join(missing)}" if missing else "")
    elif exit_code in _TLC_VIOLATION_CODES:
        problem = (f"TLC exited {exit_code} (a violation) but names none" if kind is None
                   else f"TLC exited {exit_code} (a violation) but also says it found no error" if done
                   else f"TLC exited {exit_code} (a violation) but its output lacks {', '.join(missing)} (truncated?)" if missing
                   else "")
    else:
        problem = ("TLC timed out" if exit_code is None else f"TLC failed (exit code {exit_code})") + ": no verdict"
    if problem:
        problem += output_tail(output)
    verdict = ERROR if problem else OK if exit_code == 0 else VIOLATION
    return TlcResult(verdict, exit_code, distinct, generated, depth, violated, kind, seconds, output, problem)


TAIL_LINES = 8


def output_tail(output: str) -> str:
    """The last lines of a tool's output, for a message saying it gave no verdict (so the reader can tell why)."""
    lines = [line for line in output.splitlines() if line.strip()][-TAIL_LINES:]
    return ("; its output ends:\n    " + "\n    ".join(lines)) if lines else "; it printed nothing"


def _decoded(data: str | bytes | None) -> str:
    """A tool's captured output as text (undecodable bytes replaced)."""
    return data.decode("utf-8", "replace") if isinstance(data, bytes) else (data or "")


def run_tlc(
    spec: str | Path,
    config: str | Path | None = None,
    *,
    workers: int = 1,
    check_deadlock: bool = False,
    timeout: float | None = None,
    extra_args: Sequence[str] = (),
    tlc: Tlc | None = None,
    java_opts: Sequence[str] = ("-XX:+UseParallelGC",),
) -> TlcResult:
    """Model-check ``spec`` (a .tla file) with ``config`` (default: the .cfg beside it of the same name).

    Every ``.tla`` file of the spec's directory and the configuration are copied into a temporary
    directory, TLC runs there (``-metadir`` inside it) and the directory is removed afterwards. The
    fingerprint polynomial is fixed; with ``workers=1`` the exploration order is deterministic too.
    Raises ``RuntimeError`` if TLC is not available (see ``find_tlc``)."""
    tlc = tlc or find_tlc()
    if tlc is None:
        raise RuntimeError(f"TLC not available: {tlc_missing_reason()}")
    spec = Path(spec).resolve()
    config = Path(config).resolve() if config is not None else spec.with_suffix(".cfg")
    with tempfile.TemporaryDirectory(prefix="tlc-") as work:
        workdir = Path(work)
        for module in spec.parent.glob("*.tla"):
            shutil.copy(module, workdir / module.name)
        shutil.copy(spec, workdir / spec.name)
        shutil.copy(config, workdir / config.name)
        command = [
            tlc.java, *java_opts, "-cp", tlc.jar, "tlc2.TLC",
            "-workers", str(workers),
            "-fp", str(_TLC_FP_INDEX),
            "-metadir", str(workdir / "states"),
            "-config", config.name,
            *(() if check_deadlock else ("-deadlock",)),
            *extra_args,
            spec.name,
        ]
        started = time.monotonic()
        try:
            done = subprocess.run(command, cwd=workdir, capture_output=True, timeout=timeout)
        except subprocess.TimeoutExpired as exc:
            out = _decoded(exc.stdout)
            seconds = time.monotonic() - started
            result = parse_tlc_output(out, None, seconds)
            return TlcResult(ERROR, None, result.distinct_states, result.states_generated, result.depth, None, None,
                             seconds, out + f"\n[tlatools] TLC timed out after {timeout} s", f"TLC timed out after {timeout} s")
        except OSError as e:
            return TlcResult(ERROR, None, None, None, None, None, None, time.monotonic() - started, f"[tlatools] {e}",
                             f"TLC could not be started ({tlc.java}: {e.strerror or e})")
        seconds = time.monotonic() - started
        return parse_tlc_output(_decoded(done.stdout) + _decoded(done.stderr), done.returncode, seconds)


APALACHE_MODES = ("check", "simulate")


def apalache_command(
    spec: str | Path,
    *,
    length: int,
    invariants: Sequence[str] = (),
    init: str = "Init",
    next_: str = "Next",
    cinit: str | None = "ConstInit",
    mode: str = "check",
    max_run: int = 10,
    out_dir: str | Path | None = None,
    run_dir: str | Path | None = None,
    apalache: str | None = None,
) -> list[str]:
    """``apalache-mc check|simulate --init --next --length [--inv] [--cinit] [--out-dir] [--run-dir] SPEC``.

    ``simulate`` adds ``--max-run`` and ``--save-runs`` (every run's trace saved as ``example*.itf.json``
    in the run directory, Apalache >= 0.25.6); ``check`` writes a counterexample as
    ``violation*.itf.json`` there."""
    if mode not in APALACHE_MODES:
        raise ValueError(f"unknown Apalache mode {mode!r}; expected one of {APALACHE_MODES}")
    exe = apalache or find_apalache() or "apalache-mc"
    command = [exe, mode]
    if out_dir is not None:
        command.append(f"--out-dir={out_dir}")
    if run_dir is not None:
        command.append(f"--run-dir={run_dir}")
    command += [f"--init={init}", f"--next={next_}", f"--length={length}"]
    if invariants:
        command.append(f"--inv={','.join(invariants)}")
    if cinit:
        command.append(f"--cinit={cinit}")
    if mode == "simulate":
        command += [f"--max-run={max_run}", "--save-runs"]
    command.append(str(spec))
    return command


# Apalache's exit codes (at.forsyte.apalache.infra.ExitCodes): 0 no error, 12 a counterexample (any
# kind of violation), 75 a failure to evaluate the spec, 120 a type error, 150 a parse error, 255 other.
APALACHE_VIOLATION_CODE = 12
_APALACHE_INVARIANT = re.compile(r"State (\d{1,9}): state invariant (\d{1,9}) violated")


_APALACHE_NO_ERROR = "The outcome is: NoError"
_APALACHE_ERROR = "The outcome is: Error"


@frozen
class ApalacheResult:
    """``verdict`` from Apalache's exit code and its output (the module docstring); ``violated`` is the
    invariant of ``--inv`` that Apalache's output names (``state invariant K``), ``problem`` why there is
    no verdict."""

    verdict: str
    exit_code: int | None
    seconds: float
    output: str
    run_dir: Path
    violated: str | None = None
    problem: str = ""


def apalache_verdict(exit_code: int | None) -> str:
    """The verdict Apalache's exit code claims (``apalache_outcome`` asks for the output that goes with it)."""
    return OK if exit_code == 0 else VIOLATION if exit_code == APALACHE_VIOLATION_CODE else ERROR


def violated_invariant(output: str, invariants: Sequence[str]) -> str | None:
    """The invariant named by index in Apalache's ``State N: state invariant K violated`` line."""
    m = _APALACHE_INVARIANT.search(output)
    if m and int(m.group(2)) < len(invariants):
        return invariants[int(m.group(2))]
    return None


def trace_files(run_dir: Path, stem: str) -> list[Path]:
    """Apalache's ``<stem>*.itf.json`` regular files in ``run_dir`` (``violation1.itf.json``, ``example.itf.json``...)."""
    return sorted(p for p in run_dir.glob(f"{stem}*.itf.json") if p.is_file()) if run_dir.is_dir() else []


def apalache_outcome(exit_code: int | None, output: str, run_dir: Path, invariants: Sequence[str],
                     mode: str = "check") -> tuple[str, str | None, str]:
    """``(verdict, violated invariant, problem)`` of one Apalache run: the exit code's verdict only when the
    output and the trace files agree with it (the module docstring); otherwise ``error`` and why."""
    claimed = apalache_verdict(exit_code)
    violations = trace_files(run_dir, "violation")
    violated = violated_invariant(output, invariants)
    if claimed == OK:
        problem = ("" if _APALACHE_NO_ERROR in output else f"Apalache exited 0 but its output lacks {_APALACHE_NO_ERROR!r}")
        problem = problem or (f"Apalache exited 0 but wrote {violations[0].name}" if violations else "")
        if not problem and mode == "simulate" and not trace_files(run_dir, "example"):
            problem = f"Apalache simulate exited 0 but saved no run (no example*.itf.json in {run_dir})"
    elif claimed == VIOLATION:
        missing = [what for what, there in ((repr(_APALACHE_ERROR), _APALACHE_ERROR in output),
                                            ("an invariant of --inv ('state invariant K violated')", violated is not None),
                                            (f"a violation*.itf.json in {run_dir}", violations)) if not there]
        problem = f"Apalache exited {exit_code} (a counterexample) but gave no {', no '.join(missing)}" if missing else ""
    else:
        problem = ("Apalache timed out" if exit_code is None else f"Apalache failed (exit code {exit_code})") + ": no verdict"
        problem += output_tail(output)
    return (ERROR if problem else claimed), (violated if claimed == VIOLATION else None), problem


def tla_value(value: Any) -> str:
    """A configuration constant's value written in TLA+ (booleans, integers, strings, sets of strings)."""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return '"' + value + '"'
    if isinstance(value, frozenset | set):
        return "{" + ", ".join(tla_value(v) for v in sorted(value)) + "}"
    raise TypeError(f"no TLA+ form for {value!r}")


def apalache_module(name: str, module: str, constants: Mapping[str, Any]) -> str:
    """A module ``APA_<name>`` extending the MC module with ``CInit``: the configuration's constants as
    Apalache's constant initializer (the MC module's ``ConstInit`` is one fixed setting)."""
    lines = [f"/\\ {k} = {tla_value(v)}" for k, v in constants.items()]
    lines += ["/\\ Processes = MC_Processes", "/\\ Addrs = MC_Addrs", "/\\ BrokerIds = MC_BrokerIds"]
    body = "\n    ".join(lines)
    return (f"---- MODULE APA_{name} ----\n\\* written by autoswitch tla: the constants of spec/{name}.cfg\n"
            f"EXTENDS {module}\n\nCInit ==\n    {body}\n====\n")


def run_apalache(
    spec_dir: str | Path,
    name: str,
    module: str,
    constants: Mapping[str, Any],
    folder: str | Path,
    *,
    length: int,
    invariants: Sequence[str] = (),
    init: str = "Init",
    mode: str = "check",
    max_run: int = 10,
    timeout: float | None = None,
) -> ApalacheResult:
    """Run Apalache on configuration ``name`` inside ``folder``: the spec's modules and ``APA_<name>.tla``
    (``apalache_module``) are copied to ``folder/spec``, the tool writes under ``folder/out`` and its
    traces to ``folder/run``. Raises ``RuntimeError`` if Apalache is not available."""
    exe = find_apalache()
    if exe is None:
        raise RuntimeError("Apalache not available: neither apalache-mc on PATH nor $APALACHE_HOME/bin/apalache-mc")
    folder = Path(folder).resolve()
    work, run_dir = folder / "spec", folder / "run"
    work.mkdir(parents=True, exist_ok=True)
    for f in Path(spec_dir).glob("*.tla"):
        shutil.copy(f, work / f.name)
    (work / f"APA_{name}.tla").write_text(apalache_module(name, module, constants))
    command = apalache_command(f"APA_{name}.tla", length=length, invariants=invariants, init=init, cinit="CInit",
                               mode=mode, max_run=max_run, out_dir=folder / "out", run_dir=run_dir, apalache=exe)
    started = time.monotonic()
    try:
        done = subprocess.run(command, cwd=work, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return ApalacheResult(ERROR, None, time.monotonic() - started, f"[tlatools] Apalache timed out after {timeout} s",
                              run_dir, problem=f"Apalache timed out after {timeout} s")
    except OSError as e:
        return ApalacheResult(ERROR, None, time.monotonic() - started, f"[tlatools] {e}", run_dir,
                              problem=f"Apalache could not be started ({exe}: {e.strerror or e})")
    out = " ".join(command) + "\n" + _decoded(done.stdout) + _decoded(done.stderr)
    verdict, violated, problem = apalache_outcome(done.returncode, out, run_dir, invariants, mode)
    return ApalacheResult(verdict, done.returncode, time.monotonic() - started, out, run_dir, violated, problem)


# --- spec states in the reference vocabulary ----------------------------------------------------

NO_CHECK_CODE_TS = -1  # the spec's NoCheckCode is [addr |-> "", ts |-> -1]: Python's ""

_MASTER_VIEW = ("masterId", "masterAddr", "masterEpoch", "syncStateSetEpoch")
# The fields the Python outcome carries, by action tag: (always, only on SUCCESS).
_OUTCOME_FIELDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "GetNextBrokerId": (("nextBrokerId",), ()),
    "CreateTempFile": (("nextBrokerId",), ()),
    "RegisterBrokerToController": ((), _MASTER_VIEW + ("syncStateSet",)),
    "SendRegister": ((), _MASTER_VIEW + ("syncStateSet",)),
    "GetReplicaInfo": ((), _MASTER_VIEW + ("syncStateSet",)),
    "SyncReplicaInfo": ((), _MASTER_VIEW + ("syncStateSet",)),
    "ElectMaster": (_MASTER_VIEW + ("syncStateSet",), ()),
    "SendElectMaster": (_MASTER_VIEW + ("syncStateSet",), ()),
    "ControllerElectScan": (_MASTER_VIEW + ("syncStateSet",), ()),
    "AlterSyncStateSet": (("syncStateSetEpoch",), ()),
    "SendAlterSyncStateSet": (("syncStateSetEpoch",), ()),
    "Expand": (("syncStateSetEpoch",), ()),
    "Shrink": (("syncStateSetEpoch",), ()),
    "Write": ((), ("msg", "offset")),
    "Handshake": (("truncateOffset",), ()),
    # the designs RIP-44 replaced (spec/MasterSlave.tla, spec/DLedger.tla); DLedger's EXPIRED_TERM carries the term
    "MsWrite": (("msg", "offset"), ()),
    "DlElect": (("term",), ()),
    "DlWrite": ((), ("msg", "offset")),
    "DlPush": ((), ("offset",)),
}


def check_code_str(value: Any) -> Any:
    """A spec checkCode record ``{addr, ts}`` as the Python string ``"<addr>;<ts>"`` (``""`` for none);
    anything else is returned unchanged."""
    if isinstance(value, Mapping) and set(value) == {"addr", "ts"}:
        return "" if value["ts"] == NO_CHECK_CODE_TS else f"{value['addr']};{value['ts']}"
    return value


def project_action(action: Mapping[str, Any]) -> dict[str, Any]:
    """The spec's padded action record reduced to ``tag`` and the parameters of that tag."""
    from autoswitch.reference.actions import ACTIONS

    tag = action["tag"]
    params = ACTIONS[tag].params if tag in ACTIONS else {}
    return {"tag": tag, **{k: check_code_str(action[k]) for k in params if k in action}}


def project_outcome(tag: str, outcome: Mapping[str, Any]) -> dict[str, Any]:
    """The spec's padded outcome record reduced to the fields the reference's outcome carries."""
    always, on_success = _OUTCOME_FIELDS.get(tag, ((), ()))
    code = outcome.get("code")
    keep = always + (on_success if code == "SUCCESS" else ()) + (("term",) if code == "EXPIRED_TERM" else ())
    return {"code": outcome["code"], **{k: outcome[k] for k in keep if k in outcome}}


def _replicas(value: Any) -> dict[Any, Any]:
    return {b: {"addr": r["addr"], "checkCode": check_code_str(r["checkCode"])} for b, r in value.items()}


def _temp_files(value: Any) -> dict[Any, Any]:
    return {p: {"brokerId": t["brokerId"], "checkCode": check_code_str(t["checkCode"])} for p, t in value.items()}


def _late(value: Any) -> dict[Any, Any]:
    """``late``: each held request reduced to its controller-level tag's parameters (``<< >>``: none)."""
    return {} if value == () else {p: project_action(a) for p, a in value.items()}


def project_state(state: Mapping[str, Any]) -> dict[str, Any]:
    """A spec state (decoded ITF values: dicts, frozensets, tuples) in the reference vocabulary:
    ``action``/``outcome`` unpadded, every checkCode record as its string. A value not of the spec's
    shape is a ValueError naming the variable."""
    out: dict[str, Any] = {k: v for k, v in state.items() if k != "faults"}  # the budget's count: not a trace variable
    projections = (("replicas", _replicas), ("tempFile", _temp_files), ("late", _late), ("action", project_action),
                   ("outcome", lambda o: project_outcome(out["action"]["tag"], o)))
    for name, project in projections:
        if name not in out or (name == "outcome" and "action" not in out):
            continue
        try:
            out[name] = project(out[name])
        except (KeyError, TypeError, AttributeError, IndexError) as e:
            what = f"no field {e}" if isinstance(e, KeyError) else str(e)
            raise ValueError(f"variable {name}: not of the spec's shape ({what})") from None
    return out
