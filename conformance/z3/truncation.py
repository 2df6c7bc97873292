"""z3 checks of the truncation policies (reference/truncation.py) for every pair of logs up to a bound.

The encoding. A log is a sequence of epochs (entry i was written in epoch log[i]), non-decreasing. One
leader writes each epoch, starting at its LEO when elected, so an epoch's first entry stands at the same
offset ``start[e]`` in every log that has it, and two entries are the same message exactly when they
have the same epoch at the same offset. A log's epoch file is derived from it: one entry (e, start[e])
per epoch present, as Kafka's Log.append assigns it (0.11.0.0 to 2.0.0); ``kip279-2.1`` adds the leader's
election entry of Kafka 2.1.0 (KAFKA-7415): its current epoch, above all others, at its LEO. (This leaves
out RocketMQ's refused appends, where entries of a new epoch are filed under an older entry, and the
followers' own election entries; the replay and Hypothesis tests cover those cases.) The follower's high watermark
is any offset up to its LEO. Log Matching holds between the two logs before the truncation (it is the
invariant a correct truncation keeps; the question is whether one step of the policy keeps it).

The property: the point a policy truncates the follower to is at most the longest common prefix (LCP)
of the two logs - past it the follower would keep entries the leader does not have at those offsets.
z3 proves it for ``rocketmq`` and ``kip279-2.1`` (unsat) and finds inputs breaking it for ``kip101``,
``kip279`` (both: the leader does not know the follower's newest epoch, answers UNDEFINED, and the
follower falls back to its high watermark, the case KAFKA-7415 closed) and ``hw``; every model z3
returns is replayed through the reference's own functions.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import z3
from attrs import frozen

from autoswitch.conformance.errors import InputError
from autoswitch.conformance.trace.itf import write_trace
from autoswitch.reference import epoch_file as ref_epoch_file
from autoswitch.reference import truncation

Sym = z3.ArithRef


@frozen
class Side:
    """One symbolic log: its length and the epoch of each slot (slots past the length are ignored)."""

    length: Sym
    epochs: tuple[Sym, ...]

    def has(self, e: int) -> z3.BoolRef:
        return z3.Or([z3.And(i < self.length, x == e) for i, x in enumerate(self.epochs)])

    def last(self, top: int) -> Sym:
        """The newest epoch present (0 for an empty log)."""
        return _first([(self.has(e), z3.IntVal(e)) for e in range(top, 0, -1)], z3.IntVal(0))

    def end(self, e: int, top: int, start: dict[int, Sym]) -> Sym:
        """Where epoch ``e`` ends in this log: the start of the next epoch present, or the LEO."""
        return _first([(self.has(n), start[n]) for n in range(e + 1, top + 1)], self.length)


def _first(cases: list[tuple[z3.BoolRef, Sym]], otherwise: Sym) -> Sym:
    result = otherwise
    for cond, value in reversed(cases):
        result = z3.If(cond, value, result)
    return result


@frozen
class Setup:
    follower: Side
    leader: Side
    hw: Sym
    start: dict[int, Sym]
    top: int
    constraints: list[z3.BoolRef]

    def lcp(self, bound: int) -> Sym:
        """The longest common prefix: the first offset where the logs differ or one ends."""
        f, l = self.follower, self.leader
        differs = [z3.Or(i >= f.length, i >= l.length, f.epochs[i] != l.epochs[i]) for i in range(bound)]
        return _first([(d, z3.IntVal(i)) for i, d in enumerate(differs)], z3.IntVal(bound))


def setup(bound: int, top: int) -> Setup:
    """Symbolic follower and leader logs of at most ``bound`` entries over epochs 1..``top``."""
    if bound < 1 or top < 1:  # no log of one entry: every policy would be "proved", the unsafe ones too
        raise InputError(f"logs of at most {bound} entries over epochs 1..{top}: both bounds must be at least 1")
    start = {e: z3.Int(f"start_{e}") for e in range(1, top + 1)}
    sides, constraints = [], []
    for name in ("f", "l"):
        side = Side(z3.Int(f"{name}_len"), tuple(z3.Int(f"{name}_{i}") for i in range(bound)))
        constraints += [side.length >= 0, side.length <= bound]
        for i, x in enumerate(side.epochs):
            constraints += [x >= 1, x <= top]
            if i:
                constraints.append(z3.Implies(i < side.length, side.epochs[i - 1] <= x))
            first_of_epoch = x != side.epochs[i - 1] if i else z3.BoolVal(True)
            constraints += [z3.Implies(z3.And(i < side.length, first_of_epoch, x == e), start[e] == i) for e in start]
        sides.append(side)
    hw = z3.Int("f_hw")
    constraints += [hw >= 0, hw <= sides[0].length]
    f, l = sides
    for i in range(bound):  # Log Matching holds before the truncation: an entry both have fixes the prefix
        same = z3.And(i < f.length, i < l.length, f.epochs[i] == l.epochs[i])
        constraints += [z3.Implies(same, f.epochs[j] == l.epochs[j]) for j in range(i)]
    return Setup(f, l, hw, start, top, constraints)


def _rocketmq(s: Setup) -> Sym:
    """findConsistentPoint: the newest follower epoch the leader has (same start by construction)."""
    f, l, top = s.follower, s.leader, s.top
    cases = [(z3.And(f.has(e), l.has(e)), z3.If(f.end(e, top, s.start) < l.end(e, top, s.start),
                                                f.end(e, top, s.start), l.end(e, top, s.start))) for e in range(top, 0, -1)]
    return z3.If(f.length == 0, f.length, _first(cases, z3.IntVal(-1)))


UNDEFINED = -1  # Kafka's UNDEFINED_EPOCH / UNDEFINED_EPOCH_OFFSET


def _min(*xs: Sym) -> Sym:
    result = xs[0]
    for x in xs[1:]:
        result = z3.If(x < result, x, result)
    return result


def _end_offset_for(has: Callable[[int], z3.BoolRef], leo: Sym, requested: Sym, start: dict[int, Sym], top: int,
                    version: str) -> tuple[Sym, Sym]:
    """KafkaEndOffsetFor (spec EpochFile.tla) on the cache holding the epochs ``has`` names (derived from a
    log, plus an election entry ``top`` + 1 when ``has`` says so), as (epoch, end offset)."""
    epochs = range(1, top + 2)
    latest = _first([(has(e), z3.IntVal(e)) for e in reversed(epochs)], z3.IntVal(UNDEFINED))
    above = _first([(z3.And(has(e), e > requested), start[e]) for e in epochs], z3.IntVal(UNDEFINED))
    below = _first([(z3.And(has(e), e <= requested), z3.IntVal(e)) for e in reversed(epochs)], z3.IntVal(UNDEFINED))
    undefined = z3.IntVal(UNDEFINED)
    no_floor_epoch = requested if version == "2.1" else undefined
    no_floor_end = above if version == "2.1" else undefined
    epoch = z3.If(above == UNDEFINED, undefined, z3.If(below == UNDEFINED, no_floor_epoch, below))
    end = z3.If(above == UNDEFINED, undefined, z3.If(below == UNDEFINED, no_floor_end, above))
    epoch, end = z3.If(requested == latest, requested, epoch), z3.If(requested == latest, leo, end)
    if version == "0.11":  # no UNDEFINED_EPOCH case: an empty cache's latest epoch is UNDEFINED, answered the LEO
        return epoch, end
    return z3.If(requested == UNDEFINED, undefined, epoch), z3.If(requested == UNDEFINED, undefined, end)


def _leader(s: Setup, v21: bool) -> tuple[Callable[[int], z3.BoolRef], dict[int, Sym]]:
    """The leader's cache: its log's epochs, and with Kafka 2.1.0 (KAFKA-7415) its election entry: the
    current epoch ``top`` + 1, above every logged one, at its LEO."""
    l, top = s.leader, s.top

    def has(e: int) -> z3.BoolRef:
        return z3.BoolVal(v21) if e == top + 1 else l.has(e)

    return has, {**s.start, top + 1: l.length}


def _kip101(s: Setup) -> Sym:
    """ReplicaFetcherThread.maybeTruncate, Kafka 0.11.0.0."""
    f, top = s.follower, s.top
    has, start = _leader(s, False)
    asked = z3.If(f.length == 0, z3.IntVal(UNDEFINED), f.last(top))
    _, answer = _end_offset_for(has, s.leader.length, asked, start, top, "0.11")
    return z3.If(answer == UNDEFINED, _min(s.hw, f.length), _min(answer, f.length))


def _kip279(v21: bool) -> Callable[[Setup], Sym]:
    """AbstractFetcherThread.getOffsetTruncationState (Kafka 2.0.0, or 2.1.0 with ``v21``), unrolled: at
    most ``top`` rounds, each with the follower's cache cut below the epoch it named."""
    version = "2.1" if v21 else "2.0"

    def policy(s: Setup) -> Sym:
        f, top = s.follower, s.top
        has, start = _leader(s, v21)

        def round_(asked: Sym, rounds: int) -> Sym:
            ends = _first([(asked == e, f.end(e, top, s.start)) for e in range(1, top + 1)], f.length)
            leader_epoch, leader_end = _end_offset_for(has, s.leader.length, asked, start, top, version)
            def prefix(e: int) -> z3.BoolRef:  # the follower's cache this round: its epochs up to the one asked
                return z3.And(f.has(e), e <= asked)

            epoch, end = _end_offset_for(prefix, ends, leader_epoch, s.start | {top + 1: f.length}, top, version)
            again = round_(epoch, rounds - 1) if rounds > 1 else z3.IntVal(UNDEFINED)
            fetch_offset = z3.If(asked == f.last(top), s.hw, ends)
            return z3.If(leader_end == UNDEFINED, fetch_offset,
                         z3.If(end == UNDEFINED, _min(leader_end, ends),
                               z3.If(epoch == leader_epoch, _min(end, leader_end, ends), again)))

        return z3.If(f.length == 0, _min(s.hw, f.length), round_(f.last(top), top))

    return policy


