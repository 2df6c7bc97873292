"""``autoswitch simulate``: every option, in tiny campaigns run in this process (``--master none``; Spark and a
real ``--bench`` are in tests/tools/test_simulate.py); bad arguments and output folders exit 2 before any work."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_cases import Case, run_case

from autoswitch.conformance.simulation.campaign import MOVES

TINY = ("simulate", "--walks", "2", "--length", "5", "--configs", "safe-rocketmq-2p", "--master", "none")
OUT = ("--out", "{tmp}/o")
ZERO_MOVES = ",".join(f"{m}=0" for m in MOVES)

CASES = [
    Case("tiny-campaign", (*TINY, *OUT), 0, "safe-rocketmq-2p"),
    Case("control-not-found", (*TINY[:-3], "unclean-rocketmq-2p", "--master", "none", *OUT), 1,
         "negative control NoAckedMessageLost not found"),
    Case("markup-in-out-with-a-failure-row", ("simulate", "--walks", "30", "--length", "60", "--configs", "unclean-rocketmq-2p",
                                                "--master", "none", "--out", "{tmp}/o[/m]"), 0, "o[/m]/report.md"),
    Case("walks-zero", (*TINY, "--walks", "0", *OUT), 2, "'--walks': 0 is not in the range x>=1"),
    Case("walks-negative", (*TINY, "--walks", "-3", *OUT), 2, "'--walks': -3 is not in the range x>=1"),
    Case("walks-not-a-number", (*TINY, "--walks", "many", *OUT), 2, "'many' is not a valid integer"),
    Case("length-zero", (*TINY, "--length", "0", *OUT), 2, "'--length': 0 is not in the range x>=1"),
    Case("length-huge", (*TINY, "--length", "1000000", *OUT), 2, "length: expected an integer from 1 to 100000"),
    Case("walks-huge", (*TINY, "--walks", "1000000000000", "--chunk", "1", *OUT), 2, "more than 100,000 tasks; give a larger --chunk"),
    Case("seed-negative", (*TINY, "--seed", "-7", *OUT), 0, "seed -7"),
    Case("seed-huge", (*TINY, "--seed", "123456789012345678901234567890", *OUT), 0, "seed 123456789012345678901234567890"),
    Case("seed-not-an-integer", (*TINY, "--seed", "1.5", *OUT), 2, "'1.5' is not a valid integer"),
    Case("chunk-one", (*TINY, "--chunk", "1", *OUT), 0, "2 chunks run"),
    Case("chunk-zero", (*TINY, "--chunk", "0", *OUT), 2, "'--chunk': 0 is not in the range x>=1"),
    Case("chunk-negative", (*TINY, "--chunk", "-1", *OUT), 2, "'--chunk': -1 is not in the range x>=1"),
    Case("sample-zero-none", (*TINY, "--sample", "0", *OUT), 0, "safe-rocketmq-2p"),
    Case("sample-negative", (*TINY, "--sample", "-1", *OUT), 2, "'--sample': -1 is not in the range x>=0"),
    Case("weights", (*TINY, "--weights", "Crash=5,lost=0.1", *OUT), 0, "--weights Crash=5,lost=0.1"),
    Case("data-walks-newest-release", (*TINY, "--against", "rocketmq-data", "--rocketmq-version", "5.5.1", *OUT), 2,
         "shrinks the master's local set before the controller's answer"),
    Case("data-walks-5.1.0", (*TINY, "--against", "rocketmq-data", "--rocketmq-version", "5.1.0", *OUT), 2,
         "5.1.0 lacks #6662's freeze"),
    Case("weights-no-number", (*TINY, "--weights", "Crash=", *OUT), 2, "weight 'Crash=': expected a number"),
    Case("weights-no-name", (*TINY, "--weights", "=5", *OUT), 2, "weight '=5': expected name=number"),
    Case("weights-not-a-number", (*TINY, "--weights", "Crash=abc", *OUT), 2, "weight 'Crash=abc': expected a number"),
    Case("weights-negative", (*TINY, "--weights", "Crash=-1", *OUT), 2, "weight 'Crash=-1': must be a number from 0 to 1e+09"),
    Case("weights-nan", (*TINY, "--weights", "Crash=nan", *OUT), 2, "weight 'Crash=nan': must be a number"),
    Case("weights-inf", (*TINY, "--weights", "Crash=inf", *OUT), 2, "weight 'Crash=inf': must be a number"),
    Case("weights-unknown", (*TINY, "--weights", "Crsh=1", *OUT), 2, "unknown name 'Crsh'"),
    Case("weights-lost-above-one", (*TINY, "--weights", "lost=2", *OUT), 2, "lost is a probability"),
    Case("weights-all-zero", (*TINY, "--weights", ZERO_MOVES, *OUT), 2, "every move of safe-rocketmq-2p weighs 0"),
    Case("configs-glob", (*TINY[:-3], "safe-rocketmq-*", "--master", "none", *OUT), 0, "safe-rocketmq-3p"),
    # not a terminal: a line per configuration as it ends
    Case("a-line-per-configuration", (*TINY[:-3], "safe-rocketmq-2p,safe-rocketmq-3p", "--master", "none", "--chunk", "1",
                                      *OUT), 0, "simulate: safe-rocketmq-3p ended (2 walks; 2 of 2 configurations"),
    Case("configs-liveness", (*TINY[:-3], "safe-rocketmq-2p-live", "--master", "none", *OUT), 0, "safe-rocketmq-2p-live"),
    Case("liveness-control-not-found", (*TINY[:-3], "reentry-off-rocketmq-2p-live", "--master", "none", "--length", "1", *OUT), 1,
         "negative control EventuallyInSync not found"),
    Case("walk-liveness", (*TINY[:-3], "reentry-off-rocketmq-2p-live", "--master", "none", "--walk", "1", *OUT), 0,
         "fair_steps"),
    Case("configs-design-unknown", (*TINY[:-3], "ms-async-3p", "--master", "none", *OUT), 2,
         "the designs RIP-44 replaced: ms-async-2p, ms-sync-2p, dledger-2p, dledger-3p (and -live of each)"),
    Case("configs-unknown", (*TINY[:-3], "nope", "--master", "none", *OUT), 2, "no configuration matches 'nope'"),
    Case("configs-glob-matches-nothing", (*TINY[:-3], "zzz-*", "--master", "none", *OUT), 2, "no configuration matches 'zzz-*'"),
    Case("configs-empty", (*TINY[:-3], ",", "--master", "none", *OUT), 2, "no configuration named"),
    Case("master-zero-threads", (*TINY[:-1], "local[0]", *OUT), 2, "--master 'local[0]': expected none, local"),
    Case("master-malformed", (*TINY[:-1], "spark://host", *OUT), 2, "--master 'spark://host'"),
    Case("out-is-a-file", (*TINY, "--out", "{spec}/MC_data.cfg"), 2, "is a file"),
    Case("out-unwritable", (*TINY, "--out", "/dev/null/o"), 2, "cannot write there"),
    Case("out-not-a-campaign", (*TINY, "--out", "{tmp}/.."), 2, "no campaign.json: not a campaign's folder"),
    Case("walk", (*TINY, "--walk", "1", *OUT), 0, "status           pass"),
    Case("walk-negative", (*TINY, "--walk", "-1", *OUT), 2, "'--walk': -1 is not in the range x>=0"),
    Case("walk-beyond-walks", (*TINY, "--walk", "2", *OUT), 2, "--walk 2: a campaign of --walks 2 has walks 0..1"),
    Case("walk-two-configs", (*TINY[:-3], "safe-rocketmq-*", "--master", "none", "--walk", "0", *OUT), 2,
         "--walk needs exactly one configuration"),
    Case("bench-without-spark", (*TINY, "--bench", *OUT), 2, "--bench compares one process with Spark"),
    Case("bench-and-walk", (*TINY[:-2], "--bench", "--walk", "0", *OUT), 2, "--walk re-runs one walk, --bench times a campaign"),
    Case("no-swarm", (*TINY, "--no-swarm", *OUT), 0, "--walk <walk> --no-swarm"),
    Case("swarm", (*TINY, "--swarm", *OUT), 0, "safe-rocketmq-2p"),
    Case("guide", (*TINY, "--guide", "--walks", "4", *OUT), 0, "--guide --chunk 100"),
    Case("no-guide", (*TINY, "--no-guide", *OUT), 0, "safe-rocketmq-2p"),
    Case("walk-guided", (*TINY, "--guide", "--walk", "1", *OUT), 0, "parent"),
    # bench --campaigns (conformance/simulation/bench.py): the strategies side by side
    Case("bench-campaigns", ("bench", "--campaigns", "--walks", "2", "--length", "20", "unclean-rocketmq-2p"), 0,
         "swarm per 1,000"),
    Case("bench-campaigns-unknown", ("bench", "--campaigns", "--walks", "1", "nope"), 2,
         "no configuration matches 'nope'"),
    Case("against-unknown", (*TINY, *OUT, "--against", "z3"), 2, "Invalid value for '--against'"),
    Case("rocketmq-version-unknown", (*TINY, *OUT, "--against", "rocketmq", "--rocketmq-version", "4.9.8"), 2,
         "the harness runs 5.1.1"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_cli(case: Case, tmp_path: Path) -> None:
    run_case(case, tmp_path)


def test_a_folder_of_another_campaign_is_refused_and_the_same_resumed(tmp_path: Path) -> None:
    run_case(Case("first", (*TINY, *OUT), 0), tmp_path)
    campaign = json.loads((tmp_path / "o" / "campaign.json").read_text())
    run_case(Case("other-seed", (*TINY, *OUT, "--seed", "2"), 2, "(seed: 1 there, 2 here); give another --out"), tmp_path)
    assert json.loads((tmp_path / "o" / "campaign.json").read_text()) == campaign
    run_case(Case("walk-other-length", (*TINY, *OUT, "--length", "6", "--walk", "0"), 2, "length: 5 there, 6 here"), tmp_path)
    run_case(Case("resumed", (*TINY, *OUT), 0, "0 chunks run, 1 already done"), tmp_path)


def test_a_damaged_chunk_is_run_again(tmp_path: Path) -> None:
    run_case(Case("first", (*TINY, *OUT), 0), tmp_path)
    part = tmp_path / "o" / "rows" / "config=safe-rocketmq-2p" / "chunk=0" / "part.parquet"
    part.write_bytes(part.read_bytes()[:50])
    run_case(Case("again", (*TINY, *OUT), 0, "chunk=0: damaged: part.parquet (50 bytes"), tmp_path)
    run_case(Case("then-done", (*TINY, *OUT), 0, "0 chunks run, 1 already done"), tmp_path)


def test_sample_zero_writes_no_corpus(tmp_path: Path) -> None:
    run_case(Case("sample-zero", (*TINY, "--sample", "0", *OUT), 0), tmp_path)
    run_case(Case("sample-one", (*TINY, "--sample", "1", "--out", "{tmp}/p"), 0), tmp_path)
    assert not (tmp_path / "o" / "corpus").exists() and len(list((tmp_path / "p" / "corpus").rglob("*.itf.json"))) == 2


def test_weights_that_draw_no_protocol_step_are_refused(tmp_path: Path) -> None:
    """Only HeartbeatExpire, with no broker alive to expire: walks of no step would report nothing found; refused
    before any work (issue 40), for a campaign and for its benchmark alike."""
    expire_only = "process=0,Crash=0,ControllerElectScan=0,ControllerFailover=0,request=0"
    for extra in ((), ("--bench", "--master", "local[1]")):
        run_case(Case("no-protocol-step", (*TINY[:-2], "--weights", expire_only, *extra), 2, "no protocol step"), tmp_path)
