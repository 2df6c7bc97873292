"""A model-checking configuration of the spec, read from its files: ``spec/<name>.cfg`` (TLC's CONSTANTS,
INIT, INVARIANTS and PROPERTIES) and the ``MC_*.tla`` module it configures (the process names, their
addresses and the broker ids). The Python checker and the TLA+ tools then explore the same bounds.

Only the forms the project's MC modules use are read; anything else is an error naming file and line.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from attrs import frozen

from autoswitch.conformance.engines import OPTION_FIELDS, SET_OPTIONS, Config, config_from_meta, spec_constant
from autoswitch.conformance.errors import InputError
from autoswitch.reference import Options

# Where the spec is: ``--spec-dir`` (use_spec_dir), else $AUTOSWITCH_SPEC_DIR, else the checkout's spec/ (an editable
# install, ``pip install -e .``: a plain install ships no spec/).
SPEC_DIR_ENV = "AUTOSWITCH_SPEC_DIR"
CHECKOUT_SPEC_DIR = Path(__file__).resolve().parents[2] / "spec"
_chosen: Path | None = None

# The bounds of StateConstraint and DataNext (AutoSwitch.tla), and the switches of Next. The other constants are the
# policy and the model options: each Options field's #meta name capitalised (engines.OPTION_FIELDS, spec_constant).
BOUNDS = ("MaxEpoch", "MaxClock", "MaxNextBrokerId", "MaxMsgs")
SWITCHES = ("DataPath", "AnySetAlter", "AllowCleanBrokerData")


class SpecConfigError(InputError):
    """A configuration the reader cannot take; the message names the file and what is wrong."""


class SpecDirError(SpecConfigError):
    """No spec folder where it is looked for."""


def use_spec_dir(path: str | Path | None) -> None:
    """Take the spec from ``path`` from now on (None: $AUTOSWITCH_SPEC_DIR or the checkout's spec/ again)."""
    global _chosen
    _chosen = None if path is None else Path(path)


def spec_dir() -> Path:
    """The spec folder (the one holding AutoSwitch.tla); SpecDirError when there is none where it is looked for."""
    chosen, how = ((_chosen, "--spec-dir") if _chosen is not None
                   else (Path(os.environ[SPEC_DIR_ENV]), f"${SPEC_DIR_ENV}") if os.environ.get(SPEC_DIR_ENV)
                   else (CHECKOUT_SPEC_DIR, "the checkout's spec/"))
    if not (chosen / "AutoSwitch.tla").is_file():
        raise SpecDirError(f"{chosen} ({how}) holds no AutoSwitch.tla: run from a checkout of autoswitch installed with "
                           f"`pip install -e .`, or set {SPEC_DIR_ENV} (or --spec-dir) to the spec folder")
    return chosen


@frozen
class SpecConfig:
    """One TLC configuration: the constants, the initial predicate and the properties to check."""

    name: str  # the .cfg file's stem, e.g. "MC_data"
    module: str  # the MC module it configures, e.g. "MC_data"
    addrs: Mapping[str, tuple[str, ...]]  # process -> its addresses (Addrs), sorted
    broker_ids: tuple[int, ...]
    constants: Mapping[str, Any]  # every `Name = value` of CONSTANTS
    init: str  # "Init" or "InitRegistered"
    invariants: tuple[str, ...]
    properties: tuple[str, ...]

    @property
    def processes(self) -> tuple[str, ...]:
        return tuple(sorted(self.addrs))

    def bound(self, name: str) -> int:
        return int(self.constants[name])

    def switch(self, name: str) -> bool:
        return bool(self.constants[name])

    def meta(self, first_addrs: Mapping[str, str] | None = None) -> dict[str, Any]:
        """The ``#meta`` of a trace of this configuration (MODEL.md option names), with the processes
        starting under ``first_addrs`` (default: each one's first address)."""
        processes = dict(first_addrs or {p: a[0] for p, a in self.addrs.items()})
        options = {name: self.constants[spec_constant(name)] for name in OPTION_FIELDS if spec_constant(name) in self.constants}
        options.update({name: sorted(options[name]) for name in SET_OPTIONS if name in options})
        return {"processes": processes, "policy": self.constants.get("Policy", "rocketmq"), "options": options}

    def config(self, first_addrs: Mapping[str, str] | None = None) -> Config:
        config, field, problem = config_from_meta(self.meta(first_addrs))
        if config is None:
            raise SpecConfigError(f"spec/{self.name}.cfg: {field} {problem}")
        return config

    @property
    def options(self) -> Options:
        return self.config().options


_VALUE = re.compile(r'^(TRUE|FALSE|-?\d+|"[^"]*"|\{[^}]*\})$')


def _value(text: str, where: str) -> Any:
    if not _VALUE.match(text):
        raise SpecConfigError(f"{where}: cannot read the value {text!r} (TRUE/FALSE, integers, strings and sets of strings only)")
    if text in ("TRUE", "FALSE"):
        return text == "TRUE"
    if text.startswith('"'):
        return text[1:-1]
    if text.startswith("{"):
        return frozenset(re.findall(r'"([^"]*)"', text))
    return int(text)


def _module_definitions(path: Path) -> tuple[dict[str, tuple[str, ...]], tuple[int, ...]]:
    """MC_Processes, MC_Addrs and MC_BrokerIds of an MC module, in the forms the project writes them."""
    text = path.read_text()
    procs = re.search(r'^MC_Processes\s*==\s*\{([^}]*)\}', text, re.M)
    ids = re.search(r"^MC_BrokerIds\s*==\s*(\d+)\s*\.\.\s*(\d+)", text, re.M)
    addrs = re.search(r'^MC_Addrs\s*==\s*\[p \\in MC_Processes \|->((?:\s*IF p = "\w+" THEN \{[^}]*\} ELSE)+)\s*\{([^}]*)\}\]',
                      text, re.M)
    if not (procs and ids and addrs):
        missing = [n for n, m in (("MC_Processes", procs), ("MC_BrokerIds", ids), ("MC_Addrs", addrs)) if not m]
        raise SpecConfigError(f"{path}: cannot read {', '.join(missing)} (expected the forms of spec/MC_data.tla)")
    names = re.findall(r'"([^"]*)"', procs.group(1))
    # IF p = "p1" THEN {...} ELSE IF p = "p2" THEN {...} ELSE {...}: the named processes, then the others
    named = {p: re.findall(r'"([^"]*)"', members) for p, members in re.findall(r'IF p = "(\w+)" THEN \{([^}]*)\}', addrs.group(1))}
    other = re.findall(r'"([^"]*)"', addrs.group(2))
    table = {p: tuple(sorted(named.get(p, other))) for p in names}
    return table, tuple(range(int(ids.group(1)), int(ids.group(2)) + 1))


def load_spec_config(cfg: str | Path) -> SpecConfig:
    """Read ``spec/NAME.cfg`` (a path, or a name such as ``MC_data`` in :func:`spec_dir`) and the module it names."""
    path = Path(cfg)
    if not path.suffix:
        path = spec_dir() / f"{cfg}.cfg"
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in spec_dir().glob("MC_*.cfg")))
        raise SpecConfigError(f"{path}: no such configuration (spec/ has: {known})")
    lines = path.read_text().splitlines()
    header = re.search(r"configuration of (\w+)\.tla", lines[0] if lines else "")
    if not header:
        raise SpecConfigError(f"{path}:1: the first line must say 'TLC configuration of <module>.tla'")
    module = header.group(1)
    addrs, broker_ids = _module_definitions(path.parent / f"{module}.tla")
    constants: dict[str, Any] = {}
    sections: dict[str, list[str]] = {"INIT": [], "INVARIANTS": [], "PROPERTIES": []}
    section = ""
    for number, raw in enumerate(lines, 1):
        line = raw.split("\\*")[0].strip()
        if not line:
            continue
        keyword, _, rest = line.partition(" ")
        if keyword.isupper():
            section, line = keyword, rest.strip()
            if not line:
                continue
        if section == "CONSTANTS":
            name, op, value = (x.strip() for x in re.split(r"(=|<-)", line, maxsplit=1)) if re.search("=|<-", line) else (line, "", "")
            if op == "=":
                constants[name] = _value(value, f"{path}:{number}")
            elif op != "<-":
                raise SpecConfigError(f"{path}:{number}: expected 'Name = value' or 'Name <- Definition' in CONSTANTS")
        elif section in sections:
            sections[section] += line.split()
    init = sections["INIT"]
    unknown = sorted(set(constants) - {*BOUNDS, *SWITCHES, "Policy", *map(spec_constant, OPTION_FIELDS)})
    if unknown:
        raise SpecConfigError(f"{path}: unknown constant(s) {', '.join(unknown)}: not a bound, a switch, Policy or an option "
                              f"({', '.join(map(spec_constant, OPTION_FIELDS))})")
    missing = [b for b in BOUNDS + SWITCHES if b not in constants]
    if missing or len(init) != 1 or init[0] not in ("Init", "InitRegistered"):
        raise SpecConfigError(f"{path}: needs the constants {', '.join(BOUNDS + SWITCHES)} (missing: {missing or 'none'}) "
                              f"and INIT Init or INIT InitRegistered (found: {init})")
    return SpecConfig(path.stem, module, addrs, broker_ids, constants, init[0],
                      tuple(sections["INVARIANTS"]), tuple(sections["PROPERTIES"]))