POLICIES: dict[str, Callable[[Setup], Sym]] = {
    "rocketmq": _rocketmq,
    "hw": lambda s: s.hw,
    "kip101": _kip101,
    "kip279": _kip279(False),
    "kip279-2.1": _kip279(True),
}
"""``kip279-2.1``: ``kip279`` with option ``kafka_leader_epoch_on_election`` (Kafka 2.1.0): the leader's
cache also holds its election entry; the others read caches derived from the logs (Kafka 0.11.0.0 to
2.0.0: Log.append assigns each record's epoch, nothing else does)."""


@frozen
class Verdict:
    """``proved``: no input within the bounds truncates past the LCP; otherwise ``example`` is one."""

    policy: str
    bound: int
    top: int
    proved: bool
    example: dict | None = None

    @property
    def as_expected(self) -> bool:
        """A safe policy (SAFE) must be proved; an unsafe one may show its counterexample."""
        return self.proved or self.policy not in SAFE


def concrete(model: z3.ModelRef, s: Setup, bound: int, policy: str = "") -> dict:
    """The concrete logs, epoch files, high watermark and LCP of a z3 model (with the leader's election
    entry for ``kip279-2.1``)."""
    def log(side: Side) -> list[int]:
        return [model.eval(side.epochs[i]).as_long() for i in range(model.eval(side.length).as_long())]

    f, l = log(s.follower), log(s.leader)
    lcp = next((i for i in range(min(len(f), len(l))) if f[i] != l[i]), min(len(f), len(l)))
    election = [(s.top + 1, len(l))] if policy == "kip279-2.1" else []
    return {"follower": f, "leader": l, "hw": model.eval(s.hw).as_long(), "lcp": lcp,
            "followerEpochs": epoch_file(f), "leaderEpochs": epoch_file(l) + election}


