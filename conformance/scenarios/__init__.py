"""The hand-written scenario corpus (SCENARIOS.md): ``builder`` (Scenario, Cluster), then one module a
family: ``controller`` (C*, B*), ``data_path`` (T*, K*), ``code`` (code-shaped controller traces),
``components`` (epoch-file, handshake, retention vectors), ``kinds`` (trace-only kinds), ``faults`` (MODEL.md §9),
``rocketmq`` (the model's findings about RocketMQ, replayed on its own classes).
``autoswitch scenarios`` writes them all; a test checks the committed traces are exactly these."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from autoswitch.conformance.scenarios.builder import Scenario
from autoswitch.conformance.scenarios.code import CODE_SCENARIOS
from autoswitch.conformance.scenarios.components import COMPONENT_SCENARIOS
from autoswitch.conformance.scenarios.controller import SCENARIOS
from autoswitch.conformance.scenarios.data_path import DATA_SCENARIOS
from autoswitch.conformance.scenarios.faults import FAULT_SCENARIOS
from autoswitch.conformance.scenarios.kinds import KIND_SCENARIOS
from autoswitch.conformance.scenarios.rocketmq import ROCKETMQ_SCENARIOS
from autoswitch.conformance.trace.itf import write_trace


def all_scenarios() -> dict[str, Callable[[], Scenario]]:
    """Every scenario by its path under ``traces/`` (without ``.itf.json``)."""
    return {**SCENARIOS, **DATA_SCENARIOS, **COMPONENT_SCENARIOS, **CODE_SCENARIOS, **KIND_SCENARIOS, **FAULT_SCENARIOS,
            **ROCKETMQ_SCENARIOS}


def write_scenarios(root: str | Path) -> list[Path]:
    """Write every scenario as ``<root>/<group>/<name>.itf.json``; returns the paths."""
    paths = []
    for rel, build in all_scenarios().items():
        s = build()
        path = Path(root) / f"{rel}.itf.json"
        write_trace(path, s.meta(), s.states)
        paths.append(path)
    return paths
