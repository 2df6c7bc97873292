"""Spec configurations as hostile input: every malformed ``.cfg`` (or MC module) is a SpecConfigError, an
InputError (exit 2), naming the file and the line or constant; a configuration argument is a NAME, never
a path; the explicit-state checker refuses bounds it cannot finish before it starts; every path a command
writes stays under its output folder."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from autoswitch.conformance.check.checker import Checker
from autoswitch.conformance.check.specconfig import (
    CHECKOUT_SPEC_DIR,
    MAX_FILE_BYTES,
    SpecConfigError,
    SpecDirError,
    config_name,
    load_spec_config,
)
from autoswitch.conformance.errors import InputError
from autoswitch.conformance.paths import OutputPathError, path_under

SPEC = CHECKOUT_SPEC_DIR
GOOD = (SPEC / "MC_neg_shortcut.cfg").read_text()


@pytest.fixture
def spec(tmp_path: Path) -> Path:
    """A folder with the MC module the configurations name and a good configuration."""
    shutil.copy(SPEC / "MC_data.tla", tmp_path / "MC_data.tla")
    (tmp_path / "good.cfg").write_text(GOOD)
    return tmp_path


def _line(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_errors_are_input_errors() -> None:
    assert issubclass(SpecConfigError, InputError) and issubclass(SpecDirError, InputError)


def test_a_good_configuration_reads(spec: Path) -> None:
    cfg = load_spec_config(spec / "good.cfg")
    assert cfg.name == "good" and cfg.processes == ("p1", "p2") and cfg.source == spec / "good.cfg"
    assert load_spec_config("MC_neg_shortcut.cfg").name == "MC_neg_shortcut"  # NAME.cfg is the name NAME


# (what is changed in MC_neg_shortcut.cfg, the replacement, the line it is on, what the message says)
MALFORMED = {
    "bad value": ("MaxEpoch = 2", "MaxEpoch = two", "MaxEpoch", "cannot read the value 'two'"),
    "unknown constant": ("MaxEpoch = 2", "MaxEpoch = 2\n    MaxEpochs = 2", "MaxEpochs", "unknown constant(s) MaxEpochs"),
    "wrong type": ("MaxClock = 2", "MaxClock = TRUE", "MaxClock", "MaxClock = True: must be an integer"),
    "switch not a bool": ("DataPath = TRUE", "DataPath = 1", "DataPath", "must be TRUE or FALSE"),
    "option of the wrong type": ("InSyncReplicas = 1", 'InSyncReplicas = "one"', "InSyncReplicas", "must be an integer"),
    "set of integers": ("AsyncLearners = {}", "AsyncLearners = {1, 2}", "AsyncLearners", "cannot read the value"),
    "unknown policy": ('Policy = "rocketmq"', 'Policy = "raft"', "Policy", "Policy must be one of"),
    "negative bound": ("MaxMsgs = 1", "MaxMsgs = -1", "MaxMsgs", "a bound of at least 0"),
    "zero broker ids bound": ("MaxNextBrokerId = 3", "MaxNextBrokerId = 0", "MaxNextBrokerId", "a bound of at least 1"),
    "huge integer": ("MaxEpoch = 2", "MaxEpoch = " + "9" * 5000, "MaxEpoch", "integers of up to 9 digits"),
    "assigned twice": ("MaxClock = 2", "MaxClock = 2\n    MaxClock = 3", "MaxClock = 3", "MaxClock is assigned twice"),
    "syntax garbage": ("MaxClock = 2", "MaxClock 2 ==>", "MaxClock 2", "expected 'Name = value'"),
    "unknown keyword": ("INIT InitRegistered", "INITIALLY InitRegistered", "INITIALLY", "unknown keyword 'INITIALLY'"),
    "unknown invariant": ("    NoPhantomRead\n", "    NoPhantomRead\n    NoSuchInvariant\n", "NoSuchInvariant",
                          "INVARIANTS: no property NoSuchInvariant"),
    "unknown property": ("    EpochsMonotonic\n", "    EpochsMonotonic\n    Nope\n", "Nope", "PROPERTIES: no property Nope"),
    "invariant not a name": ("    NoPhantomRead\n", "    NoPhantomRead\n    [x]\n", "[x]", "is not a definition name"),
}


@pytest.mark.parametrize("case", MALFORMED, ids=str)
def test_malformed_configuration_names_file_and_line(case: str, spec: Path) -> None:
    old, new, on, says = MALFORMED[case]
    assert old in GOOD
    text = GOOD.replace(old, new, 1)
    (spec / "bad.cfg").write_text(text)
    with pytest.raises(SpecConfigError) as e:
        load_spec_config(spec / "bad.cfg")
    assert f"bad.cfg:{_line(text, on)}:" in str(e.value) and says in str(e.value), str(e.value)


@pytest.mark.parametrize("content, says", [
    (b"", "the first line must say"),
    (b"garbage\x00\x01\x02", "bad.cfg:1: a NUL byte"),
    (b"\\* TLC configuration of MC_data.tla\n\x00\x00", "bad.cfg:2: a NUL byte"),
    (b"\xff\xfe\x00binary", "not UTF-8 text (byte 0)"),
    (b"\\* TLC configuration of MC_data.tla\nCONSTANTS\n" + b"    MaxEpoch = 2\n" * (MAX_FILE_BYTES // 16), "too large"),
    (b"\\* TLC configuration of Nothing.tla\n", "Nothing.tla, is not a file"),
    (b"\\* TLC configuration of MC_data.tla\nstray words\n", "bad.cfg:2: 'stray words' before any section"),
])
def test_files_that_are_not_configurations(content: bytes, says: str, spec: Path) -> None:
    (spec / "bad.cfg").write_bytes(content)
    with pytest.raises(SpecConfigError, match=says.replace("(", r"\(").replace(")", r"\)")) as e:
        load_spec_config(spec / "bad.cfg")
    assert "bad.cfg" in str(e.value)


def test_missing_file_and_a_directory_named_like_a_configuration(spec: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(SpecConfigError, match=r"nothing\.cfg: no such configuration \(.* has: none\)"):
        load_spec_config(spec / "nothing.cfg")
    (spec / "MC_dir.cfg").mkdir()
    with pytest.raises(SpecConfigError, match=r"MC_dir\.cfg: not a regular file"):
        load_spec_config(spec / "MC_dir.cfg")
    (spec / "AutoSwitch.tla").write_text("")
    monkeypatch.setenv("AUTOSWITCH_SPEC_DIR", str(spec))
    with pytest.raises(SpecConfigError, match="MC_dir.cfg: not a regular file"):
        load_spec_config("MC_dir")


@pytest.mark.parametrize("module, says", [
    ('MC_Processes == {}', "no processes"),
    ('MC_Processes == {"p1", "p1"}', "a process twice"),
    ('MC_Processes == {"p1", "../p2"}', "'../p2' is not a name"),
])
def test_malformed_mc_module(module: str, says: str, spec: Path) -> None:
    text = (SPEC / "MC_data.tla").read_text().replace('MC_Processes == {"p1", "p2"}', module)
    (spec / "MC_data.tla").write_text(text)
    with pytest.raises(SpecConfigError, match=says) as e:
        load_spec_config(spec / "good.cfg")
    assert "MC_data.tla" in str(e.value)


def test_empty_broker_ids(spec: Path) -> None:
    text = (SPEC / "MC_data.tla").read_text().replace("MC_BrokerIds == 1..2", "MC_BrokerIds == 3..1")
    (spec / "MC_data.tla").write_text(text)
    with pytest.raises(SpecConfigError, match="MC_BrokerIds must be a non-empty range"):
        load_spec_config(spec / "good.cfg")


@pytest.mark.parametrize("arg", [".", "..", "..cfg", "", "MC data", ".hidden", "MC_data\n", "x" * 101, "MC*"])
def test_a_configuration_name_is_checked(arg: str) -> None:
    with pytest.raises(SpecConfigError, match="not a configuration name"):
        config_name(arg)
    with pytest.raises(SpecConfigError, match="not a configuration name"):
        load_spec_config(arg)


@pytest.mark.parametrize("arg, name", [("MC_data", "MC_data"), ("MC_data.cfg", "MC_data"), ("my-cfg.v2", "my-cfg.v2")])
def test_configuration_names(arg: str, name: str) -> None:
    assert config_name(arg) == name


def test_a_path_names_a_file_and_its_stem_the_configuration(spec: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``../x/MC.cfg`` is that file, named MC: the name, never the path, becomes a folder under --out."""
    (spec / "x").mkdir()
    shutil.copy(SPEC / "MC_data.tla", spec / "x" / "MC_data.tla")
    (spec / "x" / "MC.cfg").write_text(GOOD)
    (spec / "work").mkdir()
    monkeypatch.chdir(spec / "work")
    cfg = load_spec_config("../x/MC.cfg")
    assert (cfg.name, cfg.source) == ("MC", Path("../x/MC.cfg"))
    (spec / "x" / "..cfg").write_text(GOOD)
    with pytest.raises(SpecConfigError, match="not a configuration name"):
        load_spec_config("../x/..cfg")
    with pytest.raises(SpecConfigError, match="no such configuration"):
        load_spec_config("../nowhere/MC.cfg")


