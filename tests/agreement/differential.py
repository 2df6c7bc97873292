"""The differential loop the implementation's tests share: one random sequence of actions on the
reference and the implementation, each a checked step (conformance/explore.py: enabledness, outcome,
variables)."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from autoswitch.conformance.engines import Config, make_engine
from autoswitch.conformance.engines.reference import ReferenceEngine
from autoswitch.conformance.explore import check_step
from autoswitch.reference import Options
from autoswitch.reference.state import System

PROCESSES = {"p1": "10.0.0.1", "p2": "10.0.0.2", "p3": "10.0.0.3"}


def differential(seed: int, length: int, opts: Options, draw: Callable[[random.Random, System], dict[str, Any]],
                 **impl_kwargs: Any) -> list[str]:
    """Up to ``length`` enabled actions drawn by ``draw`` from the reference's state; a disabled draw must
    be refused by both. Returns the tags of the actions taken."""
    rng = random.Random(seed)
    config = Config(PROCESSES, opts)
    ref, impl = ReferenceEngine(config), make_engine("impl", config, **impl_kwargs)
    assert impl.variables() == ref.variables()
    taken: list[str] = []
    for _ in range(length * 4):
        if len(taken) == length:
            break
        action = draw(rng, ref.state)
        failure, after = check_step(ref, impl, action, len(taken) + 1, None, {})
        assert failure is None, (seed, failure, action)
        if after is not None:
            taken.append(action["tag"])
    return taken
