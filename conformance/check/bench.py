"""``autoswitch bench --check``: the explicit-state checker and TLC on the same configurations in one run, side by
side: the checker in one process (Checker.run) and over worker processes (parallel.py), TLC with ``-workers 1`` and
``-workers 2`` (conformance/tla/run.py; left out, with the reason, when TLA2TOOLS_JAR or java is missing). Each row
gives the distinct states, the seconds and the distinct states per second, with the ratios to TLC's rates; the
counts of every run of a configuration must agree (where each explores every state; else the verdicts)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from attrs import frozen

from autoswitch.conformance.check.checker import Checker
from autoswitch.conformance.check.search import How, search
from autoswitch.conformance.check.specconfig import load_spec_config
from autoswitch.conformance.tla.run import find_tlc, run_tlc, tlc_missing_reason

# MC_data (387,322 states) and a MaxEpoch = 3 configuration (991,816 states): the configurations of the targets
DEFAULT_CONFIGS = ("MC_data", "MC_data_reg1_kip279_e3")
TLC_WORKERS = (1, 2)


@frozen
class Run:
    """One engine on one configuration: ``violated`` names the property a violation broke (None: none)."""

    config: str
    engine: str
    distinct: int | None
    depth: int | None
    seconds: float
    violated: str | None
    complete: bool  # every state within the bounds explored (no violation, no error)
    problem: str = ""  # why the engine gave no verdict (TLC's error)

    @property
    def rate(self) -> float:
        return (self.distinct or 0) / max(self.seconds, 1e-9)


@frozen
class ConfigBench:
    """The runs of one configuration and whether their counts (or verdicts) agree."""

    config: str
    runs: tuple[Run, ...]

    def tlc(self, workers: int) -> Run | None:
        return next((r for r in self.runs if r.engine == f"TLC -workers {workers}"), None)

    @property
    def disagreement(self) -> str | None:
        """Why the runs disagree (None: they agree): other counts where each explored every state, other verdicts."""
        failed = [r for r in self.runs if r.problem]
        if failed:
            return f"{failed[0].engine}: {failed[0].problem}"
        if all(r.complete for r in self.runs):
            counts = {(r.distinct, r.depth) for r in self.runs}
            return None if len(counts) == 1 else "distinct states/depth differ: " + ", ".join(
                f"{r.engine} {r.distinct}/{r.depth}" for r in self.runs)
        verdicts = {r.violated is None for r in self.runs}
        return None if len(verdicts) == 1 else "verdicts differ: " + ", ".join(
            f"{r.engine} {r.violated or 'ok'}" for r in self.runs)


def bench_check(configs: Sequence[str] = DEFAULT_CONFIGS, workers: int = 2,
                say: Callable[[str], None] = lambda _: None) -> tuple[list[ConfigBench], str | None]:
    """Run every engine on each configuration, one run at a time; the results and why TLC was not run (None: it was).
    A configuration that cannot be read raises SpecConfigError before any run."""
    checkers = [Checker(load_spec_config(name)) for name in configs]
    tlc = find_tlc()
    benches = []
    for checker in checkers:
        spec = checker.spec
        runs = []
        for how, engine in ((How(), "checker"), (How(workers=workers), f"checker --workers {workers}")):
            say(f"{spec.name}: {engine}")
            result = search(checker, how)
            v = result.violation
            runs.append(Run(spec.name, engine, result.distinct, result.depth, result.seconds, v and v.name, v is None))
        for w in TLC_WORKERS if tlc is not None else ():
            say(f"{spec.name}: TLC -workers {w}")
            t = run_tlc(spec.source.parent / f"{spec.module}.tla", spec.source, workers=w, tlc=tlc)
            runs.append(Run(spec.name, f"TLC -workers {w}", t.distinct_states, t.depth, t.seconds, t.violated,
                            t.ok, t.problem))
        benches.append(ConfigBench(spec.name, tuple(runs)))
    return benches, None if tlc is not None else tlc_missing_reason()
