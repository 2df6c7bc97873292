"""A model-checking configuration of the spec, read from its files: ``spec/<name>.cfg`` (TLC's CONSTANTS,
INIT, INVARIANTS and PROPERTIES) and the ``MC_*.tla`` module it configures (the process names, their
addresses and the broker ids). The Python checker and the TLA+ tools then explore the same bounds.

Only the forms the project's MC modules use are read; anything else is a :class:`SpecConfigError` (an
``InputError``: exit 2) naming the file and the line or constant.

A configuration argument is either a NAME, ``spec/NAME.cfg`` in the spec folder (``MC_data`` or ``MC_data.cfg``;
``--spec-dir`` for another folder), or, when it holds a path separator, the path of a .cfg file (its MC module beside
it). Either way the configuration's name is the file's stem, checked by :func:`config_name` (letters, digits, ``_``,
``.``, ``-``; not ``.`` or ``..``): only that name becomes a file or folder name under a command's output folder
(``OUT/NAME/``, conformance/paths.py), never the argument, so ``../x/MC.cfg`` reads that file and writes ``OUT/MC/``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from attrs import frozen

from autoswitch.conformance.engines.config import OPTION_FIELDS, SET_OPTIONS, Config, config_from_meta, spec_constant
from autoswitch.conformance.errors import InputError
from autoswitch.reference import Options
from autoswitch.reference.actions import SWITCHES
from autoswitch.reference.invariants import ACTION_PROPERTIES, STATE_INVARIANTS
from autoswitch.reference.liveness import LIVENESS, LIVENESS_BY_NAME, NEW_FAULTS
from autoswitch.reference.state import CONTROLLER, DESIGNS

# Where the spec is: ``--spec-dir`` (use_spec_dir), else $AUTOSWITCH_SPEC_DIR, else the checkout's spec/ (an editable
# install, ``pip install -e .``: a plain install ships no spec/).
SPEC_DIR_ENV = "AUTOSWITCH_SPEC_DIR"
CHECKOUT_SPEC_DIR = Path(__file__).resolve().parents[2] / "spec"
_chosen: Path | None = None

# The bounds of StateConstraint and DataNext (AutoSwitch.tla); the switches of Next are reference/actions.py's SWITCHES.
# The other constants are the policy and the model options: each Options field's #meta name capitalised
# (engines.OPTION_FIELDS, spec_constant).
BOUNDS = ("MaxEpoch", "MaxClock", "MaxNextBrokerId", "MaxMsgs")
# The fault budget (AutoSwitch.tla, reference/liveness.py): the faults of NEW_FAULTS in Next (a set of their tags), how
# many budgeted faults a behaviour may take, and whether the older faults are charged too. Optional here (these
# defaults: none, 0, FALSE); TLC needs them in every .cfg.
FAULT_CONSTANTS = {"Faults": frozenset(), "MaxFaults": 0, "BoundAllFaults": False}
# SPECIFICATION (the liveness configurations: Init /\ [][Next]_vars /\ Fairness) -> the initial predicate it starts from
SPECIFICATIONS = {"LiveSpec": "Init", "LiveSpecRegistered": "InitRegistered", "LiveSpecDesign": "InitDesign"}
INITS = ("Init", "InitRegistered", "InitDesign")  # the initial predicates; InitDesign only of a design RIP-44 replaced


# A configuration's name: a file name in the spec folder, never a path.
CONFIG_NAME = re.compile(r"[A-Za-z0-9_.-]{1,100}")
MAX_FILE_BYTES = 1 << 20  # a .cfg or MC module larger than this is not one of the project's
# The bounds of StateConstraint and DataNext (AutoSwitch.tla) and their least values: nextBrokerId starts at 1.
LEAST = {"MaxEpoch": 0, "MaxClock": 0, "MaxNextBrokerId": 1, "MaxMsgs": 0, "MaxFaults": 0}
# TLC's configuration keywords; the reader takes CONSTANTS, INIT, INVARIANTS and PROPERTIES, TLC the others.
KEYWORDS = {"CONSTANT": "CONSTANTS", "CONSTANTS": "CONSTANTS", "INIT": "INIT", "NEXT": "NEXT", "VIEW": "VIEW",
            "CONSTRAINT": "CONSTRAINT", "CONSTRAINTS": "CONSTRAINT", "ACTION_CONSTRAINT": "CONSTRAINT",
            "ACTION_CONSTRAINTS": "CONSTRAINT", "SYMMETRY": "SYMMETRY", "INVARIANT": "INVARIANTS", "INVARIANTS": "INVARIANTS",
            "PROPERTY": "PROPERTIES", "PROPERTIES": "PROPERTIES", "CHECK_DEADLOCK": "CHECK_DEADLOCK",
            "SPECIFICATION": "SPECIFICATION"}
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


class SpecConfigError(InputError):
    """A configuration the reader cannot take; the message names the file and the line or constant."""


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

    name: str  # the .cfg file's stem, e.g. "MC_data" (a valid config_name)
    module: str  # the MC module it configures, e.g. "MC_data"
    addrs: Mapping[str, tuple[str, ...]]  # process -> its addresses (Addrs), sorted
    broker_ids: tuple[int, ...]
    constants: Mapping[str, Any]  # every `Name = value` of CONSTANTS
    init: str  # one of INITS
    invariants: tuple[str, ...]
    properties: tuple[str, ...]  # the action properties of PROPERTIES
    source: Path  # the .cfg file read
    liveness: tuple[str, ...] = ()  # the liveness properties of PROPERTIES (reference/liveness.py)

    @property
    def where(self) -> str:
        """The .cfg file, for messages."""
        return str(self.source)

    @property
    def processes(self) -> tuple[str, ...]:
        return tuple(sorted(self.addrs))

    def bound(self, name: str) -> int:
        return int(self.constants[name])

    def switch(self, name: str) -> bool:
        return bool(self.constants[name])

    @property
    def design(self) -> str:
        """The replication design (the constant Design, reference/designs.py); controller mode when absent."""
        return str(self.constants.get("Design", CONTROLLER))

    @property
    def faults(self) -> frozenset[str]:
        """The faults of liveness.NEW_FAULTS in Next (the constant Faults)."""
        return frozenset(self.constants.get("Faults", FAULT_CONSTANTS["Faults"]))

    @property
    def max_faults(self) -> int:
        return int(self.constants.get("MaxFaults", FAULT_CONSTANTS["MaxFaults"]))

    @property
    def bound_all_faults(self) -> bool:
        return bool(self.constants.get("BoundAllFaults", FAULT_CONSTANTS["BoundAllFaults"]))

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
            raise SpecConfigError(f"{self.where}: {field} {problem}")
        return config

    @property
    def options(self) -> Options:
        return self.config().options


def config_name(arg: str) -> str:
    """The configuration NAME of ``NAME`` or ``NAME.cfg``: letters, digits, ``_``, ``.`` and ``-`` only, not starting
    with ``.``; anything else (a separator, ``..``) is a SpecConfigError, so that a name never leads out of a folder."""
    name = arg[:-len(".cfg")] if arg.endswith(".cfg") else arg
    if not CONFIG_NAME.fullmatch(name) or name.startswith("."):
        raise SpecConfigError(f"configuration {arg!r}: not a configuration name (the NAME of spec/NAME.cfg: letters, "
                              "digits, '_', '.', '-', not starting with '.'; or the path of a NAME.cfg file)")
    return name


def config_path(arg: str | Path) -> Path:
    """The .cfg file a configuration argument names: a ``Path``, or a string with a path separator, is that file; any
    other string is a NAME (:func:`config_name`) of ``NAME.cfg`` in :func:`spec_dir`."""
    if isinstance(arg, Path) or "/" in arg or (os.sep in arg) or (os.altsep is not None and os.altsep in arg):
        return Path(arg)
    return spec_dir() / f"{config_name(arg)}.cfg"


def _read_text(path: Path, what: str) -> str:
    """A configuration or module file's text; SpecConfigError if it is not a regular, small, UTF-8 text file."""
    if not path.exists():
        raise SpecConfigError(f"{path}: no such {what}")
    if not path.is_file():
        raise SpecConfigError(f"{path}: not a regular file (a {what} is a text file)")
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise SpecConfigError(f"{path}: {size:,} bytes: too large for a {what} (at most {MAX_FILE_BYTES:,})")
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise SpecConfigError(f"{path}: not UTF-8 text (byte {e.start}): a {what} is a text file") from None
    if "\0" in text:
        raise SpecConfigError(f"{path}:{text[:text.index(chr(0))].count(chr(10)) + 1}: a NUL byte: a {what} is a text file")
    return text


