"""Cut replication links (``--cut``): each broker advertises a proxy of ours as its HA address, so its slaves replicate
through it; a cut holds the master's proxy (the model's PartitionLink on each of its links, HealLink at the release).
Drawn only with ``--cut``; written to the master's event log; and one real run with a 9 s cut: no write is acknowledged
while the link is held, and writes resume after the release, nothing lost."""

from __future__ import annotations

import json
from pathlib import Path

from cluster_runs import run_ok

from autoswitch.conformance.cluster import events
from autoswitch.conformance.cluster.run import LINK_CUT, LINK_HEALED
from autoswitch.conformance.cluster.schedule import CUT, make_schedule
from autoswitch.conformance.cluster.settings import SETTINGS


def test_cuts_are_drawn_only_when_asked() -> None:
    assert not any(f.kind == CUT for seed in range(1, 40) for f in make_schedule(seed, 120, 2).faults)
    assert any(f.kind == CUT for seed in range(1, 40) for f in make_schedule(seed, 120, 2, cut=True).faults)
    second = make_schedule(10, 40, 2, cut=True).faults[1]  # the real run below
    assert (second.kind, second.target, second.at, second.length) == (CUT, "master", 20.5, 9.0)


def test_a_cut_is_partitionlink_and_heallink_on_the_masters_log() -> None:
    watch = [{"t": 1000, "master_id": 1, "master_address": "a", "master_epoch": 1, "sync_state_set_epoch": 1,
              "in_sync": [{"id": 1}]}]
    faults = [{"t": 2000, "event": LINK_CUT, "node": "broker-2", "slaves": ["broker-1", "broker-3"]},
              {"t": 5000, "event": LINK_HEALED, "node": "broker-2", "slaves": ["broker-1", "broker-3"]}]
    logs = events.event_logs(watch, faults, {"broker-1": 1, "broker-2": 2, "broker-3": 3}, SETTINGS["safe"].control(3))
    assert [(e["ts"], e["action"]) for e in logs["p2"]] == [
        (1000, {"tag": "PartitionLink", "peer": "p1"}), (1000, {"tag": "PartitionLink", "peer": "p3"}),
        (4000, {"tag": "HealLink", "peer": "p1"}), (4000, {"tag": "HealLink", "peer": "p3"})]
    meta = logs["controller"][0]["meta"]
    assert meta["next"]["faults"] == ["PartitionLink"] and {"PartitionLink", "HealLink"} <= set(meta["complete"])


def test_a_run_with_a_cut_holds_the_writes_until_the_release(tmp_path: Path) -> None:
    out = tmp_path / "run"
    done, faults = run_ok(out, "--seed", "10", "--duration", "40", "--cut")
    assert "20.5 s  cut master for 9.0 s" in done.stdout and "verdict: NoAckedMessageLost holds" in done.stdout
    cut = next(f for f in faults if f["event"] == LINK_CUT)
    healed = next(f for f in faults if f["event"] == LINK_HEALED)
    assert cut["role"] == "master" and cut["slaves"] and healed["node"] == cut["node"]
    assert len(cut["in_sync"]) == 2  # the cut waited for the slave to be in the SyncStateSet
    for k in (1, 2):  # each broker advertised its proxy
        assert "autoswitchHaAddress=127.0.0.1:" in (out / "nodes" / f"broker-{k}" / "node.properties").read_text()
    # while the master's links are held no write is acknowledged (allAckInSyncStateSet: the master waits for the
    # slave's ack), and writes are acknowledged again after the release
    history = [json.loads(line) for line in (out / "history.jsonl").read_text().splitlines()]
    done_during = [r["op"] for r in history if cut["t"] + 500 < r["t"] < healed["t"] and r["op"] != "invoke"]
    assert done_during and "ok" not in done_during, done_during
    assert any(r["op"] == "ok" for r in history if r["t"] > healed["t"])
    # 5.5.0 keeps the slave in the SyncStateSet through a held link: the master counts a slave caught up whenever it
    # has written everything to the connection (AutoSwitchHAConnection's transferToSlave), acked or not
    polls = [json.loads(line) for line in (out / "watch.jsonl").read_text().splitlines() if '"in_sync"' in line]
    assert [len(p["in_sync"]) for p in polls if p["t"] > healed["t"]][-1] == 2
    summary = json.loads((out / "summary.json").read_text())
    assert summary["healed"] and summary["counts"]["lost"] == 0 and summary["counts"]["acked"] > 0
    master = sorted(p.name for p in (out / "nodes").glob("broker-*")).index(cut["node"]) + 1
    tags = [json.loads(line)["action"]["tag"] for line in (out / "events" / f"p{master}.ndjson").read_text().splitlines()]
    assert "PartitionLink" in tags and "HealLink" in tags
    assert summary["validate"]["status"] != events.REFUSED, summary["validate"]
