"""A resumed simulation campaign (in one process, no Spark): damaged, foreign and unfinished chunks are
run again and end with the rows of a clean run, never counted twice, never a crash; reading rows skips
and reports them; the output folder is checked before any work; parameters out of range, weights that
leave nothing to draw and paths leading out of the folder are refused (InputError)."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from autoswitch.conformance.controls import select
from autoswitch.conformance.errors import InputError
from autoswitch.conformance.simulation import store
from autoswitch.conformance.simulation.campaign import FAULT_MOVES, MOVES, parse_weights
from autoswitch.conformance.simulation.report import write_report
from autoswitch.conformance.simulation.spark import Campaign, RunStats, check_master, run_campaign

# walk 3 of unclean-rocketmq-2p (in TARGET) finds its control: the chunk holds a shrunk trace too (the walks draw no fault
# of MODEL.md §9: the same walks whether or not the action table has them; no swarm, no guidance: the walks of before)
NO_NEW_FAULTS = dict.fromkeys(FAULT_MOVES, 0)
CAMPAIGN = Campaign(seed=10, walks=4, length=20, configs=("safe-rocketmq-2p", "unclean-rocketmq-2p"), chunk=2, sample=2,
                    weights=NO_NEW_FAULTS, swarm=False, guide=False)
TARGET = ("unclean-rocketmq-2p", 1)


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict]]:
    out = tmp_path_factory.mktemp("clean")
    stats = run_campaign(CAMPAIGN, out, "none")
    assert (stats.ran, stats.skipped, stats.repaired) == (4, 0, ())
    rows, missing = store.load_rows(CAMPAIGN, out)
    assert missing == {} and [(r["config"], r["walk"]) for r in rows] == [(c, w) for c in CAMPAIGN.configs for w in range(4)]
    assert rows[-1]["status"] == "violation" and rows[-1]["trace"] == "failures/unclean-rocketmq-2p/walk-3.itf.json"
    return out, rows


def _traces(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*.itf.json"))}


def _copy(clean: tuple[Path, list[dict]], tmp_path: Path) -> Path:
    out = tmp_path / "out"
    shutil.copytree(clean[0], out)
    return out


def _consistent_marker(folder: Path, campaign: Campaign, config: str, k: int, rows: int) -> None:
    """A marker that describes ``folder``'s part.parquet exactly, as write_chunk would."""
    data = (folder / "part.parquet").read_bytes()
    marker = {"format": 1, "campaign": store.fingerprint(campaign), "config": config, "chunk": k, "rows": rows, "steps": 0,
              "seconds": 0.0, "parquet": {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}}
    (folder / "_DONE").write_text(json.dumps(marker))