_VALUE = re.compile(r'^(TRUE|FALSE|-?\d{1,9}|"[^"]*"|\{\s*(?:"[^"]*"(?:\s*,\s*"[^"]*")*)?\s*\})$')


def _value(text: str, where: str) -> Any:
    if not _VALUE.match(text):
        raise SpecConfigError(f"{where}: cannot read the value {text[:60]!r} (TRUE/FALSE, integers of up to 9 digits, "
                              "strings and sets of strings only)")
    if text in ("TRUE", "FALSE"):
        return text == "TRUE"
    if text.startswith('"'):
        return text[1:-1]
    if text.startswith("{"):
        return frozenset(re.findall(r'"([^"]*)"', text))
    return int(text)


def _module_definitions(path: Path, where: str) -> tuple[dict[str, tuple[str, ...]], tuple[int, ...]]:
    """MC_Processes, MC_Addrs and MC_BrokerIds of an MC module, in the forms the project writes them."""
    if not path.is_file():
        raise SpecConfigError(f"{where}: the module it configures, {path}, is not a file")
    text = _read_text(path, "TLA+ module")
    procs = re.search(r'^MC_Processes\s*==\s*\{([^}]*)\}', text, re.M)
    ids = re.search(r"^MC_BrokerIds\s*==\s*(\d{1,3})\s*\.\.\s*(\d{1,3})\s*$", text, re.M)
    addrs = re.search(r'^MC_Addrs\s*==\s*\[p \\in MC_Processes \|->((?:\s*IF p = "\w+" THEN \{[^}]*\} ELSE)+)\s*\{([^}]*)\}\]',
                      text, re.M)
    if not (procs and ids and addrs):
        missing = [n for n, m in (("MC_Processes", procs), ("MC_BrokerIds", ids), ("MC_Addrs", addrs)) if not m]
        raise SpecConfigError(f"{path}: cannot read {', '.join(missing)} (expected the forms of spec/MC_data.tla)")
    names = re.findall(r'"([^"]*)"', procs.group(1))
    # IF p = "p1" THEN {...} ELSE IF p = "p2" THEN {...} ELSE {...}: the named processes, then the others
    named = {p: re.findall(r'"([^"]*)"', members) for p, members in re.findall(r'IF p = "(\w+)" THEN \{([^}]*)\}', addrs.group(1))}
    other = re.findall(r'"([^"]*)"', addrs.group(2))
    table = {p: tuple(sorted(set(named.get(p, other)))) for p in names}
    broker_ids = tuple(range(int(ids.group(1)), int(ids.group(2)) + 1))
    problem = (not names and "MC_Processes is empty: no processes"
               or len(set(names)) != len(names) and "MC_Processes names a process twice"
               or next((f"process {p!r} is not a name (letters, digits, '_')" for p in names
                        if not _IDENTIFIER.fullmatch(p)), None)
               or next((f"MC_Addrs gives process {p!r} no address" for p, a in table.items() if not a or "" in a), None)
               or (not broker_ids or broker_ids[0] < 1) and "MC_BrokerIds must be a non-empty range of ids from 1")
    if problem:
        raise SpecConfigError(f"{path}: {problem}")
    return table, broker_ids


