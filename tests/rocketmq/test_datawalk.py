"""Differential walks of the data path on RocketMQ's own stores (conformance/rocketmq/datawalk.py): a seeded walk of the
safe configuration agrees with the reference at every step, having taken the data path's steps on the real HA
connection; the known divergences are not drawn."""

from __future__ import annotations

from collections import Counter

from autoswitch.conformance.controls import grid
from autoswitch.conformance.rocketmq.datawalk import ONE_MEMBER_SHORTCUT, avoided
from autoswitch.conformance.simulation.campaign import run_walk
from autoswitch.reference import initial_system
from autoswitch.reference.state import MASTER, Options, PendingAlter, evolve

VERSION = "5.3.3"  # 5.4.0 on shrink a master's local set when a connection breaks (finding shrink-before-the-answer)


def test_a_seeded_data_walk_agrees_with_the_stores_at_every_step() -> None:
    sim = grid()["safe-rocketmq-2p"]
    run = run_walk(sim.config, sim.weights(), 15, 100, tolerate=sim.tolerated, against=f"rocketmq-data@{VERSION}")
    assert run.failure is None, run.failure
    taken = Counter(a["tag"] for a in run.actions)
    for tag in ("Write", "Handshake", "Transfer", "Ack", "Crash", "Restart"):
        assert taken[tag] > 0, f"the walk took no {tag}: {dict(taken)}"


def test_a_slave_whose_handshake_cut_its_log_is_not_crashed() -> None:
    """Seed 107 with the crash weight quadrupled crashed p1 after its handshake cut its log from 3 messages to 1, and
    its restarted store came back with all 3 (TRUNCATION_NOT_DURABLE); the walk now leaves that crash out and agrees."""
    sim = grid()["safe-rocketmq-2p"]
    weights = dict(sim.weights())
    weights["Crash"] *= 4
    run = run_walk(sim.config, weights, 107, 80, tolerate=sim.tolerated, against=f"rocketmq-data@{VERSION}")
    assert run.failure is None, run.failure
    assert len(run.actions) == 80 and sum(a["tag"] == "Crash" for a in run.actions) >= 3


def test_the_known_divergences_are_not_drawn() -> None:
    s = initial_system({"p1": "10.0.0.1:30911"}, "controller")
    p = s.procs["p1"]
    master = evolve(p, meta_file=1, role=MASTER, epoch_file=((1, 0),), local_sync_state_set=frozenset({1}))
    s = evolve(s, procs=s.procs.set("p1", master))
    assert avoided(s, {"tag": "Crash", "process": "p1"}, Options()) is None  # an empty epoch's crash: the model agrees
    written = evolve(master, log=((1, 1),), flushed=1)
    pending = evolve(written, pending_alter=PendingAlter(frozenset({1, 2}), "SUCCESS", 2, True))
    assert avoided(evolve(s, procs=s.procs.set("p1", pending)), {"tag": "Write", "process": "p1"}, Options()) == ONE_MEMBER_SHORTCUT
    assert avoided(evolve(s, procs=s.procs.set("p1", written)), {"tag": "Write", "process": "p1"}, Options()) is None
