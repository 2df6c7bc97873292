"""The search over worker processes (conformance/check/parallel.py): the counts (distinct, generated, depth) and the
counterexample are Checker.run's, with 2 and 3 workers, a fingerprint store spilling to disk, and a checkpoint
interrupted and resumed (in this process, and by Ctrl-C on ``autoswitch check``)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autoswitch.conformance.check.checker import Checker, CheckResult
from autoswitch.conformance.check.parallel import parallel_search
from autoswitch.conformance.check.search import How
from autoswitch.conformance.check.specconfig import load_spec_config
from autoswitch.conformance.check.store import FingerprintStore
from autoswitch.conformance.errors import InputError

_runs: dict[str, tuple[Checker, CheckResult]] = {}


def reference(name: str) -> tuple[Checker, CheckResult]:
    """The checker of spec/NAME.cfg and Checker.run's result (once per module)."""
    if name not in _runs:
        checker = Checker(load_spec_config(name))
        _runs[name] = checker, checker.run()
    return _runs[name]


def same(a: CheckResult, b: CheckResult) -> None:
    assert (a.distinct, a.generated, a.depth) == (b.distinct, b.generated, b.depth)
    assert (a.violation is None) == (b.violation is None)
    if a.violation is not None:
        assert b.violation is not None
        assert (a.violation.name, a.violation.kind, a.violation.states) == (b.violation.name, b.violation.kind, b.violation.states)


# a safe configuration and two negative controls (counts at the violation included)
@pytest.mark.parametrize(("name", "workers"), [("MC_dledger2", 2), ("MC_dledger2", 3), ("MC_neg_shortcut", 2),
                                               ("MC_neg_zeroack", 3), ("MC_ms_sync", 2)])
def test_workers_count_and_find_what_one_process_does(name: str, workers: int) -> None:
    checker, expected = reference(name)
    same(parallel_search(checker, How(workers=workers)), expected)


def test_a_store_spilling_to_disk_gives_the_same_counts(tmp_path: Path) -> None:
    checker, expected = reference("MC_dledger2")
    same(parallel_search(checker, How(workers=2, memory=50)), expected)
    checker, expected = reference("MC_neg_shortcut")
    same(parallel_search(checker, How(workers=2, memory=10)), expected)


def test_the_store_answers_from_memory_and_disk(tmp_path: Path) -> None:
    store = FingerprintStore(limit=3, folder=tmp_path)
    big = 1 << 70  # a fingerprint wider than SQLite's integers
    store.add([(1, None), (2, 1), (-5, 2)])
    assert store.spilled == 0
    store.add([(big, -5), (7, big)])
    assert (store.spilled, len(store)) == (5, 5)
    assert store.known([1, 2, 3, -5, big, 7, 8]) == {1, 2, -5, big, 7}
    assert [store.parent(x) for x in (1, 2, -5, big, 7)] == [None, 1, 2, -5, big]
    with pytest.raises(KeyError):
        store.parent(3)
    store.close()
    assert list(tmp_path.iterdir()) == []


def _interrupt_at(depth: int):
    def progress(p) -> None:
        if p.depth >= depth and not p.phase:
            raise KeyboardInterrupt

    return progress


def test_an_interrupted_search_resumes_from_its_checkpoint(tmp_path: Path) -> None:
    checker, expected = reference("MC_dledger2")
    with pytest.raises(KeyboardInterrupt):
        parallel_search(checker, How(workers=2, checkpoint=tmp_path, memory=300), _interrupt_at(6), every=0)
    assert '"depth": 6' in (tmp_path / "meta.json").read_text()
    phases: list[str] = []
    resumed = parallel_search(checker, How(workers=2, checkpoint=tmp_path, memory=300), lambda p: phases.append(p.phase), 0)
    assert phases[0] == "resumed at depth 6"
    same(resumed, expected)
    same(parallel_search(checker, How(workers=2, checkpoint=tmp_path)), expected)  # a finished search: its result again
    with pytest.raises(InputError, match="--workers 2"):
        parallel_search(checker, How(workers=3, checkpoint=tmp_path))
    other, _ = reference("MC_neg_shortcut")
    with pytest.raises(InputError, match="another configuration"):
        parallel_search(other, How(workers=2, checkpoint=tmp_path))


def test_a_checkpoint_of_a_negative_control_resumes_to_the_same_counterexample(tmp_path: Path) -> None:
    checker, expected = reference("MC_neg_shortcut")
    with pytest.raises(KeyboardInterrupt):
        parallel_search(checker, How(workers=3, checkpoint=tmp_path), _interrupt_at(4), every=0)
    same(parallel_search(checker, How(workers=3, checkpoint=tmp_path)), expected)


def test_a_foreign_checkpoint_folder_is_refused(tmp_path: Path) -> None:
    checker, _ = reference("MC_ms_sync")
    (tmp_path / "meta.json").write_text("not json")
    with pytest.raises(InputError, match="not a checkpoint"):
        parallel_search(checker, How(workers=2, checkpoint=tmp_path))