def load_spec_config(cfg: str | Path) -> SpecConfig:
    """Read the configuration an argument names (:func:`config_path`) and the MC module beside it. Its name is the
    file's stem (:func:`config_name`). Every problem is a SpecConfigError naming the file and the line or constant."""
    path = config_path(cfg)
    if not path.exists():
        known = ", ".join(sorted(p.stem for p in path.parent.glob("MC_*.cfg"))) if path.parent.is_dir() else ""
        raise SpecConfigError(f"{path}: no such configuration ({path.parent} has: {known or 'none'})")
    name = config_name(path.stem if path.suffix == ".cfg" else path.name)
    lines = _read_text(path, "configuration").splitlines()
    header = re.search(r"configuration of (\w+)\.tla", lines[0] if lines else "")
    if not header:
        raise SpecConfigError(f"{path}:1: the first line must say 'TLC configuration of <module>.tla'")
    module = header.group(1)
    constants: dict[str, Any] = {}
    at: dict[str, int] = {}  # constant -> its line
    sections: dict[str, list[tuple[str, int]]] = {"INIT": [], "INVARIANTS": [], "PROPERTIES": [], "SPECIFICATION": []}
    section = ""
    for number, raw in enumerate(lines, 1):
        where = f"{path}:{number}"
        line = raw.split("\\*")[0].strip()
        if not line:
            continue
        keyword, _, rest = line.partition(" ")
        if keyword.isupper() and _IDENTIFIER.fullmatch(keyword):
            if keyword not in KEYWORDS:
                raise SpecConfigError(f"{where}: unknown keyword {keyword!r} (TLC's: {', '.join(sorted(set(KEYWORDS)))})")
            section, line = KEYWORDS[keyword], rest.strip()
            if not line:
                continue
        if not section:
            raise SpecConfigError(f"{where}: {line[:60]!r} before any section (CONSTANTS, INIT, INVARIANTS, ...)")
        if section == "CONSTANTS":
            name_, op, value = ((x.strip() for x in re.split(r"(=|<-)", line, maxsplit=1)) if re.search("=|<-", line)
                                else (line, "", ""))
            if not _IDENTIFIER.fullmatch(name_) or op not in ("=", "<-"):
                raise SpecConfigError(f"{where}: expected 'Name = value' or 'Name <- Definition' in CONSTANTS")
            if op == "=":
                if name_ in constants:
                    raise SpecConfigError(f"{where}: {name_} is assigned twice (first on line {at[name_]})")
                constants[name_], at[name_] = _value(value, where), number
        elif section in sections:
            for word in line.split():
                if not _IDENTIFIER.fullmatch(word):
                    raise SpecConfigError(f"{where}: {word[:60]!r} is not a definition name")
                sections[section].append((word, number))
    addrs, broker_ids = _module_definitions(path.parent / f"{module}.tla", f"{path}:1")
    _check_constants(path, constants, at)
    starts = sections["INIT"] + sections["SPECIFICATION"]  # (the word, its line)
    init = [SPECIFICATIONS.get(w, w) for w, _ in starts]
    if len(init) != 1 or init[0] not in INITS:
        raise SpecConfigError(f"{path}: needs INIT {', INIT '.join(INITS)} or SPECIFICATION {' or '.join(SPECIFICATIONS)} "
                              f"(found: {init})")
    _check_design(path, constants, at, init[0], *starts[0])
    for (section, known) in (("INVARIANTS", STATE_INVARIANTS), ("PROPERTIES", ACTION_PROPERTIES + LIVENESS)):
        names = [p.name for p in known]
        for word, number in sections[section]:
            if word not in names:
                raise SpecConfigError(f"{path}:{number}: {section}: no property {word} (known: {', '.join(names)})")
    properties = [w for w, _ in sections["PROPERTIES"]]
    spec = SpecConfig(name, module, addrs, broker_ids, constants, init[0], tuple(w for w, _ in sections["INVARIANTS"]),
                      tuple(w for w in properties if w not in LIVENESS_BY_NAME), path,
                      tuple(w for w in properties if w in LIVENESS_BY_NAME))
    config, field, problem = config_from_meta(spec.meta())
    if config is None:
        option = field.rpartition(".")[2]
        constant = "Policy" if option == "policy" else spec_constant(option)
        line = f":{at[constant]}" if constant in at else ""
        raise SpecConfigError(f"{path}{line}: {constant} {problem}")
    return spec


