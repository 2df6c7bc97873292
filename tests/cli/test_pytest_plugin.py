"""The pytest plugin (conformance/pytest_plugin.py) in a fresh directory: ``pytest --autoswitch-traces DIR`` runs each
``*.itf.json`` under DIR as an item with ``autoswitch replay``'s verdicts and messages, and changes nothing without it."""

import json
import shutil
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

TRACES = Path(__file__).resolve().parents[2] / "traces"
PASSING = ("kafka/K1-hw.itf.json", "code/register.itf.json")


@pytest.fixture
def repo(pytester: pytest.Pytester) -> Path:
    """A user's repository: two committed traces, a copy of one with a value changed (a divergence) and an unreadable one."""
    folder = pytester.path / "traces"
    (folder / "sub").mkdir(parents=True)
    shutil.copy(TRACES / PASSING[0], folder / "K1-hw.itf.json")
    shutil.copy(TRACES / PASSING[1], folder / "sub" / "register.itf.json")
    trace = json.loads((TRACES / PASSING[1]).read_text())
    trace["states"][-1]["masterId"] = {"#bigint": "2"}
    (folder / "sub" / "register-broken.itf.json").write_text(json.dumps(trace))
    (folder / "unreadable.itf.json").write_text('{"#meta": {}, "states": [')
    (folder / "notes.json").write_text("{}")
    pytester.makepyfile(test_own="def test_own():\n    pass\n")
    return folder


def outcomes(result: pytest.RunResult) -> dict[str, str]:
    """nodeid -> PASSED/FAILED from ``-rA``'s short summary."""
    lines = [line.split(" ", 2) for line in result.outlines if line.startswith(("PASSED ", "FAILED "))]
    return {parts[1]: parts[0] for parts in lines}


def test_every_trace_under_the_folder_is_an_item_with_replays_verdict(pytester: pytest.Pytester, repo: Path) -> None:
    result = pytester.runpytest("--autoswitch-traces", "traces", "-rA", "-p", "no:cacheprovider")
    assert outcomes(result) == {
        "test_own.py::test_own": "PASSED",
        "traces/K1-hw.itf.json::replay": "PASSED",
        "traces/sub/register.itf.json::replay": "PASSED",
        "traces/sub/register-broken.itf.json::replay": "FAILED",
        "traces/unreadable.itf.json::replay": "FAILED",
    }
    result.assert_outcomes(passed=3, failed=2)


def test_a_failing_items_message_is_the_divergence_report(pytester: pytest.Pytester, repo: Path) -> None:
    result = pytester.runpytest("--autoswitch-traces", "traces", "-p", "no:cacheprovider")
    text = result.stdout.str()
    for engine in ("reference", "impl"):
        assert f"traces/sub/register-broken.itf.json [{engine}]: divergence at state 11, field 'masterId'" in text
    assert "trace expects: 2\n    model has:     1" in text
    assert "reproduce: autoswitch replay traces/sub/register-broken.itf.json" in text


def test_an_unreadable_trace_fails_its_item_naming_the_field(pytester: pytest.Pytester, repo: Path) -> None:
    result = pytester.runpytest("--autoswitch-traces", "traces", "-p", "no:cacheprovider")
    assert "traces/unreadable.itf.json [reference]: malformed at the header, field '<json>': invalid JSON" in result.stdout.str()


def test_the_engines_option_chooses_the_engines(pytester: pytest.Pytester, repo: Path) -> None:
    result = pytester.runpytest("--autoswitch-traces", "traces", "--autoswitch-engines", "impl", "-p", "no:cacheprovider")
    text = result.stdout.str()
    assert "[impl]: divergence at state 11" in text and "[reference]" not in text
    assert "reproduce: autoswitch replay traces/sub/register-broken.itf.json --against impl" in text
    result.assert_outcomes(passed=3, failed=2)


def test_an_unknown_engine_is_a_usage_error(pytester: pytest.Pytester, repo: Path) -> None:
    result = pytester.runpytest("--autoswitch-traces", "traces", "--autoswitch-engines", "reference,tlc")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--autoswitch-engines: tlc; choose among reference, impl" in result.stderr.str()


def test_a_folder_outside_the_collected_paths_is_added(pytester: pytest.Pytester, repo: Path) -> None:
    result = pytester.runpytest("test_own.py", "--autoswitch-traces", "traces/sub", "-rA", "-p", "no:cacheprovider")
    assert set(outcomes(result)) == {"test_own.py::test_own", "traces/sub/register.itf.json::replay",
                                     "traces/sub/register-broken.itf.json::replay"}


def test_only_the_traces_under_the_folder_are_collected_and_once(pytester: pytest.Pytester, repo: Path) -> None:
    result = pytester.runpytest("traces", "traces/sub", "--autoswitch-traces", "traces/sub", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)


def test_without_the_option_nothing_is_collected_or_imported(pytester: pytest.Pytester, repo: Path) -> None:
    pytester.makepyfile(test_imports="import sys\n\ndef test_no_engine():\n"
                                     "    assert 'autoswitch.conformance.trace.replay' not in sys.modules\n")
    result = pytester.runpytest_subprocess("-rA", "-p", "no:cacheprovider")
    assert set(outcomes(result)) == {"test_own.py::test_own", "test_imports.py::test_no_engine"}
    assert "autoswitch:" not in result.stdout.str()
