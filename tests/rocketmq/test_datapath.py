"""The model's data-path findings on RocketMQ's own stores (conformance/rocketmq/datapath.py): each shows on the
releases that have the code it is about, and the one 5.4.0 brought does not show on 5.3.3."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from autoswitch.conformance.cli import main
from autoswitch.conformance.rocketmq.datapath import BY_NAME, run_finding


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
])
def test_the_finding_shows_on_the_releases_with_its_code(name: str, version: str, shown: bool) -> None:
    result, seen = run_finding(BY_NAME[name], version)
    assert result == shown, seen


def test_a_kept_old_epoch_makes_two_replicas_differ_at_one_offset() -> None:
    _, seen = run_finding(BY_NAME["handshake-keeps-the-old-epoch"], "5.5.1")
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

    _, seen = run_finding(BY_NAME["sync-from-last-file-at-a-full-file"], "5.5.1")
    a, b = seen["A"]["bytes"], seen["B after six messages"]["bytes"]
    assert b["minPhyOffset"] == a["offsets"][last_file_start(6, 3)] == a["fileSize"]  # message 3 starts the second file
    assert seen["B after six messages"]["log"] == seen["A"]["log"][3:6]


def test_a_member_that_reported_zero_is_skipped_and_each_report_recomputes() -> None:
    _, seen = run_finding(BY_NAME["zero-ack-skipped"], "5.5.1")
    assert seen["A with B connected"]["acks"] == {2: 0} and seen["B"]["log"] == []
    assert [seen["A after learning {A, B}"]["confirmOffset"], seen["A after B reports 0 again"]["confirmOffset"]] == [1, 2]
