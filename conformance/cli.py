"""The ``autoswitch`` command."""

from __future__ import annotations

import errno
import json
import os
import signal
import sys
import threading
import traceback
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from autoswitch.conformance.cluster.build import DEFAULT_VERSION as CLUSTER_VERSION
from autoswitch.conformance.cluster.settings import SETTINGS as CLUSTER_SETTINGS
from autoswitch.conformance.engines import ENGINES, KINDS, REAL, REAL_DATA
from autoswitch.conformance.errors import EXIT_INPUT, EXIT_INTERNAL, EXIT_OK, EXIT_VERDICT, InputError, batch_exit
from autoswitch.conformance.logs.search import MAX_GAP, MAX_STATES
from autoswitch.conformance.paths import output_file, output_folder
from autoswitch.conformance.rocketmq.jvm import (
    DATA_VERSIONS,
    DEFAULT_VERSION,
    VERSIONS,
    WALK_DEFAULT,
    WALK_VERSIONS,
    WALK_WHY,
)
from autoswitch.conformance.simulation.campaign import DEFAULT_WALKS
from autoswitch.conformance.trace.replay import replay_exit_code, replay_file, trace_files

if TYPE_CHECKING:
    from autoswitch.conformance.check.search import How

# Text from the user (paths, configuration names, trace contents) is printed as it is: markup off everywhere.
console = Console(stderr=True, soft_wrap=True, markup=False, highlight=False)

TRACEBACK_ENV = "AUTOSWITCH_TRACEBACK"
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports Ctrl-C
STATUS_EVERY = 2.0  # seconds between updates of a long job's live status line, on a terminal
LOG_EVERY = 30.0  # seconds between its progress lines, where the output is not a terminal (CI)


def table_console(width: int | None = None) -> Console:
    """Stdout for a result table: markup off, so a path such as ``out/[x]/MC.itf.json`` prints as it is."""
    return Console(width=width, markup=False)


class BadInput(click.ClickException):
    """Bad input found by the command itself: click prints ``Error: <message>``; exit 2, not click's default 1."""

    exit_code = EXIT_INPUT


def internal_error(error: BaseException, debug: bool) -> None:
    """The lines an internal error prints (exit 3): what escaped, and how to report it (with the traceback if asked)."""
    if debug:
        traceback.print_exception(error, file=sys.stderr)
    try:
        text = str(error)
    except Exception:  # noqa: BLE001 - e.g. a Py4JJavaError whose message lives in a JVM that is gone
        text = "(its message could not be read)"
    click.echo(f"internal error: {type(error).__name__}: {text}", err=True)
    click.echo(f"this is a bug in autoswitch; rerun with {TRACEBACK_ENV}=1 (or autoswitch --debug ...) for the traceback "
               "and report it with the command line", err=True)


EXIT_TERMINATED = 128 + signal.SIGTERM


def _terminated(signum: int, frame: Any) -> None:
    """SIGTERM: unwind as an exit does, so that temporary folders go and the JVMs and Spark are stopped (atexit)."""
    click.echo("\nterminated", err=True)
    sys.exit(EXIT_TERMINATED)


class ExitCodes(click.Group):
    """Every command's exceptions mapped to the exit-code contract (errors.py): a usage error or InputError -> 2,
    Ctrl-C -> 130, anything else -> 3 with :func:`internal_error`. Verdicts (0, 1) are the commands' own exits."""

    def invoke(self, ctx: click.Context) -> Any:
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, _terminated)
        try:
            return super().invoke(ctx)
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except InputError as e:
            raise BadInput(str(e)) from None
        except KeyboardInterrupt:
            click.echo("\ninterrupted", err=True)
            sys.exit(EXIT_INTERRUPTED)
        except Exception as e:
            if isinstance(e, OSError) and e.errno == errno.EPIPE:
                raise  # click's own handling of a closed pipe (autoswitch ... | head)
            internal_error(e, debug(ctx))
            sys.exit(EXIT_INTERNAL)


def debug(ctx: click.Context) -> bool:
    """--debug or $AUTOSWITCH_TRACEBACK: print an internal error's traceback."""
    return bool(ctx.find_root().params.get("debug")) or os.environ.get(TRACEBACK_ENV, "") not in ("", "0")


def spec_dir_option(command: Callable) -> Callable:
    """``--spec-dir``: where spec/*.cfg and the modules are (specconfig.spec_dir)."""
    return click.option("--spec-dir", type=click.Path(file_okay=False), default=None,
                        help="The spec folder. Default: $AUTOSWITCH_SPEC_DIR, else the checkout's spec/.")(command)


def _use_spec_dir(path: str | None) -> None:
    """Take the spec from ``path`` (None: the default); no spec there is a usage error (exit 2) saying what to do."""
    from autoswitch.conformance.check.specconfig import SpecDirError, spec_dir, use_spec_dir

    use_spec_dir(path)
    try:
        spec_dir()
    except SpecDirError as e:
        raise click.UsageError(str(e)) from None


POSITIVE = click.IntRange(min=1)


def _every() -> float:
    """The seconds between a long job's progress reports: a terminal's status line, else a printed line."""
    return STATUS_EVERY if console.is_terminal else LOG_EVERY


@click.group(cls=ExitCodes)
@click.option("--debug", is_flag=True, help=f"Print the traceback of an internal error (exit 3); also ${TRACEBACK_ENV}=1.")
def main(debug: bool) -> None:
    """autoswitch: RocketMQ controller-mode failover as a TLA+ spec, a reference model and an
    optimized implementation, tied together by traces.

    \b
    Exit codes (every command):
      0  success: every verdict as expected
      1  a verdict failed: a divergence, a violation, a control not found
      2  bad input or usage: a malformed trace, configuration or argument
      3  an internal error: a bug in autoswitch (one line says how to report it)
    130  interrupted (Ctrl-C)
    A command that runs many items (traces, configurations) exits 3 if one had an internal error, else 1 if a verdict
    failed, else 2 if an input was bad."""


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--against", type=click.Choice([*ENGINES, "both", "all"]), default="both", show_default=True,
              help="Which engine replays the traces: a model's form, the real RocketMQ (rocketmq, needs java and mvn), "
              "both models, or all three.")
@click.option("--rocketmq-version", default=DEFAULT_VERSION, show_default=True, metavar="VERSION",
              help=f"The RocketMQ release the rocketmq engine runs: {', '.join(VERSIONS)}.")
@click.option("--report", type=click.Path(dir_okay=False, writable=True), help="Write a JSON report here.")
@click.option("--quiet", is_flag=True, help="Print only failures and the summary.")
def replay(paths: tuple[str, ...], against: str, rocketmq_version: str, report: str | None, quiet: bool) -> None:
    """Replay ITF traces (files or folders) and compare every step. Every trace runs; the exit code
    says the worst: 0 every trace passes (or, on the rocketmq engine, is one RocketMQ's code has no answer to: "not
    asked", with the reason); 1 a verdict failed (a divergence, a violation the trace does not expect, a missing one);
    2 no verdict failed but a trace is malformed (bad input), or a usage error (an unwritable --report, no java or mvn
    for the rocketmq engine); 3 an engine raised or the RocketMQ harness failed (an internal error: please report it)."""
    if report:
        output_file(report, "--report", paths)
    files = trace_files(list(paths))
    engines = {"both": list(KINDS), "all": [*KINDS, REAL]}.get(against, [against])
    if REAL in engines:
        engines[engines.index(REAL)] = real_engine(rocketmq_version)
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
    sys.exit(replay_exit_code(results))


def real_engine(version: str, versions: tuple[str, ...] = VERSIONS, name: str = REAL, why: str = "") -> str:
    """The engine name of RocketMQ ``version`` ("rocketmq" for the default release), checked before anything runs:
    a release not among ``versions`` (``why``: what the others lack), or no java or mvn here, is a usage error (exit 2)
    naming what is missing."""
    from autoswitch.conformance.rocketmq.jvm import unavailable_reason

    if version not in versions:
        raise click.BadParameter(f"{version!r}: the harness runs {', '.join(versions)}{why}", param_hint="--rocketmq-version")
    problem = unavailable_reason()
    if problem:
        raise click.UsageError(f"the rocketmq engine needs java and mvn: {problem}; nothing was replayed on RocketMQ")
    return name if version == DEFAULT_VERSION else f"{name}@{version}"


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
@click.argument("logs", nargs=-1, required=True, type=click.Path())
@click.option("--config", "config_name", default=None, metavar="NAME",
              help="The simulation configuration (e.g. safe-rocketmq-3p) of a log without a header line.")
@click.option("--max-gap", type=click.IntRange(min=0), default=None,
              help=f"Unobserved steps allowed between two events: a refusal says no behaviour with at most this many "
              f"explains the log (an explanation the lazy search finds may take up to twice as many). Default: {MAX_GAP}; "
              "for a log whose header claims clockCountsSteps, as many as its clock leaves between them.")
@click.option("--skew", type=click.IntRange(min=0), default=0, show_default=True,
              help="Clock skew (ms): two nodes' events whose timestamps differ by at most this may occur in either order.")
@click.option("--engine", type=click.Choice(KINDS), default="reference", show_default=True,
              help="reference: search the reference model; impl: also replay the explanation on the implementation.")
@click.option("--max-states", type=POSITIVE, default=MAX_STATES, show_default=True,
              help="States a log's search may expand before it gives up (exit 1).")
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Write OUT/<log>.itf.json for each explained log, OUT/<log>.refusal.txt for each refused one.")
@click.option("--master", default=None, help="Run the logs on Spark (local[2], spark://host:port...); default: in this "
              "process up to 64 logs, else local[*]; none: in this process.")
