"""``autoswitch cluster run``, short: a real cluster (name server with the controller, two brokers) under one kill -9
of the master and whatever else seed 1 draws in 30 s; both verdicts: the history check holds and its counts make sense,
and the controller's view, as an event log, is not refused by the model."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

AUTOSWITCH = [sys.executable, "-c", "from autoswitch.conformance.cli import main; main()"]
RUN_SECONDS = 600  # the run takes about 1-2 minutes on 2 cores; a first build of the launchers a few more


def test_a_short_run_with_a_failover_loses_no_acknowledged_message(tmp_path: Path) -> None:
    out = tmp_path / "run"
    done = subprocess.run([*AUTOSWITCH, "cluster", "run", "--seed", "1",
                           "--duration", "30", "--out", str(out)], capture_output=True, text=True, timeout=RUN_SECONDS)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "checked under model configuration safe-rocketmq" in done.stdout
    assert "verdict: NoAckedMessageLost holds" in done.stdout
    # the controller's view against the model: never refused; "gave up" (the search's budget spent) is no verdict
    assert "verdict (logs): explained" in done.stdout or "verdict (logs): gave up" in done.stdout, done.stdout[-3000:]
    summary = json.loads((out / "summary.json").read_text())
    counts = summary["counts"]
    assert summary["failovers"] >= 1 and summary["healed"]
    assert counts["acked"] > 0 and counts["lost"] == 0
    assert counts["read back (distinct)"] >= counts["acked"]
    assert counts["sent"] == counts["acked"] + counts["failed"] + counts["unknown"]
    assert counts["read, never sent"] == 0
    assert summary["validate"]["events"] >= 2
    if summary["validate"]["status"] == "explained":
        assert (out / "validate" / "events.itf.json").exists()
        page = (out / "timeline.html").read_text()  # the explanation in the explorer: a lane per broker
        assert "Crash" in page and "p1" in page and "p2" in page
    for name in ("schedule.json", "history.jsonl", "read.jsonl", "faults.jsonl", "watch.jsonl", "report.md",
                 "events/controller.ndjson"):
        assert (out / name).stat().st_size > 0, name
    schedule = json.loads((out / "schedule.json").read_text())
    assert schedule["faults"][0]["kind"] == "kill" and schedule["faults"][0]["target"] == "master"
    assert "autoswitch cluster run --seed 1" in (out / "report.md").read_text()
    for node in ("namesrv", "broker-1", "broker-2", "producer", "reader"):
        assert (out / "nodes" / node / "console.log").exists(), node


def test_after_the_controller_loses_its_metadata_the_set_is_not_registered_again(tmp_path: Path) -> None:
    """The model's finding MC_live_meta (EventuallyRegistered fails) on the real cluster: the brokers keep calling
    registerBrokerToController, the controller keeps refusing it, and nobody applies for an id again."""
    out = tmp_path / "run"
    done = subprocess.run([*AUTOSWITCH, "cluster", "run", "--seed", "1", "--duration", "20", "--metadata-loss",
                           "--out", str(out)], capture_output=True, text=True, timeout=RUN_SECONDS)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "verdict: NoAckedMessageLost holds" in done.stdout
    assert "the set was NOT registered again within 60 s" in done.stdout, done.stdout[-3000:]
    refusals = int(done.stdout.split("registerBrokerToController was refused ")[1].split(" times")[0])
    assert refusals >= 10
    assert not json.loads((out / "summary.json").read_text())["healed"]
    assert json.loads((out / "schedule.json").read_text())["faults"][0]["kind"] == "wipe-controller"