# --- the checker refuses what it cannot finish, before the search -----------------------------

@pytest.mark.parametrize("old, new, says", [
    ("MaxEpoch = 2", "MaxEpoch = 40", "MaxEpoch = 40 (at most 4)"),
    ("MaxMsgs = 1", "MaxMsgs = 1000", "MaxMsgs = 1000 (at most 4)"),
])
def test_checker_refuses_bounds_it_cannot_finish(old: str, new: str, says: str, spec: Path) -> None:
    (spec / "big.cfg").write_text(GOOD.replace(old, new))
    with pytest.raises(SpecConfigError, match=rf"big\.cfg: {says.replace('(', '[(]').replace(')', '[)]')}.*too large"):
        Checker(load_spec_config(spec / "big.cfg"))


def test_checker_refuses_too_many_processes(spec: Path) -> None:
    text = (SPEC / "MC_data.tla").read_text().replace('MC_Processes == {"p1", "p2"}', 'MC_Processes == {"p1", "p2", "p3", "p4"}')
    (spec / "MC_data.tla").write_text(text)
    with pytest.raises(SpecConfigError, match=r"processes = 4 \(at most 3\)"):
        Checker(load_spec_config(spec / "good.cfg"))


# --- output paths -----------------------------------------------------------------------------

def test_path_under_keeps_writes_inside_the_output_folder(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert path_under(out, "MC_data", "tlc.log") == (out / "MC_data" / "tlc.log").resolve()
    for parts in (("..", "x"), ("../x/MC.cfg",), ("/etc",), (".",), ("a", "..", "..", "b")):
        with pytest.raises(OutputPathError, match="outside the output folder"):
            path_under(out, *parts)
    out.mkdir()
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", out / "link")
    with pytest.raises(OutputPathError):
        path_under(out, "link", "tlc.log")
    assert issubclass(OutputPathError, InputError)
