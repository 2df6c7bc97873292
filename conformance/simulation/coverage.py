"""The fraction of the exhaustive state space a campaign reached, on configurations the explicit-state checker exhausts
in a second or two.

The checker (conformance/check/checker.py: ``Checker.initial``, ``Checker.expand``, no invariant checked) enumerates
every state of a spec configuration reachable within its bounds; each is mapped to its abstract state
(campaign.abstract_state of its variables, as a walk maps its states). The campaign's coverage of that space is the
share of those abstract states its walks reached. Walks are not bounded as the spec configuration is (epochs, clock,
messages): the abstract states they reach beyond its bounds are not counted. The concrete states are counted, not
compared: a walk's row keeps only its abstract states.

EXHAUSTIVE pairs a simulation configuration with such a spec configuration (the same design, options and process
count: checked when it is used).
"""

from __future__ import annotations

from collections.abc import Iterable

from attrs import frozen

from autoswitch.conformance.check.checker import Checker
from autoswitch.conformance.check.specconfig import load_spec_config
from autoswitch.conformance.controls import grid
from autoswitch.conformance.errors import InputError
from autoswitch.conformance.simulation.campaign import abstract_state
from autoswitch.reference.variables import variables

EXHAUSTIVE = {"ms-async-2p": "MC_ms_async", "dledger-2p": "MC_dledger2"}  # 2,782 and 7,282 states: about a second each
MAX_STATES = 50_000  # a spec configuration with more reachable states is not enumerated


@frozen
class Coverage:
    """A campaign's coverage of a spec configuration: its checker's distinct states, their distinct abstract states
    and how many of those the walks reached."""

    spec: str
    concrete: int
    total: int
    reached: int

    @property
    def fraction(self) -> float:
        return self.reached / self.total if self.total else 0.0


def exhaustive_abstract(spec_name: str, limit: int = MAX_STATES) -> tuple[int, frozenset[int]]:
    """The number of states the checker reaches in ``spec_name`` and their abstract states (breadth first, from
    ``Checker.initial`` through ``Checker.expand``); more than ``limit`` states is an InputError."""
    checker = Checker(load_spec_config(spec_name), invariants=(), properties=())
    seen: set[int] = set()
    abstract: set[int] = set()
    frontier = []
    for start, fp in checker.initial():
        if fp not in seen:
            seen.add(fp)
            frontier.append((start.state, fp))
    while frontier:
        level = []
        for s, fp in frontier:
            abstract.add(abstract_state(variables(s)))
            for _, w, wfp in checker.expand(s, fp).successors:
                if wfp not in seen:
                    seen.add(wfp)
                    level.append((w, wfp))
        if len(seen) > limit:
            raise InputError(f"{spec_name}: more than {limit:,} reachable states; not enumerated")
        frontier = level
    return len(seen), frozenset(abstract)


def check_pairing(config: str, spec_name: str) -> None:
    """A simulation configuration and a spec configuration of the same setting: design, options and process count."""
    sim, spec = grid()[config], load_spec_config(spec_name)
    if sim.config.options != spec.options or len(sim.config.processes) != len(spec.processes):
        raise InputError(f"{config} and {spec_name} are not the same setting (options or process count differ)")


def campaign_coverage(configs: Iterable[str], rows: Iterable[dict]) -> dict[str, Coverage]:
    """The coverage of each configuration of EXHAUSTIVE among ``configs`` by the walks of ``rows`` (their ``states``)."""
    rows = list(rows)
    return {c: coverage(c, {x for r in rows if r["config"] == c for x in r["states"]}) for c in configs if c in EXHAUSTIVE}


def coverage(config: str, reached: Iterable[int], spec_name: str | None = None) -> Coverage:
    """The coverage of ``spec_name`` (default: EXHAUSTIVE's for ``config``) by the abstract states ``reached``."""
    spec_name = spec_name or EXHAUSTIVE[config]
    check_pairing(config, spec_name)
    concrete, abstract = exhaustive_abstract(spec_name)
    return Coverage(spec_name, concrete, len(abstract), len(abstract & set(reached)))
