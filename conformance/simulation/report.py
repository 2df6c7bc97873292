"""A campaign's summary from its rows: per configuration the walks, steps, action and abstract-state
coverage, failures per invariant, the shortest shrunk trace; the verdict (every negative control found,
nothing else broken); ``report.md`` with two PNG plots (coverage growth over walks, violations per
configuration) and, for the liveness configurations, their fair suffixes and failures per property with the walks
and steps it took to find the first; for the designs RIP-44 replaced (reference/designs.py), their failing walks per
thousand and the time to the first failure."""

from __future__ import annotations

import io
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from attrs import frozen

from autoswitch.conformance import compare
from autoswitch.conformance.controls import grid
from autoswitch.conformance.html.report import write_html_report
from autoswitch.conformance.simulation.campaign import LIVENESS_FAILURE, PASS
from autoswitch.conformance.simulation.coverage import Coverage
from autoswitch.conformance.simulation.fair import FAIR_BOUND
from autoswitch.conformance.simulation.spark import Campaign, RunStats
from autoswitch.conformance.simulation.store import ChunkProblem, write_atomic
from autoswitch.reference.actions import CONTROLLER, DATA, PROCESS_GROUP, tags

SATURATION = 50  # walks without a new abstract state, at least, for coverage to count as saturated
WALKABLE = len(tags(CONTROLLER, PROCESS_GROUP, DATA)) - 1  # every tag but CleanBrokerData, which walks never draw


@frozen
class ConfigSummary:
    name: str
    control: str | None
    walks: int
    steps: int
    actions: Counter
    states: int
    growth: list[int]  # distinct abstract states after each walk
    failures: Counter  # (kind, name) -> walks
    tolerated: Counter  # name -> walks where a tolerated property failed
    shortest: dict[str, Any] | None  # the row of the shortest shrunk trace of the control (or of any failure)
    live: bool = False  # liveness walks: the control is a liveness property
    fair_steps: int = 0  # liveness walks: steps of their fair suffixes
    quiescent: int = 0  # liveness walks ending at quiescence
    first: dict[tuple[str, str], tuple[int, int]] = {}  # (kind, name) -> (walks, steps) up to its first failure, inclusive

    @property
    def control_failure(self) -> tuple[str, str | None]:
        return (LIVENESS_FAILURE if self.live else "violation", self.control)

    @property
    def problems(self) -> list[str]:
        """Unexpected failures, and a negative control not found."""
        found = [f"{self.name}: {kind} {name} in {n} walk(s)" for (kind, name), n in sorted(self.failures.items())
                 if (kind, name) != self.control_failure]
        if self.control and not self.failures[self.control_failure]:
            found.append(f"{self.name}: negative control {self.control} not found")
        return found


def summarize(campaign: Campaign, rows: list[dict[str, Any]]) -> list[ConfigSummary]:
    out = []
    for name in campaign.configs:
        mine = [r for r in rows if r["config"] == name]
        seen: set[int] = set()
        growth = []
        for r in mine:
            seen.update(r["states"])
            growth.append(len(seen))
        actions: Counter = Counter()
        for r in mine:
            actions.update(r["actions"])
        sim = grid()[name]
        shrunk = [r for r in mine if r["shrunk_length"] is not None]
        preferred = [r for r in shrunk if r["failure"] == sim.control] or shrunk
        shortest = min(preferred, key=lambda r: (r["shrunk_length"], r["walk"])) if preferred else None
        first: dict[tuple[str, str], tuple[int, int]] = {}
        steps = 0
        for i, r in enumerate(mine):
            steps += r["length"]
            if r["status"] != PASS:
                first.setdefault((r["status"], r["failure"]), (i + 1, steps))
        out.append(ConfigSummary(
            name, sim.control, len(mine), sum(r["length"] for r in mine), actions, len(seen), growth,
            Counter((r["status"], r["failure"]) for r in mine if r["status"] != PASS),
            Counter(k for r in mine for k in r["tolerated"]), shortest, sim.live,
            sum(r["fair_steps"] or 0 for r in mine), sum(bool(r["quiescent"]) for r in mine), first))
    return out


