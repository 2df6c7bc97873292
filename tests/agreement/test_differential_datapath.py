"""The implementation's data path against the reference on random enabled sequences (differential.py)."""

from __future__ import annotations

import os
import random
from typing import Any

import pytest
from differential import PROCESSES, differential

from autoswitch.conformance.engines.impl import ImplSystem
from autoswitch.conformance.simulation.generate import MASTER_STEPS, NEXT_STEP, REGISTERED_STEPS, SLAVE_STEPS
from autoswitch.impl.commit_log import COMMIT_LOG_FILE
from autoswitch.impl.epoch_file import EPOCH_FILE
from autoswitch.reference import NotEnabled, Options
from autoswitch.reference.actions import (
    ACTIONS,
    ADDR,
    BROKER_ID,
    BROKER_IDS,
    LOST,
    PROCESS,
    SCAN,
    TRIGGERS,
    Kind,
    record,
    tags,
)
from autoswitch.reference.state import NO_MASTER, System

NAMES = tuple(PROCESSES)
# EnvNext's actions (CleanBrokerData rarely, below), the scan twice as often
_ENV_TAGS = (*tags(SCAN),
             *(a.tag for a in ACTIONS.values() if a.in_next and "process" not in a.params and a.tag != "CleanBrokerData"
               and a.fault is None))


def random_data_action(rng: random.Random, s: System) -> dict[str, Any]:
    """A random action record biased towards the data path; not necessarily enabled."""
    roll = rng.random()
    p = rng.choice(NAMES)
    proc = s.procs[p]
    c = s.controller
    if roll < 0.015:
        return {"tag": "Crash", "process": p}
    if roll < 0.05:
        tag = rng.choice(_ENV_TAGS)
        if rng.random() < 0.05:
            tag = "CleanBrokerData"
        b = rng.randint(1, 4)
        if tag == "HeartbeatExpire":
            return {"tag": tag, "brokerId": b}
        if tag == "ElectMaster":
            trigger = rng.choice(TRIGGERS)
            return {"tag": tag, "trigger": trigger, "brokerId": NO_MASTER if trigger == "controller" else b}
        if tag == "CleanBrokerData":
            return {"tag": tag, "brokerIds": frozenset({b}), "cleanLiving": rng.random() < 0.2}
        return record(tag, {})
    state = proc.reg_state
    if state == "INITIAL":
        tag = "LoadMetaFile" if proc.meta_file else "LoadTempFile" if proc.temp_file else "CreateTempFile"
    elif state != "REGISTERED":
        tag = NEXT_STEP[state]
    elif roll < 0.3:
        tag = rng.choice(REGISTERED_STEPS)
    elif proc.role == "MASTER" and proc.pending_alter is None and rng.random() < 0.6 and any(
        b not in proc.local_sync_state_set and o >= proc.confirm_offset for b, o in proc.acks.items()
    ):
        tag = "Expand"
    else:
        tag = rng.choice({"MASTER": MASTER_STEPS, "SLAVE": SLAVE_STEPS}.get(proc.role, REGISTERED_STEPS))
    kinds = set(ACTIONS[tag].params.values())
    values: dict[Kind, Any] = {PROCESS: p}
    if LOST in kinds:
        values[LOST] = rng.random() < 0.15
    if tag == "Expand":  # mostly a connected slave outside the set
        outside = sorted(b for b in proc.acks if b not in proc.local_sync_state_set)
        values[BROKER_ID] = rng.choice(outside) if outside and rng.random() < 0.9 else rng.randint(1, 3)
    if tag == "Shrink":
        values[BROKER_ID] = rng.choice(sorted(proc.local_sync_state_set - {proc.meta_file}) or [rng.randint(1, 3)])
    if BROKER_IDS in kinds:
        values[BROKER_IDS] = frozenset(b for b in c.alive if rng.random() < 0.6) | {c.master_id} - {NO_MASTER}
    if ADDR in kinds:
        values[ADDR] = rng.choice(tuple(PROCESSES.values()))
    return record(tag, values)