@click.option("--quiet", is_flag=True, help="Print only the logs not explained and the summary.")
def validate(logs: tuple[str, ...], config_name: str | None, max_gap: int | None, skew: int, engine: str, max_states: int,
             out: str | None, master: str | None, quiet: bool) -> None:
    """Search for a behaviour of the model that explains each event LOG (a folder of *.ndjson files, or one file;
    spec/README.md, "Event logs"). Exits 0 if every log is explained, 1 if one is refused (or its search gave up),
    2 if one is malformed (the others still run), 3 on an internal error."""
    from autoswitch.conformance.logs.batch import Settings, exit_code, figures, validate_many, write_out
    from autoswitch.conformance.logs.search import Progress as SearchProgress
    from autoswitch.conformance.trace.itf import printable

    if out:
        output_folder(out, "--out")
    settings = Settings(config_name, max_gap, skew, engine, max_states)

    def show(row) -> None:
        if row.status != "explained" or not quiet:
            console.print(row.text, style=None if row.status == "explained" else "bold red")

    with console.status("validate") as status:
        # a terminal shows each search under way on a live status line; a log (CI) gets a progress line every 30 s
        def searching(path: str, p: SearchProgress) -> None:
            text = printable(f"{path}: {p.describe()}")
            if console.is_terminal:
                status.update(escape(text))
            else:
                console.print(text)

        rows, seconds, where = validate_many(list(logs), settings, master, show, searching, _every())
    gap = "the default" if max_gap is None else max_gap
    table = Table(title=f"validate: {len(rows)} logs on {engine}, --max-gap {gap}, --skew {skew} ({where})")
    for column in ("log", "verdict", "events", "states expanded", "memo entries", "seconds"):
        table.add_column(column, justify="left" if column in ("log", "verdict") else "right")
    for row in rows:
        table.add_row(row.path, row.status, str(row.events), f"{row.expanded:,}", f"{row.memo:,}", f"{row.seconds:.2f}")
    table_console(width=None if sys.stdout.isatty() else 160).print(table)
    f = figures(rows, seconds)
    console.print(f"{f.logs} logs in {f.seconds:.1f} s ({f.per_second:,.1f} logs/s); search size (states expanded): "
                  f"median {f.median:,.0f}, worst {f.worst:,}")
    if out:
        written = write_out(rows, out)
        console.print(f"{len(written)} files written under {out}")
    sys.exit(exit_code(rows))


@main.command()
@click.option("--out", type=click.Path(file_okay=False), default="traces", show_default=True)
def scenarios(out: str) -> None:
    """Write the hand-written scenario traces of SCENARIOS.md (C1-C4, B1-B6, regressions) under OUT."""
    from autoswitch.conformance.scenarios import write_scenarios

    for path in write_scenarios(output_folder(out, "--out")):
        console.print(str(path))


@main.command()
@click.option("--out", type=click.Path(file_okay=False), default="spec", show_default=True)
def configs(out: str) -> None:
    """Write the spec's TLC configurations (MC_*.cfg) from the table of conformance/cfgs.py under OUT (default: spec/,
    where a test checks the committed ones are exactly these)."""
    from autoswitch.conformance.cfgs import write_cfgs

    for path in write_cfgs(output_folder(out, "--out")):
        console.print(str(path))


@main.command()
@click.option("--processes", type=POSITIVE, default=3, show_default=True, help="Broker processes in the broker set.")
@click.option("--walks", type=POSITIVE, default=1000, show_default=True, help="Random walks in the corpus.")
@click.option("--length", type=POSITIVE, default=100, show_default=True, help="Steps per walk.")
@click.option("--seed", default=1, show_default=True, help="Corpus seed (the same seed gives the same corpus).")
@click.option("--rounds", type=POSITIVE, default=3, show_default=True, help="Timed rounds per engine; the best counts.")
@click.option("--with-variables", is_flag=True, help="Also project every state to the spec's variables, as a replay does.")
@click.option("--data", is_flag=True, help="A data-path corpus: writes, handshakes, transfers, acks, expand/shrink.")
@click.option("--rocketmq", "with_rocketmq", is_flag=True,
              help="Also time the rocketmq engine (RocketMQ's own controller in the harness JVM; needs java and mvn).")
@click.option("--check", "check_configs", is_flag=True,
              help="Instead: the checker (1 worker, --workers 2) and TLC (-workers 1, 2) side by side on CONFIGS "
                   "(default MC_data MC_data_reg1_kip279_e3): distinct states/s and the ratios to TLC.")
@click.option("--campaigns", is_flag=True, help="Instead: the campaign strategies side by side on each negative control's "
              "simulation configuration (WALKS walks of LENGTH steps each, seed SEED): failing walks per 1,000 and the time "
              "to the first failure, before (fixed weights) vs swarm testing (the default) vs swarm with coverage guidance.")
@click.option("--logs", is_flag=True, help="Instead: autoswitch validate's search on logs cut from the walks the default "
              "campaign samples (WALKS walks of LENGTH steps, seed SEED: walks 0, 250, ... that pass) of simulation "
              "configurations CONFIGS (default: the default campaign's safety ones), every cut, each log with its own "
              "largest gap, once with the clock counting steps and once with it only ordering: the exact search alone vs "
              "validate's schedule; and validate's time to a refusal of logs with one value no behaviour reaches beside its "
              "time to an explanation; exits 1 if a cut log is refused or such a log is not.")
@click.option("--max-states", type=POSITIVE, default=None, help="With --logs: the states each search may expand "
              "(default: validate's).")
@click.argument("configs", nargs=-1)
def bench(processes: int, walks: int, length: int, seed: int, rounds: int, with_variables: bool, data: bool, with_rocketmq: bool,
          check_configs: bool, campaigns: bool, logs: bool, max_states: int | None, configs: tuple[str, ...]) -> None:
    """Replay one generated corpus on the reference and the implementation; print steps/second. With --check: time
    the model checkers on spec configurations CONFIGS (exits 1 if their counts disagree). With --campaigns: compare
    the simulation campaign strategies on simulation configurations CONFIGS (names or globs; default: every negative
    control's) instead."""
    if check_configs + campaigns + logs > 1:
        raise click.UsageError("--check, --campaigns and --logs are three benchmarks: give one")
    if max_states is not None and not logs:
        raise click.UsageError("--max-states is for --logs")
    if with_rocketmq and check_configs + campaigns + logs:
        raise click.UsageError("--rocketmq is for the corpus benchmark (no --check, --campaigns or --logs)")
    if logs:
        _bench_logs(walks, length, seed, max_states, configs)
        return
    if check_configs:
        _bench_check(configs)
        return
    if campaigns:
        _bench_campaigns(walks, length, seed, configs)
        return
    if configs:
        raise click.UsageError(f"CONFIGS ({' '.join(configs)}) are for --check, --campaigns or --logs")
    from autoswitch.conformance.bench import corpus, run_bench

    kinds = [*KINDS, real_engine(DEFAULT_VERSION)] if with_rocketmq else list(KINDS)
    with console.status(f"generating {walks} walks x {length} steps (seed {seed})"):
        config, actions = corpus(processes, walks, length, seed, data, with_rocketmq)
    with console.status("timing"):
        rows = run_bench(config, actions, rounds, with_variables, kinds)
    kind = "data-path" if data else "controller"
    table = Table(title=f"bench ({kind} corpus): {rows[0].steps} steps, {processes} processes, seed {seed}, best of {rounds}")
    for column in ("engine", "steps", "seconds", "steps/s", "vs reference"):
        table.add_column(column, justify="left" if column == "engine" else "right")
    base = rows[0].rate
    for row in rows:
        ratio = row.rate / base
        table.add_row(row.engine, str(row.steps), f"{row.seconds:.3f}", f"{row.rate:,.0f}", f"{ratio:.1f}x" if ratio >= 0.1 else f"{ratio:.3f}x")
    table_console().print(table)


def _bench_check(configs: tuple[str, ...]) -> None:
    """bench --check (conformance/check/bench.py): one row per engine and configuration."""
    from autoswitch.conformance.check.bench import DEFAULT_CONFIGS, bench_check

    try:
        with console.status("bench --check") as status:
            benches, no_tlc = bench_check(configs or DEFAULT_CONFIGS, say=lambda text: status.update(escape(text)))
    except InputError as e:
        raise BadInput(str(e)) from None
    if no_tlc is not None:
        console.print(f"TLC skipped: {no_tlc}: no TLC rows, no ratios")
    table = Table(title="bench --check: distinct states per second, side by side in one run")
    for column in ("config", "engine", "distinct states", "depth", "seconds", "states/s", "vs TLC -workers 1", "vs TLC -workers 2"):
        table.add_column(column, justify="left" if column in ("config", "engine") else "right")
    failed = []
    for b in benches:
        bases = [b.tlc(1), b.tlc(2)]
        for r in b.runs:
            ratios = [f"{r.rate / t.rate:.2f}x" if t is not None and t.rate else "-" for t in bases]
            table.add_row(b.config, r.engine, "-" if r.distinct is None else f"{r.distinct:,}", str(r.depth or "-"),
                          f"{r.seconds:.1f}", f"{r.rate:,.0f}", *ratios)
        if (why := b.disagreement) is not None:
            failed.append(f"{b.config}: {why}")
    table_console(width=None if sys.stdout.isatty() else 200).print(table)
    for line in failed:
        console.print(f"DISAGREE {line}", style="bold red")
    if not failed:
        console.print("counts agree: " + "; ".join(f"{b.config} {b.runs[0].distinct:,} distinct states, depth {b.runs[0].depth}"
                                                   for b in benches))
    sys.exit(EXIT_VERDICT if failed else EXIT_OK)


