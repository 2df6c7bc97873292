"""The log search side by side (``autoswitch bench --logs``): logs cut from the walks the default campaign samples, put to
the exact search alone and to ``validate``'s schedule (search.py: the lazy searches taking turns with the exact one), in
this process, one after the other, each with the log's own largest gap (cut.max_gap: the gap that surely suffices).

The walks are the campaign's own: ``autoswitch simulate`` with the same seed, walks and length exports walk 0, ``sample``,
``2 sample``, ... of each configuration when it passes (spark.walk_row); a walk that fails is not sampled, and not
cut here. Each is cut from the walk's full log and from the implementation's own event files (cut.impl_log), by each of
cut.FILTERS, and each cut is put to the search twice (CLOCKS): as written, its header claiming that the clock counts
steps (the walk's and the implementation's clocks do: ``clockCountsSteps``), so that each gap has the clock's bound;
and without that claim (cut.clock_orders_only), as a system whose clock only orders its events would log it, every gap
then bounded by the log's largest. A log cut from a behaviour of the model is never refused with its own gap: a
refusal is a finding (the search, the cut, or the implementation's events are wrong), and the command exits 1.

Beside them, the time to a refusal: per walk and clock, a few logs with one value no behaviour reaches (UNREACHABLE:
the walk's full log, its controller view, every third event and p1's events, with an epoch, the id counter or an offset
falsified past every bound, cut.falsify; the full log with an identity file past the ids handed out, cut.past_ids), put
to ``validate`` alone (mode ``validate``, cut ``unreachable: ...``). Each must be refused: one explained, or given up, is a finding too.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from attrs import frozen

from autoswitch.conformance.controls import DEFAULT_CONFIGS, grid
from autoswitch.conformance.logs import cut
from autoswitch.conformance.logs.events import read_log
from autoswitch.conformance.logs.search import EXACT, EXPLAINED, GAVE_UP, MAX_STATES, REFUSED, alone, validate
from autoswitch.conformance.simulation.spark import Campaign, checked_walk

SOURCES = ("walk", "impl")  # the walk's full log, the implementation's own event files
MODES = ("exact", "validate")  # the exact search alone; validate's schedule
CLOCKS = ("steps", "order")  # the header claims that the clock counts steps; it does not (the clock only orders)
SAFETY = tuple(c for c in DEFAULT_CONFIGS if not c.endswith("-live"))  # the default campaign's safety configurations
UNREACHABLE = "unreachable: "  # the cut name of a log with a value no behaviour reaches (its mutation follows)
MUTATIONS: dict[str, Callable[[cut.CutLog], cut.Mutation | None]] = {
    "falsified": cut.falsify,
    "falsified controller view": lambda log: cut.falsify(cut.controller_view(log)),
    "falsified every third": lambda log: cut.falsify(cut.every_kth(log, 3)),
    "falsified one node": lambda log: cut.falsify(cut.one_node(log, "p1")),
    "identity file": cut.past_ids,
}


@frozen
class LogRun:
    """One log under one mode: its verdict, the states expanded and the seconds taken."""

    config: str
    walk: int
    source: str
    cut: str
    clock: str
    events: int
    gap: int
    mode: str
    status: str
    expanded: int
    seconds: float

    def describe(self) -> str:
        return (f"{self.config} walk {self.walk} {self.source} {self.cut}, clock {self.clock} ({self.events} events, gap "
                f"{self.gap}) {self.mode}: "
                f"{self.status}, {self.expanded:,} states, {self.seconds:.1f} s")


@frozen
class Summary:
    """The runs of one mode over a group of logs."""

    runs: tuple[LogRun, ...]

    def count(self, status: str) -> int:
        return sum(1 for r in self.runs if r.status == status)

    @property
    def median(self) -> float:
        return statistics.median(r.expanded for r in self.runs) if self.runs else 0.0

    @property
    def worst(self) -> int:
        return max((r.expanded for r in self.runs), default=0)

    @property
    def seconds(self) -> float:
        return sum(r.seconds for r in self.runs)


def sampled_walks(configs: Sequence[str], walks: int, length: int, seed: int,
                  sample: int = Campaign().sample) -> Iterator[tuple[str, int, list[dict]]]:
    """(configuration, walk, actions) of every walk the campaign (``seed``, ``walks`` walks of ``length`` steps) exports
    as a sample: walks 0, ``sample``, ... that pass."""
    campaign = Campaign(seed, walks, length, tuple(configs), sample=sample)
    for name in configs:
        sim = grid()[name]
        for walk in range(0, walks, sample):
            _, run, _ = checked_walk(campaign, sim, walk, None)
            if run.failure is None:
                yield name, walk, list(run.actions)


def _exact(path: Path, gap: int, max_states: int) -> tuple[str, int]:
    search = alone(read_log(path), gap, EXACT, max_states)
    return search.verdict or GAVE_UP, search.expanded


def _validate(path: Path, gap: int, max_states: int) -> tuple[str, int]:
    verdict = validate(path, max_gap=gap, max_states=max_states)
    return verdict.status, verdict.expanded


RUNNERS: dict[str, Callable[[Path, int, int], tuple[str, int]]] = {"exact": _exact, "validate": _validate}


def bench_logs(configs: Sequence[str] = SAFETY, walks: int = 1000, length: int = 100, seed: int = 1,
               max_states: int = MAX_STATES, say: Callable[[LogRun], None] = lambda run: None) -> list[LogRun]:
    """Every log cut from the sampled walks of ``configs``, under each of MODES; ``say`` hears each run as it ends."""
    runs: list[LogRun] = []
    with tempfile.TemporaryDirectory(prefix="autoswitch-bench-logs-") as scratch:
        for name, walk, actions in sampled_walks(configs, walks, length, seed):
            config = grid()[name].config
            where = Path(scratch) / f"{name}-{walk}"
            fulls = {"walk": cut.walk_log(config, actions), "impl": cut.impl_log(config, actions, where / "run")}
            for clock in CLOCKS:
                for source in SOURCES:
                    for label, cut_by in cut.FILTERS.items():
                        log = cut_by(fulls[source])
                        log = log if clock == "steps" else cut.clock_orders_only(log)
                        gap = cut.max_gap(log)
                        path = log.write(where / f"{source}-{label}-{clock}")
                        for mode in MODES:
                            start = time.perf_counter()
                            status, expanded = RUNNERS[mode](path, gap, max_states)
                            run = LogRun(name, walk, source, label, clock, len(log.events), gap, mode, status, expanded,
                                         time.perf_counter() - start)
                            runs.append(run)
                            say(run)
                for label, mutate in MUTATIONS.items():
                    mutation = mutate(fulls["walk"])
                    if mutation is None:
                        continue
                    log = mutation.log if clock == "steps" else cut.clock_orders_only(mutation.log)
                    gap = cut.max_gap(log)
                    path = log.write(where / f"unreachable-{label.replace(' ', '-')}-{clock}")
                    start = time.perf_counter()
                    status, expanded = _validate(path, gap, max_states)
                    run = LogRun(name, walk, "walk", UNREACHABLE + label, clock, len(log.events), gap, "validate", status,
                                 expanded, time.perf_counter() - start)
                    runs.append(run)
                    say(run)
    return runs


def unreachable(run: LogRun) -> bool:
    """Whether ``run`` is of a log with a value no behaviour reaches (it must be refused)."""
    return run.cut.startswith(UNREACHABLE)


def wrong(run: LogRun) -> bool:
    """Whether ``run``'s verdict is a finding: a cut log refused, or an unreachable-value log not refused."""
    return (run.status != REFUSED) if unreachable(run) else (run.status == REFUSED)


