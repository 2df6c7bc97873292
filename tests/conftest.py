"""The ``slow`` marker: every test under ``tests/tools/`` (TLC, Apalache, the long searches) and ``tests/cluster/``
(real clusters, a minute or more each) is slow (tests/README.md). The folders whose tests start RocketMQ's own JVMs,
built by Maven, skip without java or mvn, saying what was not checked."""

from pathlib import Path

import pytest

from autoswitch.conformance.rocketmq.jvm import unavailable_reason

HERE = Path(__file__).resolve().parent
SLOW = (HERE / "tools", HERE / "cluster")
NEED_JAVA = {  # folder -> what its tests check, NOT checked without java and mvn
    HERE / "rocketmq": "the model was NOT checked against RocketMQ's own classes (the rocketmq engine: the corpus, the "
                       "findings, the harness's failure handling)",
    HERE / "cluster": "NOT checked: a real RocketMQ cluster under faults (autoswitch cluster run: the smoke run's verdict "
                      "and counts, and that no process outlives the command)",
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    problem = unavailable_reason()
    for item in items:
        if any(folder in item.path.parents for folder in SLOW):
            item.add_marker(pytest.mark.slow)
        for folder, not_checked in NEED_JAVA.items():
            if problem is not None and folder in item.path.parents:
                item.add_marker(pytest.mark.skip(reason=f"{problem}: {not_checked}"))