def _bench_logs(walks: int, length: int, seed: int, max_states: int | None, configs: tuple[str, ...]) -> None:
    """bench --logs (logs/bench.py): a line per log and mode as it ends, then one table, a row per clock, source and cut."""
    from autoswitch.conformance.controls import select
    from autoswitch.conformance.logs.bench import MODES, SAFETY, bench_logs, summaries, times, unreachable, wrong
    from autoswitch.conformance.logs.search import EXPLAINED, GAVE_UP, MAX_STATES

    try:
        names = tuple(c.name for c in select(list(configs))) if configs else SAFETY
    except InputError as e:
        raise click.UsageError(str(e)) from None
    budget = max_states or MAX_STATES
    runs = bench_logs(names, walks, length, seed, budget, lambda r: console.print(escape(r.describe()), highlight=False))
    table = Table(title=f"bench --logs: logs cut from the sampled walks ({walks} walks x {length} steps, seed {seed}) of "
                        f"{len(names)} configurations, each with its own largest gap, at most {budget:,} states a search; one process")
    table.add_column("clock: source, cut")
    table.add_column("logs", justify="right")
    for mode in MODES:
        for column in ("explained", "states: median, worst", "seconds"):
            table.add_column(f"{mode}: {column}", justify="right")
    table.add_column("explained: validate / exact", justify="right")
    table.add_column("seconds: exact / validate", justify="right")
    for label, by_mode in summaries(runs):
        cells = [str(len(by_mode[MODES[0]].runs))]
        for mode in MODES:
            m = by_mode[mode]
            gave_up = f" ({m.count(GAVE_UP)} gave up)" if m.count(GAVE_UP) else ""
            cells += [f"{m.count(EXPLAINED)}{gave_up}", f"{m.median:,.0f}, {m.worst:,}", f"{m.seconds:.1f}"]
        exact, ours = by_mode["exact"], by_mode["validate"]
        cells.append(f"{ours.count(EXPLAINED) / exact.count(EXPLAINED):.2f}x" if exact.count(EXPLAINED) else "-")
        cells.append(f"{exact.seconds / ours.seconds:.1f}x" if ours.seconds else "-")
        table.add_row(label, *cells)
    table_console(width=None if sys.stdout.isatty() else 220).print(table)
    verdicts = Table(title="validate's seconds to a verdict, median (logs)")
    for column in ("clock", "to an explanation (cut logs)", "to a refusal (a value no behaviour reaches)", "refusal: worst"):
        verdicts.add_column(column, justify="left" if column == "clock" else "right")
    for t in times(runs):
        verdicts.add_row(t.label, f"{t.to_explanation:.3f} s ({len(t.explained)})", f"{t.to_refusal:.3f} s ({len(t.refused)})",
                         f"{max(t.refused, default=0.0):.3f} s")
    table_console(width=None if sys.stdout.isatty() else 220).print(verdicts)
    findings = [r for r in runs if wrong(r)]
    for r in findings:
        what = "a value no behaviour reaches, not refused" if unreachable(r) else "a log cut from a behaviour of the model"
        console.print(f"{r.status.upper()} {escape(r.describe())}: {what}", style="bold red")
    sys.exit(EXIT_VERDICT if findings else EXIT_OK)


def _bench_campaigns(walks: int, length: int, seed: int, configs: tuple[str, ...]) -> None:
    """bench --campaigns (simulation/bench.py): one table, a row per configuration, the strategies side by side."""
    from autoswitch.conformance.controls import select
    from autoswitch.conformance.simulation.bench import STRATEGIES, compare, negative_controls

    try:
        names = tuple(c.name for c in select(list(configs))) if configs else negative_controls()
    except InputError as e:
        raise click.UsageError(str(e)) from None
    with console.status(f"{len(names)} configurations x {len(STRATEGIES)} strategies x {walks} walks x {length} steps"):
        results = compare(names, walks, length, seed, lambda r: console.print(
            f"{r.config} {r.strategy}: {r.failing}/{r.walks} failing, first {r.first}, {r.seconds:.1f} s", highlight=False))
    table = Table(title=f"bench --campaigns: {walks} walks x {length} steps per configuration and strategy, seed {seed}, "
                        "one process (first failure: walks, seconds)")
    table.add_column("configuration")
    for strategy in STRATEGIES:
        table.add_column(f"{strategy} per 1,000", justify="right")
        table.add_column(f"{strategy} first failure", justify="right")
    table.add_column("swarm / before", justify="right")
    for i in range(0, len(results), len(STRATEGIES)):
        row = results[i:i + len(STRATEGIES)]
        cells = [c for r in row for c in (f"{r.per_mille:.1f}", f"walk {r.first[0]}, {r.first[2]:.2f} s" if r.first else "-")]
        before, after = row[0].per_mille, row[1].per_mille
        ratio = f"{after / before:.1f}x" if before else ("new" if after else "-")
        table.add_row(row[0].config, *cells, ratio)
    table_console(width=160).print(table)


@main.command()
@click.argument("path", type=click.Path(exists=True))
@click.option("--html", "html_out", type=click.Path(), default=None,
              help="Write the trace as an HTML page here (a folder of traces: a folder of pages and index.html).")
def explain(path: str, html_out: str | None) -> None:
    """Run one trace on the reference model and print each step, what it changed, and where an
    invariant first fails (the way to read a counterexample). With --html, write a page to step
    through in a browser instead (every trace kind); a folder of traces gives one page per trace:
    a bad trace is reported and the others are written."""
    from autoswitch.conformance.trace.itf import TraceError

    if html_out is not None:
        _explain_html(path, html_out)
        return
    if os.path.isdir(path):
        raise click.BadParameter(f"{path} is a directory: explain reads one trace; a directory needs --html OUTDIR", param_hint="PATH")
    from autoswitch.conformance.trace.explain import explain as lines

    try:
        for line in lines(path):
            click.echo(line)
    except TraceError as e:
        raise BadInput(str(e)) from None


def _explain_html(path: str, out: str) -> None:
    """``explain PATH --html OUT``: one page, or a folder of pages and index.html (exit as replay: 3 > 2 > 0)."""
    from autoswitch.conformance.html.explorer import write_page, write_pages

    if not os.path.isdir(path):
        write_page(path, output_file(out, "--html", [path]))
        console.print(f"wrote {out}")
        return
    folder = output_folder(out, "--html")
    codes = []
    for trace, page, error in write_pages(trace_files([path]), path, folder):
        if error is None:
            console.print(f"wrote {page}")
            codes.append(EXIT_OK)
        elif isinstance(error, InputError):
            console.print(f"bad trace: {error}")
            codes.append(EXIT_INPUT)
        else:
            console.print(f"{trace}: internal error: {type(error).__name__}: {error}")
            codes.append(EXIT_INTERNAL)
    console.print(f"{codes.count(EXIT_OK)} of {len(codes)} pages written; index: {folder / 'index.html'}")
    sys.exit(batch_exit(codes))


@main.command("z3-truncation")
@click.option("--bound", type=POSITIVE, default=8, show_default=True, help="Largest log length considered.")
@click.option("--epochs", type=POSITIVE, default=4, show_default=True, help="Epochs 1..N.")
@click.option("--write-traces", "traces_dir", type=click.Path(file_okay=False),
              help="Also write the kip101, kip279 and hw counterexamples as truncation-step traces here (traces/z3).")
def z3_truncation(bound: int, epochs: int, traces_dir: str | None) -> None:
    """Prove with z3 that a truncation policy never keeps more than the longest common prefix, or show
    the input where it does (every policy, every pair of logs within the bounds)."""
    from autoswitch.conformance.z3.truncation import SAFE, UNSAFE, check, reference_point, write_traces

    folder = None if traces_dir is None else output_folder(traces_dir, "--write-traces")
    verdicts = [check(policy, bound, epochs) for policy in SAFE + UNSAFE]
    for verdict in verdicts:
        policy = verdict.policy
        if verdict.proved:
            click.echo(f"{policy:10s} proved: never past the common prefix (logs <= {bound}, epochs 1..{epochs})")
            continue
        ex = verdict.example
        click.echo(f"{policy:10s} counterexample: follower {ex['follower']} leader {ex['leader']} hw {ex['hw']} -> keeps "
                   f"{ex['point']} (reference: {reference_point(policy, ex)}), common prefix {ex['lcp']}")
    if folder is not None:
        for path in write_traces(folder, bound, epochs):
            click.echo(f"wrote {path}")
    sys.exit(EXIT_OK if all(v.as_expected for v in verdicts) else EXIT_VERDICT)


@main.command("z3-controller")
@click.option("--brokers", type=POSITIVE, default=3, show_default=True, help="Broker ids 1..N in the encoding.")
@click.option("--walks", type=POSITIVE, default=20, show_default=True,
              help="Random walks whose states check IndInv and the encoding.")
@click.option("--length", type=POSITIVE, default=100, show_default=True, help="Steps per walk.")
@click.option("--seed", default=1, show_default=True, help="Seed of the walks and of the random requests.")
@click.option("--samples", type=POSITIVE, default=10, show_default=True,
              help="z3-chosen (IndInv state, request) pairs per request and setting.")
@click.option("--traces", "traces_dir", default="traces", show_default=True, type=click.Path(exists=True, file_okay=False),
              help="Trace corpus whose states check IndInv and whose controller requests check the encoding.")
