"""The rocketmq engine's tests need java and mvn (the harness is built by Maven against RocketMQ's released artifacts);
without them they skip, saying what was not checked."""

from __future__ import annotations

import pytest

from autoswitch.conformance.rocketmq.jvm import unavailable_reason


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    problem = unavailable_reason()
    if problem is None:
        return
    skip = pytest.mark.skip(reason=f"{problem}: the model was NOT checked against RocketMQ's own classes (the rocketmq "
                                   "engine: the corpus, the findings, the harness's failure handling)")
    for item in items:
        if "tests/rocketmq/" in item.nodeid:
            item.add_marker(skip)