def epoch_file(log: list[int]) -> list[tuple[int, int]]:
    """The (epoch, startOffset) entries of a log of epochs."""
    return [(e, i) for i, e in enumerate(log) if i == 0 or log[i - 1] != e]


def reference_point(policy: str, example: dict) -> int:
    """The truncation point the reference model computes for a concrete example."""
    f, l = example["follower"], example["leader"]
    name, v21 = policy.removesuffix("-2.1"), policy.endswith("-2.1")
    return truncation.TRUNCATE[name](tuple(example["followerEpochs"]), len(f), example["hw"], tuple(example["leaderEpochs"]),
                                     len(l), v21)


def check(policy: str, bound: int = 6, top: int = 4) -> Verdict:
    """Prove ``point <= LCP`` for ``policy`` or return an input where the point passes the LCP: the
    smallest one (fewest entries, then the lexicographically least values) among those where the logs
    share their first entry and the follower does cut something, if there are such; the optimum is
    unique, so the example does not depend on the z3 version."""
    s = setup(bound, top)
    point = POLICIES[policy](s)
    solver = z3.Solver()
    solver.add(*s.constraints, point > s.lcp(bound))
    if solver.check() == z3.unsat:
        return Verdict(policy, bound, top, True)
    smallest = z3.Optimize()
    smallest.add(*s.constraints, point > s.lcp(bound))
    f, l = s.follower, s.leader
    telling = z3.And(s.lcp(bound) >= 1, point < f.length)
    for term in (z3.If(telling, 0, 1), f.length + l.length, f.length, s.hw, *f.epochs, *l.epochs, *s.start.values()):
        smallest.minimize(term)  # lexicographic: each objective in turn, so the optimum is unique
    assert smallest.check() == z3.sat
    example = concrete(smallest.model(), s, bound, policy)
    example["point"] = smallest.model().eval(point).as_long()
    return Verdict(policy, bound, top, False, example)


