"""z3 over every pair of logs within the bounds: rocketmq and kip279 with Kafka 2.1.0's election entry
never truncate past the longest common prefix; kip101, kip279 (Kafka 2.0.0) and hw do, and z3's inputs
make the reference's own functions do it too."""

from __future__ import annotations

import pytest

from autoswitch.conformance.errors import InputError
from autoswitch.conformance.z3.truncation import agrees_with_reference, check, reference_point

BOUND, EPOCHS = 6, 4


@pytest.mark.parametrize("policy", ["rocketmq", "kip279-2.1"])
def test_safe_policies_are_proved(policy: str) -> None:
    verdict = check(policy, BOUND, EPOCHS)
    assert verdict.proved, verdict.example


@pytest.mark.parametrize("policy", ["kip101", "kip279", "hw"])
def test_unsafe_policies_have_a_counterexample_the_reference_confirms(policy: str) -> None:
    verdict = check(policy, BOUND, EPOCHS)
    assert not verdict.proved
    example = verdict.example
    assert reference_point(policy, example) == example["point"] > example["lcp"]
    if policy != "hw":  # the follower's newest epoch is not on the leader, which answers UNDEFINED: back to the HW
        assert example["followerEpochs"][-1][0] not in [e for e, _ in example["leaderEpochs"]]


@pytest.mark.parametrize("policy", ["rocketmq", "kip279", "kip279-2.1", "kip101", "hw"])
def test_encoding_agrees_with_the_reference(policy: str) -> None:
    """The symbolic policies compute the reference's point on 100 distinct inputs each."""
    assert agrees_with_reference(policy, 5, 3, 100) == 100


@pytest.mark.parametrize("bound, epochs", [(0, 4), (-1, 4), (6, 0)])
def test_empty_bounds_are_refused_not_proved(bound: int, epochs: int) -> None:
    """With no log of one entry every policy was "proved", the unsafe ones too (issue 10: --bound -1)."""
    with pytest.raises(InputError, match="at least 1"):
        check("kip101", bound, epochs)
