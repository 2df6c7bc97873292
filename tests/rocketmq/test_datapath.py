"""The model's data-path findings on RocketMQ's own stores (conformance/rocketmq/datapath.py): each shows on the
releases that have the code it is about, and the one 5.4.0 brought does not show on 5.3.3."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from autoswitch.conformance.cli import main
from autoswitch.conformance.rocketmq.datapath import BY_NAME, DataPath
from autoswitch.conformance.rocketmq.jvm import session

_RUNS: dict[tuple[object, str], dict] = {}


def _seen(name: str, version: str) -> dict:
    """What the stores showed in ``name``'s scenario on ``version``: each scenario runs once per release, also when
    two findings read it (zero-ack and repeated ack) or a test reads it again."""
    finding = BY_NAME[name]
    key = (finding.run, version)
    if key not in _RUNS:
        _RUNS[key] = finding.run(DataPath(session(version), name))
    return _RUNS[key]


@pytest.mark.parametrize(("name", "version", "shown"), [
    ("handshake-keeps-the-old-epoch", "5.5.1", True),
    ("handshake-keeps-the-old-epoch", "5.3.3", False),
    ("confirm-offset-during-expansion", "5.5.1", True),
    ("confirm-offset-during-expansion", "5.3.3", True),
    ("zero-ack-skipped", "5.5.1", True),
    ("zero-ack-skipped", "5.1.1", True),
    ("repeated-ack-recomputes", "5.5.1", True),
    ("sync-from-last-file-at-a-full-file", "5.5.1", True),
    ("slave-stuck-after-failover-before-first-copy", "5.5.1", True),
    ("slave-learns-the-epoch-from-a-heartbeat", "5.5.1", True),
    ("epoch-reentry-diverges", "5.3.3", True),
    ("second-expansion-replaces-the-first", "5.5.1", True),
    ("second-expansion-replaces-the-first", "5.3.3", True),
    # the upstream fixes of 5.1.1 (#5663, #6662), on the stores of 5.1.0 (the release before) and after
    ("expand-without-union", "5.1.0", True),
    ("expand-without-union", "5.5.1", False),
    ("confirm-offset-past-a-gone-member", "5.1.0", True),
    ("confirm-offset-past-a-gone-member", "5.1.1", False),
    # 5.4.0's local shrink
    ("shrink-before-the-answer", "5.5.1", True),
    ("shrink-before-the-answer", "5.3.3", False),
])
def test_the_finding_shows_on_the_releases_with_its_code(name: str, version: str, shown: bool) -> None:
    seen = _seen(name, version)
    result = BY_NAME[name].shows(seen)
    assert result == shown, seen


def test_a_kept_old_epoch_makes_two_replicas_differ_at_one_offset() -> None:
    seen = _seen("handshake-keeps-the-old-epoch", "5.5.1")
    a, c = seen["A as master"], seen["C after its handshake with A"]
    assert seen["A after its handshake with B"]["epochs"] == [(1, 0), (2, 2)]  # epoch 3's entry (3, 2) refused
    assert a["log"][2] != c["log"][2] and a["log"][3] == c["log"][3]


def test_the_command_prints_each_finding_and_its_verdict() -> None:
    result = CliRunner().invoke(main, ["findings", "--only", "confirm-offset-during-expansion"])
    assert result.exit_code == 0, result.output[-2000:]
    assert "confirm-offset-during-expansion" in result.output and "yes" in result.output


def test_a_new_slave_from_the_last_file_gets_the_full_last_file() -> None:
    """The model's rule (reference/retention.py) where the real store put the new slave's first message."""
    from autoswitch.reference.retention import last_file_start

    seen = _seen("sync-from-last-file-at-a-full-file", "5.5.1")
    a, b = seen["A"]["bytes"], seen["B after six messages"]["bytes"]
    assert b["minPhyOffset"] == a["offsets"][last_file_start(6, 3)] == a["fileSize"]  # message 3 starts the second file
    assert seen["B after six messages"]["log"] == seen["A"]["log"][3:6]


def test_a_member_that_reported_zero_is_skipped_and_each_report_recomputes() -> None:
    seen = _seen("zero-ack-skipped", "5.5.1")
    assert seen["A with B connected"]["acks"] == {2: 0} and seen["B"]["log"] == []
    assert [seen["A after learning {A, B}"]["confirmOffset"], seen["A after B reports 0 again"]["confirmOffset"]] == [1, 2]


def test_a_put_acknowledged_without_a_listed_member_is_lost_when_it_is_elected() -> None:
    seen = _seen("shrink-before-the-answer", "5.5.1")
    assert seen["A"]["log"] == ["m000000", "m000001"] and seen["A"]["localSyncStateSet"] == [1]
    assert seen["B elected"]["log"] == ["m000000"]
