"""The implementation against the reference on random controller and registration sequences (differential.py)."""

from __future__ import annotations

import os
import random
from typing import Any

import pytest
from differential import PROCESSES, differential

from autoswitch.conformance.engines.impl import ImplSystem
from autoswitch.reference import NotEnabled, Options
from autoswitch.reference.actions import (
    ACTIONS,
    ADDR,
    BROKER_IDS,
    CONTROLLER,
    LOST,
    PROCESS,
    PROCESS_GROUP,
    SCAN,
    TRIGGERS,
    Kind,
    record,
    tags,
)
from autoswitch.reference.state import NO_MASTER, System

IDS = (1, 2, 3, 4)
_PROCESS_TAGS = (*tags(PROCESS_GROUP), "SendHeartbeat")  # the action table's, heartbeats twice as often
_CONTROLLER_TAGS = tags(CONTROLLER, SCAN)


def _subset(rng: random.Random, p: float) -> frozenset[int]:
    return frozenset(b for b in IDS if rng.random() < p)


def _new_sync_state_set(rng: random.Random, s: System) -> frozenset[int]:
    """Mostly a plausible proposal (the master plus some alive ids), sometimes any set."""
    c = s.controller
    if rng.random() < 0.3:
        return _subset(rng, 0.5)
    return frozenset(b for b in c.alive if b in c.replicas and rng.random() < 0.7) | {c.master_id} - {NO_MASTER}


def random_action(rng: random.Random, s: System) -> dict[str, Any]:
    """A random action record of the action table (reference/actions.py); parameters are partly taken from the state so that
    fenced requests also succeed sometimes. Not necessarily enabled."""
    c = s.controller
    if rng.random() < 0.7:
        tag = rng.choice(_PROCESS_TAGS)
        kinds = set(ACTIONS[tag].params.values())
        values: dict[Kind, Any] = {PROCESS: rng.choice(tuple(PROCESSES))}
        if LOST in kinds:
            values[LOST] = rng.random() < 0.2
        if BROKER_IDS in kinds:
            values[BROKER_IDS] = _new_sync_state_set(rng, s)
        if ADDR in kinds:
            values[ADDR] = f"10.0.{rng.randrange(3)}.{rng.randrange(1, 4)}"
        return record(tag, values)
    tag = rng.choice(_CONTROLLER_TAGS)
    b = rng.choice(IDS)
    if tag == "ApplyBrokerId":
        return {"tag": tag, "brokerId": b, "checkCode": f"10.0.0.{rng.randrange(1, 4)};{rng.randrange(3)}"}
    if tag == "RegisterBrokerToController":
        return {"tag": tag, "brokerId": b, "addr": f"10.0.0.{rng.randrange(1, 4)}"}
    if tag == "ElectMaster":
        trigger = rng.choice(TRIGGERS)
        return {"tag": tag, "trigger": trigger, "brokerId": NO_MASTER if trigger == "controller" else b}
    if tag == "AlterSyncStateSet":
        exact = rng.random() < 0.7
        return {
            "tag": tag,
            "masterId": c.master_id if exact else b,
            "masterEpoch": c.master_epoch if exact else rng.randrange(3),
            "newSyncStateSet": _new_sync_state_set(rng, s),
            "syncStateSetEpoch": c.sync_state_set_epoch if rng.random() < 0.8 else rng.randrange(3),
        }
    if tag == "BrokerHeartbeat":
        return {"tag": tag, "brokerId": b, "epoch": rng.randrange(2), "maxOffset": rng.randrange(2), "priority": rng.randrange(3)}
    if tag == "HeartbeatExpire":
        return {"tag": tag, "brokerId": b}
    if tag == "CleanBrokerData":
        return {"tag": tag, "brokerIds": _subset(rng, 0.3), "cleanLiving": rng.random() < 0.3}
    return record(tag, {})


def _differential(seed: int, length: int, unclean: bool, **impl_kwargs: Any) -> int:
    """One random controller and registration sequence on both models (tests/agreement/differential.py)."""
    return len(differential(seed, length, Options(enable_elect_unclean_master=unclean), random_action, **impl_kwargs))


@pytest.mark.parametrize("unclean", [False, True])
def test_differential_against_reference(unclean: bool) -> None:
    assert sum(_differential(seed, 80, unclean) for seed in range(300)) > 300 * 70


def test_differential_with_file_backend(tmp_path: Any) -> None:
    for seed in range(3):
        _differential(1000 + seed, 60, False, storage="file", root=str(tmp_path / str(seed)))
    assert {p for p in os.listdir(tmp_path / "0")} == set(PROCESSES)


def test_unknown_tag_and_process_are_not_enabled() -> None:
    impl = ImplSystem(PROCESSES)
    with pytest.raises(NotEnabled, match="unknown action tag"):
        impl.step({"tag": "Nope"})
    with pytest.raises(NotEnabled, match="unknown process"):
        impl.step({"tag": "LoadMetaFile", "process": "p9"})
