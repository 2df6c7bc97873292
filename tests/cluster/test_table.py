"""``autoswitch cluster table``: the model's verdict per settings row beside what real runs showed. The rows' arithmetic
and verdicts on made-up run summaries (fast), each row's model reference against the repository, and one real row
(one run of 20 s) through the command."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from autoswitch.conformance.cluster import check as history
from autoswitch.conformance.cluster.settings import ASYNC_FLUSH, SETTINGS
from autoswitch.conformance.cluster.table import markdown, summarize
from autoswitch.conformance.errors import EXIT_INTERNAL, EXIT_OK, EXIT_VERDICT

AUTOSWITCH = [sys.executable, "-c", "from autoswitch.conformance.cli import main; main()"]
ROOT = Path(__file__).resolve().parents[2]
RUN_SECONDS = 600


def _summary(acked: int, lost: int, status: str = "explained", seconds: float = 80.0, unread: bool = False) -> dict[str, Any]:
    return {"counts": {"acked": acked, "lost": lost}, "validate": {"status": status}, "seconds": seconds, "unread": unread}


def test_a_run_that_never_healed_has_no_verdict_on_its_sends_and_fails_liveness() -> None:
    sent = [{"op": "invoke", "id": "m1", "t": 1}, {"op": "ok", "id": "m1", "t": 2},
            {"op": "invoke", "id": "m2", "t": 3}, {"op": "fail", "id": "m2", "t": 4}]
    verdict = history.unread(sent)
    assert verdict.unread and not verdict.lost and not verdict.holds  # nothing claimed lost, nothing claimed kept
    assert verdict.counts()["acked"] == 1 and verdict.counts()["lost"] == 0
    assert history.check(sent, [{"id": "m1"}]).holds and not history.check(sent, []).holds
    row = summarize("safe", 2, [_summary(10, 0), _summary(5, 0, unread=True)])
    assert row.unhealed == 1 and row.verdict.startswith("agrees") and row.exit_code == EXIT_OK  # not a loss
    assert markdown([row]).splitlines()[2].split(" | ")[2] == "2 (1 never healed)"
    assert summarize("safe", 2, [_summary(5, 0, unread=True)]).verdict == "no verdict: no run healed"


def test_a_row_adds_up_its_runs_and_says_what_they_show_beside_the_model() -> None:
    allack = summarize("allack-off", 2, [_summary(100, 2), _summary(50, 0, "gave up", 95.0), None])
    assert (allack.runs, allack.acked, allack.lost, allack.runs_with_loss, allack.harness_failures) == (3, 150, 2, 1, 1)
    assert allack.model == "`MC_neg_allack`: can lose (NoAckedMessageLost)" and not allack.safe
    assert allack.verdict == "loss shown in 1 of 2 runs"
    assert allack.exit_code == EXIT_INTERNAL  # a run's harness failed
    safe = summarize("safe", 2, [_summary(10, 0), _summary(20, 0)])
    assert safe.model == "`MC_data_reg1`: holds" and safe.verdict.startswith("agrees") and safe.exit_code == EXIT_OK
    assert summarize("safe", 3, [_summary(1, 0)]).model == "`MC_data3`: holds"
    broken = summarize("safe", 2, [_summary(10, 1)])
    assert broken.verdict.startswith("DISAGREES") and broken.exit_code == EXIT_VERDICT
    quiet = summarize("unclean", 2, [_summary(10, 0), _summary(10, 0)])
    assert quiet.exit_code == EXIT_OK and quiet.verdict.startswith("no loss in 2 runs")
    table = markdown([allack, safe]).splitlines()
    assert len(table) == 4 and table[0].startswith("| settings | the model")
    assert table[2].split(" | ")[2:7] == ["3 (1 harness failures)", "150", "**2**", "1", "loss shown in 1 of 2 runs"]
    assert "1 explained, 1 gave up" in table[2] and "80-95" in table[2]


@pytest.mark.parametrize("name", list(SETTINGS))
def test_each_rows_model_reference_exists_and_says_what_the_row_says(name: str) -> None:
    setting = SETTINGS[name]
    for brokers in (2, 3):
        row = setting.control(brokers)
        if row.cfg:
            assert (ROOT / "spec" / f"{row.cfg}.cfg").exists(), row.cfg
        if row.trace:
            meta = json.loads((ROOT / row.trace).read_text())["#meta"]
            assert meta["expect"].get("violation") == row.invariant, (row.trace, meta["expect"])
            options = row.model_options
            assert meta["options"]["asyncFlush"] == options.async_flush
            assert meta["options"]["allAckInSyncStateSet"] == options.all_ack_in_sync_state_set
            assert meta["options"]["enableElectUncleanMaster"] == options.enable_elect_unclean_master
        assert row.cfg or row.trace, name
    assert setting.safe == (name == "safe")


def test_async_flush_sets_the_brokers_as_its_model_configuration_says() -> None:
    setting = SETTINGS["async-flush"]
    assert setting.control(2) is ASYNC_FLUSH and ASYNC_FLUSH.model_options.async_flush
    assert setting.broker["flushDiskType"] == "ASYNC_FLUSH" and setting.broker["transientStorePoolEnable"] == "true"
    assert setting.broker["allAckInSyncStateSet"] == "true" and setting.controller["enableElectUncleanMaster"] == "false"


def test_a_bad_row_is_a_usage_error() -> None:
    done = subprocess.run([*AUTOSWITCH, "cluster", "table", "--settings", "safe,nope"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2 and "nope: not a setting" in done.stderr


def test_the_command_runs_a_row_and_prints_its_table(tmp_path: Path) -> None:
    out = tmp_path / "table"
    done = subprocess.run([*AUTOSWITCH, "cluster", "table", "--runs", "1", "--duration", "20", "--settings", "safe",
                           "--first-seed", "5", "--out", str(out)], capture_output=True, text=True, timeout=RUN_SECONDS)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    summary = json.loads((out / "safe" / "seed-5" / "summary.json").read_text())
    assert summary["seed"] == 5 and summary["settings"] == "safe" and summary["counts"]["acked"] > 0
    row = next(line for line in done.stdout.splitlines() if line.startswith("| `safe`"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1] == "`MC_data_reg1`: holds" and cells[2] == "1"
    assert cells[3] == f"{summary['counts']['acked']:,}" and cells[4] == "0" and cells[6] == "agrees: nothing lost"
    assert re.search(r"autoswitch cluster table --runs 1 --duration 20 .*--first-seed 5", done.stdout)
    assert row in (out / "table.md").read_text()
    assert json.loads((out / "table.json").read_text())["rows"][0]["acked"] == summary["counts"]["acked"]
    left = subprocess.run(["pgrep", "-f", str(out)], capture_output=True, text=True).stdout.split()
    assert not left, f"processes left: {left}"