def _liveness_section(summaries: list[ConfigSummary]) -> list[str]:
    """The liveness configurations: their walks, fair suffixes, and failures per property with the first found."""
    live = [s for s in summaries if s.live]
    if not live:
        return []
    lines = ["## Liveness", "",
             f"Liveness walks: faults up to a random cut point, then a fair suffix of at most {FAIR_BOUND} steps "
             "(conformance/simulation/fair.py); every liveness property must hold at its end. They draw no "
             "ControllerMetadataLoss (the code does not survive it: controls.py, meta-loss). First failure: the walks "
             "and steps run in the configuration up to and including the first walk failing so.", "",
             "| configuration | control | walks | fair steps (mean) | quiescent | failures per property | first failure "
             "(walks, steps) | tolerated |", "|---|---|---|---|---|---|---|---|"]
    for s in live:
        failures = ", ".join(f"{name} x{n}" + ("" if kind == LIVENESS_FAILURE else f" ({kind})")
                             for (kind, name), n in sorted(s.failures.items())) or "none"
        first = ", ".join(f"{name}: walk {w}, {steps} steps" for (_, name), (w, steps) in sorted(s.first.items())) or "-"
        tolerated = ", ".join(f"{k} x{n}" for k, n in sorted(s.tolerated.items())) or "-"
        mean = s.fair_steps / s.walks if s.walks else 0
        lines.append(f"| {s.name} | {s.control or 'safe'} | {s.walks} | {s.fair_steps} ({mean:.1f}) | {s.quiescent}/{s.walks} | "
                     f"{failures} | {first} | {tolerated} |")
    return [*lines, ""]


def _designs_section(summaries: list[ConfigSummary], stats: RunStats) -> list[str]:
    """The configurations of the designs RIP-44 replaced (4.x master-slave, DLedger; conformance/compare.py has the
    checker's side): failing walks per thousand, and the walks, steps and seconds (at this run's steps/s) up to the
    first failure."""
    designs = [(s, grid()[s.name].config.options.design) for s in summaries]
    designs = [(s, d) for s, d in designs if d != "controller"]
    if not designs:
        return []
    rate = stats.steps_per_second
    lines = ["## Designs", "",
             "The designs RIP-44 replaced, under the same walks and faults (autoswitch compare: the checker's verdict per "
             "property). Time to the first failure: the walks and steps run in the configuration up to and including the "
             "first failing walk, and their seconds at this run's steps/s.", "",
             "| configuration | design | control | walks | failing walks per 1,000 | first failure (walks, steps, ~seconds) |",
             "|---|---|---|---|---|---|"]
    for s, design in designs:
        failing = sum(s.failures.values())
        per_mille = 1000 * failing / s.walks if s.walks else 0.0
        first = ", ".join(f"{name}: walk {w}, {steps} steps, ~{steps / rate:.1f} s" if rate else f"{name}: walk {w}, {steps} steps"
                          for (_, name), (w, steps) in sorted(s.first.items())) or "-"
        lines.append(f"| {s.name} | {design} | {s.control or 'safe'} | {s.walks} | {per_mille:.1f} | {first} |")
    lines += ["", "The exhaustive comparison within each configuration's bounds (`autoswitch compare`, the committed results "
              "conformance/compare.json; each cell's command reproduces it):", "", compare.markdown_table(compare.load())]
    return [*lines, ""]


