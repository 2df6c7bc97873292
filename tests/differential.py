"""The differential loop the implementation's tests share: one random sequence of actions on the
reference and the implementation, compared after every step (enabledness, outcome, variables)."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from autoswitch.impl.engine import ImplSystem
from autoswitch.reference import NotEnabled, Options, initial_system, step
from autoswitch.reference.state import System
from autoswitch.reference.variables import variables

PROCESSES = {"p1": "10.0.0.1", "p2": "10.0.0.2", "p3": "10.0.0.3"}


def differential(seed: int, length: int, opts: Options, draw: Callable[[random.Random, System], dict[str, Any]],
                 **impl_kwargs: Any) -> list[str]:
    """Up to ``length`` enabled actions drawn by ``draw``; a disabled draw must be refused by both.
    Returns the tags of the actions taken."""
    rng = random.Random(seed)
    ref = initial_system(PROCESSES)
    impl = ImplSystem(PROCESSES, opts, **impl_kwargs)
    assert impl.variables() == variables(ref)
    taken: list[str] = []
    for _ in range(length * 4):
        if len(taken) == length:
            break
        action = draw(rng, ref)
        try:
            ref, expected = step(ref, action, opts)
        except NotEnabled:
            with pytest.raises(NotEnabled):
                impl.step(action)
            continue
        taken.append(action["tag"])
        assert impl.step(action) == expected, (seed, len(taken), action)
        assert impl.variables() == variables(ref), (seed, len(taken), action)
    return taken
