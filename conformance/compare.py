"""The designs RIP-44 replaced under the same properties (issue 15): for each design (a column) and each property of
MODEL.md §6 and §8 (a row), whether the explicit-state checker finds it holding within the configuration's bounds
or its shortest counterexample, each cell with the one command that reproduces it
(``autoswitch check CFG --invariant NAME``, ``--property NAME`` for an action or liveness property).

- The columns (:data:`DESIGNS`) name rows of controls.py: the safety row's configuration checks §6, the liveness rows'
  configurations §8 (the first of them whose PROPERTIES list the property, else the first: its fairness and fault
  bound apply to every property). What the cell must show is the rows':
  violated when the property is among the row's ``breaks`` (``liveness_breaks``), else holds.
- A property that says nothing about a design is "n/a" with the reason (:data:`NOT_APPLICABLE`): the checker would
  find it holding vacuously (no controller, no epochs, no epoch file, no registration).
- A configuration is searched once per violated property, not once per property: a breadth-first search of every
  property finds the shortest violation of some property P, at the depth of P's shortest (no property fails
  earlier), and a search of the others goes on; a search that finds none explored every state, so each property left
  holds with that count of distinct states. The cell's command, checking P alone, finds the same depth and count.

The results are a list of :class:`Cell`; ``markdown_table`` renders docs/designs.md's table from them (:data:`TABLE_PAGE`), and the
committed results (:data:`RESULTS`, written by ``autoswitch compare --out``) keep that page and a fresh run comparable.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import attrs
from attrs import frozen

from autoswitch.conformance.check.checker import Checker, Violation, violation_trace_meta
from autoswitch.conformance.check.specconfig import SpecConfig, load_spec_config
from autoswitch.conformance.controls import Control, by_name, config_breaks
from autoswitch.conformance.paths import file_under
from autoswitch.conformance.trace.itf import write_trace
from autoswitch.conformance.trace.replay import replay_file
from autoswitch.reference.invariants import ACTION_PROPERTIES
from autoswitch.reference.liveness import LIVENESS_BY_NAME
from autoswitch.reference.state import DLEDGER, MASTER_SLAVE

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "conformance" / "compare.json"  # the committed results the table of TABLE_PAGE is rendered from
TABLE_PAGE = "docs/designs.md"  # the page that shows markdown_table of RESULTS (a test keeps the two equal)
TRACES = "traces/designs"  # each cell's counterexample, with #meta.expect: the corpus replays it

# MODEL.md §6 in its order (BrokerIdStable and EpochsMonotonic are action properties), then §8
SAFETY = ("TypeOK", "MasterInSyncStateSet", "SyncStateSetRegistered", "UniqueBrokerIds", "BrokerIdStable",
          "AtMostOneMasterPerEpoch", "EpochFileWellFormed", "LogMatching", "NoAckedMessageLost", "NoPhantomRead",
          "ConfirmOffsetBound", "EpochsMonotonic")
LIVENESS = ("EventuallyMaster", "EventuallyRegistered", "EventuallyInSync", "EventuallyAnswered")
PROPERTIES = SAFETY + LIVENESS
ACTION = frozenset(p.name for p in ACTION_PROPERTIES)

HOLDS, VIOLATED, NA, UNCHECKED = "holds", "violated", "n/a", "not checked"

_NO_CONTROLLER = "no controller"
NOT_APPLICABLE = {  # design -> property -> why it says nothing there (the checker would find it holding vacuously)
    MASTER_SLAVE: {"MasterInSyncStateSet": _NO_CONTROLLER, "SyncStateSetRegistered": _NO_CONTROLLER,
                   "AtMostOneMasterPerEpoch": "no epochs", "EpochFileWellFormed": "no epoch file",
                   "EpochsMonotonic": "no epochs", "EventuallyRegistered": "no registration"},
    DLEDGER: {"MasterInSyncStateSet": _NO_CONTROLLER, "SyncStateSetRegistered": _NO_CONTROLLER,
              "EpochFileWellFormed": "no epoch file (the entries carry their term)",
              "EpochsMonotonic": "no controller or broker epochs (terms are not among them)",
              "EventuallyRegistered": "no registration"},
}


@frozen
class Design:
    """One column: the rows of controls.py whose configurations check it."""

    name: str
    title: str  # the column's heading
    safety: str  # the row whose configuration checks §6
    liveness: tuple[str, ...] = ()  # the rows whose configurations check §8, the first listing a property
    no_liveness: str = ""  # why §8 is not checked when there is no liveness row
    too_large: str = ""  # why the safety configuration is not searched here (its cells give the commands)


DESIGNS = (
    Design("ms-async", "4.x ASYNC_MASTER, 2 brokers", "ms-async",
           no_liveness="no ASYNC_MASTER liveness configuration (failover is by hand as with SYNC_MASTER)"),
    Design("ms-sync", "4.x SYNC_MASTER, 2 brokers", "ms-sync", ("live-ms",)),
    Design("dledger-2", "DLedger, 2 replicas", "dledger-2", ("live-dledger-2",)),
    Design("dledger-3", "DLedger, 3 replicas", "dledger-3", ("live-dledger-3",)),
    Design("controller-2", "controller mode, 2 replicas", "safe-rocketmq", ("live-reg", "live-data")),
    Design("controller-3", "controller mode, 3 replicas", "safe-rocketmq-3p",
           no_liveness="no 3-process liveness configuration", too_large="MC_data3 runs for hours"),
)
DESIGN_NAMES = tuple(d.name for d in DESIGNS)


@frozen
class Cell:
    """One (design, property): ``status`` holds, violated, n/a or not checked; ``states`` the distinct states of a
    search that found none (holds), ``steps`` the counterexample's length (a lasso's steps for liveness)."""

    design: str
    prop: str
    status: str
    expected: str | None = None  # holds | violated; None: no expectation (n/a, not checked)
    cfg: str | None = None
    states: int | None = None
    steps: int | None = None
    loop: int | None = None
    reason: str = ""
    trace: str | None = None  # the counterexample under the output folder

    @property
    def command(self) -> str | None:
        if self.cfg is None:
            return None
        option = "--property" if self.prop in ACTION or self.prop in LIVENESS_BY_NAME else "--invariant"
        return f"autoswitch check {self.cfg} {option} {self.prop}"

    @property
    def as_expected(self) -> bool:
        return self.expected is None or self.expected == self.status

    @property
    def text(self) -> str:
        """The cell as the table shows it."""
        if self.status == HOLDS:
            return f"holds ({self.states:,} states)"
        if self.status == VIOLATED:
            steps = f"{self.steps} step{'' if self.steps == 1 else 's'}"
            return f"**violated**, {'lasso of ' if self.loop is not None else ''}{steps}"
        return f"{self.status}: {self.reason}"

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in attrs.asdict(self).items() if v is not None and v != "" and v is not False}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Cell:
        return cls(**data)


def _row(name: str) -> Control:
    row = by_name(name)
    if row is None or row.cfg is None:
        raise ValueError(f"compare: controls.py has no row {name!r} with a spec configuration")
    return row


def _expected(prop: str, breaks: Sequence[str]) -> str:
    return VIOLATED if prop in breaks else HOLDS


def plan(design: Design) -> tuple[list[Cell], dict[str, list[str]]]:
    """The design's cells that need no search (n/a, not checked), and the properties each configuration must check."""
    safety = _row(design.safety)
    skip = NOT_APPLICABLE.get(safety.design, {})
    cells: list[Cell] = []
    todo: dict[str, list[str]] = {}
    for prop in PROPERTIES:
        if prop in skip:
            cells.append(Cell(design.name, prop, NA, reason=skip[prop]))
        elif prop in SAFETY:
            todo.setdefault(safety.cfg, []).append(prop)  # type: ignore[arg-type]
        else:
            cfgs = [r.cfg for r in map(_row, design.liveness)]
            cfg = next((c for c in cfgs if prop in load_spec_config(c).liveness), cfgs[0] if cfgs else None)
            if cfg is None:
                cells.append(Cell(design.name, prop, UNCHECKED, reason=design.no_liveness))
            else:
                todo.setdefault(cfg, []).append(prop)
    return cells, todo