def z3_controller(brokers: int, walks: int, length: int, seed: int, samples: int, traces_dir: str) -> None:
    """Prove with z3 that every controller request keeps the controller invariants (TypeOK, MasterInSyncStateSet,
    SyncStateSetRegistered, EpochsMonotonic) from every state satisfying the inductive invariant IndInv, for
    broker ids 1..N and both unclean-election settings; show the counterexample to induction of each
    property alone; check Init and reachable states against IndInv and the encoding against the reference."""
    import time

    from autoswitch.conformance.trace.replay import show
    from autoswitch.conformance.z3 import controller as zc
    from autoswitch.conformance.z3 import controller_encoding as enc
    from autoswitch.reference.variables import controller_variables

    started = time.perf_counter()
    report = zc.check_controller(brokers, walks, length, seed, samples, trace_files([traces_dir]))
    out = Console(soft_wrap=True, highlight=False, markup=False)
    table = Table(title=f"z3 induction: broker ids 1..{brokers}, {len(enc.TRANSITIONS)} requests, unclean election off and on "
                        f"({len(report.obligations)} obligations, {report.proved_in:.1f} s)")
    for column in ("property", "alone: P ⇒ P'", "under IndInv"):
        table.add_column(column)
    for row in report.rows():
        table.add_row(*row)
    out.print(table)
    for o in report.ctis():
        pre, action, post = o.cti
        v, w = controller_variables(pre), controller_variables(post)
        out.print(f"counterexample to induction of {o.prop} (assuming {o.assumed}): {show(action)}\n"
                  f"  before: {show(v)}\n  after:  " + ", ".join(f"{k} {show(w[k])}" for k in w if w[k] != v[k]))
    out.print(f"IndInv = {' ∧ '.join(enc.IND_INV)}")
    out.print(f"Init ⇒ IndInv: {'holds' if not report.failed_init else 'FAILS: ' + ', '.join(report.failed_init)}")
    out.print(f"IndInv on reachable states: {report.states} distinct controller states ({walks} walks x {length} steps from "
              f"seed {seed}, {report.traces} traces): " + ("holds" if not report.unreachable else f"FAILS on {len(report.unreachable)}"))
    for c, bad in report.unreachable[:3]:
        out.print(f"  {', '.join(bad)} fails on {show(controller_variables(c))}")
    out.print(f"encoding = reference: {report.compared} (state, request, unclean) runs (random requests on those states, the traces' "
              f"controller requests, z3-chosen IndInv states): " + ("agree" if not report.problems else f"{len(report.problems)} DISAGREE"))
    for problem in report.problems[:3]:
        out.print(f"  {problem}")
    if not report.ok:
        out.print(f"reproduce: autoswitch z3-controller --brokers {brokers} --walks {walks} --length {length} --seed {seed} "
                  f"--samples {samples} --traces {traces_dir}")
    out.print(f"done in {time.perf_counter() - started:.1f} s")
    sys.exit(EXIT_OK if report.ok else EXIT_VERDICT)


@main.command()
@click.argument("configs", nargs=-1)
@click.option("--symmetry/--no-symmetry", default=False, show_default=True,
              help="Identify states that differ only by a renaming of interchangeable processes (TLC's counts are without).")
@click.option("--out", type=click.Path(file_okay=False), default="out/check", show_default=True,
              help="Counterexamples are written here as CONFIG.itf.json.")
@click.option("--replay/--no-replay", "replay_traces", default=True, show_default=True,
              help="Replay each counterexample on the reference and the implementation.")
@click.option("--tlc", "with_tlc", is_flag=True,
              help="Also run TLC (TLA2TOOLS_JAR) on each configuration, side by side: the distinct states must be equal.")
@click.option("--invariant", "invariants", multiple=True, metavar="NAME",
              help="Check only this state invariant (repeatable; with --property: only those named).")
@click.option("--property", "properties", multiple=True, metavar="NAME",
              help="Check only this action or liveness property (repeatable; with --invariant: only those named).")
@click.option("--workers", type=POSITIVE, default=1, show_default=True,
              help="Worker processes on this machine; the states are split between them by fingerprint.")
@click.option("--master", default=None, metavar="URL",
              help="Run the search level by level on this Spark master (spark://host:port, local[N]) instead.")
@click.option("--checkpoint", type=click.Path(file_okay=False), default=None,
              help="Save the search after each level in this folder, and resume from it when it holds one.")
@click.option("--memory", type=POSITIVE, default=None, metavar="STATES",
              help="Fingerprints kept in memory before the store spills to disk (default: no limit).")
@spec_dir_option
def check(configs: tuple[str, ...], symmetry: bool, out: str, replay_traces: bool, with_tlc: bool, invariants: tuple[str, ...],
          properties: tuple[str, ...], workers: int, master: str | None, checkpoint: str | None, memory: int | None,
          spec_dir: str | None) -> None:
    """Model-check spec configurations (spec/CONFIG.cfg) with the explicit-state checker over the reference.

    Breadth-first search of every state reachable within the configuration's bounds: its invariants on
    every state, its action properties on every transition. A violation gives a shortest counterexample,
    written as an ITF trace and replayed on both models. The negative controls (controls.py) must produce a
    counterexample of their invariant. With liveness properties (SPECIFICATION LiveSpec...), a fair cycle
    refuting one is written as a lasso (ITF with a loop index) and replayed; MC_live_neg_* must give one.
    With --invariant/--property only the named properties are checked: a violation is expected when one of them is
    among those the configuration is known to break (controls.py), and must be one of those.
    Exits 1 if a verdict differs from what its configuration expects or a counterexample does not replay
    to the same violation, or (--tlc) TLC counts other states for a configuration where both explore every
    state or gives another liveness verdict; 2 if a configuration cannot be read (the others still run).
    Default: the small configurations of controls.py."""
    from autoswitch.conformance.check.search import How
    from autoswitch.conformance.controls import SMALL_CONFIGS
    from autoswitch.conformance.tla.run import find_tlc, tlc_missing_reason

    _use_spec_dir(spec_dir)
    if with_tlc and (invariants or properties):
        raise click.UsageError("--tlc checks every property of a configuration: give it without --invariant/--property")
    out_dir = output_folder(out, "--out")
    table = Table(title="autoswitch check (explicit-state, reference model)")
    tlc_columns = ("TLC distinct", "TLC depth", "TLC seconds", "same states") if with_tlc else ()
    numeric = ("distinct states", "generated", "depth", "seconds", "states/s", *tlc_columns[:3])
    for column in ("config", "expects", "verdict", "distinct states", "generated", "depth", "seconds", "states/s", *tlc_columns,
                   "counterexample"):
        table.add_column(column, justify="right" if column in numeric else "left")
    if with_tlc and find_tlc() is None:
        console.print(f"--tlc: {tlc_missing_reason()}: TLC was NOT run; the state counts were not compared")
        with_tlc = False
    codes = []
    selected = (*invariants, *properties) if invariants or properties else None
    for name in configs or SMALL_CONFIGS:
        how = How(workers, master, None if checkpoint is None
                  else output_folder(checkpoint, "--checkpoint") / Path(name).name.removesuffix(".cfg"), memory)
        try:
            ok, row = _check_one(name, symmetry, out_dir, replay_traces, with_tlc, len(tlc_columns), selected, how)
        except InputError as e:
            console.print(f"{name}: {e}", style="bold red")
            codes.append(EXIT_INPUT)
            continue
        except Exception as e:  # one configuration's bug: report it, check the others, exit 3
            internal_error(e, debug(click.get_current_context()))
            codes.append(EXIT_INTERNAL)
            continue
        codes.append(EXIT_OK if ok else EXIT_VERDICT)
        table.add_row(*row)
    table_console(width=None if sys.stdout.isatty() else 200).print(table)
    sys.exit(batch_exit(codes))


def _check_one(name: str, symmetry: bool, out: Path, replay_traces: bool, with_tlc: bool,
               tlc_columns: int, selected: tuple[str, ...] | None = None, how: How | None = None) -> tuple[bool, tuple[str, ...]]:
    """One configuration of ``autoswitch check``: whether its verdict is as expected, and its table row."""
    from autoswitch.conformance.check.search import LOCAL
    from autoswitch.conformance.check.verdict import check_config, compare_with_tlc, load_checker

    checker = load_checker(name, symmetry, selected)
    if symmetry and not checker.renamings:
        console.print(f"{name}: no symmetry reduction: {checker.symmetry_note}")
    with console.status(escape(f"{name}: initial states")) as status:
        # a terminal shows a live status line; a log (CI) gets a progress line every 30 s
        show = (lambda text: status.update(escape(text))) if console.is_terminal else console.print
        verdict = check_config(checker, out, replay_traces, lambda p: show(
            f"{name}: {p.phase + ', ' if p.phase else ''}depth {p.depth}, {p.distinct:,} distinct, {p.generated:,} generated, "
            f"queue {p.queue:,}, {p.distinct / max(p.seconds, 1e-9):,.0f} states/s"), every=_every(),
            selected=selected, how=how or LOCAL)
    result, v = verdict.result, verdict.result.violation
    if v is not None:
        what = (f"a lasso of {len(v.states) - 1} steps (loop from state {v.loop})" if v.kind == "liveness"
                else f"counterexample of {len(v.states) - 1} steps")
        console.print(f"{name}: {v.kind} {v.name}{' of ' + v.process if v.process else ''} violated; {what} written to "
                      f"{verdict.trace}\n    read it:   autoswitch explain {verdict.trace}\n"
                      f"    replay it: autoswitch replay {verdict.trace}")
        for r in verdict.replays:
            console.print("    " + r.describe(), style=None if r.ok else "bold red")
    side: tuple[str, ...] = ("-",) * tlc_columns
    if with_tlc:
        with console.status(escape(f"{name}: TLC")):
            verdict = compare_with_tlc(verdict, out)
        tlc = verdict.tlc
        same = ("yes" if verdict.same_as_tlc else "NO") if verdict.exhaustive else f"n/a (TLC: {tlc.verdict})"
        if verdict.liveness_compared:
            same += "; liveness verdict " + ("agrees" if verdict.same_liveness_as_tlc else "DIFFERS")
        side = (f"{tlc.distinct_states or 0:,}", str(tlc.depth), f"{tlc.seconds:.1f}", same)
        if tlc.verdict == "error":
            console.print(f"{name}: TLC gave no verdict: {tlc.problem}", style="bold red", markup=False, highlight=False)
    rate = result.distinct / max(result.seconds, 1e-9)
    return verdict.ok, (name, verdict.expects, verdict.verdict, f"{result.distinct:,}", f"{result.generated:,}",
                        str(result.depth), f"{result.seconds:.1f}", f"{rate:,.0f}", *side,
                        "" if verdict.trace is None else str(verdict.trace))