@frozen
class Times:
    """validate's seconds to its verdicts over a group of logs: to an explanation (the cut logs it explained) and to a
    refusal (the unreachable-value logs it refused)."""

    label: str
    explained: tuple[float, ...]
    refused: tuple[float, ...]

    @staticmethod
    def _median(xs: Sequence[float]) -> float:
        return statistics.median(xs) if xs else 0.0

    @property
    def to_explanation(self) -> float:
        return self._median(self.explained)

    @property
    def to_refusal(self) -> float:
        return self._median(self.refused)


def times(runs: Sequence[LogRun]) -> list[Times]:
    """Per clock, then for all: validate's seconds to an explanation and to a refusal."""
    rows = []
    for label, group in [*((f"clock {c}", [r for r in runs if r.clock == c]) for c in CLOCKS), ("all", list(runs))]:
        mine = [r for r in group if r.mode == "validate"]
        rows.append(Times(label, tuple(r.seconds for r in mine if not unreachable(r) and r.status == EXPLAINED),
                          tuple(r.seconds for r in mine if unreachable(r) and r.status == REFUSED)))
    return rows


def summaries(runs: Sequence[LogRun]) -> list[tuple[str, dict[str, Summary]]]:
    """A row per (clock, source, cut) in table order, then one per clock for all its logs: each mode's Summary."""
    rows = []
    for clock in CLOCKS:
        of_clock = [r for r in runs if r.clock == clock and not unreachable(r)]
        for source in SOURCES:
            for label in cut.FILTERS:
                group = [r for r in of_clock if (r.source, r.cut) == (source, label)]
                if group:
                    rows.append((f"clock {clock}: {source}, {label}",
                                 {m: Summary(tuple(r for r in group if r.mode == m)) for m in MODES}))
        if of_clock:
            rows.append((f"clock {clock}: all", {m: Summary(tuple(r for r in of_clock if r.mode == m)) for m in MODES}))
    return rows