def search(spec: SpecConfig, props: Sequence[str]) -> Iterator[tuple[str, int, Violation | None]]:
    """(property, distinct states, violation) for each of ``props`` on ``spec``: searches of the properties left, each
    stopping at its first (shortest) violation; once a search finds none, every property left holds (module docstring)."""
    left = list(props)
    while left:
        live = tuple(p for p in left if p in LIVENESS_BY_NAME)
        checker = Checker(attrs.evolve(spec, liveness=live), invariants=[p for p in left if p not in ACTION and p not in live],
                          properties=[p for p in left if p in ACTION])
        result = checker.run()
        v = result.violation
        if v is None:
            for prop in left:
                yield prop, result.distinct, None
            return
        yield v.name, result.distinct, v
        left.remove(v.name)


def run_design(design: Design, out: Path | None, on_cell: Callable[[Cell], None] = lambda cell: None) -> list[Cell]:
    """The design's cells in PROPERTIES order; each counterexample written to ``OUT/<design>/<property>.itf.json``."""
    cells, todo = plan(design)
    for cell in cells:
        on_cell(cell)
    for cfg, props in todo.items():
        if design.too_large and cfg == _row(design.safety).cfg:
            for prop in props:
                cells.append(Cell(design.name, prop, UNCHECKED, cfg=cfg, reason=design.too_large))
                on_cell(cells[-1])
            continue
        spec = load_spec_config(cfg)
        breaks = config_breaks(cfg) or ()
        for prop, states, v in search(spec, props):
            cell = Cell(design.name, prop, HOLDS if v is None else VIOLATED, _expected(prop, breaks), cfg,
                        states=states if v is None else None)
            if v is not None:
                cell = attrs.evolve(cell, steps=len(v.states) - 1, loop=v.loop)
                if out is not None:
                    path = file_under(out, design.name, f"{prop}.itf.json")
                    write_trace(path, cell_trace_meta(spec, v, cell, design), list(v.states), v.loop)
                    cell = attrs.evolve(cell, trace=str(path))
            cells.append(cell)
            on_cell(cell)
    order = {p: i for i, p in enumerate(PROPERTIES)}
    return sorted(cells, key=lambda c: order[c.prop])