@main.command()
@click.option("--designs", default=None, metavar="NAMES",
              help="Comma-separated designs (columns) to run; default: every one (ms-async, ms-sync, dledger-2, dledger-3, "
                   "controller-2, controller-3).")
@click.option("--out", type=click.Path(file_okay=False), default="out/compare", show_default=True,
              help="Counterexamples (DESIGN/PROPERTY.itf.json), compare.json and compare.md are written here.")
@click.option("--traces", "traces_dir", type=click.Path(file_okay=False), default=None,
              help="Also copy each counterexample that replays to its violation here as DESIGN-PROPERTY.itf.json "
                   "(traces/designs).")
@click.option("--markdown", is_flag=True, help="Print the table as docs/designs.md shows it (Markdown).")
@spec_dir_option
def compare(designs: str | None, out: str, traces_dir: str | None, markdown: bool, spec_dir: str | None) -> None:
    """Compare the designs RIP-44 replaced with controller mode (conformance/compare.py): for each design and each
    property of MODEL.md §6 and §8, the explicit-state checker's verdict within the configuration's bounds, holds (N
    states) or violated (K steps), with the command that reproduces it; n/a where the property says nothing about the
    design. A line per cell on stderr. Exits 0 when every cell is what controls.py records, 1 otherwise, 2 on bad usage."""
    from autoswitch.conformance import compare as cmp

    _use_spec_dir(spec_dir)
    names = cmp.DESIGN_NAMES if designs is None else tuple(d.strip() for d in designs.split(",") if d.strip())
    unknown = [d for d in names if d not in cmp.DESIGN_NAMES]
    if unknown or not names:
        raise click.BadParameter(f"{', '.join(unknown) or 'none given'}: the designs are {', '.join(cmp.DESIGN_NAMES)}",
                                 param_hint="--designs")
    out_dir = output_folder(out, "--out")
    traces = None if traces_dir is None else output_folder(traces_dir, "--traces")

    def progress(cell) -> None:
        mark = "" if cell.as_expected else f"  EXPECTED {cell.expected}"
        console.print(f"{cell.design:12s} {cell.prop:24s} {cell.text.replace('**', '')}{mark}"
                      + (f"  [{cell.command}]" if cell.command else ""), style=None if cell.as_expected else "bold red")

    cells = cmp.run(names, out_dir, progress)
    cmp.save(cells, out_dir / "compare.json")
    table = cmp.markdown_table(cells)
    (out_dir / "compare.md").write_text(table)
    if traces is not None:
        for _, path, copied, replay_line in cmp.copy_traces(cells, traces):
            console.print(f"{'copied' if copied else 'not copied'}: {path} ({replay_line})")
    if markdown:
        click.echo(table, nl=False)
    else:
        grid = Table(title="autoswitch compare: the designs RIP-44 replaced, under MODEL.md §6 and §8")
        chosen = [d for d in cmp.DESIGNS if d.name in names]
        grid.add_column("property")
        for d in chosen:
            grid.add_column(d.title)
        at = {(c.design, c.prop): c for c in cells}
        for prop in cmp.PROPERTIES:
            grid.add_row(prop, *(at[(d.name, prop)].text.replace("**", "") for d in chosen))
        table_console(width=None if sys.stdout.isatty() else 200).print(grid)
    console.print(f"results: {out_dir / 'compare.json'}, {out_dir / 'compare.md'}; counterexamples under {out_dir}")
    wrong = [c for c in cells if not c.as_expected]
    for c in wrong:
        console.print(f"NOT AS EXPECTED: {c.design} {c.prop}: {c.status}, controls.py expects {c.expected}", style="bold red")
    sys.exit(EXIT_VERDICT if wrong else EXIT_OK)


@main.command()
@click.argument("configs", nargs=-1)
@click.option("--tool", type=click.Choice(["tlc", "apalache"]), default="tlc", show_default=True)
@click.option("--out", type=click.Path(file_okay=False), default="tla-out", show_default=True,
              help="Output folder: OUT/<config>/ holds the tool's log and the imported traces.")
@click.option("--workers", type=POSITIVE, default=1, show_default=True, help="TLC workers (1 explores deterministically).")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Seconds per configuration before the tool is stopped.")
@click.option("--length", type=POSITIVE, default=10, show_default=True, help="Apalache: steps to explore.")
@click.option("--simulate", is_flag=True, help="Apalache: 'simulate' (random symbolic runs) instead of 'check'.")
@click.option("--max-run", type=POSITIVE, default=10, show_default=True, help="Apalache simulate: runs.")
@spec_dir_option
def tla(configs: tuple[str, ...], tool: str, out: str, workers: int, timeout: float | None, length: int,
        simulate: bool, max_run: int, spec_dir: str | None) -> None:
    """Model-check spec configurations (names of spec/*.cfg) with TLC or Apalache, import the
    counterexamples (and Apalache's simulation traces) as ITF, and replay them on the reference and the
    implementation.

    The negative controls (controls.py) must give a violation, which both models must reproduce at the same
    state; every other configuration must hold. Exits 1 if a verdict or a replay differs; 2 if a configuration
    cannot be read (then nothing runs). A missing tool is reported as skipped (exit 0): nothing is checked,
    nothing passes."""
    from autoswitch.conformance.check.specconfig import load_spec_config
    from autoswitch.conformance.tla.check import DEFAULT_CONFIGS, SKIPPED, check_with_apalache, check_with_tlc, write_report

    _use_spec_dir(spec_dir)
    if simulate and tool != "apalache":
        raise click.UsageError("--simulate is for --tool apalache")
    names = list(configs or DEFAULT_CONFIGS)
    for name in names:
        load_spec_config(name)
    out_dir = output_folder(out, "--out")
    checks = []
    for name in names:
        with console.status(escape(f"{tool}: {name}")):
            if tool == "tlc":
                check = check_with_tlc(name, out_dir, workers=workers, timeout=timeout)
            else:
                check = check_with_apalache(name, out_dir, mode="simulate" if simulate else "check", length=length,
                                            max_run=max_run, timeout=timeout)
        checks.append(check)
        if check.verdict != SKIPPED:
            console.print(f"{name}: {check.verdict}" + (f" ({check.violated})" if check.violated else "")
                          + f", {check.seconds:.0f} s -> {check.folder}", style=None if check.ok else "bold red")
    table = Table(title=f"autoswitch tla --tool {tool}")
    for column in ("config", "verdict", "expected", "distinct states", "depth", "seconds", "replay (reference, impl)"):
        table.add_column(column, justify="right" if column in ("distinct states", "depth", "seconds") else "left")
    for c in checks:
        replay = " | ".join(f"{Path(t.path).name}: {t.summary()}" for t in c.traces) or c.problem or "-"
        verdict = c.verdict + (f" ({c.violated})" if c.violated else "")
        table.add_row(c.config, verdict, c.expected, "-" if c.distinct_states is None else f"{c.distinct_states:,}",
                      "-" if c.depth is None else str(c.depth), "-" if c.verdict == SKIPPED else f"{c.seconds:.0f}", replay,
                      style=None if c.ok or c.verdict == SKIPPED else "bold red")
    table_console().print(table)
    skipped = [c.config for c in checks if c.verdict == SKIPPED]
    if skipped:
        reason = next(c.problem for c in checks if c.verdict == SKIPPED)
        console.print(f"NOT CHECKED with {tool} ({reason}): {', '.join(skipped)} - skipped, neither passed nor failed",
                      style="bold yellow")
    if len(skipped) < len(checks):
        console.print(f"report written to {write_report(out_dir, checks)}")
    failed = [c.config for c in checks if c.verdict != SKIPPED and not c.ok]
    if failed:
        console.print(f"FAILED: {', '.join(failed)}", style="bold red")
    sys.exit(EXIT_VERDICT if failed else EXIT_OK)


@main.command()
@click.option("--walks", type=click.IntRange(min=1), default=DEFAULT_WALKS, show_default=True,
              help="Walks per configuration (>= 1); the full campaign: 1000.")
@click.option("--length", type=click.IntRange(min=1), default=100, show_default=True, help="Steps per walk (1 to 100000).")
@click.option("--seed", type=int, default=1, show_default=True,
              help="Campaign seed, any integer: walk I of configuration C is seeded from a hash of (seed, C, I).")
@click.option("--configs", default=None, help="Comma-separated configuration names or globs (<options>-<policy>-<n>p, "
              "<options>-<policy>-<n>p-live for liveness walks); default: the safe configurations and the negative controls "
              "(controls.py), of safety and of liveness; with --against rocketmq, those in RocketMQ's controller mode.")
