"""``autoswitch validate``: every option, the exit codes (0 every log explained, 1 one refused or given up, 2 a bad log -
the others still run -, a usage error), ``--out`` replayed on both engines (Spark: tools/test_validate_spark.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from cli_cases import CHECKOUT, Case, run_case

from autoswitch.conformance import cli
from autoswitch.conformance.trace.replay import replay_file

EXAMPLE = CHECKOUT / "traces/logs/failover"
EXAMPLE_ROW = "{traces}/logs/failover"


def _variant(tmp: Path, name: str, stem: str, line: int, change: dict) -> None:
    folder = tmp / name
    shutil.copytree(EXAMPLE, folder)
    path = folder / f"{stem}.ndjson"
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    lines[line - 1] = {**lines[line - 1], **change}
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))


def log_files(tmp: Path) -> None:
    """The logs the rows name under ``{tmp}``: the example with p2's last role falsified, with p2's SLAVE reported 2 ms
    early, a malformed one, and one without a header (safe-rocketmq-2p's processes)."""
    _variant(tmp, "falsified", "p2", 5, {"observe": {"role": "SLAVE"}})
    _variant(tmp, "early", "p2", 2, {"ts": 28})
    (tmp / "malformed.ndjson").write_text('{"meta": {"processes": {"p1": "10.0.0.1:30911"}}}\n{"node": "p1", "ts": 1, "level": 2}\n')
    (tmp / "headless.ndjson").write_text(json.dumps({"node": "p1", "ts": 1, "action": {"tag": "SendRegister", "lost": False},
                                                     "observe": {"regState": "REGISTERED", "metaFile": 1}}) + "\n")
    (tmp / "a-file").write_text("")


CASES = [
    Case("explained", ("validate", EXAMPLE_ROW), 0, "explained (13 events"),
    Case("quiet", ("validate", EXAMPLE_ROW, "--quiet"), 0, "median"),
    Case("out", ("validate", EXAMPLE_ROW, "{tmp}/falsified", "--out", "{tmp}/out"), 1, "2 files written"),
    Case("out-a-file", ("validate", EXAMPLE_ROW, "--out", "{tmp}/a-file"), 2, "is a file"),
    Case("refused", ("validate", "{tmp}/falsified"), 1, "field role['p2']: the log has 'SLAVE', the model 'MASTER'"),
    Case("gap-too-small", ("validate", EXAMPLE_ROW, "--max-gap", "3"), 1, "refused"),
    Case("gap-negative", ("validate", EXAMPLE_ROW, "--max-gap", "-1"), 2, "--max-gap"),
    Case("reordered", ("validate", "{tmp}/early"), 1, "p2.ndjson:2"),
    Case("skew-admits", ("validate", "{tmp}/early", "--skew", "2"), 0, "explained"),
    Case("impl", ("validate", EXAMPLE_ROW, "--engine", "impl"), 0, "[impl]: explained"),
    Case("engine-unknown", ("validate", EXAMPLE_ROW, "--engine", "z3"), 2, "Invalid value for '--engine'"),
    Case("gives-up", ("validate", "{tmp}/falsified", "--max-states", "50"), 1, "gave up after 50 states"),
    Case("config", ("validate", "{tmp}/headless.ndjson", "--config", "safe-rocketmq-2p"), 0, "explained (1 events"),
    Case("config-unknown", ("validate", "{tmp}/headless.ndjson", "--config", "nope"), 2, "not a simulation configuration"),
    Case("no-header", ("validate", "{tmp}/headless.ndjson"), 2, "--config NAME"),
    Case("malformed-and-explained", ("validate", "{tmp}/malformed.ndjson", EXAMPLE_ROW, "--master", "none"), 2,
         "line 2: field 'level'"),
    Case("malformed-and-refused", ("validate", "{tmp}/malformed.ndjson", "{tmp}/falsified"), 1, "malformed"),
    Case("missing", ("validate", "{tmp}/nothing.ndjson", EXAMPLE_ROW), 2, "cannot read"),
    Case("master-bad", ("validate", EXAMPLE_ROW, "--master", "bogus"), 2, "--master 'bogus'"),
    Case("no-log", ("validate",), 2, "Missing argument"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_cli(case: Case, tmp_path: Path) -> None:
    log_files(tmp_path)
    run_case(case, tmp_path)


def test_a_long_search_prints_its_progress(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the output is not a terminal, a line every LOG_EVERY seconds (here every turn of the search) names the log,
    the states expanded and the events explained on the furthest path; none with the default interval."""
    log_files(tmp_path)
    gives_up = ("validate", "{tmp}/falsified", "--max-states", "3000")
    quiet = run_case(Case("gives-up", gives_up, 1, "gave up after 3,000 states"), tmp_path)
    assert "on the furthest path" not in quiet.output
    monkeypatch.setattr(cli, "LOG_EVERY", 0.0)
    result = run_case(Case("progress", gives_up, 1, "falsified: 3,000 states expanded, 12/13 events explained on the furthest path"),
                      tmp_path)
    assert result.output.count("events explained on the furthest path") > 1


def test_out_replays_on_both_engines_and_a_refusal_is_written(tmp_path: Path) -> None:
    log_files(tmp_path)
    run_case(Case("out", ("validate", EXAMPLE_ROW, "{tmp}/falsified", "--out", "{tmp}/out"), 1), tmp_path)
    trace = tmp_path / "out/failover.itf.json"
    for engine in ("reference", "impl"):
        result = replay_file(str(trace), engine)
        assert result.ok, result.describe()
    refusal = (tmp_path / "out/falsified.refusal.txt").read_text()
    assert "first unexplained event: #12" in refusal and "nearest miss: field role['p2']" in refusal

