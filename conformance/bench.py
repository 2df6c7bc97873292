"""Side-by-side throughput of the reference model, the implementation (and the rocketmq engine) on one generated corpus.

Both engines apply the same actions from the same Init states in the same run, so the ratio is
meaningful on a shared, noisy machine; each engine is timed ``rounds`` times, interleaved, and the best
round counts (the least disturbed one)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from attrs import frozen

from autoswitch.conformance.engines import KINDS, Config, make_engine
from autoswitch.conformance.simulation.generate import random_walk


@frozen
class BenchRow:
    engine: str
    steps: int
    seconds: float

    @property
    def rate(self) -> float:
        return self.steps / self.seconds


def corpus(processes: int, walks: int, length: int, seed: int, data: bool = False,
           real: bool = False) -> tuple[Config, list[list[dict[str, Any]]]]:
    """``walks`` seeded random walks of ``length`` steps over ``processes`` broker processes; with
    ``data`` the walks write, replicate and change the syncStateSet (MODEL.md §5); with ``real`` none of them takes a
    request the model answers differently from RocketMQ on purpose (rocketmq/findings.py REFINEMENTS)."""
    config = Config({f"p{i}": f"10.0.0.{i}:30911" for i in range(1, processes + 1)})
    avoid = None
    if real:
        from autoswitch.conformance.rocketmq.findings import refinement_of

        avoid = refinement_of
    return config, [random_walk(config, seed * 1_000_003 + w, length, data, avoid) for w in range(walks)]


def _time(kind: str, config: Config, walks: list[list[dict[str, Any]]], with_variables: bool) -> float:
    start = time.perf_counter()
    for walk in walks:
        engine = make_engine(kind, config)
        step = engine.step
        for action in walk:
            step(action)
            if with_variables:
                engine.variables()
    return time.perf_counter() - start


def run_bench(config: Config, walks: list[list[dict[str, Any]]], rounds: int = 3, with_variables: bool = False,
              kinds: Sequence[str] = KINDS) -> list[BenchRow]:
    """Each engine of ``kinds`` (the reference first: the ratios are to it) over the same walks, ``rounds`` times."""
    steps = sum(map(len, walks))
    best = {kind: float("inf") for kind in kinds}
    for _ in range(rounds):
        for kind in kinds:
            best[kind] = min(best[kind], _time(kind, config, walks, with_variables))
    return [BenchRow(kind, steps, best[kind]) for kind in kinds]