def saturated(growth: list[int]) -> bool:
    """Coverage saturated: no new abstract state in the last quarter of the walks (at least SATURATION walks)."""
    tail = max(SATURATION, len(growth) // 4)
    return len(growth) > tail and growth[-1] == growth[-1 - tail]


def first_failures(summaries: list[ConfigSummary], rows: list[dict[str, Any]], campaign: Campaign, stats: RunStats,
                   times: Mapping[tuple[str, int], tuple[float, list[float]]]) -> dict[str, tuple[int, float, float | None]]:
    """Per configuration with a control found: (walks, seconds, wall seconds) up to its first walk failing with the control.
    Walks: in walk order, that walk included; seconds: the time those walks took to run (their chunks' timings, one core);
    wall seconds: from this run's start (Spark's start included) to the end of the earliest failing walk of a chunk this
    run ran (None: every such chunk ran in an earlier run)."""
    out = {}
    for s in summaries:
        if s.control is None or s.control_failure not in s.first:
            continue
        walks = s.first[s.control_failure][0]
        seconds, wall = 0.0, None
        for r in (r for r in rows if r["config"] == s.name):
            k, i = divmod(r["walk"], campaign.chunk)
            started, ends = times.get((s.name, k), (0.0, []))
            if i < len(ends):
                if r["walk"] < walks:
                    seconds += ends[i] - (ends[i - 1] if i else 0.0)
                if (r["status"], r["failure"]) == s.control_failure and started >= stats.started:
                    at = started + ends[i] - stats.started
                    wall = at if wall is None else min(wall, at)
        out[s.name] = (walks, seconds, wall)
    return out


def _first_failure_section(firsts: Mapping[str, tuple[int, float, float | None]], summaries: list[ConfigSummary]) -> list[str]:
    lines = ["## Time to first failure", "",
             "Per negative control: the walks run in its configuration up to and including the first walk that finds it, "
             "the seconds those walks took (one core), and the wall time from this run's start (Spark's start included) to "
             "the end of the first such walk to finish.", "",
             "| configuration | control | failing walks per 1,000 | walks to first failure | seconds (one core) | wall seconds |",
             "|---|---|---|---|---|---|"]
    for s in summaries:
        if s.control is None:
            continue
        per_mille = 1000 * s.failures[s.control_failure] / s.walks if s.walks else 0.0
        walks, seconds, wall = firsts.get(s.name, (None, None, None))
        lines.append(f"| {s.name} | {s.control} | {per_mille:.1f} | {walks or 'not found'} | "
                     f"{'-' if seconds is None else f'{seconds:.2f}'} | {'-' if wall is None else f'{wall:.2f}'} |")
    return [*lines, ""]


def _save(fig: Any, path: Path) -> None:
    png = io.BytesIO()
    fig.savefig(png, format="png", dpi=110)
    write_atomic(path, png.getvalue())


def _plots(summaries: list[ConfigSummary], out: Path) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 5.5))
    for s in summaries:
        ax.plot(range(1, len(s.growth) + 1), s.growth, label=s.name, linestyle="-" if s.control is None else "--")
    ax.set(xlabel="walks", ylabel="distinct abstract states", title="Coverage growth over walks")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    _save(fig, out / "coverage.png")
    plt.close(fig)

    names = sorted({f"{kind}: {name}" for s in summaries for kind, name in s.failures})
    fig, ax = plt.subplots(figsize=(9, 5.5))
    bottom = [0] * len(summaries)
    for label in names:
        kind, name = label.split(": ", 1)
        counts = [s.failures[(kind, name)] for s in summaries]
        ax.barh([s.name for s in summaries], counts, left=bottom, label=label)
        bottom = [b + c for b, c in zip(bottom, counts, strict=True)]
    for row, total in enumerate(bottom):  # a handful of failures is a thin bar: say the number
        ax.text(total, row, f" {total}", va="center", fontsize=8)
    ax.set_xscale("symlog", linthresh=1)  # 3 failures and 600 on one readable axis
    ax.set(xlabel="failing walks (log scale)", title="Violations per configuration (first failure of each walk)")
    ax.invert_yaxis()
    if names:
        ax.legend(fontsize=8)
    fig.tight_layout()
    _save(fig, out / "violations.png")
    plt.close(fig)
    return ["coverage.png", "violations.png"]


