"""How to run a search (search.py): in this process, over worker processes (parallel.py) or on Spark
(spark_search.py). Apart from search.py, which picks the runner, so that a runner may take it without a cycle."""

from __future__ import annotations

from pathlib import Path

from attrs import frozen


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
