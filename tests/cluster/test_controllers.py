"""Three standalone controller nodes (``--controllers 3``): DLedger peers of one group instead of the controller
embedded in the name server, the brokers' controllerAddr naming all three, and kill -9 of the controllers' leader or a
follower drawn in the schedule; one real run in which the leader is killed (for 3.9 s: shorter than DLedger takes to
elect another, so the set has no controller until the node is back) and the cluster heals."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from cluster_runs import AUTOSWITCH, run_ok

from autoswitch.conformance.cluster import events
from autoswitch.conformance.cluster.schedule import KILL_CONTROLLER, make_schedule


def test_controller_kills_are_drawn_only_with_three_controllers() -> None:
    assert not any(f.kind == KILL_CONTROLLER for seed in range(1, 40) for f in make_schedule(seed, 120, 2).faults)
    drawn = [f for seed in range(1, 40) for f in make_schedule(seed, 120, 2, controllers=3).faults if f.kind == KILL_CONTROLLER]
    assert drawn and {f.target for f in drawn} == {"leader", "follower"}
    second = make_schedule(5, 40, 2, controllers=3).faults[1]  # the real run below
    assert (second.kind, second.target, second.at) == (KILL_CONTROLLER, "leader", 19.3)
    assert make_schedule(5, 40, 2, controllers=3).to_json()["controllers"] == 3


def test_metadata_loss_needs_the_embedded_controller(tmp_path: Path) -> None:
    out = tmp_path / "run"
    done = subprocess.run([*AUTOSWITCH, "cluster", "run", "--metadata-loss", "--controllers", "3", "--out", str(out)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "--metadata-loss is a fault alone" in done.stderr and not out.exists()


def test_a_run_on_three_controllers_heals_after_a_kill_of_their_leader(tmp_path: Path) -> None:
    out = tmp_path / "run"
    done, faults = run_ok(out, "--seed", "5", "--duration", "40", "--controllers", "3")
    assert "verdict: NoAckedMessageLost holds" in done.stdout and "kill-controller leader" in done.stdout
    assert "starting 3 controller nodes (DLedger peers n1-127.0.0.1:" in done.stderr
    for k in (1, 2, 3):
        assert "started controller" in (out / "nodes" / f"controller-{k}" / "console.log").read_text()
    broker = (out / "nodes" / "broker-1" / "node.properties").read_text()
    controller_addr = next(line for line in broker.splitlines() if line.startswith("controllerAddr="))
    assert controller_addr.count("127.0.0.1:") == 3, controller_addr
    namesrv = (out / "nodes" / "namesrv" / "node.properties").read_text()
    assert "enableControllerInNamesrv=false" in namesrv
    killed = next(f for f in faults if f.get("role") == "controller leader")
    assert killed["event"] == "kill -9" and killed["node"].startswith("controller-")
    restarted = next(f for f in faults if f["event"] == "restart" and f["node"] == killed["node"] and f["t"] > killed["t"])
    polls = [json.loads(line) for line in (out / "watch.jsonl").read_text().splitlines()]
    peer = "n" + killed["node"].rsplit("-", 1)[1]
    before = [p.get("controller_leader") for p in polls if p["t"] < killed["t"] and p.get("controller_leader")]
    assert before[-1] == peer  # the schedule's "leader" was the leader
    # while it is down no poll names it the leader: the watcher asks the other two, who name another or none
    down = [p for p in polls if killed["t"] + 1000 < p["t"] < restarted["t"]]
    assert down and all(p.get("controller_leader") != peer for p in down), down[:3]
    after = [p.get("controller_leader") for p in polls if p["t"] > restarted["t"] and p.get("controller_leader")]
    assert after, "no controller answered after the restart"  # a leader again (on seed 5: the restarted one)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["healed"] and summary["counts"]["lost"] == 0 and summary["counts"]["acked"] > 0
    assert summary["validate"]["status"] != events.REFUSED, summary["validate"]
    assert "--controllers 3" in (out / "report.md").read_text()
