"""Which search runs a configuration: the breadth-first search in this process (Checker.run), split over worker
processes (``--workers N``, parallel.py; also a fingerprint store that spills to disk and a checkpoint to resume),
or level by level on a Spark cluster (``--master URL``, spark_search.py). Each expands states with
Checker.expand only, checks each distinct state with Checker.check_state once, and rebuilds a counterexample with
Checker.counterexample: the counts (distinct, generated, depth) are the same whichever runs, and a counterexample
is a shortest one."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from attrs import frozen

from autoswitch.conformance.check.checker import Checker, CheckResult, Progress


@frozen
class How:
    """How to run a search: ``workers`` processes on this machine, or Spark ``master`` (a URL; None: not Spark);
    ``checkpoint``: a folder where the search saves its state after each level and resumes from when it holds one;
    ``memory``: how many fingerprints stay in memory before the store spills to disk (None: no limit)."""

    workers: int = 1
    master: str | None = None
    checkpoint: Path | None = None
    memory: int | None = None

    @property
    def local(self) -> bool:
        """This process alone, as Checker.run."""
        return self.master is None and self.workers == 1 and self.checkpoint is None and self.memory is None


LOCAL = How()


def search(checker: Checker, how: How = LOCAL, on_progress: Callable[[Progress], None] | None = None,
           every: float = 2.0) -> CheckResult:
    """Run ``checker``'s search as ``how`` says."""
    if how.master is not None:
        from autoswitch.conformance.check.spark_search import spark_search

        return spark_search(checker, how.master, on_progress, every)
    if not how.local:
        from autoswitch.conformance.check.parallel import parallel_search

        return parallel_search(checker, how, on_progress, every)
    return checker.run(on_progress, every)
