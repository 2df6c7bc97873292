"""The exit-code contract of ``autoswitch`` (conformance/errors.py), kept by the command group for every command:
InputError and usage errors exit 2, any other exception 3 with a line saying how to report it, Ctrl-C 130; the output
folder and file checks (conformance/paths.py) and the exit code of a batch (errors.batch_exit)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_cases import CHECKOUT, Case, run_case
from cli_files import prepare
from click.testing import CliRunner

from autoswitch.conformance import bench, paths
from autoswitch.conformance.check import verdict
from autoswitch.conformance.cli import TRACEBACK_ENV, main
from autoswitch.conformance.errors import EXIT_INPUT, EXIT_INTERNAL, EXIT_OK, EXIT_VERDICT, InputError, batch_exit
from autoswitch.conformance.paths import output_file, output_folder

BENCH = ["bench", "--walks", "1", "--length", "2", "--rounds", "1"]
POINTER = "this is a bug in autoswitch; rerun with AUTOSWITCH_TRACEBACK=1"

CASES = [
    Case("help", ("--help",), 0, "Exit codes (every command)"),
    Case("unknown-command", ("no-such-command",), 2, "No such command"),
    Case("debug-then-a-usage-error", ("--debug", "bench", "--walks", "0"), 2, "--walks"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_cli(case: Case, tmp_path: Path) -> None:
    run_case(case, tmp_path)


def _raise(error: BaseException):
    def fail(*args, **kwargs):
        raise error
    return fail


def test_an_internal_error_exits_3_with_one_line_and_a_pointer(monkeypatch: pytest.MonkeyPatch) -> None:
    """It exited 1, like a failed verdict, with a traceback."""
    monkeypatch.delenv(TRACEBACK_ENV, raising=False)
    monkeypatch.setattr(bench, "run_bench", _raise(RuntimeError("boom")))
    result = CliRunner().invoke(main, BENCH)
    assert result.exit_code == EXIT_INTERNAL, result.output
    assert "internal error: RuntimeError: boom\n" in result.output and POINTER in result.output
    assert "Traceback" not in result.output


class _Unprintable(RuntimeError):
    def __str__(self) -> str:
        raise ConnectionRefusedError(111, "Connection refused")


def test_an_internal_error_whose_message_cannot_be_read_still_exits_3(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Py4JJavaError reads its message from the JVM: with the JVM gone, printing it raised and the command exited 1."""
    monkeypatch.delenv(TRACEBACK_ENV, raising=False)
    monkeypatch.setattr(bench, "run_bench", _raise(_Unprintable()))
    result = CliRunner().invoke(main, BENCH)
    assert result.exit_code == EXIT_INTERNAL, result.output
    assert "internal error: _Unprintable: (its message could not be read)" in result.output and POINTER in result.output


@pytest.mark.parametrize("how", ["--debug", TRACEBACK_ENV])
def test_the_traceback_on_request(how: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench, "run_bench", _raise(RuntimeError("boom")))
    if how == TRACEBACK_ENV:
        monkeypatch.setenv(TRACEBACK_ENV, "1")
    result = CliRunner().invoke(main, ["--debug", *BENCH] if how == "--debug" else BENCH)
    assert result.exit_code == EXIT_INTERNAL, result.output
    assert "Traceback" in result.output and "internal error: RuntimeError: boom" in result.output


def test_input_error_from_the_library_exits_2_without_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench, "run_bench", _raise(InputError("the corpus is bad")))
    result = CliRunner().invoke(main, BENCH)
    assert result.exit_code == EXIT_INPUT, result.output
    assert "Error: the corpus is bad" in result.output and "Traceback" not in result.output and "internal" not in result.output


def test_ctrl_c_exits_130(monkeypatch: pytest.MonkeyPatch) -> None:
    """Click's own handling says "Aborted!" and exits 1, like a failed verdict."""
    monkeypatch.setattr(bench, "run_bench", _raise(KeyboardInterrupt()))
    result = CliRunner().invoke(main, BENCH)
    assert result.exit_code == 130 and "interrupted" in result.output, result.output