def agrees_with_reference(policy: str, bound: int, top: int, samples: int) -> int:
    """How many distinct z3 models (up to ``samples``) were checked: for each, the encoding's point equals
    the reference's. Raises AssertionError on the first disagreement."""
    s = setup(bound, top)
    point = POLICIES[policy](s)
    solver = z3.Solver()
    solver.add(*s.constraints)
    checked = 0
    while checked < samples and solver.check() == z3.sat:
        model = solver.model()
        example = concrete(model, s, bound, policy)
        got = model.eval(point).as_long()
        want = reference_point(policy, example)
        assert got == want, (policy, example, got, want)
        checked += 1
        # block this pair of logs (and high watermark) to get a different model next time
        lens = [s.follower.length, s.leader.length, s.hw]
        slots = [x for side in (s.follower, s.leader) for x in side.epochs]
        solver.add(z3.Or([v != model.eval(v, model_completion=True) for v in lens + slots]))
    return checked


# ---- counterexamples as traces --------------------------------------------------------------------

TRUNCATION_STEP = "truncation-step"  # #meta.kind of a one-step trace from a given pre-state
PROPERTY = "TruncateWithinCommonPrefix"  # the point is at most the longest common prefix
LEADER, FOLLOWER = "leader", "follower"
UNSAFE = ("kip101", "kip279", "hw")
SAFE = ("rocketmq", "kip279-2.1")


def _entries(log: list[int], ids: dict[tuple[int, int], int]) -> list[tuple[int, int]]:
    """A log of epochs as (msg, epoch) entries: one message id per (offset, epoch), so two logs hold the
    same message exactly where they have the same epoch at the same offset."""
    return [(ids[(o, e)], e) for o, e in enumerate(log)]


def trace_states(policy: str, example: dict) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The ``#meta`` and the two states of a truncation-step trace: the pre-state (the leader's and the
    follower's logs, epoch files and high watermarks, their roles) and the follower's Handshake."""
    f, l, point = example["follower"], example["leader"], example["point"]
    ids = {key: i + 1 for i, key in enumerate(sorted({*enumerate(f), *enumerate(l)}))}
    log = {LEADER: _entries(l, ids), FOLLOWER: _entries(f, ids)}
    epoch_file = {LEADER: list(example["leaderEpochs"]), FOLLOWER: list(example["followerEpochs"])}
    confirm = {LEADER: len(l), FOLLOWER: example["hw"]}
    pre = {"action": {"tag": "Init"}, "outcome": {"code": "OK"}, "role": {LEADER: "MASTER", FOLLOWER: "SLAVE"},
           "log": log, "epochFile": epoch_file, "confirmOffset": confirm}
    post = {"action": {"tag": "Handshake", "process": FOLLOWER}, "outcome": {"code": "OK", "truncateOffset": point},
            "log": {**log, FOLLOWER: log[FOLLOWER][:point]},
            "epochFile": {**epoch_file, FOLLOWER: list(ref_epoch_file.truncate_suffix(tuple(epoch_file[FOLLOWER]), point))},
            "confirmOffset": {**confirm, FOLLOWER: min(example["hw"], point)}}
    meta = {
        "kind": TRUNCATION_STEP,
        "description": f"z3's smallest input on which {policy} truncation keeps more than the common prefix: the follower "
                       f"keeps {point} of its {len(f)} entries, the logs agree on the first {example['lcp']}",
        "policy": policy,
        "expect": {"violation": PROPERTY, "truncationPoint": point, "commonPrefix": example["lcp"]},
    }
    return meta, [pre, post]


def write_traces(out: str | Path, bound: int, top: int) -> list[Path]:
    """Write the ``kip101``, ``kip279`` and ``hw`` counterexamples as ITF truncation-step traces under ``out``."""
    paths = []
    for policy in UNSAFE:
        verdict = check(policy, bound, top)
        assert not verdict.proved, f"{policy}: no counterexample within logs <= {bound}, epochs 1..{top}"
        meta, states = trace_states(policy, verdict.example)
        meta["generator"] = f"autoswitch z3-truncation --bound {bound} --epochs {top} --write-traces DIR"
        path = Path(out) / f"{policy}-truncation-step.itf.json"
        write_trace(path, meta, states)
        paths.append(path)
    return paths