def _truncate_parquet(folder: Path, _out: Path) -> None:
    data = (folder / "part.parquet").read_bytes()
    (folder / "part.parquet").write_bytes(data[: len(data) // 2])


def _garble_parquet(folder: Path, _out: Path) -> None:
    data = bytearray((folder / "part.parquet").read_bytes())
    data[len(data) // 2: len(data) // 2 + 16] = b"\xff" * 16
    (folder / "part.parquet").write_bytes(bytes(data))


def _garbage_parquet_with_its_marker(folder: Path, _out: Path) -> None:
    (folder / "part.parquet").write_bytes(b"PAR1 not really")
    _consistent_marker(folder, CAMPAIGN, *TARGET, rows=2)


def _other_schema(folder: Path, _out: Path) -> None:
    pq.write_table(pa.table({"config": [TARGET[0]] * 2, "walk": [2, 3]}), folder / "part.parquet")
    _consistent_marker(folder, CAMPAIGN, *TARGET, rows=2)


def _other_walks(folder: Path, out: Path) -> None:  # chunk 0's rows under chunk 1, its marker made to match
    shutil.copy(store.chunk_dir(out, TARGET[0], 0) / "part.parquet", folder / "part.parquet")
    _consistent_marker(folder, CAMPAIGN, *TARGET, rows=2)


def _chunk_copied(folder: Path, out: Path) -> None:  # chunk 0's files as they are: the marker names chunk 0
    for name in ("part.parquet", "_DONE"):
        shutil.copy(store.chunk_dir(out, TARGET[0], 0) / name, folder / name)


def _other_campaign(folder: Path, out: Path) -> None:
    other = Campaign(seed=11, walks=4, length=20, configs=CAMPAIGN.configs, chunk=2, sample=2)
    run_campaign(other, out.parent / "other", "none")
    for name in ("part.parquet", "_DONE"):
        shutil.copy(store.chunk_dir(out.parent / "other", *TARGET) / name, folder / name)


def _marker_lost(folder: Path, _out: Path) -> None:
    (folder / "_DONE").unlink()


def _killed_midway(folder: Path, _out: Path) -> None:  # a run killed while writing: temporary files, no marker
    (folder / "_DONE").unlink()
    (folder / ".part.parquet.abc.tmp").write_bytes(b"PAR1")
    (folder / "part.parquet").write_bytes(b"half")


DAMAGES: dict[str, tuple[Callable[[Path, Path], None], str]] = {
    "parquet-truncated": (_truncate_parquet, "damaged"),
    "parquet-garbled": (_garble_parquet, "damaged"),
    "parquet-missing": (lambda folder, _out: (folder / "part.parquet").unlink(), "damaged"),
    "parquet-garbage-with-its-marker": (_garbage_parquet_with_its_marker, "damaged"),
    "marker-not-json": (lambda folder, _out: (folder / "_DONE").write_text("{walks: 2"), "damaged"),
    "marker-truncated": (lambda folder, _out: (folder / "_DONE").write_text((folder / "_DONE").read_text()[:40]), "damaged"),
    "marker-old-format": (lambda folder, _out: (folder / "_DONE").write_text('{"config": "x", "chunk": 1, "walks": 2}'), "damaged"),
    "marker-binary": (lambda folder, _out: (folder / "_DONE").write_bytes(b"\xff\xfe\x00"), "damaged"),
    "marker-of-another-campaign": (_other_campaign, "foreign"),
    "marker-of-another-chunk": (_chunk_copied, "foreign"),
    "rows-of-another-schema": (_other_schema, "foreign"),
    "rows-of-other-walks": (_other_walks, "foreign"),
    "marker-lost": (_marker_lost, "unfinished"),
    "killed-midway": (_killed_midway, "unfinished"),
}


@pytest.mark.parametrize("damage", DAMAGES, ids=str)
def test_a_damaged_chunk_is_reported_and_run_again_to_the_clean_rows(damage: str, clean: tuple[Path, list[dict]],
                                                                       tmp_path: Path) -> None:
    out = _copy(clean, tmp_path)
    folder = store.chunk_dir(out, *TARGET)
    make, kind = DAMAGES[damage]
    make(folder, out)
    rows, missing = store.load_rows(CAMPAIGN, out)  # reading skips it and says why: no crash, no partial rows
    assert list(missing) == [TARGET] and missing[TARGET].kind == kind
    assert rows == [r for r in clean[1] if (r["config"], r["walk"] // 2) != TARGET]
    warned: list[str] = []
    stats = run_campaign(CAMPAIGN, out, "none", warn=warned.append)
    assert (stats.ran, stats.skipped, stats.walks) == (1, 3, 2)
    if kind == "unfinished":
        assert stats.repaired == () and warned == []
    else:
        assert len(stats.repaired) == 1 and f"chunk=1: {kind}" in stats.repaired[0] and "running it again" in warned[0]
    assert store.load_rows(CAMPAIGN, out) == (clean[1], {})  # each walk once, as in a clean run
    assert _traces(out) == _traces(clean[0])
    assert sorted(p.name for p in folder.iterdir()) == ["_DONE", "part.parquet"]
    again = run_campaign(CAMPAIGN, out, "none")
    assert (again.ran, again.skipped) == (0, 4)


def test_a_run_killed_between_the_rows_and_the_marker_leaves_nothing_that_looks_done(clean: tuple[Path, list[dict]], tmp_path: Path,
                                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "out"
    real = store.write_atomic

    def killed_at_marker(path: Path, data: bytes) -> None:
        if path.name == "_DONE" and path.parent.name == "chunk=1":
            raise KeyboardInterrupt
        real(path, data)

    monkeypatch.setattr(store, "write_atomic", killed_at_marker)
    with pytest.raises(KeyboardInterrupt):
        run_campaign(CAMPAIGN, out, "none")
    monkeypatch.undo()
    _, missing = store.load_rows(CAMPAIGN, out)
    assert missing[("safe-rocketmq-2p", 1)].kind == "unfinished"
    assert not list(out.rglob("*.tmp"))
    run_campaign(CAMPAIGN, out, "none")
    assert store.load_rows(CAMPAIGN, out) == (clean[1], {})


def test_an_interrupted_atomic_write_keeps_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "f"
    store.write_atomic(path, b"old")

    def crash(*_args: object) -> None:
        raise OSError("power cut")

    monkeypatch.setattr(store.os, "replace", crash)
    with pytest.raises(OSError, match="power cut"):
        store.write_atomic(path, b"new")
    assert path.read_bytes() == b"old" and [p.name for p in tmp_path.iterdir()] == ["f"]


def test_the_report_lists_chunks_it_could_not_read(clean: tuple[Path, list[dict]], tmp_path: Path) -> None:
    out = _copy(clean, tmp_path)
    _truncate_parquet(store.chunk_dir(out, *TARGET), out)
    rows, missing = store.load_rows(CAMPAIGN, out)
    _, problems = write_report(CAMPAIGN, rows, RunStats("none", 0, 4, 0, 0, 0.0), out, missing)
    assert problems[0].startswith("unclean-rocketmq-2p chunk 1 not in this report: damaged: part.parquet")


@pytest.mark.parametrize(("change", "says"), [
    ({"seed": 11}, "seed: 10 there, 11 here"),
    ({"walks": 6}, "walks: 4 there, 6 here"),
    ({"weights": {**NO_NEW_FAULTS, "Crash": 5.0}}, '"Crash": 5.0, "CrashTorn": 0'),
    ({"configs": ("safe-rocketmq-2p",)}, "configs:"),
])
def test_a_folder_of_another_campaign_is_refused_before_any_work(change: dict, says: str, clean: tuple[Path, list[dict]],
                                                                  tmp_path: Path) -> None:
    out = _copy(clean, tmp_path)
    before = sorted((p, p.stat().st_mtime_ns) for p in out.rglob("*"))
    other = Campaign(**{**CAMPAIGN.to_json(), "configs": CAMPAIGN.configs, **change})
    with pytest.raises(InputError, match="holds a campaign with other parameters") as e:
        run_campaign(other, out, "none")
    assert says in str(e.value) and "give another --out, or the same parameters" in str(e.value)
    assert sorted((p, p.stat().st_mtime_ns) for p in out.rglob("*")) == before


@pytest.mark.parametrize(("setup", "says"), [
    (lambda out: (out / "campaign.json").write_text("{not json"), "not a campaign description"),
    (lambda out: (out / "campaign.json").write_text("[1, 2]"), "not a campaign description"),
    (lambda out: (out / "notes.txt").write_text("mine"), "holds notes.txt and no campaign.json"),
    (lambda out: out.rmdir() or out.write_text("a file"), "is a file, not a folder"),
    (lambda out: out.rmdir() or (out.parent / "f").write_text("") or out.symlink_to(out.parent / "f" / "x"), "cannot write there"),
])
def test_an_output_folder_that_cannot_hold_the_campaign_is_refused(setup: Callable[[Path], None], says: str, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    setup(out)
    with pytest.raises(InputError, match=says):
        run_campaign(CAMPAIGN, out, "none")
    with pytest.raises(InputError, match="cannot write there"):
        run_campaign(CAMPAIGN, Path("/dev/null/out"), "none")


def test_paths_stay_under_the_output_folder(tmp_path: Path) -> None:
    assert store.inside(tmp_path, "rows", "config=safe-rocketmq-2p", "chunk=0") == tmp_path / "rows/config=safe-rocketmq-2p/chunk=0"
    for bad in ("..", "../x", "a/b", "/etc", ".hidden", "-x", "", "x\ny", "a..b"):
        with pytest.raises(InputError, match="cannot be a name"):
            store.inside(tmp_path, "failures", bad)
    with pytest.raises(InputError, match="cannot be a name"):
        store.trace_path(tmp_path, "failures/../../x.itf.json")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "failures").symlink_to(tmp_path)
    with pytest.raises(InputError, match="outside the output folder"):
        store.inside(tmp_path / "out", "failures", "x.itf.json")


def test_sample_zero_exports_no_passing_walk(tmp_path: Path) -> None:
    campaign = Campaign(seed=3, walks=3, length=5, configs=("safe-rocketmq-2p",), chunk=3, sample=0)
    run_campaign(campaign, tmp_path, "none")
    rows, _ = store.load_rows(campaign, tmp_path)
    assert len(rows) == 3 and not any(r["trace"] for r in rows) and not (tmp_path / "corpus").exists()


@pytest.mark.parametrize(("change", "says"), [
    ({"walks": 0}, "walks: expected an integer >= 1, got 0"), ({"length": -1}, "length: expected an integer from 1 to 100000"),
    ({"chunk": 0}, "chunk: expected an integer >= 1"), ({"sample": -1}, "sample: expected an integer >= 0"),
    ({"length": 100_001}, "length: expected an integer from 1 to 100000"),
    ({"walks": 10**12, "chunk": 1}, "2 configurations x 1000000000000 chunks of 1 walks: more than 100,000 tasks"),
    ({"seed": 1.5}, "seed: expected an integer"), ({"walks": True}, "walks: expected an integer"),
    ({"configs": ()}, "no configuration named"), ({"configs": ("nope",)}, "unknown configuration(s) 'nope'"),
    ({"weights": {"Crash": -1}}, "'Crash=-1'"), ({"weights": {"Crsh": 1}}, "unknown name 'Crsh'"),
    ({"weights": dict.fromkeys(MOVES, 0)}, "every move of safe-rocketmq-2p weighs 0"),
    ({"weights": dict.fromkeys(("SendHeartbeat", "SyncReplicaInfo", "SendElectMaster"), 0)}, "every step a registered NONE process"),
])
def test_parameters_out_of_range_are_input_errors(change: dict, says: str) -> None:
    with pytest.raises(InputError) as e:
        Campaign(**{**CAMPAIGN.to_json(), "configs": CAMPAIGN.configs, **change})
    assert says in str(e.value)


@pytest.mark.parametrize(("text", "says"), [
    ("Crash=", "'Crash=': expected a number"), ("=5", "'=5': expected name=number"), ("Crash", "'Crash': expected name=number"),
    ("Crash=abc", "'Crash=abc': expected a number"), ("Crash=-1", "'Crash=-1': must be a number from 0"),
    ("Crash=nan", "'Crash=nan': must be a number from 0"), ("Crash=inf", "'Crash=inf': must be a number from 0"),
    ("Crash=1e300", "'Crash=1e300': must be a number from 0"), ("lost=1.5", "lost is a probability"),
    ("Crsh=1", "unknown name 'Crsh'"), ("Crash=1,Crash=2", "'Crash' given twice"),
])
def test_malformed_weights_name_the_item(text: str, says: str) -> None:
    with pytest.raises(InputError) as e:
        parse_weights(text)
    assert says in str(e.value)
    assert parse_weights(" Crash = 5 , lost=0.1,") == {"Crash": 5.0, "lost": 0.1}


def test_configurations_and_masters() -> None:
    assert [c.name for c in select(["safe-*-3p"])] == ["safe-rocketmq-3p", "safe-hw-3p", "safe-kip101-3p", "safe-kip279-3p"]
    for bad in (["nope"], ["zzz-*"], []):
        with pytest.raises(InputError, match="no configuration"):
            select(bad)
    for good in (None, "none", "local", "local[1]", "local[*]", "local[4,2]", "local-cluster[2,1,1024]", "spark://h:7077",
                 "spark://a:1,b:2", "yarn", "k8s://https://h:443"):
        check_master(good)
    for bad in ("local[0]", "local[]", "local[-1]", "spark://host", "bogus", "", "LOCAL", "local[2] "):
        with pytest.raises(InputError, match="--master"):
            check_master(bad)


def test_a_file_written_atomically_gets_the_mode_open_would_give(tmp_path: Path) -> None:
    """mkstemp makes 0600 files: a report or a page must be readable as any file the user writes (umask)."""
    import os

    mask = os.umask(0o022)
    os.umask(mask)
    path = tmp_path / "page.html"
    store.write_atomic(path, b"<html></html>")
    assert path.stat().st_mode & 0o777 == 0o666 & ~mask
