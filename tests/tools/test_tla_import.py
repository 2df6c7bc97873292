"""Model-checker traces into the Python models: TLC's printed counterexamples parsed and converted to ITF,
Apalache's ITF traces imported, registration steps generated in front of InitRegistered traces, and
both replayed on the reference and the implementation (``autoswitch tla``).

Without TLC the parsing, import and replay run on committed TLC output (tests/fixtures/tla/*.tlc-output.txt,
captured from TLC 2.18 runs of MC_neg_unclean and MC_neg_kip101, parsing lines trimmed). Apalache is
not installed here: its command line, exit codes and ITF import are tested on a HAND-WRITTEN fixture
in Apalache's ITF shape and a fake ``apalache-mc`` script; nothing here is an Apalache check.
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from autoswitch.conformance.check.specconfig import load_spec_config
from autoswitch.conformance.cli import main
from autoswitch.conformance.tla.check import (
    COUNTEREXAMPLE,
    SKIPPED,
    TraceCheck,
    apalache_trace_files,
    check_with_apalache,
    check_with_tlc,
    expected_verdict,
    import_apalache_traces,
)
from autoswitch.conformance.tla.import_ import TraceImportError, import_states, replay_both
from autoswitch.conformance.tla.run import (
    apalache_command,
    apalache_module,
    apalache_verdict,
    find_tlc,
    parse_tlc_output,
    tlc_missing_reason,
    violated_invariant,
)
from autoswitch.conformance.tla.tlc_output import TlcTraceError, parse_tlc_trace, parse_value, typed
from autoswitch.conformance.trace.itf import load_trace
from autoswitch.conformance.trace.replay import DIVERGENCE, PASS, VIOLATION

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "tla"
UNCLEAN = (FIXTURES / "MC_neg_unclean.tlc-output.txt").read_text()
KIP101 = (FIXTURES / "MC_neg_kip101.tlc-output.txt").read_text()
APALACHE_STYLE = FIXTURES / "apalache-style-violation1.itf.json"


# --- printed TLA+ values -------------------------------------------------------------------------

@pytest.mark.parametrize("text, value", [
    ('[addr |-> "a1", ts |-> -1]', {"addr": "a1", "ts": -1}),
    ("(2 :> [epoch |-> 0] @@ 3 :> [epoch |-> 1])", {2: {"epoch": 0}, 3: {"epoch": 1}}),
    ('("p1" :> 1)', {"p1": 1}),
    ("<<<<1, 1>>, <<2, 1>>>>", ((1, 1), (2, 1))),
    ("<< >>", ()),
    ("<<>>", ()),
    ('{<<1, "p1">>, <<2, "p2">>}', frozenset({(1, "p1"), (2, "p2")})),
    ("{}", frozenset()),
    ('"say \\"hi\\""', 'say "hi"'),
    ("TRUE", True),
    ("[p1 |-> FALSE, p2 |-> {1, 2}]", {"p1": False, "p2": frozenset({1, 2})}),
])
def test_parse_value(text: str, value: object) -> None:
    assert parse_value(text) == value


@pytest.mark.parametrize("text", ["[a |-> 1", "<<1, 2", "(1 :> 2 3 :> 4)", "[1 |-> 2]", "1 2", "#"])
def test_parse_value_rejects_malformed(text: str) -> None:
    with pytest.raises(ValueError):
        parse_value(text)


def test_functions_of_broker_ids_and_sequences_get_the_variable_types() -> None:
    # domain 1..2 prints as a sequence; the empty function as << >>; acks[p] likewise
    assert typed("replicas", parse_value("<<[addr |-> \"a1\"], [addr |-> \"a2\"]>>")) == {1: {"addr": "a1"}, 2: {"addr": "a2"}}
    assert typed("alive", parse_value("<< >>")) == {}
    assert typed("alive", parse_value("(2 :> [epoch |-> 0])")) == {2: {"epoch": 0}}
    assert typed("acks", parse_value("[p1 |-> <<0>>, p2 |-> << >>]")) == {"p1": {1: 0}, "p2": {}}
    assert typed("log", parse_value("[p1 |-> <<<<1, 1>>>>, p2 |-> <<>>]")) == {"p1": [(1, 1)], "p2": []}
    assert typed("masterHistory", parse_value('{<<1, "p1">>}')) == frozenset({(1, "p1")})
    with pytest.raises(ValueError):
        typed("replicas", parse_value("[p1 |-> 1]"))


# --- TLC's trace output --------------------------------------------------------------------------

def test_tlc_counterexample_is_parsed() -> None:
    states = parse_tlc_trace(UNCLEAN)
    assert len(states) == 15
    assert states[0]["action"]["tag"] == "Init" and states[0]["replicas"] == {}
    assert [s["action"]["tag"] for s in states[1:3]] == ["CreateTempFile", "SendApplyBrokerId"]
    last = states[-1]
    assert last["acked"] == frozenset({1}) and last["log"] == {"p1": [(1, 1)], "p2": []}
    assert last["alive"] == {2: {"epoch": 0, "maxOffset": 0, "priority": 0}}  # printed (2 :> [...])
    assert last["replicas"][1]["checkCode"] == {"addr": "a1", "ts": 0}
    result = parse_tlc_output(UNCLEAN, 12)
    assert (result.verdict, result.violated, result.distinct_states, result.depth) == ("violation", "NoAckedMessageLost", 34661, 15)


def test_tlc_trace_errors_name_state_and_variable() -> None:
    block = UNCLEAN.index("State 3:")
    at = UNCLEAN.index("/\\ clock = ", block)
    broken = UNCLEAN[:at] + "/\\ clock = [1 |->" + UNCLEAN[at + len("/\\ clock = 0"):]
    with pytest.raises(TlcTraceError, match=r"state 3: variable clock"):
        parse_tlc_trace(broken)
    with pytest.raises(TlcTraceError, match="no error trace"):
        parse_tlc_trace(UNCLEAN[:UNCLEAN.index("Error: The behavior")])
    with pytest.raises(TlcTraceError, match="liveness"):
        parse_tlc_trace(UNCLEAN.replace("State 15:", "Back to state 3:"))


# --- import and replay ---------------------------------------------------------------------------

def _import(text: str, config: str, tmp_path: Path, violation: str | None = None):
    cfg = load_spec_config(config)
    violation = violation or parse_tlc_output(text, 12).violated
    imported = import_states(parse_tlc_trace(text), cfg, tool="TLC 2.18 (fixture)", violation=violation)
    return imported, imported.write(tmp_path / COUNTEREXAMPLE)


def test_tlc_counterexample_replays_to_the_same_violation_on_both_models(tmp_path: Path) -> None:
    imported, path = _import(UNCLEAN, "MC_neg_unclean", tmp_path)
    trace = load_trace(path)
    assert trace.meta["expect"] == {"violation": "NoAckedMessageLost", "state": 14}
    assert trace.meta["options"]["enableElectUncleanMaster"] is True and trace.meta["processes"] == {"p1": "a1", "p2": "a2"}
    assert trace.meta["source"]["config"] == "MC_neg_unclean" and imported.prefix == 0
    assert trace.states[3]["action"] == {"tag": "WriteMetaFile", "process": "p1"}  # padding stripped
    results = replay_both(path)
    assert [r.engine for r in results] == ["reference", "impl"]
    assert all(r.status == PASS for r in results), [r.describe() for r in results]


def test_init_registered_trace_gets_the_registration_steps(tmp_path: Path) -> None:
    imported, path = _import(KIP101, "MC_neg_kip101", tmp_path)
    tags = [s["action"]["tag"] for s in imported.states]
    assert imported.prefix == 12 and len(parse_tlc_trace(KIP101)) == 10
    p_first = min(imported.states[-1]["metaFile"], key=imported.states[-1]["metaFile"].get)
    assert tags[1:7] == ["CreateTempFile", "SendApplyBrokerId", "WriteMetaFile", "DeleteTempFile", "SendRegister", "SendHeartbeat"]
    assert imported.states[1]["action"]["process"] == p_first
    assert load_trace(path).meta["expect"] == {"violation": "LogMatching", "state": 21}
    results = replay_both(path)
    assert all(r.status == PASS for r in results), [r.describe() for r in results]


def test_init_registered_mismatch_is_an_import_error() -> None:
    states = parse_tlc_trace(KIP101)
    states[0]["clock"] = 3
    with pytest.raises(TraceImportError, match=r"state 0 \(InitRegistered\): variable clock"):
        import_states(states, load_spec_config("MC_neg_kip101"), tool="TLC", violation="LogMatching")


def test_replay_catches_a_wrong_violation_and_a_changed_state(tmp_path: Path) -> None:
    _, path = _import(UNCLEAN, "MC_neg_unclean", tmp_path, violation="LogMatching")
    results = replay_both(path)
    assert all(r.status == VIOLATION and r.actual == "NoAckedMessageLost at state 14" for r in results)
    summary = TraceCheck(str(path), "LogMatching at state 14", results).summary()
    assert summary.startswith("reference: violation at state 14 (NoAckedMessageLost: NoAckedMessageLost at state 14); impl: violation")
    states = parse_tlc_trace(UNCLEAN)
    states[-1]["acked"] = frozenset()
    import_states(states, load_spec_config("MC_neg_unclean"), tool="TLC", violation="NoAckedMessageLost").write(path)
    assert all((r.status, r.state, r.field) == (DIVERGENCE, 14, "acked") for r in replay_both(path))


# --- Apalache (command line, exit codes, ITF import; a fixture and a fake executable) -----------

def test_apalache_command_line() -> None:
    check = apalache_command("APA_MC_data.tla", length=12, invariants=("TypeOK", "LogMatching"), init="InitRegistered",
                             cinit="CInit", out_dir="/o", run_dir="/r", apalache="apalache-mc")
    assert check == ["apalache-mc", "check", "--out-dir=/o", "--run-dir=/r", "--init=InitRegistered", "--next=Next",
                     "--length=12", "--inv=TypeOK,LogMatching", "--cinit=CInit", "APA_MC_data.tla"]
    simulate = apalache_command("S.tla", length=5, mode="simulate", max_run=3, apalache="apalache-mc")
    assert simulate[:2] == ["apalache-mc", "simulate"] and simulate[-3:] == ["--max-run=3", "--save-runs", "S.tla"]
    with pytest.raises(ValueError):
        apalache_command("S.tla", length=5, mode="prove")
    assert [apalache_verdict(c) for c in (0, 12, 75, 120, 150, 255, None)] == ["ok", "violation"] + ["error"] * 5
    assert violated_invariant("State 14: state invariant 1 violated.", ("TypeOK", "LogMatching")) == "LogMatching"
    assert violated_invariant("The outcome is: NoError", ("TypeOK",)) is None
    module = apalache_module("MC_neg_union", "MC_data", load_spec_config("MC_neg_union").constants)
    assert "EXTENDS MC_data" in module and "/\\ UnionAckFix = FALSE" in module and "/\\ AsyncLearners = {}" in module
    assert '/\\ Policy = "rocketmq"' in module and "/\\ Processes = MC_Processes" in module


def test_apalache_style_itf_is_imported_and_replayed(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "violation1.itf.json").write_text(APALACHE_STYLE.read_text())
    (run / "violation.itf.json").write_text(APALACHE_STYLE.read_text())  # Apalache's unnumbered copy
    doc = json.loads(APALACHE_STYLE.read_text())
    doc["states"] = doc["states"][:8]
    (run / "example2.itf.json").write_text(json.dumps(doc))
    (run / "example10.itf.json").write_text(json.dumps(doc))
    assert [p.name for p, _ in apalache_trace_files(run)] == ["violation1.itf.json", "example2.itf.json", "example10.itf.json"]
    written = import_apalache_traces(run, tmp_path, load_spec_config("MC_neg_unclean"), "NoAckedMessageLost", "fixture")
    assert [(p.name, e) for p, e in written] == [(COUNTEREXAMPLE, {"violation": "NoAckedMessageLost", "state": 14}),
                                                ("example2.itf.json", None), ("example10.itf.json", None)]
    for path, _ in written:
        assert all(r.status == PASS for r in replay_both(path)), path


FAKE_APALACHE = """#!{python}
# A FAKE apalache-mc for tests: copies the hand-written fixture into --run-dir, prints Apalache's
# violation and outcome lines and exits 12 (Apalache's code for a counterexample).
import shutil, sys
args = dict(a[2:].split("=", 1) for a in sys.argv[2:] if a.startswith("--") and "=" in a)
import os; os.makedirs(args["run-dir"], exist_ok=True)
shutil.copy({fixture!r}, os.path.join(args["run-dir"], "violation1.itf.json"))
print(" ".join(sys.argv[1:]))
print("State 14: state invariant 7 violated.")
print("The outcome is: Error")
sys.exit(12)
"""


def test_apalache_run_through_a_fake_executable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "apalache-mc"
    fake.write_text(FAKE_APALACHE.format(python=sys.executable, fixture=str(APALACHE_STYLE)))
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    check = check_with_apalache("MC_neg_unclean", tmp_path / "out", length=15)
    folder = tmp_path / "out" / "MC_neg_unclean"
    log = (folder / "apalache.log").read_text()
    assert "check --out-dir=" in log and "--cinit=CInit" in log and "--inv=TypeOK,MasterInSyncStateSet" in log
    assert (folder / "spec" / "APA_MC_neg_unclean.tla").is_file()
    assert (check.verdict, check.violated, check.ok) == ("violation", "NoAckedMessageLost", True), check.problem
    assert check.traces[0].summary() == "both: NoAckedMessageLost at state 14, as expected"
    # MC_data must hold: the same fake counterexample fails it, and the command exits 1
    run = CliRunner().invoke(main, ["tla", "MC_data", "--tool", "apalache", "--out", str(tmp_path / "out")])
    assert run.exit_code == 1 and "FAILED: MC_data" in run.output, run.output


# --- missing tools: skipped, never passed --------------------------------------------------------

def test_missing_tools_are_skipped_not_passed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TLA2TOOLS_JAR", raising=False)
    monkeypatch.delenv("APALACHE_HOME", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))  # no apalache-mc, no java
    tlc = check_with_tlc("MC_neg_union", tmp_path)
    apalache = check_with_apalache("MC_neg_union", tmp_path)
    assert (tlc.verdict, apalache.verdict) == (SKIPPED, SKIPPED) and not tlc.ok and not apalache.ok
    assert "TLA2TOOLS_JAR not set" in tlc.problem and "apalache-mc" in apalache.problem
    run = CliRunner().invoke(main, ["tla", "MC_neg_union", "MC_data", "--out", str(tmp_path / "o")])
    assert run.exit_code == 0, run.output
    assert "NOT CHECKED with tlc (TLA2TOOLS_JAR not set): MC_neg_union, MC_data - skipped" in run.output
    assert re.search(r"\bpass\b", run.output) is None and not (tmp_path / "o" / "report.json").exists()
    assert expected_verdict("MC_neg_union") == "violation" and expected_verdict("MC_data") == "ok"


def test_unknown_config_is_a_usage_error() -> None:
    run = CliRunner().invoke(main, ["tla", "MC_nope"])
    assert run.exit_code == 2 and "MC_nope" in run.output


# --- with TLC: a real run, imported and replayed --------------------------------------------------

needs_tlc = pytest.mark.skipif(
    find_tlc() is None,
    reason=f"{tlc_missing_reason()}: 'autoswitch tla MC_neg_union' NOT run - TLC's counterexample was not "
    "imported from a live TLC run nor replayed (the committed fixtures above were)",
)


@needs_tlc
def test_tlc_counterexample_of_mc_neg_union_replays_on_both_models(tmp_path: Path) -> None:
    run = CliRunner().invoke(main, ["tla", "MC_neg_union", "--out", str(tmp_path)])
    assert run.exit_code == 0, run.output
    folder = tmp_path / "MC_neg_union"
    assert "Error: Invariant NoAckedMessageLost is violated." in (folder / "tlc.log").read_text()
    report = json.loads((tmp_path / "report.json").read_text())[0]
    assert (report["verdict"], report["violated"], report["ok"]) == ("violation", "NoAckedMessageLost", True)
    trace = load_trace(folder / COUNTEREXAMPLE)
    assert trace.meta["expect"] == {"violation": "NoAckedMessageLost", "state": len(trace.states) - 1}
    assert [r["status"] for r in report["traces"][0]["results"]] == ["pass", "pass"]