def test_a_batch_goes_on_after_an_internal_error_and_exits_3(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    prepare(tmp_path)
    real = verdict.load_checker
    monkeypatch.setattr(verdict, "load_checker", lambda name, symmetry, selected=None: _raise(RuntimeError("bug"))()
                        if "tiny" in name else real(name, symmetry))
    configs = ["MC_nothing", str(tmp_path / "cfg" / "MC_tiny.cfg"), str(tmp_path / "cfg" / "MC_neg_zeroack.cfg")]
    result = CliRunner().invoke(main, ["check", *configs, "--out", str(tmp_path / "o")])
    assert result.exit_code == EXIT_INTERNAL, result.output
    assert "internal error: RuntimeError: bug" in result.output and "no such configuration" in result.output
    assert "MC_neg_zeroack.cfg │ violation" in result.output  # the configuration after the bug still ran


@pytest.mark.parametrize("codes, code", [
    ([], EXIT_OK), ([0, 0], EXIT_OK), ([0, 2], EXIT_INPUT), ([2, 1, 0], EXIT_VERDICT), ([1, 3, 2], EXIT_INTERNAL),
    ([3, 0], EXIT_INTERNAL)])
def test_batch_exit_precedence(codes: list[int], code: int) -> None:
    assert batch_exit(codes) == code


@pytest.mark.parametrize("error, code, says", [
    ("RuntimeError('boom')", 3, "internal error: RuntimeError: boom"), ("KeyboardInterrupt()", 130, "interrupted"),
    ("InputError('bad')", 2, "Error: bad")])
def test_the_contract_outside_click_testing(error: str, code: int, says: str) -> None:
    """``main`` run as the installed script runs it (standalone), in a process of its own."""
    program = ("import sys; from autoswitch.conformance import bench; from autoswitch.conformance.errors import InputError\n"
               f"def fail(*args): raise {error}\n"
               "bench.run_bench = fail\n"
               "from autoswitch.conformance.cli import main\n"
               f"main({BENCH!r}, prog_name='autoswitch')")
    env = {k: v for k, v in os.environ.items() if k != TRACEBACK_ENV}
    run = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=env, cwd=CHECKOUT, timeout=120)
    assert run.returncode == code, run.stderr
    assert says in run.stderr and "Traceback" not in run.stderr


def test_the_installed_script() -> None:
    script = Path(sys.executable).with_name("autoswitch")
    if not script.exists():
        pytest.skip("no autoswitch script beside this Python")
    run = subprocess.run([str(script), "z3-truncation", "--bound", "-1"], capture_output=True, text=True, timeout=120)
    assert run.returncode == EXIT_INPUT and "--bound" in run.stderr


def test_output_folder(tmp_path: Path) -> None:
    assert output_folder(tmp_path / "a" / "b", "--out") == tmp_path / "a" / "b" and (tmp_path / "a" / "b").is_dir()
    (tmp_path / "f").write_text("")
    with pytest.raises(InputError, match=r"--out .*/f: exists and is not a folder"):
        output_folder(tmp_path / "f", "--out")
    with pytest.raises(InputError, match=r"--out .*/f/sub: cannot create or write this folder \(Not a directory\)"):
        output_folder(tmp_path / "f" / "sub", "--out")


def test_output_folder_refused_by_the_system(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A folder the system refuses to write in (no permission, a read-only disk) as root would see it."""
    monkeypatch.setattr(paths.tempfile, "TemporaryFile", _raise(PermissionError(13, "Permission denied")))
    with pytest.raises(InputError, match=r"--out .*/o: cannot create or write this folder \(Permission denied\)"):
        output_folder(tmp_path / "o", "--out")
    result = CliRunner().invoke(main, ["scenarios", "--out", str(tmp_path / "o")])
    assert result.exit_code == EXIT_INPUT and "Permission denied" in result.output, result.output


def test_output_file(tmp_path: Path) -> None:
    assert output_file(tmp_path / "new" / "report.json", "--report") == tmp_path / "new" / "report.json"
    assert (tmp_path / "new").is_dir()
    with pytest.raises(InputError, match="exists and is not a regular file"):
        output_file(tmp_path / "new", "--report")
    (tmp_path / "f").write_text("")
    with pytest.raises(InputError, match=r"--report .*/f/report.json: its folder .*/f: exists and is not a folder"):
        output_file(tmp_path / "f" / "report.json", "--report")