def cell_trace_meta(spec: SpecConfig, v: Violation, cell: Cell, design: Design) -> dict[str, Any]:
    """The checker's #meta of a counterexample (violation_trace_meta), generated by the cell's command; ``expect`` also
    tolerates the invariants the design's safety row breaks besides the cell's property (the counterexample of one
    property checked alone may break them first)."""
    meta = violation_trace_meta(spec, v)
    tolerated = [p for p in _row(design.safety).breaks if p != cell.prop]
    if tolerated:
        meta["expect"] = {**meta["expect"], "tolerated": tolerated}
    return {**meta, "generator": cell.command}


def run(designs: Sequence[str] = DESIGN_NAMES, out: Path | None = None,
        on_cell: Callable[[Cell], None] = lambda cell: None) -> list[Cell]:
    """Every cell of the named designs (DESIGNS order)."""
    return [cell for d in DESIGNS if d.name in designs for cell in run_design(d, out, on_cell)]


def copy_traces(cells: Sequence[Cell], folder: Path) -> list[tuple[Cell, Path, bool, str]]:
    """Copy each cell's counterexample that replays on the reference to the violation its #meta.expect names (the
    replay's first broken property but the design's other known breaks, ``#meta.expect.tolerated``) as
    ``FOLDER/<design>-<property>.itf.json``; (cell, path, whether it was copied, the replay's line) for each trace (one
    not copied breaks another property at that state or earlier: the other cell's trace shows it)."""
    done = []
    for cell in cells:
        if cell.trace is None:
            continue
        result = replay_file(cell.trace, "reference")
        target = folder / f"{cell.design}-{cell.prop}.itf.json"
        if result.ok:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(Path(cell.trace).read_text())
        done.append((cell, target, result.ok, result.describe().splitlines()[0]))
    return done


def save(cells: Sequence[Cell], path: Path) -> None:
    path.write_text(json.dumps([{k: v for k, v in c.to_json().items() if k != "trace"} for c in cells], indent=1) + "\n")


def load(path: Path = RESULTS) -> list[Cell]:
    return [Cell.from_json(c) for c in json.loads(path.read_text())]


def _cell_markdown(cell: Cell) -> str:
    command = f"<br>`{cell.command}`" if cell.command else ""
    return cell.text + command


def markdown_table(cells: Sequence[Cell]) -> str:
    """The comparison as a Markdown table: a property per row, a design per column."""
    designs = [d for d in DESIGNS if any(c.design == d.name for c in cells)]
    at = {(c.design, c.prop): c for c in cells}
    lines = ["| property | " + " | ".join(d.title for d in designs) + " |", "|---" * (len(designs) + 1) + "|"]
    for prop in PROPERTIES:
        if any((d.name, prop) in at for d in designs):
            lines.append(f"| {prop} | " + " | ".join(_cell_markdown(at[(d.name, prop)]) if (d.name, prop) in at else "-"
                                                     for d in designs) + " |")
    return "\n".join(lines) + "\n"
