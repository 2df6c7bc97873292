"""Coverage guidance (as AFL keeps the inputs that reach new edges): within a chunk of a campaign, a walk that reaches
abstract states (campaign.abstract_view) no earlier walk of the chunk reached joins the chunk's corpus, with its actions
up to the last new state; later walks of the chunk start, with probability GUIDED, by replaying a corpus entry cut just
after one of its new states (entry and cut drawn from the walk's seed), then draw their remaining steps as an unguided
walk does (swarm weights included): they extend what reached new states. The replayed prefix is an exact replay of an
earlier walk's (the model is deterministic), so it keeps the bounds the draws keep (generate.fault_action).

Everything is drawn from the walk's seed, and the corpus from the walks before it in its chunk: walk ``i`` is a function
of the campaign, the chunk size and the walks of its chunk before ``i``, so a chunk still runs anywhere (one process or a
Spark task) to the same rows, and one walk re-runs alone by re-running the walks of its chunk before it (``prime``).
Liveness walks are not guided (their fair suffix depends on the cut point of their own walk).
"""

from __future__ import annotations

from typing import Any

from autoswitch.conformance.simulation.campaign import Run
from autoswitch.conformance.simulation.swarm import salted_rng

GUIDED = 0.5  # the share of a chunk's walks that start from a corpus entry (once there is one)
CORPUS = 256  # entries kept per chunk (the oldest go first)
SALT = "guide"


class Guide:
    """A chunk's corpus and the abstract states its walks reached."""

    def __init__(self) -> None:
        self.seen: set[int] = set()
        # (walk, its actions up to its last new state, the step counts after which it reached a new state)
        self.corpus: list[tuple[int, list[dict[str, Any]], list[int]]] = []

    def prefix(self, seed: int) -> tuple[int | None, list[dict[str, Any]]]:
        """The walk that the walk seeded ``seed`` starts from and the actions it replays first (None, []: an unguided
        walk), drawn from the seed (with SALT): a corpus entry, cut just after one of its new states."""
        rng = salted_rng(SALT, seed)
        if not self.corpus or rng.random() >= GUIDED:
            return None, []
        walk, actions, new = self.corpus[rng.randrange(len(self.corpus))]
        return walk, [dict(a) for a in actions[: rng.choice(new)]]

    def update(self, walk: int, run: Run) -> int:
        """Record a walk's abstract states; a passing safety walk that reached new ones (after its first step) joins the
        corpus. Returns the number of new states."""
        new = [i for i, s in enumerate(run.states) if s not in self.seen]
        self.seen.update(run.states)
        useful = [i for i in new if i > 0]
        if useful and run.failure is None and run.fair is None:
            self.corpus.append((walk, run.actions[: useful[-1]], useful))
            del self.corpus[:-CORPUS]
        return len(new)