@click.option("--out", default="simulation", show_default=True, type=click.Path(file_okay=False),
              help="Output folder: new, empty, or a campaign's with the same parameters (it is resumed).")
@click.option("--master", default=None, help="Spark master (local[*], local[2], spark://host:7077); 'none' runs in this "
              "process without Spark. Default: spark-submit's master, else this process for a campaign of at most 2,000 walks in all, "
              "else local[*]. With --bench: the Spark side (local[2]).")
@click.option("--chunk", type=click.IntRange(min=1), default=100, show_default=True, help="Walks per task (the unit of resumption).")
@click.option("--weights", default="", help="Action weights overriding the configurations', e.g. Crash=5,lost=0.1 "
              "(numbers from 0 to 1e9; lost is a probability).")
@click.option("--sample", type=click.IntRange(min=0), default=250, show_default=True,
              help="Export every N-th passing walk (walks 0, N, 2N, ...) as an ITF trace; 0: none.")
@click.option("--walk", type=click.IntRange(min=0), default=None,
              help="Re-run this one walk alone (one --configs name, below --walks): print its row, write its trace under --out.")
@click.option("--bench", "do_bench", is_flag=True, help="Time the campaign in one process and on Spark (--master, default local[2]).")
@click.option("--swarm/--no-swarm", default=True, show_default=True,
              help="Swarm testing: each walk draws its own subset of fault and step kinds and their weights (simulation/swarm.py).")
@click.option("--guide/--no-guide", default=False, show_default=True,
              help="Coverage guidance: walks reaching new abstract states are replayed and extended within a chunk "
              "(simulation/guide.py).")
@click.option("--against", type=click.Choice(["impl", REAL, REAL_DATA]), default="impl", show_default=True,
              help="The engine each step of the reference is compared with: the implementation, RocketMQ's own "
              "controller (rocketmq), or RocketMQ's stores (rocketmq-data: each broker's data path on a real "
              "DefaultMessageStore, its HA frames stepped; docs/fidelity.md). Both need java and mvn.")
@click.option("--rocketmq-version", default=None, metavar="VERSION",
              help=f"With --against rocketmq or rocketmq-data: the RocketMQ release (default: {DEFAULT_VERSION}, and "
              f"{WALK_DEFAULT} for rocketmq-data, whose walks run {WALK_VERSIONS[0]} to {WALK_VERSIONS[-1]}).")
def simulate(walks: int, length: int, seed: int, configs: str | None, out: str, master: str | None, chunk: int, weights: str,
             sample: int, walk: int | None, do_bench: bool, swarm: bool, guide: bool, against: str,
             rocketmq_version: str | None) -> None:
    """Randomized conformance campaign: a grid of configurations x WALKS random walks of LENGTH steps with
    faults, every step checked (invariants on the reference, the implementation compared), failing walks
    shrunk to ITF traces; rows as Parquet and a report (report.md, plots) under OUT. A campaign re-run on
    its OUT resumes it: chunks that are done are kept, damaged or foreign ones are run again. A liveness
    configuration (-live) stops the faults at a random step of each walk, heals under a fair scheduler for at most
    200 steps, and checks every liveness property at the end (conformance/simulation/fair.py).

    Exits 1 if a safe configuration shows a violation or divergence, or a negative control is not found;
    2 on a bad argument or an OUT that cannot hold this campaign, before any work."""
    from autoswitch.conformance.controls import DEFAULT_CONFIGS, controller_mode, select
    from autoswitch.conformance.errors import InputError
    from autoswitch.conformance.simulation.campaign import parse_weights
    from autoswitch.conformance.simulation.spark import Campaign, check_master

    try:
        check_master(master)
        if configs is not None:
            names = [c.strip() for c in configs.split(",") if c.strip()]
        else:
            names = [c for c in DEFAULT_CONFIGS if against == "impl" or controller_mode(c)]
        chosen = tuple(c.name for c in select(names))
        if against == REAL_DATA:
            engine = real_engine(rocketmq_version or WALK_DEFAULT, WALK_VERSIONS, against, WALK_WHY)
        else:
            engine = "impl" if against == "impl" else real_engine(rocketmq_version or DEFAULT_VERSION, VERSIONS, against)
        campaign = Campaign(seed, walks, length, chosen, chunk, parse_weights(weights), sample, swarm, guide, engine)
        if walk is not None and do_bench:
            raise InputError("--walk re-runs one walk, --bench times a campaign: give one of them")
        if do_bench and master == "none":
            raise InputError("--bench compares one process with Spark: give a Spark --master (default local[2]), not none")
        if walk is not None:
            _one_walk(campaign, walk, Path(out))
        elif do_bench:
            _bench(campaign, master or "local[2]")
        else:
            _campaign(campaign, Path(out), master)
    except InputError as e:
        raise click.UsageError(str(e)) from None


def _one_walk(campaign, walk: int, out: Path) -> None:
    from autoswitch.conformance.controls import grid
    from autoswitch.conformance.errors import InputError
    from autoswitch.conformance.simulation.spark import walk_as_expected, walk_row
    from autoswitch.conformance.simulation.store import prepare_walk

    if len(campaign.configs) != 1:
        raise InputError(f"--walk needs exactly one configuration in --configs, got {len(campaign.configs)}")
    if walk >= campaign.walks:
        raise InputError(f"--walk {walk}: a campaign of --walks {campaign.walks} has walks 0..{campaign.walks - 1}")
    prepare_walk(campaign, out)
    sim = grid()[campaign.configs[0]]
    row = walk_row(campaign, sim, walk, out, set())
    row.pop("states")
    for key, value in row.items():
        click.echo(f"{key:16s} {value}")
    if row["trace"]:
        click.echo(f"replay: autoswitch replay {out / row['trace']}")
    sys.exit(0 if walk_as_expected(row, sim) else 1)


def _campaign(campaign, out: Path, master: str | None) -> None:
    from autoswitch.conformance.simulation.coverage import campaign_coverage
    from autoswitch.conformance.simulation.report import summarize, write_report
    from autoswitch.conformance.simulation.spark import pick_master, run_campaign
    from autoswitch.conformance.simulation.store import load_rows, timings

    ended = _ConfigsEnded(campaign, out)
    with Progress(TextColumn("simulate"), BarColumn(), MofNCompleteColumn(), TextColumn("chunks"), TimeElapsedColumn(),
                  console=console, transient=True) as progress:
        task = progress.add_task("", total=None)

        def on_progress(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)
            if not console.is_terminal:
                ended.report()

        stats = run_campaign(campaign, out, pick_master(campaign, master), on_progress,
                             lambda message: console.print(message, style="bold yellow"))
    rows, missing = load_rows(campaign, out.resolve())
    report, problems = write_report(campaign, rows, stats, out, missing, timings(campaign, out.resolve()),
                                    campaign_coverage(campaign.configs, rows))
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
    table_console(width=200).print(table)
    for problem in problems:
        console.print(f"PROBLEM: {problem}", style="bold red")
    console.print(f"report: {report}  rows: {out / 'rows'}  traces: {out / 'failures'}, {out / 'corpus'}")
    console.print("replay a trace: autoswitch replay <trace>; re-run one walk: " + campaign.reproduce("<configuration>", "<walk>"))
    sys.exit(1 if problems else 0)


class _ConfigsEnded:
    """Where output is not a terminal (no progress bar), a line per configuration as its last chunk ends."""

    def __init__(self, campaign, out: Path) -> None:
        import time

        self.campaign, self.out, self.start, self.said = campaign, out, time.monotonic(), set()
        self.chunks = {c: [k for c2, k in campaign.tasks() if c2 == c] for c in campaign.configs}

    def report(self) -> None:
        import time

        from autoswitch.conformance.simulation.store import chunk_dir

        for config, chunks in self.chunks.items():
            if config not in self.said and all((chunk_dir(self.out, config, k) / "_DONE").exists() for k in chunks):
                self.said.add(config)
                console.print(f"simulate: {escape(config)} ended ({self.campaign.walks} walks; {len(self.said)} of "
                              f"{len(self.chunks)} configurations, {time.monotonic() - self.start:.0f} s)", highlight=False)


def _bench(campaign, master: str) -> None:
    from autoswitch.conformance.simulation.spark import bench

    with console.status(f"timing {len(campaign.tasks())} chunks in one process, then on Spark {master}"):
        single, spark = bench(campaign, master)
    table = Table(title=f"simulate benchmark: {len(campaign.configs)} configurations x {campaign.walks} walks x "
                        f"{campaign.length} steps, {len(campaign.tasks())} tasks")
    for column in ("run", "walks", "steps", "seconds", "walks/s", "steps/s", "speedup", "efficiency"):
        table.add_column(column, justify="left" if column == "run" else "right")
    cores = _cores(master)
    for name, s in (("single process", single), (f"Spark {master}", spark)):
        speedup = s.steps_per_second / single.steps_per_second if single.steps_per_second else 0.0
        table.add_row(name, str(s.walks), str(s.steps), f"{s.seconds:.2f}", f"{s.walks_per_second:,.1f}",
                      f"{s.steps_per_second:,.0f}", f"{speedup:.2f}x", f"{speedup / (1 if s is single else cores):.0%}")
    table_console(width=120).print(table)


def _cores(master: str) -> int:
    """The worker threads of a local[N] master (local[*]: this machine's CPUs); 1 otherwise is unknown."""
    import os
    import re

    m = re.fullmatch(r"local\[(\d+|\*)\]", master)
    if not m:
        return 1
    return os.cpu_count() or 1 if m.group(1) == "*" else int(m.group(1))