VARIANTS: dict[str, dict[str, Any]] = {
    "base": {},
    "async-flush": {"async_flush": True},
    "all-ack-off": {"all_ack_in_sync_state_set": False, "in_sync_replicas": 2},
    "no-union-fix": {"union_ack_fix": False},
    "no-freeze-fix": {"confirm_freeze_fix": False},
    "no-shortcut-fix": {"confirm_shortcut_fix": False},
    "no-zero-ack-fix": {"confirm_zero_ack_fix": False},
    "unclean": {"enable_elect_unclean_master": True, "async_flush": True},
    "min-isr-2-learner": {"min_in_sync_replicas": 2, "async_learners": frozenset({"p3"})},
}

TAG_COUNTS: dict[str, int] = {}


def _differential(seed: int, length: int, opts: Options, **impl_kwargs: Any) -> int:
    """One random data-path sequence on both models (tests/agreement/differential.py); counts the tags taken."""
    tags = differential(seed, length, opts, random_data_action, **impl_kwargs)
    for tag in tags:
        TAG_COUNTS[tag] = TAG_COUNTS.get(tag, 0) + 1
    return len(tags)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("policy", ["rocketmq", "hw", "kip101", "kip279"])
def test_data_path_differential(policy: str, variant: str) -> None:
    opts = Options(policy=policy, **VARIANTS[variant])
    seeds = 20
    taken = sum(_differential(seed * 31 + len(variant), 150, opts) for seed in range(seeds))
    assert taken > seeds * 140


def test_data_path_reaches_the_interesting_steps() -> None:
    """The generator of the differential test exercises every data-path tag (and answers)."""
    TAG_COUNTS.clear()
    for seed in range(10):
        _differential(5000 + seed, 200, Options(async_flush=True))
    for tag in ("Write", "Handshake", "Transfer", "Ack", "Flush", "Consume", "Crash"):
        assert TAG_COUNTS.get(tag, 0) > 30, (tag, TAG_COUNTS)
    for tag in ("Expand", "Shrink", "AlterArrives"):  # rarer: a full set has nobody to add
        assert TAG_COUNTS.get(tag, 0) >= 5, (tag, TAG_COUNTS)


def test_data_path_differential_with_file_backend(tmp_path: Any) -> None:
    for seed in range(3):
        opts = Options(async_flush=seed != 1, policy=("rocketmq", "kip279", "hw")[seed])
        _differential(9000 + seed, 120, opts, storage="file", root=str(tmp_path / str(seed)))
    files = set(os.listdir(tmp_path / "0" / "p1"))
    assert {COMMIT_LOG_FILE, EPOCH_FILE} <= files, files


def test_write_outcomes_and_handshake_through_the_engine() -> None:
    impl = ImplSystem({"p1": "10.0.0.1", "p2": "10.0.0.2"}, Options(min_in_sync_replicas=2))
    for p in ("p1", "p2"):
        for tag in ("CreateTempFile", "SendApplyBrokerId", "WriteMetaFile", "DeleteTempFile"):
            impl.step({"tag": tag, "process": p, "lost": False})
        impl.step({"tag": "SendRegister", "process": p, "lost": False})
        impl.step({"tag": "SendHeartbeat", "process": p})
    assert impl.step({"tag": "SendElectMaster", "process": "p1", "lost": False})["code"] == "SUCCESS"
    assert impl.step({"tag": "Write", "process": "p1"}) == {"code": "IN_SYNC_REPLICAS_NOT_ENOUGH"}
    impl.step({"tag": "SyncReplicaInfo", "process": "p2"})
    assert impl.step({"tag": "Handshake", "process": "p2"}) == {"code": "OK", "truncateOffset": 0}
    assert impl.step({"tag": "Expand", "process": "p1", "brokerId": 2, "lost": False})["code"] == "SUCCESS"
    assert impl.step({"tag": "AlterArrives", "process": "p1"}) == {"code": "SUCCESS"}
    assert impl.step({"tag": "Write", "process": "p1"}) == {"code": "SUCCESS", "msg": 1, "offset": 0}
    v = impl.variables()
    assert v["confirmOffset"]["p1"] == 0 and v["acked"] == frozenset()  # p2 has not acked yet
    impl.step({"tag": "Transfer", "process": "p2"})
    impl.step({"tag": "Ack", "process": "p2"})
    v = impl.variables()
    assert v["confirmOffset"] == {"p1": 1, "p2": 0} and v["acked"] == frozenset({1})
    assert v["epochFile"] == {"p1": [(1, 0)], "p2": [(1, 0)]}
    with pytest.raises(NotEnabled):
        impl.step({"tag": "Ack", "process": "p2"})  # nothing new to report
