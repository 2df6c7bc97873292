"""Each refinement the differential walks avoid is a real difference: on its witness the reference and RocketMQ's own
controller agree up to the last request, which the refinement covers and which they answer differently."""

from __future__ import annotations

import pytest

from autoswitch.conformance.engines import REAL, Config, make_engine
from autoswitch.conformance.rocketmq.findings import REFINEMENTS, Refinement, refinement_of


@pytest.mark.parametrize("refinement", REFINEMENTS, ids=lambda r: r.name)
def test_the_refinement_is_a_difference_on_the_real_code(refinement: Refinement) -> None:
    ref, real = make_engine("reference", Config({})), make_engine(REAL, Config({}))
    *before, last = refinement.witness
    for action in before:
        assert refinement_of(ref.state, action) is None
        assert ref.step(action) == real.step(action)
        assert ref.variables() == real.variables()
    assert refinement_of(ref.state, last) is refinement
    assert ref.step(last)["code"] != real.step(last)["code"]