def write_report(campaign: Campaign, rows: list[dict[str, Any]], stats: RunStats, out: Path,
                 missing: Mapping[tuple[str, int], ChunkProblem] = {},
                 times: Mapping[tuple[str, int], tuple[float, list[float]]] = {},
                 exhaustive: Mapping[str, Coverage] = {}) -> tuple[Path, list[str]]:
    """Write ``report.md`` (and the plots) under ``out``, and ``report.html`` beside it with the failures' explorer
    pages (conformance/html/report.py); returns its path and the problems found: the
    summaries', each shrunk trace whose page could not be written, and each chunk of ``missing`` (not done, so not in the rows: store.load_rows). ``times``: the chunks'
    timings (store.timings) for the time to first failure; ``exhaustive``: per configuration, the fraction of the
    checker's exhaustive abstract states its walks reached (coverage.py)."""
    summaries = summarize(campaign, rows)
    plots = _plots(summaries, out)
    problems = [f"{config} chunk {k} not in this report: {problem}" for (config, k), problem in missing.items()]
    problems += [p for s in summaries for p in s.problems]
    lines = [
        f"# Simulation campaign (seed {campaign.seed})", "",
        f"{campaign.walks} walks x {campaign.length} steps per configuration, {len(campaign.configs)} configurations, "
        f"{campaign.chunk} walks per task; swarm testing {'on' if campaign.swarm else 'off'}, coverage guidance "
        f"{'on' if campaign.guide else 'off'}. This run: {stats.ran} chunks run, {stats.skipped} already done, on "
        f"`{stats.master}`, {stats.walks} walks and {stats.steps} steps in {stats.seconds:.1f} s: "
        f"**{stats.walks_per_second:,.1f} walks/s, {stats.steps_per_second:,.0f} steps/s**.", "",
        "Verdict: " + ("every negative control found, no other violation or divergence." if not problems
                       else "**problems**:\n\n" + "\n".join(f"- {p}" for p in problems)), "",
        "| configuration | control | walks | steps | actions covered | abstract states (saturated?) | failures | tolerated | "
        "shortest shrunk trace |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for s in summaries:
        failures = ", ".join(f"{name} ({kind}) x{n}" for (kind, name), n in sorted(s.failures.items())) or "none"
        tolerated = ", ".join(f"{k} x{n}" for k, n in sorted(s.tolerated.items())) or "-"
        trace = "-"
        if s.shortest:
            trace = (f"`{s.shortest['trace']}`: {s.shortest['shrunk_length']} steps, {s.shortest['shrunk_faults']} faults, "
                     f"expects {s.shortest['trace_expects']}")
        sat = "saturated" if saturated(s.growth) else "growing"
        lines.append(f"| {s.name} | {s.control or 'safe'} | {s.walks} | {s.steps} | {len(s.actions)}/{WALKABLE} | {s.states} ({sat}) | "
                     f"{failures} | {tolerated} | {trace} |")
    lines += ["", "Replay a shrunk trace (both models): `autoswitch replay <out>/failures/<config>/walk-<i>.itf.json`; "
              "re-run any walk alone: `autoswitch simulate --seed S --length L --walks W --configs NAME --walk I`.", "",
              "## Action coverage", "", "| configuration | " + " | ".join(sorted({t for s in summaries for t in s.actions})) + " |",
              "|---|" + "---|" * len({t for s in summaries for t in s.actions})]
    tags = sorted({t for s in summaries for t in s.actions})
    for s in summaries:
        lines.append(f"| {s.name} | " + " | ".join(str(s.actions[t]) for t in tags) + " |")
    lines += ["", *_first_failure_section(first_failures(summaries, rows, campaign, stats, times), summaries)]
    if exhaustive:
        lines += ["## Coverage of the exhaustive state space", "",
                  "Abstract states (campaign.abstract_view) of every state the explicit-state checker reaches in the spec "
                  "configuration, and how many of them the campaign's walks reached (walks are not bounded as the spec "
                  "configuration is: states they reach beyond its bounds are not counted).", "",
                  "| configuration | spec configuration | checker states | abstract states | reached | fraction |", "|---|---|---|---|---|---|"]
        lines += [f"| {name} | {c.spec} | {c.concrete:,} | {c.total:,} | {c.reached:,} | {c.fraction:.1%} |" for name, c in exhaustive.items()]
        lines.append("")
    lines += ["", *_liveness_section(summaries), *_designs_section(summaries, stats), "## Plots", "", *(f"![{p}]({p})" for p in plots), ""]
    path = out / "report.md"
    write_atomic(path, "\n".join(lines).encode())
    _, unwritten = write_html_report("\n".join(lines), rows, out, plots, f"Simulation campaign (seed {campaign.seed})")
    return path, problems + unwritten
