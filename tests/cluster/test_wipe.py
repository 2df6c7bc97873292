"""A wiped broker store (the model's WipeDisk): drawn in the seeded schedule only with ``--wipe`` (a seed's schedule is
otherwise unchanged), written to the event log between the broker's Crash and Restart, explained by the model when
the broker comes back as a new broker id; and one real run in which a slave's store is deleted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cluster_runs import run_ok

from autoswitch.conformance.cluster import events
from autoswitch.conformance.cluster.run import STORE_DELETED, RunConfig
from autoswitch.conformance.cluster.schedule import KILL, WIPE, make_schedule
from autoswitch.conformance.cluster.settings import SETTINGS


def test_wipes_are_drawn_only_when_asked_and_leave_other_schedules_alone() -> None:
    # seed 2's schedule of docs/results/2026-12-02-cluster-runs.md, as it always was
    plain = make_schedule(2, 60, 2)
    assert [(f.at, f.kind, f.target, f.length) for f in plain.faults] == [
        (5.0, KILL, "master", 7.8), (27.0, KILL, "slave", 5.0), (47.6, KILL, "slave", 3.5)]
    assert not any(f.kind == WIPE for seed in range(1, 40) for f in make_schedule(seed, 120, 2).faults)
    wiped = [f for seed in range(1, 40) for f in make_schedule(seed, 120, 2, wipe=True).faults if f.kind == WIPE]
    assert wiped and {f.target for f in wiped} == {"master", "slave"}
    assert make_schedule(1, 40, 2, wipe=True).faults[1].kind == WIPE  # the real run below
    assert make_schedule(1, 40, 2, wipe=True).to_json()["wipe"] is True
    assert RunConfig(1, Path("x"), 2, "safe", 40, "5.5.0", wipe=True).command().endswith(" --wipe")


def _row(t: int, sss: list[int], epoch: int) -> dict[str, Any]:
    return {"t": t, "master_id": 1, "master_address": "127.0.0.1:1001", "master_epoch": 1, "sync_state_set_epoch": epoch,
            "in_sync": [{"id": i} for i in sss]}


def test_a_wiped_slave_is_wipedisk_in_its_log_and_its_new_id_is_explained(tmp_path: Path) -> None:
    watch = [_row(1000, [1], 1), _row(3000, [1, 2], 2), _row(9000, [1], 3), _row(20000, [1, 3], 4)]
    faults = [{"t": 5000, "event": "kill -9", "node": "broker-2"}, {"t": 5100, "event": STORE_DELETED, "node": "broker-2"},
              {"t": 10000, "event": "restart", "node": "broker-2"}]
    brokers = {"broker-1": 1001, "broker-2": 1002}
    logs = events.event_logs(watch, faults, brokers, SETTINGS["safe"].control(2))
    assert [e["action"]["tag"] for e in logs["p2"]] == ["Crash", "WipeDisk", "Restart"]
    meta = logs["controller"][0]["meta"]
    assert meta["next"]["brokerIds"] == [1, 2, 3] and meta["next"]["faults"] == ["WipeDisk"]
    assert "WipeDisk" in meta["complete"]
    plain = events.event_logs(watch, faults[::2], brokers, SETTINGS["safe"].control(2))["controller"][0]["meta"]
    assert plain["next"] == {"brokerIds": [1, 2], "switches": ["DataPath"], "faults": []}
    validation = events.validate(tmp_path, watch, faults, brokers, SETTINGS["safe"].control(2))
    assert validation.status == events.EXPLAINED, validation


def test_a_run_with_a_slaves_store_wiped_heals_with_a_new_broker(tmp_path: Path) -> None:
    out = tmp_path / "run"
    done, faults = run_ok(out, "--seed", "1", "--duration", "40", "--wipe")
    assert "23.6 s  wipe slave for 6.4 s" in done.stdout and "verdict: NoAckedMessageLost holds" in done.stdout
    wiped = [f for f in faults if f["event"] == STORE_DELETED]
    assert len(wiped) == 1 and wiped[0]["role"] == "slave"
    node = wiped[0]["node"]
    index = faults.index(wiped[0])
    assert faults[index - 1]["event"] == "kill -9" and faults[index + 1]["event"] == "restart"
    assert faults[index - 1]["node"] == faults[index + 1]["node"] == node
    summary = json.loads((out / "summary.json").read_text())
    assert summary["healed"] and summary["counts"]["lost"] == 0
    last = [json.loads(line) for line in (out / "watch.jsonl").read_text().splitlines() if '"in_sync"' in line][-1]
    assert 3 in [r["id"] for r in last["in_sync"]], last  # the wiped broker registered again as a new one
    k = sorted(p.name for p in (out / "nodes").glob("broker-*")).index(node) + 1
    tags = [json.loads(line)["action"]["tag"] for line in (out / "events" / f"p{k}.ndjson").read_text().splitlines()]
    assert "WipeDisk" in tags and tags[tags.index("WipeDisk") - 1] == "Crash" and tags[tags.index("WipeDisk") + 1] == "Restart"
    assert "store deleted" in (out / "report.md").read_text() and "--wipe" in (out / "report.md").read_text()
    assert summary["validate"]["status"] != events.REFUSED, summary["validate"]
