"""External tools as hostile input: a verdict of TLC or Apalache needs the tool's exit code AND the output
that goes with it (conformance/tla/run.py); garbled, truncated or contradictory output, a missing or
malformed trace file gives the verdict ``error`` (the tool failed: no verdict, which fails), never a crash
and never "holds". The tools are FAKE executables written here (``java`` for TLC, ``apalache-mc``) that print
recorded or garbled output and exit with a chosen code; nothing here runs TLC or Apalache.
"""

from __future__ import annotations

import json
import random
import shutil
import stat
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from autoswitch.conformance.check.specconfig import CHECKOUT_SPEC_DIR, load_spec_config
from autoswitch.conformance.cli import main
from autoswitch.conformance.errors import InputError
from autoswitch.conformance.tla.check import COUNTEREXAMPLE, check_with_apalache, check_with_tlc
from autoswitch.conformance.tla.import_ import TraceImportError, apalache_states, import_states
from autoswitch.conformance.tla.run import ERROR, OK, VIOLATION, apalache_outcome, parse_tlc_output
from autoswitch.conformance.tla.tlc_output import TlcTraceError, parse_tlc_trace

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "tla"
UNCLEAN = (FIXTURES / "MC_neg_unclean.tlc-output.txt").read_text()  # TLC 2.18 on MC_neg_unclean, exit 12
KIP101 = (FIXTURES / "MC_neg_kip101.tlc-output.txt").read_text()
APALACHE_ITF = (FIXTURES / "apalache-style-violation1.itf.json").read_text()  # MC_neg_unclean, 14 steps
# The end of a TLC 2.18 run that found no error (the lines after the search; counts as TLC prints them).
TLC_OK = """TLC2 Version 2.18 of 20 March 2023 (rev: 3ea3222)
Starting... (2026-11-23 01:38:02)
Computing initial states...
Finished computing initial states: 1 distinct state generated at 2026-11-23 01:38:03.
Model checking completed. No error has been found.
  Estimates of the probability that TLC did not check all reachable states
  because two distinct states had the same fingerprint:
  calculated (optimistic):  val = 2.4E-10
183835 states generated, 34661 distinct states found, 0 states left on queue.
The depth of the complete state graph search is 15.
Finished in 08s at (2026-11-23 01:38:10)
"""
APALACHE_OK = "Checker reports no error up to computation length 10\nThe outcome is: NoError\nEXITCODE: OK\n"
APALACHE_VIOLATION = "State 14: state invariant 7 violated.\nThe outcome is: Error\nEXITCODE: ERROR (12)\n"


def _ids(rows: list[tuple]) -> list[str]:
    """Short test ids: the row's number and what it expects."""
    return [f"{i}-{row[-1][:40] or 'verdict'}" for i, row in enumerate(rows)]


def fake_tool(bin_dir: Path, name: str, output: str | bytes, code: int, files: dict[str, str] | None = None) -> Path:
    """An executable ``bin_dir/name`` that writes ``files`` into its ``--run-dir=`` folder (Apalache's), prints
    ``output`` and exits with ``code``."""
    bin_dir.mkdir(exist_ok=True)
    recorded = bin_dir / f"{name}.output"
    recorded.write_bytes(output if isinstance(output, bytes) else output.encode())
    script = bin_dir / name
    script.write_text(f"""#!{sys.executable}
import os, sys
args = dict(a[2:].split("=", 1) for a in sys.argv[1:] if a.startswith("--") and "=" in a)
for n, text in {files or {}!r}.items():
    os.makedirs(args["run-dir"], exist_ok=True)
    open(os.path.join(args["run-dir"], n), "w").write(text)
sys.stdout.buffer.write(open({str(recorded)!r}, "rb").read())
sys.exit({code})
""")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script


@pytest.fixture
def tools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A bin folder first on PATH, and TLA2TOOLS_JAR naming a (dummy) jar: the fakes put there are the tools."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (tmp_path / "tla2tools.jar").write_text("not a jar")
    monkeypatch.setenv("TLA2TOOLS_JAR", str(tmp_path / "tla2tools.jar"))
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.delenv("APALACHE_HOME", raising=False)
    return bin_dir


# --- TLC: the verdict from the exit code and the output ---------------------------------------

