"""Which search runs a configuration: the breadth-first search in this process (Checker.run), split over worker
processes (``--workers N``, parallel.py; also a fingerprint store that spills to disk and a checkpoint to resume),
or level by level on a Spark cluster (``--master URL``, spark_search.py). Each expands states with
Checker.expand only, checks each distinct state with Checker.check_state once, and rebuilds a counterexample with
Checker.counterexample: the counts (distinct, generated, depth) are the same whichever runs, and a counterexample
is a shortest one."""

from __future__ import annotations

from collections.abc import Callable

from autoswitch.conformance.check.checker import Checker, CheckResult, Progress
from autoswitch.conformance.check.how import LOCAL, How


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
