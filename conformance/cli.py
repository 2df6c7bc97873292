"""The ``autoswitch`` command."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from .engines import KINDS
from .replay import replay_file, trace_files

console = Console(stderr=True, soft_wrap=True, markup=False, highlight=False)


@click.group()
def main() -> None:
    """autoswitch: RocketMQ controller-mode failover as a TLA+ spec, a reference model and an
    optimized implementation, tied together by traces."""


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--against", type=click.Choice([*KINDS, "both"]), default="both", show_default=True,
              help="Which model replays the traces.")
@click.option("--report", type=click.Path(dir_okay=False, writable=True), help="Write a JSON report here.")
@click.option("--quiet", is_flag=True, help="Print only failures and the summary.")
def replay(paths: tuple[str, ...], against: str, report: str | None, quiet: bool) -> None:
    """Replay ITF traces (files or folders) and compare every step.

    Exits 1 if any trace diverges, violates an invariant it does not expect, or is malformed; every
    other trace still runs."""
    files = trace_files(list(paths))
    engines = list(KINDS) if against == "both" else [against]
    if not files:
        raise click.UsageError(f"no trace files (*.json) under {', '.join(paths)}")
    results = []
    with Progress(TextColumn("replay"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), TextColumn("{task.description}"),
                  console=console, transient=True, disable=len(files) * len(engines) < 50) as progress:
        task = progress.add_task("", total=len(files) * len(engines))
        for f in files:
            for engine in engines:
                result = replay_file(f, engine)
                results.append(result)
                progress.update(task, advance=1, description=Path(f).name)
                if not result.ok or not quiet:
                    console.print(result.describe(), style=None if result.ok else "bold red")
    _summary(results, engines)
    if report:
        Path(report).write_text(json.dumps([r.to_json() for r in results], indent=1) + "\n")
        console.print(f"report written to {report}")
    sys.exit(0 if all(r.ok for r in results) else 1)


def _summary(results: list, engines: list[str]) -> None:
    table = Table(title="replay summary")
    table.add_column("engine")
    statuses = sorted({r.status for r in results})
    for s in statuses:
        table.add_column(s, justify="right")
    table.add_column("states", justify="right")
    for engine in engines:
        mine = [r for r in results if r.engine == engine]
        counts = Counter(r.status for r in mine)
        table.add_row(engine, *(str(counts[s]) for s in statuses), str(sum(r.consumed for r in mine)))
    console.print(table)


@main.command()
@click.option("--out", type=click.Path(file_okay=False), default="traces", show_default=True)
def scenarios(out: str) -> None:
    """Write the hand-written scenario traces of SCENARIOS.md (C1-C4, B1-B6, regressions) under OUT."""
    from .scenarios import write_scenarios

    for path in write_scenarios(out):
        console.print(str(path))


@main.command()
@click.option("--processes", default=3, show_default=True, help="Broker processes in the broker set.")
@click.option("--walks", default=1000, show_default=True, help="Random walks in the corpus.")
@click.option("--length", default=100, show_default=True, help="Steps per walk.")
@click.option("--seed", default=1, show_default=True, help="Corpus seed (the same seed gives the same corpus).")
@click.option("--rounds", default=3, show_default=True, help="Timed rounds per engine; the best counts.")
@click.option("--with-variables", is_flag=True, help="Also project every state to the spec's variables, as a replay does.")
@click.option("--data", is_flag=True, help="A data-path corpus: writes, handshakes, transfers, acks, expand/shrink.")
def bench(processes: int, walks: int, length: int, seed: int, rounds: int, with_variables: bool, data: bool) -> None:
    """Replay one generated corpus on the reference and the implementation; print steps/second."""
    from .bench import corpus, run_bench

    with console.status(f"generating {walks} walks x {length} steps (seed {seed})"):
        config, actions = corpus(processes, walks, length, seed, data)
    with console.status("timing"):
        rows = run_bench(config, actions, rounds, with_variables)
    kind = "data-path" if data else "controller"
    table = Table(title=f"bench ({kind} corpus): {rows[0].steps} steps, {processes} processes, seed {seed}, best of {rounds}")
    for column in ("engine", "steps", "seconds", "steps/s", "vs reference"):
        table.add_column(column, justify="left" if column == "engine" else "right")
    base = rows[0].rate
    for row in rows:
        table.add_row(row.engine, str(row.steps), f"{row.seconds:.3f}", f"{row.rate:,.0f}", f"{row.rate / base:.1f}x")
    Console().print(table)


@main.command()
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
def explain(path: str) -> None:
    """Run one trace on the reference model and print each step, what it changed, and where an
    invariant first fails (the way to read a counterexample)."""
    from .explain import explain as lines
    from .itf import TraceError

    try:
        for line in lines(path):
            click.echo(line)
    except TraceError as e:
        raise click.ClickException(str(e)) from None


@main.command("z3-truncation")
@click.option("--bound", default=8, show_default=True, help="Largest log length considered.")
@click.option("--epochs", default=4, show_default=True, help="Epochs 1..N.")
def z3_truncation(bound: int, epochs: int) -> None:
    """Prove with z3 that a truncation policy never keeps more than the longest common prefix, or show
    the input where it does (every policy, every pair of logs within the bounds)."""
    from .z3_truncation import check, reference_point

    failed = False
    for policy in ("rocketmq", "kip279", "kip101", "hw"):
        verdict = check(policy, bound, epochs)
        if verdict.proved:
            click.echo(f"{policy:9s} proved: never past the common prefix (logs <= {bound}, epochs 1..{epochs})")
            continue
        ex = verdict.example
        failed = failed or policy in ("rocketmq", "kip279")
        click.echo(f"{policy:9s} counterexample: follower {ex['follower']} leader {ex['leader']} hw {ex['hw']} -> keeps "
                   f"{ex['point']} (reference: {reference_point(policy, ex)}), common prefix {ex['lcp']}")
    sys.exit(1 if failed else 0)


@main.command()
@click.option("--walks", default=1000, show_default=True, help="Walks per configuration.")
@click.option("--length", default=100, show_default=True, help="Steps per walk.")
@click.option("--seed", default=1, show_default=True, help="Campaign seed: each walk is seeded from (seed, configuration, walk index).")
@click.option("--configs", default=None, help="Comma-separated configuration names or globs (<options>-<policy>-<n>p); "
              "default: the safe configurations and the negative controls.")
@click.option("--out", default="simulation", show_default=True, type=click.Path(file_okay=False), help="Output folder.")
@click.option("--master", default=None, help="Spark master (local[*], local[2], spark://host:7077); 'none' runs in this "
              "process without Spark. Default: spark-submit's master, else local[*]. With --bench: the Spark side (local[2]).")
@click.option("--chunk", default=100, show_default=True, help="Walks per task (the unit of resumption).")
@click.option("--weights", default="", help="Action weights overriding the configurations', e.g. Crash=5,lost=0.1.")
@click.option("--sample", default=250, show_default=True, help="Export every N-th passing walk as an ITF trace.")
@click.option("--walk", type=int, default=None, help="Re-run this one walk alone (one --configs name): print its row, write its trace under --out.")
@click.option("--bench", "do_bench", is_flag=True, help="Time the campaign in one process and on Spark (--master, default local[2]).")
def simulate(walks: int, length: int, seed: int, configs: str | None, out: str, master: str | None, chunk: int, weights: str,
             sample: int, walk: int | None, do_bench: bool) -> None:
    """Randomized conformance campaign: a grid of configurations x WALKS random walks of LENGTH steps with
    faults, every step checked (invariants on the reference, the implementation compared), failing walks
    shrunk to ITF traces; rows as Parquet and a report (report.md, plots) under OUT.

    Exits 1 if a safe configuration shows a violation or divergence, or a negative control is not found."""
    from .campaign import DEFAULT_CONFIGS, parse_weights, select
    from .simulate import Campaign

    try:
        chosen = tuple(c.name for c in select(configs.split(",") if configs else DEFAULT_CONFIGS))
        campaign = Campaign(seed, walks, length, chosen, chunk, parse_weights(weights), sample)
    except ValueError as e:
        raise click.UsageError(str(e)) from None
    if walk is not None:
        _one_walk(campaign, walk, Path(out))
    elif do_bench:
        _bench(campaign, master or "local[2]")
    else:
        _campaign(campaign, Path(out), master)


def _one_walk(campaign, walk: int, out: Path) -> None:
    from .campaign import grid
    from .simulate import walk_row

    if len(campaign.configs) != 1:
        raise click.UsageError("--walk needs exactly one configuration in --configs")
    row = walk_row(campaign, grid()[campaign.configs[0]], walk, out, set())
    row.pop("states")
    for key, value in row.items():
        click.echo(f"{key:16s} {value}")
    if row["trace"]:
        click.echo(f"replay: autoswitch replay {out / row['trace']}")
    sys.exit(0 if row["status"] == "pass" or row["failure"] == grid()[campaign.configs[0]].control else 1)


def _campaign(campaign, out: Path, master: str | None) -> None:
    from .sim_report import summarize, write_report
    from .simulate import load_rows, run_campaign

    with Progress(TextColumn("simulate"), BarColumn(), MofNCompleteColumn(), TextColumn("chunks"), TimeElapsedColumn(),
                  console=console, transient=True) as progress:
        task = progress.add_task("", total=None)
        try:
            stats = run_campaign(campaign, out, master, lambda done, total: progress.update(task, completed=done, total=total))
        except ValueError as e:
            raise click.UsageError(str(e)) from None
    rows = load_rows(campaign, out.resolve())
    report, problems = write_report(campaign, rows, stats, out)
    table = Table(title=f"simulate: seed {campaign.seed}, {campaign.walks} walks x {campaign.length} steps per configuration; "
                        f"this run {stats.walks} walks, {stats.walks_per_second:,.1f} walks/s, {stats.steps_per_second:,.0f} steps/s "
                        f"({stats.ran} chunks run, {stats.skipped} already done)")
    for column in ("configuration", "control", "walks", "abstract states", "failures", "shortest shrunk trace"):
        table.add_column(column, justify="right" if column in ("walks", "abstract states") else "left")
    for summary in summarize(campaign, rows):
        failures = ", ".join(f"{name} x{n}" + ("" if kind == "violation" else f" ({kind})")
                             for (kind, name), n in sorted(summary.failures.items())) or "none"
        best = summary.shortest
        trace = f"{out / best['trace']} ({best['shrunk_length']} steps)" if best else "-"
        table.add_row(summary.name, summary.control or "safe", str(summary.walks), str(summary.states), failures, trace)
    Console(width=200).print(table)
    for problem in problems:
        console.print(f"PROBLEM: {problem}", style="bold red")
    console.print(f"report: {report}  rows: {out / 'rows'}  traces: {out / 'failures'}, {out / 'corpus'}")
    console.print("replay a trace: autoswitch replay <trace>; re-run one walk: " + campaign.reproduce("<configuration>", "<walk>"))
    sys.exit(1 if problems else 0)


def _bench(campaign, master: str) -> None:
    from .simulate import bench

    with console.status(f"timing {len(campaign.tasks())} chunks in one process, then on Spark {master}"):
        single, spark = bench(campaign, master)
    table = Table(title=f"simulate benchmark: {len(campaign.configs)} configurations x {campaign.walks} walks x "
                        f"{campaign.length} steps, {len(campaign.tasks())} tasks")
    for column in ("run", "walks", "steps", "seconds", "walks/s", "steps/s", "speedup", "efficiency"):
        table.add_column(column, justify="left" if column == "run" else "right")
    cores = _cores(master)
    for name, s in (("single process", single), (f"Spark {master}", spark)):
        speedup = s.steps_per_second / single.steps_per_second
        table.add_row(name, str(s.walks), str(s.steps), f"{s.seconds:.2f}", f"{s.walks_per_second:,.1f}",
                      f"{s.steps_per_second:,.0f}", f"{speedup:.2f}x", f"{speedup / (1 if s is single else cores):.0%}")
    Console(width=120).print(table)


def _cores(master: str) -> int:
    """The worker threads of a local[N] master (local[*]: this machine's CPUs); 1 otherwise is unknown."""
    import os
    import re

    m = re.fullmatch(r"local\[(\d+|\*)\]", master)
    if not m:
        return 1
    return os.cpu_count() or 1 if m.group(1) == "*" else int(m.group(1))