TLC_RUNS = [
    (TLC_OK, 0, OK, ""),
    (UNCLEAN, 12, VIOLATION, ""),
    (KIP101, 12, VIOLATION, ""),
    ("", 0, ERROR, "TLC exited 0 but its output lacks 'Model checking completed"),
    ("%$#@ garbage\n\x1b[31m", 0, ERROR, "lacks 'Model checking completed"),
    (TLC_OK[:TLC_OK.index("183835")], 0, ERROR, "lacks the state counts, the depth"),  # truncated
    (TLC_OK.replace("Model checking completed. ", ""), 0, ERROR, "lacks 'Model checking completed"),
    (TLC_OK + "Error: Invariant LogMatching is violated.\n", 0, ERROR, "TLC exited 0 but reports a invariant"),
    (TLC_OK, 12, ERROR, "exited 12 (a violation) but names none"),
    (UNCLEAN + "Model checking completed. No error has been found.\n", 12, ERROR, "also says it found no error"),
    ("", 12, ERROR, "but names none"),
    (UNCLEAN, 255, ERROR, "TLC failed (exit code 255): no verdict"),
    (UNCLEAN, 1, ERROR, "exit code 1"),
    (TLC_OK.replace("183835 states generated, 34661", ", states generated, ,"), 0, ERROR, "lacks the state counts"),
    (TLC_OK.replace("183835", "9" * 5000), 0, ERROR, "lacks the state counts"),
    (TLC_OK.replace("is 15.", "is " + "9" * 5000), 0, ERROR, "lacks the depth"),
]


@pytest.mark.parametrize("output, code, verdict, says", TLC_RUNS, ids=_ids(TLC_RUNS))
def test_tlc_verdict_needs_exit_code_and_output(output: str, code: int, verdict: str, says: str) -> None:
    result = parse_tlc_output(output, code)
    assert (result.verdict, result.ok) == (verdict, verdict == OK), result.problem
    assert says in result.problem


def _tlc_check(tools: Path, tmp_path: Path, output: str | bytes, code: int, config: str = "MC_neg_unclean"):
    fake_tool(tools, "java", output, code)
    return check_with_tlc(config, tmp_path / "out")


TLC_GARBLED = [
    ("", 0, "lacks 'Model checking completed"),
    ("garbage", 0, "lacks"),
    (b"\xff\xfe\x00\x80 binary \x1b[2J", 0, "lacks"),
    ("Error: Invariant NoAckedMessageLost is violated.\n", 12, "lacks the state counts"),  # a violation, nothing else
    (UNCLEAN[:UNCLEAN.index("State 5:")], 12, "lacks the state counts, the depth (truncated?)"),  # cut in the trace
    ("Error: Invariant NoAckedMessageLost is violated.\n" + UNCLEAN[UNCLEAN.index("183835"):], 12, "its trace cannot be read"),
    (UNCLEAN.replace("/\\ clock = ", "/\\ clock = <<<<", 1), 12, "its trace cannot be read"),  # garbled value
    (UNCLEAN.replace("/\\ addr = ", "/\\ addr = [p1 |-> \"zz\", p2 |-> 1] \\* ", 1), 12, "variable addr"),
    (UNCLEAN, 99, "TLC failed (exit code 99)"),
]


@pytest.mark.parametrize("output, code, says", TLC_GARBLED, ids=_ids(TLC_GARBLED))
def test_tlc_garbled_output_fails_without_a_crash(output: str | bytes, code: int, says: str, tools: Path, tmp_path: Path) -> None:
    check = _tlc_check(tools, tmp_path, output, code)
    assert (check.verdict, check.ok) == (ERROR, False), check
    assert says in check.problem and "tlc.log" in check.problem
    assert not (tmp_path / "out" / "MC_neg_unclean" / COUNTEREXAMPLE).exists()


def test_tlc_recorded_counterexample_through_the_fake_is_imported(tools: Path, tmp_path: Path) -> None:
    """The positive control of the fake: TLC's recorded output and exit code give the violation and its trace."""
    check = _tlc_check(tools, tmp_path, UNCLEAN, 12)
    assert (check.verdict, check.violated, check.problem) == (VIOLATION, "NoAckedMessageLost", "")
    assert check.ok and (tmp_path / "out" / "MC_neg_unclean" / COUNTEREXAMPLE).is_file()
    assert _tlc_check(tools, tmp_path, TLC_OK, 0, "MC_data").ok


def test_tlc_that_cannot_start_is_a_failure(tools: Path, tmp_path: Path) -> None:
    java = tools / "java"
    java.write_bytes(b"\x7fELF garbage, not a program")
    java.chmod(0o755)
    check = check_with_tlc("MC_neg_unclean", tmp_path / "out")
    assert (check.verdict, check.ok) == (ERROR, False) and "could not be started" in check.problem