def test_liveness_runs_in_one_process_and_refuses_a_checkpoint(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    checker = Checker(load_spec_config("MC_live_ms"))
    expected = checker.run()
    got = parallel_search(checker, How(workers=2))
    assert "checked by one process" in capsys.readouterr().err
    assert (got.distinct, got.generated, got.depth, got.violation) == (expected.distinct, expected.generated, expected.depth,
                                                                       expected.violation)
    with pytest.raises(InputError, match="one process"):
        parallel_search(checker, How(workers=2, checkpoint=tmp_path))


_INITIAL = ("from autoswitch.conformance.check.checker import Checker\n"
            "from autoswitch.conformance.check.specconfig import load_spec_config\n"
            "print([fp for _, fp in Checker(load_spec_config('MC_dledger2')).initial()])")


def test_ctrl_c_on_check_leaves_a_checkpoint_the_same_command_resumes(tmp_path: Path) -> None:
    """A real SIGINT to ``autoswitch check --workers 2 --checkpoint``, then the same command: it resumes to the same
    counts: two processes compute the same fingerprints (fingerprint.py), whatever their hash seeds."""
    _, expected = reference("MC_dledger2")
    env = {**os.environ, "PYTHONHASHSEED": "random", "COLUMNS": "250"}
    assert len({subprocess.run([sys.executable, "-c", _INITIAL], env=env, capture_output=True, text=True,
                               check=True).stdout for _ in range(2)}) == 1
    command = [str(Path(sys.executable).parent / "autoswitch"), "check", "MC_dledger2", "--workers", "2",
               "--checkpoint", str(tmp_path / "ck"), "--out", str(tmp_path / "out")]
    meta = tmp_path / "ck" / "MC_dledger2" / "meta.json"
    first = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 120
    while not meta.exists() and first.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    first.send_signal(signal.SIGINT)
    out, _ = first.communicate(timeout=60)
    assert meta.exists(), out
    resumed = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    row = re.search(r"MC_dledger2 .*", resumed.stdout)
    assert row is not None, resumed.stdout
    assert f"{expected.distinct:,}" in row.group(0) and f"{expected.generated:,}" in row.group(0)


def _saved(tmp_path: Path):
    checker, expected = reference("MC_dledger2")
    with pytest.raises(KeyboardInterrupt):
        parallel_search(checker, How(workers=2, checkpoint=tmp_path), _interrupt_at(6), every=0)
    return checker, expected


def _meta(tmp_path: Path) -> dict:
    return json.loads((tmp_path / "meta.json").read_text())


@pytest.mark.parametrize(("damage", "names"), [
    (lambda d: (d / "w0.log").write_bytes((d / "w0.log").read_bytes()[:-7]), "w0.log"),  # truncated
    (lambda d: (d / "w1-6.frontier").write_bytes(b"\0" * (d / "w1-6.frontier").stat().st_size), "w1-6.frontier"),  # zeroed
    (lambda d: (d / "w0-6.frontier").unlink(), "w0-6.frontier"),  # missing
    (lambda d: (d / "meta.json").write_text(json.dumps({**_meta(d), "depth": 7})), "w0-7.frontier"),  # a raised depth
    (lambda d: (d / "meta.json").write_text(json.dumps({**_meta(d), "logs": [{**r, "log": r["log"] + 1} for r in _meta(d)["logs"]]})),
     "w0.log"),  # a raised length
])
def test_a_damaged_checkpoint_is_refused_naming_its_file(tmp_path: Path, damage, names: str) -> None:
    """Issue 40: a damaged checkpoint exited 3 or was accepted; now it is refused (exit 2) naming the file."""
    checker, _ = _saved(tmp_path)
    damage(tmp_path)
    with pytest.raises(InputError, match=f"{names}: a damaged checkpoint"):
        parallel_search(checker, How(workers=2, checkpoint=tmp_path))


def test_a_crafted_frontier_cannot_run_code_and_is_refused(tmp_path: Path) -> None:
    """A frontier holding a pickle (which would run code when unpickled) or a value that is no state, with meta.json's
    digest made to match: read as data, refused naming the file; nothing runs."""
    import pickle

    from autoswitch.conformance.check.store import file_digest

    class Boom:
        def __reduce__(self):
            return (open, (str(tmp_path / "ran"), "w"))

    for content in (pickle.dumps([Boom()]), json.dumps([[0, {"@": "os.system", "f": ["true"]}, 1]]).encode(),
                    json.dumps([[0, 0, 1]]).encode()):
        checker, _ = _saved(tmp_path / str(len(content)))
        folder = tmp_path / str(len(content))
        (folder / "w0-6.frontier").write_bytes(content)
        meta = _meta(folder)
        meta["logs"][0].update(frontierDigest=file_digest(folder / "w0-6.frontier"), frontier=1)
        (folder / "meta.json").write_text(json.dumps(meta))
        with pytest.raises(InputError, match="w0-6.frontier"):
            parallel_search(checker, How(workers=2, checkpoint=folder))
    assert not (tmp_path / "ran").exists()
