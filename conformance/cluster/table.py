"""``autoswitch cluster table``: N seeded runs per ``--settings`` row, side by side with the model's verdict (issue 41,
item 5). Each run is an ordinary ``autoswitch cluster run`` in a folder of its own (``OUT/<settings>/seed-<N>/``,
kept); the table is made from their ``summary.json`` files and written as ``OUT/table.md`` and ``OUT/table.json``."""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from attrs import field, frozen

from autoswitch.conformance.cluster.build import HarnessError
from autoswitch.conformance.cluster.run import RunConfig, harness_failed, run
from autoswitch.conformance.cluster.settings import SETTINGS
from autoswitch.conformance.errors import EXIT_INTERNAL, EXIT_OK, EXIT_VERDICT, batch_exit

HEADER = ("settings", "the model (configuration: NoAckedMessageLost)", "runs", "acknowledged", "lost", "runs with loss",
          "the real runs", "controller's view (`validate`)", "seconds per run")


@frozen
class TableConfig:
    """What ``autoswitch cluster table`` runs: ``runs`` seeds from ``first_seed`` for each of ``settings``."""

    out: Path
    settings: tuple[str, ...]
    runs: int
    duration: float
    brokers: int
    version: str
    first_seed: int = 1
    wipe: bool = False
    controllers: int = 1
    cut: bool = False

    def seeds(self) -> range:
        return range(self.first_seed, self.first_seed + self.runs)

    def folder(self, settings: str, seed: int) -> Path:
        return self.out / settings / f"seed-{seed}"

    def run_config(self, settings: str, seed: int) -> RunConfig:
        return RunConfig(seed, self.folder(settings, seed), self.brokers, settings, self.duration, self.version,
                         wipe=self.wipe, controllers=self.controllers, cut=self.cut)

    def command(self) -> str:
        return (f"autoswitch cluster table --runs {self.runs} --duration {self.duration:g} --brokers {self.brokers} "
                f"--settings {','.join(self.settings)} --first-seed {self.first_seed} --rocketmq-version {self.version}"
                + (" --wipe" if self.wipe else "") + (f" --controllers {self.controllers}" if self.controllers != 1 else "")
                + (" --cut" if self.cut else ""))


@frozen
class Row:
    """One settings row: the model's word and what its runs showed (harness failures count as runs without counts)."""

    settings: str
    model: str
    safe: bool
    runs: int
    acked: int
    lost: int
    runs_with_loss: int
    harness_failures: int
    validate: Counter[str] = field(factory=Counter)
    seconds: tuple[float, ...] = ()
    unhealed: int = 0  # runs whose cluster never healed: nothing read back, no verdict on their sends

    @property
    def verdict(self) -> str:
        """What the real runs say beside the model: agree, a loss shown, not shown (yet), or a disagreement."""
        counted = self.runs - self.harness_failures - self.unhealed
        if counted == 0:
            return "no verdict: no run healed" if self.unhealed else "no run finished"
        if self.safe:
            return "agrees: nothing lost" if self.lost == 0 else "DISAGREES: acknowledged messages lost"
        return (f"loss shown in {self.runs_with_loss} of {counted} runs" if self.lost
                else f"no loss in {counted} runs (the model says it can happen, not that it must)")

    @property
    def exit_code(self) -> int:
        """1 if a setting the model calls safe lost an acknowledged message, 3 if a run's harness failed, else 0."""
        if self.harness_failures:
            return EXIT_INTERNAL
        return EXIT_VERDICT if self.safe and self.lost else EXIT_OK

    def cells(self) -> list[str]:
        runs = f"{self.runs}" + (f" ({self.harness_failures} harness failures)" if self.harness_failures else "") + (
            f" ({self.unhealed} never healed)" if self.unhealed else "")
        checked = ", ".join(f"{n} {status}" for status, n in sorted(self.validate.items())) or "-"
        per_run = (f"{min(self.seconds):.0f}-{max(self.seconds):.0f}" if len(set(round(s) for s in self.seconds)) > 1
                   else f"{self.seconds[0]:.0f}" if self.seconds else "-")
        lost = f"**{self.lost:,}**" if self.lost else "0"
        return [f"`{self.settings}`", self.model, runs, f"{self.acked:,}", lost, str(self.runs_with_loss), self.verdict,
                checked, per_run]

    def to_json(self) -> dict[str, Any]:
        return {"settings": self.settings, "model": self.model, "safe": self.safe, "runs": self.runs, "acked": self.acked,
                "lost": self.lost, "runs_with_loss": self.runs_with_loss, "harness_failures": self.harness_failures,
                "unhealed": self.unhealed,
                "validate": dict(self.validate), "seconds": list(self.seconds), "verdict": self.verdict}


def summarize(settings: str, brokers: int, summaries: Sequence[dict[str, Any] | None]) -> Row:
    """The row of ``settings`` from its runs' ``summary.json`` contents (None: the run's harness failed)."""
    setting = SETTINGS[settings]
    done = [s for s in summaries if s is not None]
    return Row(settings, setting.verdict(brokers), setting.safe, len(summaries),
               sum(int(s["counts"]["acked"]) for s in done), sum(int(s["counts"]["lost"]) for s in done),
               sum(1 for s in done if s["counts"]["lost"]), len(summaries) - len(done),
               Counter(str(s["validate"]["status"]) for s in done), tuple(float(s["seconds"]) for s in done),
               sum(1 for s in done if s.get("unread")))


def markdown(rows: Sequence[Row]) -> str:
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    lines += ["| " + " | ".join(row.cells()) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def read_summary(folder: Path) -> dict[str, Any] | None:
    """A run's summary.json, or None (its harness failed: no summary)."""
    path = folder / "summary.json"
    return json.loads(path.read_text()) if path.exists() else None


def run_table(config: TableConfig, echo: Callable[[str], None]) -> tuple[list[Row], int]:
    """Every run, one after the other (each stops its JVMs before the next starts); the rows and the exit code.
    ``echo`` gets progress and each run's verdict lines."""
    rows = []
    for settings in config.settings:
        for seed in config.seeds():
            run_config = config.run_config(settings, seed)
            run_config.out.mkdir(parents=True, exist_ok=False)
            echo(f"== {settings}, seed {seed}: {run_config.command(str(run_config.out))}")
            began = time.monotonic()
            try:
                run(run_config, echo, echo)
            except HarnessError as e:
                harness_failed(run_config, e, echo)
            echo(f"== {settings}, seed {seed}: {time.monotonic() - began:.0f} s")
        rows.append(summarize(settings, config.brokers, [read_summary(config.folder(settings, s)) for s in config.seeds()]))
    write(config, rows)
    return rows, batch_exit(row.exit_code for row in rows)


def write(config: TableConfig, rows: Sequence[Row]) -> None:
    """``table.md`` (the table, the command, the runs' folders) and ``table.json`` under ``config.out``."""
    text = (f"{markdown(rows)}\nEach row: {config.runs} runs of {config.duration:g} s (seeds "
            f"{config.first_seed}-{config.first_seed + config.runs - 1}), {config.brokers} brokers, RocketMQ "
            f"{config.version}; each run's folder is `<settings>/seed-<N>/` (its `report.md`).\n\n"
            f"Command: `{config.command()}`\n")
    (config.out / "table.md").write_text(text)
    (config.out / "table.json").write_text(json.dumps({"command": config.command(), "rows": [r.to_json() for r in rows]},
                                                      indent=2) + "\n")