def test_cli_tla_with_garbled_tlc_exits_1_not_0(tools: Path, tmp_path: Path) -> None:
    fake_tool(tools, "java", "garbage", 0)
    run = CliRunner().invoke(main, ["tla", "MC_data", "--out", str(tmp_path / "out")])
    assert run.exit_code == 1 and "FAILED: MC_data" in run.output, run.output
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert [(r["verdict"], r["ok"]) for r in report] == [("error", False)]


# --- Apalache: exit code, outcome line and trace files ----------------------------------------

GARBLED_ITF = {
    "not JSON": "{ this is not json",
    "empty": "",
    "no states": json.dumps({"#meta": {}, "vars": [], "states": []}),
    "states of another spec": json.dumps({"#meta": {}, "vars": ["x"], "states": [{"#meta": {"index": 0}, "x": 1}]}),
    "truncated": APALACHE_ITF[:len(APALACHE_ITF) // 2],
    "addresses of another configuration": APALACHE_ITF.replace('"a1"', '"zz"'),
    "action of the wrong shape": APALACHE_ITF.replace('"tag":', '"tog":', 1),
}


APALACHE_RUNS = [
    ("", 0, {}, "Apalache exited 0 but its output lacks 'The outcome is: NoError'"),
    ("garbage\n", 0, {}, "lacks 'The outcome is: NoError'"),
    (b"\xff\x00 binary", 0, {}, "lacks"),
    (APALACHE_OK, 0, {"violation1.itf.json": APALACHE_ITF}, "Apalache exited 0 but wrote violation1.itf.json"),
    (APALACHE_VIOLATION, 12, {}, "gave no a violation*.itf.json"),
    ("The outcome is: Error\n", 12, {"violation1.itf.json": APALACHE_ITF}, "gave no an invariant of --inv"),
    ("State 14: state invariant 7 violated.\n", 12, {"violation1.itf.json": APALACHE_ITF}, "gave no 'The outcome is: Error'"),
    (APALACHE_VIOLATION.replace("invariant 7", "invariant 99"), 12, {"violation1.itf.json": APALACHE_ITF},
     "an invariant of --inv"),
    (APALACHE_VIOLATION, 255, {"violation1.itf.json": APALACHE_ITF}, "Apalache failed (exit code 255): no verdict"),
    *[(APALACHE_VIOLATION, 12, {"violation1.itf.json": text}, "trace cannot be imported") for text in GARBLED_ITF.values()],
]


@pytest.mark.parametrize("output, code, files, says", APALACHE_RUNS, ids=_ids(APALACHE_RUNS))
def test_apalache_verdict_needs_its_files(output: str | bytes, code: int, files: dict[str, str], says: str, tools: Path,
                                           tmp_path: Path) -> None:
    fake_tool(tools, "apalache-mc", output, code, files)
    check = check_with_apalache("MC_neg_unclean", tmp_path / "out", length=15)
    assert (check.verdict, check.ok) == (ERROR, False), check
    assert says in check.problem


def test_apalache_exit_0_no_longer_makes_every_configuration_hold(tools: Path, tmp_path: Path) -> None:
    """The issue's case: any apalache-mc that exits 0 made every configuration "hold"."""
    fake_tool(tools, "apalache-mc", "", 0)
    run = CliRunner().invoke(main, ["tla", "MC_data", "MC_neg_union", "--tool", "apalache", "--out", str(tmp_path / "out")])
    assert run.exit_code == 1 and "FAILED: MC_data, MC_neg_union" in run.output, run.output
    assert {r["verdict"] for r in json.loads((tmp_path / "out" / "report.json").read_text())} == {ERROR}


def test_apalache_with_its_documented_output_gives_the_verdict(tools: Path, tmp_path: Path) -> None:
    """The positive controls of the fake: NoError holds, a counterexample with its file is imported."""
    fake_tool(tools, "apalache-mc", APALACHE_OK, 0)
    assert check_with_apalache("MC_data", tmp_path / "out").ok
    fake_tool(tools, "apalache-mc", APALACHE_VIOLATION, 12, {"violation1.itf.json": APALACHE_ITF})
    check = check_with_apalache("MC_neg_unclean", tmp_path / "out", length=15)
    assert (check.verdict, check.violated, check.ok) == (VIOLATION, "NoAckedMessageLost", True), check.problem


def test_apalache_simulate_needs_its_saved_runs(tools: Path, tmp_path: Path) -> None:
    fake_tool(tools, "apalache-mc", APALACHE_OK, 0)
    check = check_with_apalache("MC_data", tmp_path / "out", mode="simulate")
    assert (check.verdict, check.ok) == (ERROR, False) and "saved no run" in check.problem
    assert apalache_outcome(0, APALACHE_OK, tmp_path / "none", ("TypeOK",), "check") == (OK, None, "")


# --- importing tool traces: only TlcTraceError / TraceImportError, both InputErrors ---------------

def test_import_errors_are_input_errors() -> None:
    assert issubclass(TlcTraceError, InputError) and issubclass(TraceImportError, InputError)


def _mutants(text: str, seed: int, count: int) -> list[str]:
    """Seeded damage to a tool's output: cut it, drop or repeat a line, change characters."""
    rng = random.Random(seed)
    lines = text.splitlines(keepends=True)
    out = []
    for _ in range(count):
        kind = rng.randrange(4)
        if kind == 0:
            out.append(text[:rng.randrange(len(text))])
        elif kind == 1:
            i = rng.randrange(len(lines))
            out.append("".join(lines[:i] + lines[i + 1:]))
        elif kind == 2:
            i = rng.randrange(len(lines))
            out.append("".join(lines[:i] + [lines[i]] * 2 + lines[i + 1:]))
        else:
            chars = list(text)
            for _ in range(rng.randrange(1, 4)):
                chars[rng.randrange(len(chars))] = rng.choice('<>[]{}(),":|-@0123456789xy \n\\')
            out.append("".join(chars))
    return out


def test_damaged_tlc_traces_are_refused_never_crash() -> None:
    cfg = load_spec_config("MC_neg_unclean")
    refused = 0
    for text in _mutants(UNCLEAN, seed=10, count=150):
        parse_tlc_output(text, 12)
        try:
            import_states(parse_tlc_trace(text), cfg, tool="TLC", violation="NoAckedMessageLost")
        except (TlcTraceError, TraceImportError):
            refused += 1
    assert refused > 20  # the damage is seen, not only survived


def test_damaged_apalache_traces_are_refused_never_crash(tmp_path: Path) -> None:
    cfg = load_spec_config("MC_neg_unclean")
    refused = 0
    for i, text in enumerate(_mutants(APALACHE_ITF, seed=11, count=150)):
        path = tmp_path / f"violation{i}.itf.json"
        path.write_text(text)
        try:
            import_states(apalache_states(path), cfg, tool="Apalache", violation="NoAckedMessageLost")
        except TraceImportError as e:
            refused += 1
            assert "state" in str(e) or str(path) in str(e)
    assert refused > 20


# --- paths: nothing is written outside --out ---------------------------------------------------

def test_tla_configuration_path_cannot_delete_files_outside_out(tools: Path, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The issue's case: ``autoswitch tla ../x/MC.cfg`` used the argument as a folder under --out and emptied
    it (``OUT/../x/MC.cfg/``). Now the folder is ``OUT/MC`` (the file's checked stem); the files there are untouched."""
    fake_tool(tools, "java", "garbage", 0)
    work, x = tmp_path / "work", tmp_path / "x"
    work.mkdir()
    x.mkdir()
    shutil.copy(CHECKOUT_SPEC_DIR / "MC_data.tla", x / "MC_data.tla")
    shutil.copy(CHECKOUT_SPEC_DIR / "MC_neg_union.cfg", x / "MC.cfg")  # ../x/MC.cfg from work/ is a configuration
    victims = work / "x" / "MC.cfg"  # work/out/../x/MC.cfg
    victims.mkdir(parents=True)
    for name in ("tlc.log", "keep.itf.json"):
        (victims / name).write_text("precious")
    monkeypatch.chdir(work)
    run = CliRunner().invoke(main, ["tla", "../x/MC.cfg", "--out", "out"])
    assert run.exit_code == 1 and "FAILED: MC" in run.output, run.output  # the fake TLC's garbage: no verdict
    assert (work / "out" / "MC" / "tlc.log").read_text() == "garbage"
    assert sorted(p.name for p in victims.iterdir()) == ["keep.itf.json", "tlc.log"]
    assert all(p.read_text() == "precious" for p in victims.iterdir())


def test_tla_never_follows_a_link_out_of_its_folder(tools: Path, tmp_path: Path) -> None:
    """A link ``OUT/CONFIG/spec`` to a folder elsewhere: the link is removed, the folder it names untouched."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "precious.tla").write_text("precious")
    folder = tmp_path / "out" / "MC_data"
    folder.mkdir(parents=True)
    (folder / "spec").symlink_to(elsewhere)
    fake_tool(tools, "apalache-mc", APALACHE_OK, 0)
    assert check_with_apalache("MC_data", tmp_path / "out").ok
    assert [p.name for p in elsewhere.iterdir()] == ["precious.tla"]
    assert not (folder / "spec").is_symlink() and (folder / "spec" / "APA_MC_data.tla").is_file()


def test_check_counterexample_is_written_under_out_only(tmp_path: Path) -> None:
    """``autoswitch check`` writes OUT/<config>.itf.json; a link there leading out is refused (exit 2), the file it
    names untouched."""
    out = tmp_path / "out"
    out.mkdir()
    outside = tmp_path / "outside.json"
    outside.write_text("precious")
    (out / "MC_neg_shortcut.itf.json").symlink_to(outside)
    run = CliRunner().invoke(main, ["check", "MC_neg_shortcut", "--out", str(out), "--no-replay"])
    assert run.exit_code != 0 and outside.read_text() == "precious"
    assert isinstance(run.exception, InputError) or run.exit_code == 2, run.output


def _tiny_config(tmp_path: Path) -> Path:
    """``MC_data_reg1`` at MaxEpoch 1 without messages, as ``x/MC_tiny.cfg`` beside a copy of MC_data.tla."""
    x = tmp_path / "x"
    x.mkdir()
    shutil.copy(CHECKOUT_SPEC_DIR / "MC_data.tla", x)
    tiny = (CHECKOUT_SPEC_DIR / "MC_data_reg1.cfg").read_text().replace("MaxEpoch = 2", "MaxEpoch = 1").replace("MaxMsgs = 1", "MaxMsgs = 0")
    (x / "MC_tiny.cfg").write_text(tiny)
    return x / "MC_tiny.cfg"


def test_check_tlc_runs_the_configuration_file_given(tools: Path, tmp_path: Path) -> None:
    """``check PATH.cfg --tlc``: TLC checks that file (not spec/NAME.cfg) and its counts are compared."""
    tiny = _tiny_config(tmp_path)
    fake_tool(tools, "java", TLC_OK.replace("34661 distinct", "3904 distinct").replace("is 15.", "is 16."), 0)
    run = CliRunner().invoke(main, ["check", str(tiny), "--tlc", "--out", str(tmp_path / "out")])
    assert run.exit_code == 0 and "yes" in run.output, run.output
    assert (tmp_path / "out" / "tlc" / "MC_tiny" / "tlc.log").is_file()


def test_what_is_in_the_way_of_an_output_file_is_refused(tools: Path, tmp_path: Path) -> None:
    """A folder where ``OUT/CONFIG/counterexample.itf.json`` or ``OUT/NAME.itf.json`` goes: bad input, not a crash."""
    (tmp_path / "out" / "MC_data").mkdir(parents=True)
    (tmp_path / "out" / "MC_data" / "tlc.log").mkdir()  # an earlier run's log is removed, a folder is not a log
    (tmp_path / "out" / "MC_data" / "tlc.log" / "x").write_text("precious")
    fake_tool(tools, "java", TLC_OK, 0)
    with pytest.raises(InputError, match="tlc.log: exists and is not a regular file"):
        check_with_tlc("MC_data", tmp_path / "out")
    assert (tmp_path / "out" / "MC_data" / "tlc.log" / "x").read_text() == "precious"
    (tmp_path / "out" / "MC_neg_shortcut.itf.json").mkdir()
    run = CliRunner().invoke(main, ["check", "MC_neg_shortcut", "--no-replay", "--out", str(tmp_path / "out")])
    assert run.exit_code == 2 and "MC_neg_shortcut.itf.json: exists and is not a regular file" in run.output, run.output


def test_check_tlc_without_a_verdict_fails_and_shows_the_tools_last_lines(tools: Path, tmp_path: Path) -> None:
    """Issue 40: ``check --tlc`` exited 0 when TLC gave no verdict; the contract says 1, and the reader sees why."""
    tiny = _tiny_config(tmp_path)
    fake_tool(tools, "java", "Starting...\njava.lang.OutOfMemoryError: Java heap space\n", 1)
    run = CliRunner().invoke(main, ["check", str(tiny), "--tlc", "--out", str(tmp_path / "out")])
    assert run.exit_code == 1, run.output
    assert "TLC gave no verdict" in run.output and "OutOfMemoryError: Java heap space" in run.output