def _check_design(path: Path, constants: Mapping[str, Any], at: Mapping[str, int], init: str, word: str, line: int) -> None:
    """Design one of DESIGNS, started from its initial predicate: InitDesign (spec/Designs.tla) in the designs RIP-44
    replaced, Init or InitRegistered in controller mode (``init``: the predicate ``word``, on ``line``, starts from)."""
    design = constants.get("Design", CONTROLLER)
    if design not in DESIGNS:
        raise SpecConfigError(f"{path}:{at['Design']}: Design = {design!r}: must be one of {', '.join(map(repr, DESIGNS))}")
    if (init == "InitDesign") == (design == CONTROLLER):
        declared = f"line {at['Design']}" if "Design" in at else "the default"
        wanted = ("INIT Init, INIT InitRegistered or SPECIFICATION LiveSpec, LiveSpecRegistered" if design == CONTROLLER
                  else "INIT InitDesign or SPECIFICATION LiveSpecDesign")
        raise SpecConfigError(f"{path}:{line}: {word} does not start the {design} design "
                              f"(Design = {design!r}, {declared}): use {wanted}")


def _check_constants(path: Path, constants: Mapping[str, Any], at: Mapping[str, int]) -> None:
    """Every constant known, of its type and, for a bound, at least its least value."""
    options = {spec_constant(name): f for name, f in OPTION_FIELDS.items()}
    unknown = sorted(set(constants) - {*BOUNDS, *SWITCHES, *FAULT_CONSTANTS, "Policy", *options})
    if unknown:
        raise SpecConfigError(f"{path}:{at[unknown[0]]}: unknown constant(s) {', '.join(unknown)}: not a bound, a switch, Policy "
                              f"or an option ({', '.join(options)})")
    missing = [b for b in BOUNDS + SWITCHES if b not in constants]
    if missing:
        raise SpecConfigError(f"{path}: needs the constants {', '.join(BOUNDS + SWITCHES)} (missing: {', '.join(missing)})")
    defaults = Options()
    for name, value in constants.items():
        wanted = (int if name in BOUNDS else bool if name in SWITCHES else str if name == "Policy"
                  else type(FAULT_CONSTANTS[name]) if name in FAULT_CONSTANTS else type(getattr(defaults, options[name])))
        if type(value) is not wanted:
            kind = {int: "an integer", bool: "TRUE or FALSE", str: "a string", frozenset: "a set of strings"}[wanted]
            raise SpecConfigError(f"{path}:{at[name]}: {name} = {value!r}: must be {kind}")
        if name in LEAST and value < LEAST[name]:
            raise SpecConfigError(f"{path}:{at[name]}: {name} = {value}: a bound of at least {LEAST[name]}")
    strangers = sorted(set(constants.get("Faults", ())) - set(NEW_FAULTS))
    if strangers:
        raise SpecConfigError(f"{path}:{at['Faults']}: Faults names {', '.join(strangers)}: not one of {', '.join(NEW_FAULTS)}")


def lasso_next(config: SpecConfig) -> dict[str, Any]:
    """A lasso's ``#meta.next`` (conformance/trace/replay.py, LASSO_NEXT): the domains of Next replay tries for
    enabledness; written by the checker and by the TLC import alike."""
    return {"brokerIds": list(config.broker_ids), "switches": [n for n in SWITCHES if config.switch(n)],
            "faults": sorted(config.faults)}
