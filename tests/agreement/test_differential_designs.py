"""The implementation of the designs RIP-44 replaced (impl/master_slave.py, impl/dledger.py) against the reference
(reference/masterslave.py, reference/dledger.py) on seeded random walks over each design's Next
(conformance/explore.py ``next_actions``): every step is checked on both engines (enabledness, outcome, every
variable, brokerRole and term among them). Each walk mostly takes an enabled action, sometimes a disabled one (both
must refuse it); crashes are rarer than the rest so that the walks get far."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from autoswitch.conformance.engines import Config, make_engine
from autoswitch.conformance.engines.reference import ReferenceEngine
from autoswitch.conformance.explore import check_step, next_actions
from autoswitch.impl.dledger import CURR_TERM_FILE
from autoswitch.impl.store_config import STORE_CONFIG_FILE
from autoswitch.reference import NotEnabled, Options
from autoswitch.reference.actions import WRITE_TAGS
from autoswitch.reference.state import DLEDGER, MASTER_SLAVE
from autoswitch.reference.step import step

MAX_MSGS = 5
_RARE = {"Crash": 0.15, "MsRestart": 0.5, "DlRestart": 0.5, "OperatorFailover": 0.5, "PartitionLink": 0.1, "HealLink": 0.3}


class _Domains:
    """What next_actions ranges over, for one design (a SpecConfig's Domains)."""

    faults: frozenset[str] = frozenset()

    def __init__(self, processes: dict[str, str], design: str):
        self.processes = tuple(processes)
        self.addrs = {p: (a,) for p, a in processes.items()}
        self.broker_ids = tuple(range(1, len(processes) + 1))
        self.design = design

    def switch(self, name: str) -> bool:
        return name == "DataPath"

    def bound(self, name: str) -> int:
        return MAX_MSGS


def _walk(design: str, n: int, seed: int, length: int, opts: Options, partitions: bool = False, **impl_kwargs: Any
          ) -> Counter[tuple[str, str]]:
    """``length`` checked steps of one seeded walk; returns how often each (tag, outcome code) was taken."""
    processes = {f"p{i}": f"10.0.0.{i}" for i in range(1, n + 1)}
    config = Config(processes, opts)
    ref, impl = ReferenceEngine(config), make_engine("impl", config, **impl_kwargs)
    assert impl.variables() == ref.variables()
    actions = next_actions(_Domains(processes, design))
    if partitions:  # the network's faults, which every design's replication reads (not in the designs' Next)
        actions += [{"tag": "PartitionLink", "process": p, "peer": q, "lost": lost} for p in processes for q in processes
                    if p < q for lost in (False, True)]
        actions += [{"tag": "HealLink", "process": p, "peer": q} for p in processes for q in processes if p < q]
    rng = random.Random(seed)
    taken: Counter[tuple[str, str]] = Counter()
    for i in range(1, length + 1):
        candidates = [a for a in actions if a["tag"] not in WRITE_TAGS or ref.state.next_msg <= MAX_MSGS]
        enabled = [a for a in candidates if _enabled(ref, a, opts)]
        if enabled and rng.random() < 0.9:
            action = rng.choices(enabled, [_RARE.get(a["tag"], 1.0) for a in enabled])[0]
        else:
            action = rng.choice(candidates)
        outcome = _outcome(ref, action, opts)
        failure, after = check_step(ref, impl, action, i, None, {})
        assert failure is None, (design, n, seed, failure)
        if after is not None:
            taken[action["tag"], outcome] += 1
    return taken


def _outcome(ref: ReferenceEngine, action: dict[str, Any], opts: Options) -> str:
    """The code of ``action``'s outcome on the reference's state, "" when it is not enabled."""
    try:
        return str(step(ref.state, action, opts)[1]["code"])
    except NotEnabled:
        return ""


def _enabled(ref: ReferenceEngine, action: dict[str, Any], opts: Options) -> bool:
    return _outcome(ref, action, opts) != ""


MS_SYNC = Options(design=MASTER_SLAVE)
MS_ASYNC = Options(design=MASTER_SLAVE, sync_master=False)
CASES = [
    ("ms-sync-2", 2, MS_SYNC),
    ("ms-sync-3-gap3", 3, Options(design=MASTER_SLAVE, ha_max_gap=3, slave_not_available_ok=False)),
    ("ms-async-2", 2, MS_ASYNC),
    ("ms-sync-2-asyncflush", 2, Options(design=MASTER_SLAVE, async_flush=True)),
    ("dledger-2", 2, Options(design=DLEDGER)),
    ("dledger-3", 3, Options(design=DLEDGER)),
    ("dledger-3-asyncflush", 3, Options(design=DLEDGER, async_flush=True)),
]


@pytest.mark.parametrize(("name", "n", "opts"), CASES, ids=[c[0] for c in CASES])
def test_random_walks_agree_step_for_step(name: str, n: int, opts: Options) -> None:
    taken = sum((_walk(opts.design, n, seed, 150, opts) for seed in range(3)), Counter())
    codes = {code for _, code in taken}
    assert "SUCCESS" in codes
    if opts.design == MASTER_SLAVE and opts.sync_master:  # a SYNC_MASTER's answers besides SUCCESS
        assert {"SLAVE_NOT_AVAILABLE", "FLUSH_SLAVE_TIMEOUT"} <= codes
    design_tags = {a["tag"] for a in next_actions(_Domains({f"p{i}": "x" for i in range(1, n + 1)}, opts.design))}
    if not opts.async_flush:
        design_tags.discard("Flush")  # every append is flushed at once
    if not opts.sync_master:
        design_tags.discard("MsSlaveTimeout")  # an ASYNC_MASTER never waits
    # the walks reach every action of the design (a walk that never writes or never fails over checks little)
    assert {tag for tag, _ in taken} == design_tags, sorted(design_tags - {tag for tag, _ in taken})


@pytest.mark.parametrize("opts", [MS_SYNC, Options(design=DLEDGER)], ids=["masterslave", "dledger"])
def test_the_file_backend_agrees_and_keeps_role_and_term_on_disk(tmp_path: Any, opts: Options) -> None:
    _walk(opts.design, 3, 7, 120, opts, storage="file", root=str(tmp_path))
    conf = (tmp_path / "p1" / STORE_CONFIG_FILE).read_text()
    assert ("enableDLegerCommitLog=true" in conf) == (opts.design == DLEDGER)
    if opts.design == DLEDGER:
        assert any((tmp_path / p / CURR_TERM_FILE).exists() for p in ("p1", "p2", "p3"))


def test_a_crash_keeps_the_configured_role_and_the_term() -> None:
    config = Config({"p1": "a", "p2": "b", "p3": "c"}, Options(design=DLEDGER))
    ref, impl = ReferenceEngine(config), make_engine("impl", config)
    for action in ({"tag": "DlElect", "process": "p2"}, {"tag": "Crash", "process": "p2"}):
        assert impl.step(action) == ref.step(action)
    got = impl.variables()
    assert got == ref.variables()
    assert got["term"]["p2"] == 1 and got["brokerRole"]["p2"] == "DLEDGER" and got["regState"]["p2"] == "DOWN"


def test_the_known_4x_loss_agrees_on_both_engines() -> None:
    """4.x SYNC_MASTER: a write answered SLAVE_NOT_AVAILABLE (producers take it), the master crashes, the operator
    fails over to the empty slave: the acknowledged message is gone from every running master."""
    config = Config({"p1": "a", "p2": "b"}, MS_SYNC)
    ref, impl = ReferenceEngine(config), make_engine("impl", config)
    actions = [{"tag": "MsWrite", "process": "p1"}, {"tag": "Crash", "process": "p1"},
               {"tag": "OperatorFailover", "process": "p2"}]
    assert impl.step(actions[0]) == ref.step(actions[0]) == {"code": "SLAVE_NOT_AVAILABLE", "msg": 1, "offset": 0}
    for i, action in enumerate(actions[1:], start=2):
        failure, _ = check_step(ref, impl, action, i, None, {})
        assert failure is None, failure
    after = impl.variables()
    assert after == ref.variables()
    assert after["acked"] == {1} and after["brokerRole"] == {"p1": "SLAVE", "p2": "MASTER"} and after["log"]["p2"] == []


@pytest.mark.parametrize(("name", "n", "opts"), [c for c in CASES if c[1] == 3], ids=[c[0] for c in CASES if c[1] == 3])
def test_random_walks_with_cut_links_agree(name: str, n: int, opts: Options) -> None:
    """A cut link makes stale DLedger leaders (a push then meets a later term: EXPIRED_TERM) and idle 4.x slaves."""
    taken = sum((_walk(opts.design, n, seed, 150, opts, partitions=True) for seed in range(3)), Counter())
    assert taken["PartitionLink", "OK"] > 0 and taken["HealLink", "OK"] > 0
    if opts.design == DLEDGER:
        assert taken["DlPush", "EXPIRED_TERM"] > 0
