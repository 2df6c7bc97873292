"""The campaign strategies side by side (``autoswitch bench --campaigns``): per negative control, the same walks (seed,
length, walk indices, chunks) under the strategy of before (fixed weights, no guidance), under swarm testing (swarm.py,
the default) and under swarm testing with coverage guidance (guide.py), in this process, one after the other: failing walks per thousand and the
walks, steps and seconds up to the first failing walk. Walks are run and checked as in a campaign (both engines), not
shrunk."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from attrs import frozen

from autoswitch.conformance import controls
from autoswitch.conformance.controls import grid
from autoswitch.conformance.simulation.guide import Guide
from autoswitch.conformance.simulation.spark import Campaign, checked_walk

STRATEGIES = {"before": (False, False), "swarm": (True, False), "swarm+guide": (True, True)}


def negative_controls() -> tuple[str, ...]:
    """Every simulation configuration of a negative control in controls.py (safety and liveness), in table order."""
    return tuple(dict.fromkeys(c.simulation for c in controls.CONTROLS if c.simulation and c.expects))


@frozen
class StrategyResult:
    """One configuration under one strategy: ``first`` is (walks, steps, seconds) up to and including the first walk
    failing with the control, None if none did."""

    config: str
    strategy: str
    walks: int
    failing: int
    seconds: float
    first: tuple[int, int, float] | None
    states: int

    @property
    def per_mille(self) -> float:
        return 1000 * self.failing / self.walks


def run_strategy(config: str, strategy: str, walks: int, length: int, seed: int, chunk: int = 100) -> StrategyResult:
    """``walks`` walks of ``config`` under ``strategy`` (STRATEGIES), counting those that fail with its control."""
    swarm, guide = STRATEGIES[strategy]
    campaign = Campaign(seed, walks, length, (config,), chunk, swarm=swarm, guide=guide)
    sim = grid()[config]
    start = time.perf_counter()
    failing, steps, first, seen = 0, 0, None, set()
    corpus = Guide()
    for walk in range(walks):
        if walk % chunk == 0:
            corpus = Guide()
        _, run, _ = checked_walk(campaign, sim, walk, corpus)
        steps += len(run.actions)
        seen.update(run.states)
        if run.failure is not None and run.failure.name == sim.control:
            failing += 1
            first = first or (walk + 1, steps, round(time.perf_counter() - start, 2))
    return StrategyResult(config, strategy, walks, failing, round(time.perf_counter() - start, 2), first, len(seen))


def compare(configs: Sequence[str], walks: int, length: int, seed: int,
            done: Callable[[StrategyResult], None] = lambda r: None) -> list[StrategyResult]:
    """Every configuration under every strategy, in that order (``done`` is told of each result as it comes)."""
    out = []
    for config in configs:
        for strategy in STRATEGIES:
            out.append(result := run_strategy(config, strategy, walks, length, seed))
            done(result)
    return out
