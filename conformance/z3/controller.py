"""``autoswitch z3-controller``: the induction (controller_induction.py), reachability and agreement
(controller_agreement.py) checks over the encoding of controller_encoding.py, as one report."""



from __future__ import annotations

import random
import time

from attrs import frozen

from autoswitch.conformance.z3.controller_agreement import agreement, random_requests, sample_models, trace_steps, walk_states
from autoswitch.conformance.z3.controller_encoding import ACTION_PROPERTY, PROPERTIES, TRANSITIONS
from autoswitch.conformance.z3.controller_induction import Obligation, check_induction, failed_ind_inv
from autoswitch.reference.state import (
    Controller,
)

# ---- the whole run (autoswitch z3-controller) -------------------------------------------------------

@frozen
class ControllerReport:
    """What ``autoswitch z3-controller`` found: the induction obligations, Init and the reachable states
    (random walks and the traces' states) against IndInv, and the encoding against the reference."""

    brokers: int
    obligations: tuple[Obligation, ...]
    proved_in: float  # seconds for the obligations
    failed_init: tuple[str, ...]  # IndInv conjuncts Init breaks
    traces: int
    states: int  # distinct reachable controller states checked against IndInv
    unreachable: tuple[tuple[Controller, tuple[str, ...]], ...]  # reachable states breaking IndInv, with what they break
    compared: int
    problems: tuple[str, ...]  # disagreements of the encoding with the reference

    @property
    def ok(self) -> bool:
        return (all(o.holds for o in self.obligations if o.assumed == "IndInv") and not self.failed_init and not self.unreachable
                and not self.problems)

    def rows(self) -> list[tuple[str, str, str]]:
        """Per property: whether it is inductive alone (EpochsMonotonic: under Inv) and whether it holds under IndInv."""
        rows = []
        for prop in PROPERTIES:
            row = [prop]
            for assumed in ((prop if prop != ACTION_PROPERTY else "Inv"), "IndInv"):
                mine = [o for o in self.obligations if o.prop == prop and o.assumed == assumed]
                failed = sorted({o.tag for o in mine if not o.holds})
                label = "inductive" if assumed == prop else "holds (Inv ⇒)" if assumed == "Inv" else "holds"
                row.append(label if not failed else f"CTI: {', '.join(failed)}" + (" (under Inv)" if assumed == "Inv" else ""))
            rows.append((row[0], row[1], row[2]))
        return rows

    def ctis(self) -> list[Obligation]:
        """The counterexamples to induction of a property alone, unclean election off."""
        return [o for o in self.obligations if not o.holds and o.assumed != "IndInv" and not o.unclean]


def check_controller(brokers: int, walks: int, length: int, seed: int, samples: int, trace_paths: list[str]) -> ControllerReport:
    """Prove the induction obligations for broker ids 1..``brokers``, check Init and the reachable states
    (``walks`` random walks of ``length`` steps from ``seed``, the states of ``trace_paths``) against IndInv,
    and compare the encoding with the reference on random requests from those states, the traces' controller
    requests and z3-chosen IndInv states (``samples`` per request and setting)."""
    started = time.perf_counter()
    obligations = tuple(check_induction(brokers))
    proved_in = time.perf_counter() - started
    failed_init = tuple(failed_ind_inv(Controller(), brokers))
    steps = trace_steps(trace_paths)
    states = list(dict.fromkeys([*walk_states(walks, length, seed), *(c for c, _ in steps)]))
    unreachable = tuple((c, tuple(bad)) for c in states if (bad := failed_ind_inv(c, brokers)))
    rng = random.Random(seed)
    examples = [(c, a) for c in states for a in random_requests(rng, brokers + 1, 2)]
    examples += [(c, a) for c, a in steps if a is not None]
    examples += [ex for tag in TRANSITIONS for unclean in (False, True) for ex in sample_models(tag, brokers, unclean, samples)]
    compared, problems = agreement(examples, brokers)
    return ControllerReport(brokers, obligations, proved_in, failed_init, len(trace_paths), len(states), unreachable, compared,
                            tuple(problems))