@main.command()
@click.option("--inputs", default=10_000, show_default=True, type=click.IntRange(min=1), help="Mutated traces to replay.")
@click.option("--seed", default=1, show_default=True, help="Seed: input i of seed s is the same bytes on every run.")
@click.option("--corpus", default="traces", show_default=True, type=click.Path(exists=True, file_okay=False),
              help="The traces to mutate (every *.json under it).")
@click.option("--out", default="fuzz-out", show_default=True, type=click.Path(file_okay=False),
              help="Folder for the inputs that break the contract (checked writable before work; a new one left empty is removed).")
@click.option("--only", type=click.IntRange(min=0), default=None, help="Replay only input INDEX of the seed and print its results.")
@click.option("--logs", is_flag=True, help="Instead: validate mutated copies of the event logs under --corpus "
              "(conformance/logs/fuzz.py; a folder of *.ndjson files with no such subfolder is one log, else each file is "
              "one), each search at most 5,000 states: no internal error, bad input names the file, line and field, and "
              "no mutation that must be refused is explained.")
def fuzz(inputs: int, seed: int, corpus: str, out: str, only: int | None, logs: bool) -> None:
    """Replay mutated copies of the corpus on both engines (conformance/trace/fuzz.py): no crash, no
    ERROR, the engines agree, and no mutation that must be refused passes. With --logs, validate mutated
    event logs instead. Exits 0 if every input keeps that contract, 1 if one breaks it (each such input
    is written under --out, and the command that replays one is printed), 2 on bad usage."""
    import tempfile

    from autoswitch.conformance.trace.fuzz import fuzz as run_fuzz

    folder = Path(out)
    existed = folder.exists()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
    except OSError as e:
        raise click.BadParameter(f"cannot write in {out}: {e.strerror or e}", param_hint="--out") from None
    if logs:
        _fuzz_logs(inputs, seed, corpus, folder, only, existed)
        return
    sources = []
    for f in map(Path, trace_files([corpus])):
        if f.is_file():
            sources.append(f)
        else:  # a FIFO or a device named *.json: reading it could block for ever
            console.print(f"{f}: not a regular file: left out of the corpus", style="bold yellow")
    if not sources:
        raise click.UsageError(f"no trace files (*.json) under {corpus}")
    indices = [only] if only is not None else range(inputs)
    rows: Counter = Counter()
    broken = []
    with tempfile.TemporaryDirectory(prefix="autoswitch-fuzz-") as scratch, \
            Progress(TextColumn("fuzz"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console,
                     transient=True, disable=len(indices) < 50) as progress:
        task = progress.add_task("", total=len(indices))
        for outcome in run_fuzz(sources, seed, indices, Path(scratch)):
            status = outcome.results[0].status if outcome.results else "raised"
            rows[(outcome.case.mutation, "broken" if outcome.broken else status)] += 1
            if only is not None:
                for result in outcome.results:
                    console.print(result.describe())
            if outcome.broken:
                broken.append(outcome)
                (folder / f"seed-{seed}-input-{outcome.case.index}.itf.json").write_text(outcome.case.text)
                console.print(f"input {outcome.case.index} ({outcome.case.mutation} of {outcome.case.source}): {outcome.broken}",
                              style="bold red")
            progress.update(task, advance=1)
    _fuzz_table(rows, len(indices), seed)
    if not broken and not existed:
        folder.rmdir()  # made only to check it could be written
    if broken:
        first = broken[0].case.index
        console.print(f"{len(broken)} input(s) broke the contract, written under {out}; replay one with: "
                      f"autoswitch fuzz --seed {seed} --corpus {corpus} --only {first}")
        sys.exit(1)


def _fuzz_logs(inputs: int, seed: int, corpus: str, folder: Path, only: int | None, existed: bool) -> None:
    """fuzz --logs (conformance/logs/fuzz.py): a row per mutation and outcome; each input that breaks the contract is
    written under ``folder``."""
    import tempfile
    import time

    from autoswitch.conformance.logs.fuzz import corpus_logs, fuzz_logs
    from autoswitch.conformance.logs.search import REFUSED

    sources = corpus_logs(Path(corpus))
    if not sources:
        raise click.UsageError(f"no event logs (*.ndjson) under {corpus}")
    indices = [only] if only is not None else range(inputs)
    rows: Counter = Counter()
    broken = []
    at_once = 0
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="autoswitch-fuzz-logs-") as scratch, \
            Progress(TextColumn("fuzz --logs"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console,
                     transient=True, disable=len(indices) < 50) as progress:
        task = progress.add_task("", total=len(indices))
        for outcome in fuzz_logs(sources, seed, indices, Path(scratch)):
            rows[(outcome.case.mutation, "broken" if outcome.broken else outcome.row.status)] += 1
            at_once += outcome.row.status == REFUSED and outcome.row.expanded == 0
            if only is not None:
                console.print(escape(outcome.row.text), highlight=False)
            if outcome.broken:
                broken.append(outcome)
                outcome.case.write(folder / f"seed-{seed}-log-{outcome.case.index}")
                console.print(escape(f"input {outcome.case.index} ({outcome.case.mutation} of {outcome.case.source}): "
                                     f"{outcome.broken}"), style="bold red", highlight=False)
            progress.update(task, advance=1)
    _fuzz_table(rows, len(indices), seed, "fuzz --logs")
    console.print(f"{len(indices)} logs in {time.perf_counter() - started:.1f} s; {at_once} refused before the search "
                  "(a value no behaviour reaches: no state expanded)")
    if not broken and not existed:
        folder.rmdir()
    if broken:
        console.print(escape(f"{len(broken)} input(s) broke the contract, written under {folder}; validate one again with: "
                             f"autoswitch fuzz --logs --seed {seed} --corpus {corpus} --only {broken[0].case.index}"))
        sys.exit(1)


def _fuzz_table(rows: Counter, inputs: int, seed: int, title: str = "fuzz") -> None:
    outcomes = sorted({outcome for _, outcome in rows})
    table = Table(title=f"{title}: {inputs} inputs, seed {seed}")
    for column in ("mutation", "inputs", *outcomes):
        table.add_column(column, justify="left" if column == "mutation" else "right")
    for mutation in sorted({m for m, _ in rows}):
        counts = [rows[(mutation, o)] for o in outcomes]
        table.add_row(mutation, str(sum(counts)), *map(str, counts))
    table.add_row("all", str(inputs), *(str(sum(n for (_, o), n in rows.items() if o == outcome)) for outcome in outcomes))
    console.print(table)


@main.command()
@click.option("--run", "bug_id", metavar="ID", default=None, help="Reproduce this row (an ID of the list).")
@click.option("--check/--no-check", "check_fixed", default=True, show_default=True,
              help="With --run: model-check the fixed setting when it is one of the small configurations.")
@click.option("--out", type=click.Path(file_okay=False), default="out/check", show_default=True,
              help="With --run: where a counterexample of the fixed setting would be written.")
@click.option("--markdown", is_flag=True, help="Print the catalogue as docs/known-bugs.md's table.")
@spec_dir_option
def bugs(bug_id: str | None, check_fixed: bool, out: str, markdown: bool, spec_dir: str | None) -> None:
    """The known RocketMQ and Kafka bugs the model reproduces (conformance/known_bugs.py): reference, setting,
    property, shortest counterexample (traces/known-bugs/) and the fixed setting that holds.

    --run ID replays the row's counterexample on both models (it must break the row's property, as its #meta.expect
    says), runs its actions under the fixed setting (the property must hold), and model-checks the fixed setting when
    it is small (--no-check: not). Exits 1 if one of these fails or the row cannot run on this build (a missing trace
    or configuration), 2 for an unknown ID."""
    from autoswitch.conformance.known_bugs import KNOWN_BUGS, by_id, markdown_table, reproduce

    if bug_id is None:
        if markdown:
            click.echo(markdown_table(), nl=False)
            return
        table = Table(title="known bugs the model reproduces")
        for column in ("id", "reference", "setting", "property", "steps", "fixed setting", "status"):
            table.add_column(column)
        for b in KNOWN_BUGS:
            table.add_row(b.id, b.reference, b.setting, b.property, "-" if b.steps is None else str(b.steps), b.fix.config,
                          "pending: " + ", ".join(b.pending) if b.pending else "complete")
        table_console(width=None if sys.stdout.isatty() else 200).print(table)
        return
    bug = by_id(bug_id)
    if bug is None:
        raise BadInput(f"--run: unknown known bug {bug_id!r}; known: {', '.join(b.id for b in KNOWN_BUGS)}")
    _use_spec_dir(spec_dir)
    out_dir = output_folder(out, "--out") if check_fixed else Path(out)
    console.print(f"{bug.id}: {bug.title} ({bug.reference}); breaks {bug.property}")
    failed = False
    for check in reproduce(bug, check_fixed, out_dir):
        mark = {True: "ok", False: "FAILED", None: "-"}[check.ok]
        console.print(f"  {mark:6} {check.what}: {check.detail}", style="bold red" if check.ok is False else None)
        failed |= check.ok is False
    sys.exit(EXIT_VERDICT if failed else EXIT_OK)


@main.command()
@click.option("--rocketmq-version", default=DEFAULT_VERSION, show_default=True, metavar="VERSION",
              help=f"The RocketMQ release whose stores run the scenarios: {', '.join(DATA_VERSIONS)} (5.1.0: its stores "
                   "only, the controller keys brokers by address).")
@click.option("--only", default=None, metavar="NAME", help="Run this finding alone.")
def findings(rocketmq_version: str, only: str | None) -> None:
    """Run the model's findings about RocketMQ's data path on its own DefaultMessageStore and AutoSwitchHAService
    (conformance/rocketmq/datapath.py; java and mvn): each scenario, what the stores showed, and whether RocketMQ shows
    the finding. Exits 0 when every finding ran (shown or not: the table says which), 2 on a bad argument or no java
    or mvn, 3 if a store did not reach what its scenario waits for."""
    from autoswitch.conformance.rocketmq.datapath import BY_NAME, FINDINGS, run_finding

    if only is not None and only not in BY_NAME:
        raise click.BadParameter(f"{only!r}: the findings are {', '.join(BY_NAME)}", param_hint="--only")
    real_engine(rocketmq_version, DATA_VERSIONS)
    chosen = [BY_NAME[only]] if only else list(FINDINGS)
    table = Table(title=f"the model's data-path findings on RocketMQ {rocketmq_version}")
    for column in ("finding", "shown on RocketMQ", "what the model says"):
        table.add_column(column)
    for finding in chosen:
        with console.status(f"{finding.name} on RocketMQ {rocketmq_version}"):
            shown, seen = run_finding(finding, rocketmq_version)
        console.print(f"{finding.name}: {finding.about}", style="bold")
        for what, view in seen.items():
            console.print(f"  {what}: {view}", highlight=False, markup=False)
        table.add_row(finding.name, "yes" if shown else "no", finding.model)
    table_console().print(table)


@main.group()
def cluster() -> None:
    """A real RocketMQ controller-mode cluster under faults (conformance/cluster/; java and mvn)."""


@cluster.command("run")
@click.option("--seed", default=1, show_default=True, type=int, help="The fault schedule's seed (same seed: same schedule).")
@click.option("--out", default=None, metavar="DIR", help="An empty or new folder for the run. Default: cluster-runs/<time>-seed<N>.")
@click.option("--brokers", default=2, show_default=True, type=click.IntRange(2, 3), help="Brokers in the set.")
@click.option("--settings", "settings_name", default="safe", show_default=True,
              type=click.Choice(list(CLUSTER_SETTINGS)), help="The broker and controller settings (a model row).")
@click.option("--duration", default=60.0, show_default=True, type=click.FloatRange(20, 3600), metavar="SECONDS",
              help="Seconds of workload; the faults end 5 s before.")
@click.option("--rocketmq-version", default=CLUSTER_VERSION, show_default=True, metavar="VERSION", help="The release to run.")
@click.option("--metadata-loss", is_flag=True, help="One fault alone: the name server killed and its controller's store "
              "deleted (the model's ControllerMetadataLoss; MC_live_meta says the set does not heal).")
@click.option("--wipe", is_flag=True, help="Draw wiped stores too: a broker killed, its store folder deleted before it "
              "restarts (the model's WipeDisk: it comes back as a new broker). Without it a seed's schedule is unchanged.")
@click.option("--controllers", default="1", show_default=True, type=click.Choice(["1", "3"]),
              help="1: the controller embedded in the name server; 3: three standalone controller nodes (DLedger peers), "
              "their kill -9 and restart drawn in the schedule too.")
@click.option("--cut", is_flag=True, help="Each broker's HA port behind a TCP proxy of ours; cut links drawn too: the "
              "master's replication links held for a while, then released (the model's PartitionLink, HealLink).")
def cluster_run(seed: int, out: str | None, brokers: int, settings_name: str, duration: float, rocketmq_version: str,
                metadata_loss: bool, wipe: bool, controllers: str, cut: bool) -> None:
    """Start a name server with the controller embedded and one broker set in controller mode (each a JVM), send unique
    messages synchronously under a seeded schedule of kill -9, restarts, pauses (and wiped stores), heal, read everything back and
    check that every acknowledged message is there (NoAckedMessageLost); then validate the controller's view, polled
    during the run, against the model (autoswitch validate: printed and reported). Exits 0 if NoAckedMessageLost
    holds, 1 if acknowledged messages were lost or the set never healed (nothing read back: no verdict on the sends), 2
    on bad usage or no java/mvn, 3 if the harness failed (a JVM that did not start, named, with its log's tail). No
    process outlives the command."""

    from autoswitch.conformance.cluster.run import RunConfig, harness_failed, run
    from autoswitch.conformance.rocketmq.jvm import HarnessError, Unavailable

    if metadata_loss and (wipe or cut or controllers != "1"):
        raise click.UsageError("--metadata-loss is a fault alone, of the controller embedded in the name server: not with "
                               "--wipe, --cut or --controllers 3")
    folder = _cluster_folder("run", out, f"seed{seed}", rocketmq_version)
    config = RunConfig(seed, folder, brokers, settings_name, duration, rocketmq_version, metadata_loss=metadata_loss,
                       wipe=wipe, controllers=int(controllers), cut=cut)
    try:
        outcome = run(config, lambda line: click.echo(line, err=True), click.echo)
    except Unavailable as e:
        raise click.UsageError(f"autoswitch cluster run: {e}") from None
    except HarnessError as e:
        outcome = harness_failed(config, e, click.echo)
    sys.exit(outcome.exit_code)


def _cluster_folder(command: str, out: str | None, name: str, rocketmq_version: str) -> Path:
    """What ``cluster COMMAND`` checks before anything runs (the release, an empty --out, java and mvn), then its folder
    (default cluster-runs/<time>-NAME-<pid>), made; SIGHUP ends it as SIGTERM does."""
    import time as _time

    from autoswitch.conformance.cluster import build as cluster_build
    from autoswitch.conformance.rocketmq.jvm import unavailable_reason

    problem = cluster_build.version_problem(rocketmq_version)
    if problem:
        raise click.BadParameter(problem, param_hint="--rocketmq-version")
    folder = Path(out) if out else Path("cluster-runs") / f"{_time.strftime('%Y%m%dT%H%M%S')}-{name}-{os.getpid()}"
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise BadInput(f"--out {folder}: not an empty folder; a {command} needs a folder of its own")
    problem = unavailable_reason()
    if problem:
        raise click.UsageError(f"autoswitch cluster {command} needs java and mvn: {problem}; no cluster was run")
    folder = output_folder(folder, "--out").resolve()
    signal.signal(signal.SIGHUP, _terminated)
    return folder


def _cluster_settings(value: str) -> tuple[str, ...]:
    names = tuple(dict.fromkeys(n.strip() for n in value.split(",") if n.strip()))
    unknown = [n for n in names if n not in CLUSTER_SETTINGS]
    if unknown or not names:
        raise click.BadParameter(f"{', '.join(unknown) or 'none given'}: not a setting; choose from "
                                 f"{', '.join(CLUSTER_SETTINGS)}", param_hint="--settings")
    return names


@cluster.command("table")
@click.option("--runs", default=2, show_default=True, type=click.IntRange(1, 100), help="Seeded runs per settings row.")
@click.option("--duration", default=40.0, show_default=True, type=click.FloatRange(20, 3600), metavar="SECONDS",
              help="Seconds of workload per run.")
@click.option("--settings", "settings_names", default=",".join(CLUSTER_SETTINGS), show_default=True, metavar="A,B,...",
              help="The rows, comma-separated.")
@click.option("--first-seed", default=1, show_default=True, type=int, help="Each row's runs take seeds FIRST-SEED to FIRST-SEED+RUNS-1.")
@click.option("--brokers", default=2, show_default=True, type=click.IntRange(2, 3), help="Brokers in the set.")
@click.option("--out", default=None, metavar="DIR", help="An empty or new folder. Default: cluster-runs/<time>-table.")
@click.option("--rocketmq-version", default=CLUSTER_VERSION, show_default=True, metavar="VERSION", help="The release to run.")
@click.option("--wipe", is_flag=True, help="Each run draws wiped stores too (cluster run --wipe).")
@click.option("--controllers", default="1", show_default=True, type=click.Choice(["1", "3"]),
              help="Each run's controller: embedded (1) or three standalone nodes (cluster run --controllers).")
@click.option("--cut", is_flag=True, help="Each run cuts replication links too (cluster run --cut).")
def cluster_table(runs: int, duration: float, settings_names: str, first_seed: int, brokers: int, out: str | None,
                  rocketmq_version: str, wipe: bool, controllers: str, cut: bool) -> None:
    """The model's verdict beside real runs: RUNS seeded `cluster run`s for each settings row, one after the other
    (each in OUT/<settings>/seed-<N>/, kept), then a markdown table on stdout (also OUT/table.md, OUT/table.json):
    settings, the model configuration and whether the model says acknowledged messages can be lost under it, runs,
    acknowledged messages, lost, runs with loss, the controller's view against the model. Exits 0, 1 if a row the
    model calls safe lost an acknowledged message, 2 on bad usage or no java/mvn, 3 if a run's harness failed (the
    table is printed all the same)."""

    from autoswitch.conformance.cluster.table import TableConfig, markdown, run_table
    from autoswitch.conformance.rocketmq.jvm import Unavailable

    names = _cluster_settings(settings_names)
    folder = _cluster_folder("table", out, "table", rocketmq_version)
    config = TableConfig(folder, names, runs, duration, brokers, rocketmq_version, first_seed, wipe=wipe,
                         controllers=int(controllers), cut=cut)
    try:
        rows, code = run_table(config, lambda line: click.echo(line, err=True))
    except Unavailable as e:
        raise click.UsageError(f"autoswitch cluster table: {e}") from None
    click.echo(markdown(rows), nl=False)
    click.echo(f"\n{config.command()} (runs in {folder})")
    sys.exit(code)
