"""The configurations of a simulation campaign and one checked random walk.

A configuration is a point of the grid of controls.py (option set x truncation policy x process count, named
``<options>-<policy>-<n>p``: ``safe-rocketmq-3p``; controls.grid, controls.SimConfig). Its option set also carries the
action weights of its walks, and the rows of controls.py say what the options break: a negative control names the
invariant a campaign must find (``control``); ``breaks`` lists every invariant the options are known to break.

A walk is a function of (campaign seed, configuration name, walk index): its ``random.Random`` is seeded
with a hash of the three, so any walk re-runs alone, bit for bit. Under swarm testing (swarm.py, a campaign's default)
the walk's weights are its own variant of the configuration's, drawn from its seed; under coverage guidance (guide.py,
opt-in) it may first replay a prefix of an earlier walk of its chunk. Its abstract states (abstract_view: bounded, so
coverage can saturate) are recorded. At every step the action drawn is
applied to the reference and the implementation side by side (explore.check_step); both must agree on whether it is enabled,
on its outcome and on every variable, and every invariant and action property is checked on the
reference's variables. The first violation or divergence ends the walk.

A liveness configuration (``<options>-<policy>-<n>p-live``) runs liveness walks: the walk's first draw is a cut
point from 0 to the length; actions are drawn as above (faults included) up to the cut, then the faults stop and
the fair suffix of fair.py heals the system (at most fair.FAIR_BOUND steps, each checked as above); then every
liveness property must hold at the end (fair.py says when a false one counts). Its control is the liveness
property its options break (controls.py); the safety invariants they break are tolerated. Its prefix draws no
``ControllerMetadataLoss`` (controls.LIVE_WEIGHTS).

The designs RIP-44 replaced (reference/designs.py) have configurations of their own, ``<design>-<n>p`` (``ms-async-2p``,
``dledger-3p``; ``-live`` likewise), the policy left at rocketmq: controls.DESIGN_SETS. Their walks start from InitDesign and
draw only the design's actions (generate.DESIGN_STEPS, weighed by controls.DEFAULT_WEIGHTS) and its one fault, Crash (a DOWN
process's only step is its restart); a liveness walk's prefix crashes a process only while no other is down (the fault
bound of the design's liveness configurations: one failure at a time, as MaxFaults 1), so that a majority of three
DLedger members is left at the cut.

A campaign (:class:`Campaign`) says what runs: its seed, the walks and their length per configuration, the chunks,
the weights; spark.py runs it and store.py keeps its output folder.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from attrs import asdict, field, frozen

from autoswitch.conformance.controls import DEFAULT_CONFIGS, controller_mode, grid
from autoswitch.conformance.engines import REAL, REAL_DATA, Config, data_path, make_engine, real_version
from autoswitch.conformance.errors import InputError
from autoswitch.conformance.explore import DIVERGENCE, Failure, check_step
from autoswitch.conformance.simulation.fair import FAIR_BOUND, FAIR_WINDOW, FairScheduler, Stuck, stuck
from autoswitch.conformance.simulation.generate import (
    DESIGN_STEPS,
    DESIGN_TAGS,
    REGISTERED_TAGS,
    UNSAFE_REQUESTS,
    controller_request,
    design_action,
    design_steps,
    fault_action,
    process_action,
    registered_steps,
    registration_step,
    within_bounds,
)
from autoswitch.conformance.simulation.swarm import swarm_weights
from autoswitch.reference.actions import ACTIONS
from autoswitch.reference.designs import design_of
from autoswitch.reference.liveness import NEW_FAULTS
from autoswitch.reference.state import CONTROLLER, DOWN, System

PASS = "pass"
LIVENESS_FAILURE = "liveness"  # a Failure's kind: a liveness property false at the end of the fair suffix

# What a walk does at each step, by weight (controls.DEFAULT_WEIGHTS and a configuration's own): a process takes a
# protocol step (registration, heartbeat, election, the data path: healing and progress), or a fault or stray request
# happens. Within a REGISTERED process's steps each tag is weighted too (default 1 per listing in generate.py);
# ``lost`` is the probability that a request's response is lost. The faults of MODEL.md §9 (and the steps
# that end them: HealLink, DeliverLate) are moves of their own (generate.fault_action); a tag not in the action
# table is never drawn, whatever its weight.
FAULT_MOVES = ("CrashTorn", "ControllerMetadataLoss", "PartitionLink", "HealLink", "SendLate", "DeliverLate", "WipeDisk")
MOVES = ("process", "Crash", "HeartbeatExpire", "ControllerElectScan", "ControllerFailover", "request", *FAULT_MOVES)
FAULTS = frozenset({"Crash", "HeartbeatExpire", "ControllerFailover", *NEW_FAULTS})
WEIGHT_NAMES = tuple(dict.fromkeys((*MOVES, *REGISTERED_TAGS, *DESIGN_TAGS, "lost")))
MAX_WEIGHT = 1e9  # weights are relative; a bound keeps their sums finite


# Walks per configuration by default: every default control fails within its first 60 walks at seed 1 (docs/results/
# 2026-11-25-campaign-strategies.md), and the rarest, 37 failing walks in 1,000, goes unfound in 200 with odds of about 1 in 2,000.
DEFAULT_WALKS = 200


def parse_weights(text: str) -> dict[str, float]:
    """``"Crash=5,lost=0.1"`` -> weights: each item ``name=number`` with a known name given once and a
    number from 0 to MAX_WEIGHT (``lost``, a probability, at most 1); anything else is an error naming the item."""
    out: dict[str, float] = {}
    for item in filter(None, (s.strip() for s in text.split(","))):
        name, eq, value = (s.strip() for s in item.partition("="))
        if not eq or not name:
            raise InputError(f"weight {item!r}: expected name=number, e.g. Crash=5")
        if name not in WEIGHT_NAMES:
            raise InputError(f"weight {item!r}: unknown name {name!r}; known: {', '.join(WEIGHT_NAMES)}")
        if name in out:
            raise InputError(f"weight {item!r}: {name!r} given twice")
        try:
            number = float(value)
        except ValueError:
            raise InputError(f"weight {item!r}: expected a number, got {value!r}") from None
        if not 0 <= number <= MAX_WEIGHT:  # also refuses nan
            raise InputError(f"weight {item!r}: must be a number from 0 to {MAX_WEIGHT:g}")
        if name == "lost" and number > 1:
            raise InputError(f"weight {item!r}: lost is a probability, at most 1")
        out[name] = number
    return out


def check_weights(name: str, weights: Mapping[str, float]) -> None:
    """A configuration's weights (SimConfig.weights) leave something to draw: some move weighs more than
    zero, and if ``process`` does, so does some protocol step of each role (Drawer.draw; a design's: DESIGN_STEPS)."""
    design = grid()[name].config.options.design if name in grid() else CONTROLLER
    moves = [m for m in MOVES if _drawn(m, design)]
    if not any(weights.get(m, 0) > 0 for m in moves):
        raise InputError(f"weights: every move of {name} weighs 0 ({', '.join(moves)}); give one a weight > 0")
    if weights.get("process", 0) <= 0:
        raise InputError(f"weights: process weighs 0 in {name}: no protocol step (registration, election, data path) can "
                         "be drawn, only faults and raw requests; give process a weight > 0")
    if design != CONTROLLER:
        for role, steps in DESIGN_STEPS[design].items():
            if not any(weights.get(t, 1.0) > 0 for t in steps):
                raise InputError(f"weights: every step a running {role} process of {name} takes weighs 0 "
                                 f"({', '.join(steps)}); give one a weight > 0")
    else:
        for role in ("MASTER", "SLAVE", "NONE"):
            steps = registered_steps({"role": {"p": role}}, "p", data=True)
            if not any(weights.get(t, 1.0) > 0 for t in steps):
                raise InputError(f"weights: every step a registered {role} process of {name} takes weighs 0 "
                                 f"({', '.join(dict.fromkeys(steps))}); give one a weight > 0")


def walk_seed(campaign_seed: int, config: str, walk: int) -> int:
    """The seed of one walk: a stable hash of (campaign seed, configuration name, walk index)."""
    digest = hashlib.blake2b(f"{campaign_seed}/{config}/{walk}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


def _cmp(a: int, b: int) -> int:
    return (a > b) - (a < b)


def abstract_view(v: Mapping[str, Any]) -> tuple:
    """The bounded abstraction of a state (every field has a few values whatever the walk's length, so the set of
    abstract states of a configuration is finite and a campaign's coverage can saturate): whether the controller has a
    master, the syncStateSet's and the alive map's sizes, whether some message is acked or seen; per process its
    registration state, role and HA state, its local epoch against the controller's (behind, equal, ahead), its log
    end against each other process's (shorter, equal, longer), its confirmOffset and flushed prefix against its log end,
    whether it is the controller's master, in the syncStateSet, alive, holds every acked and every seen message, has an
    alter in flight, and (the designs RIP-44 replaced) its configured role and term against the highest."""
    procs = sorted(v["regState"])
    ids = {p: v["metaFile"][p] for p in procs}
    logs = {p: {msg for msg, _ in v["log"][p]} for p in procs}
    ends = {p: len(v["log"][p]) for p in procs}
    top_term = max((v["term"][p] for p in procs), default=0) if "term" in v else 0
    view: tuple = (v["masterId"] != -1, len(v["syncStateSet"]), len(v["alive"]), bool(v["acked"]), bool(v["seen"]))
    for p in procs:
        view += ((v["regState"][p], v["role"][p], v["haState"][p], _cmp(v["localMasterEpoch"][p], v["masterEpoch"]),
                  tuple(_cmp(ends[p], ends[q]) for q in procs if q > p), _cmp(v["confirmOffset"][p], ends[p]),
                  _cmp(v["flushed"][p], ends[p]), ids[p] != 0 and ids[p] == v["masterId"], ids[p] in v["syncStateSet"],
                  ids[p] in v["alive"], v["acked"] <= logs[p], v["seen"] <= logs[p], v["pendingAlter"][p] is not None),)
    if design_of(v) != CONTROLLER:
        view += (tuple((v["brokerRole"][p], v["term"][p] == top_term) for p in procs),)
    return view


def abstract_state(v: Mapping[str, Any]) -> int:
    """A signed 64-bit hash of the state's bounded abstraction (abstract_view)."""
    return int.from_bytes(hashlib.blake2b(repr(abstract_view(v)).encode(), digest_size=8).digest(), "big", signed=True)


def _drawn(move: str, design: str) -> bool:
    """Whether a walk of ``design`` draws ``move``: a process's step always, a controller request in controller mode,
    any other move when its tag is in the action table and in the design's Next."""
    if move in ("process", "request"):
        return move == "process" or design == CONTROLLER
    return move in ACTIONS and design in ACTIONS[move].designs


class Drawer:
    """Draws the next action of a walk from the current variables with the configuration's weights: a
    move, then a tag (generate.py's protocol steps by role, or a request of the action table), then its
    parameters by kind (generate.process_action, generate.controller_request). In a design RIP-44 replaced the moves
    are a process's step (generate.design_steps) and Crash, only while fewer than ``max_down`` processes are down
    (None: no bound)."""

    def __init__(self, config: Config, weights: Mapping[str, float], max_down: int | None = None):
        self.procs = sorted(config.processes)
        self.addrs = [*config.processes.values(), "10.0.1.1:30911", "10.0.1.2:30911"]
        self.design = config.options.design
        self.moves = [m for m in MOVES if weights.get(m, 0) > 0 and _drawn(m, self.design)]
        self.move_weights = [weights[m] for m in self.moves]
        self.weights = weights
        self.max_down = max_down

    def draw(self, rng: random.Random, v: dict[str, Any]) -> dict[str, Any] | None:
        """An action, or None for a draw with nothing to do (e.g. expiring when no broker is alive)."""
        move = rng.choices(self.moves, self.move_weights)[0]
        if move == "process" and self.design != CONTROLLER:
            p = rng.choice(self.procs)
            steps = design_steps(v, p, self.design)
            if len(steps) <= 1:
                return design_action(rng, v, p, steps[0]) if steps else None
            return design_action(rng, v, p, rng.choices(steps, [self.weights.get(t, 1.0) for t in steps])[0])
        if move == "process":
            p = rng.choice(self.procs)
            if v["regState"][p] == "REGISTERED":
                steps = registered_steps(v, p, data=True)
                tag = rng.choices(steps, [self.weights.get(t, 1.0) for t in steps])[0]
            else:
                tag = registration_step(v, p)
            return process_action(rng, v, p, tag, self.addrs, self.weights["lost"])
        if move == "Crash":
            if self.max_down is not None and sum(r == DOWN for r in v["regState"].values()) >= self.max_down:
                return None
            return {"tag": "Crash", "process": rng.choice(self.procs)}
        if move == "HeartbeatExpire":
            alive = sorted(v["alive"])
            return {"tag": "HeartbeatExpire", "brokerId": rng.choice(alive)} if alive else None
        if move in ("ControllerElectScan", "ControllerFailover"):
            return {"tag": move}
        if move in FAULT_MOVES:
            return fault_action(rng, v, move)
        action = controller_request(rng, len(self.procs) + 1)
        return None if action["tag"] in UNSAFE_REQUESTS else action


@frozen
class Run:
    """A checked run: the actions taken (enabled ones only), the failure if any, the abstract states,
    and the tolerated properties that failed on the way (name -> first state index). A liveness walk's
    last ``fair`` actions are its fair suffix (None: not a liveness walk), ``quiescent`` whether it ended
    at quiescence, ``stuck`` the liveness properties found false at its end (fair.py), tolerated or not."""

    actions: list[dict[str, Any]]
    failure: Failure | None
    states: list[int]
    tolerated: dict[str, int]
    fair: int | None = None
    quiescent: bool = False
    stuck: tuple[Stuck, ...] = ()

    @property
    def prefix(self) -> list[dict[str, Any]]:
        """The actions before the fair suffix (all of them for a safety walk)."""
        return self.actions[: len(self.actions) - (self.fair or 0)]


class _Walker:
    """One run's engines, variables and record (_checked_run)."""

    def __init__(self, config: Config, tolerate: Sequence[str], with_impl: bool, abstract: bool, against: str = "impl"):
        self.ref = make_engine("reference", config)
        self.impl = make_engine(against, config) if with_impl else None
        # against the real code, the actions where the model answers differently on purpose are not taken
        self.refinement_of: Callable[[System, Mapping[str, Any]], Any] | None = None
        if with_impl and real_version(against) is not None:
            from autoswitch.conformance.rocketmq.findings import refinement_of

            self.refinement_of = refinement_of
        self.v = self.ref.variables()
        self.abstract = abstract
        self.states = [abstract_state(self.v)] if abstract else []
        self.taken: list[dict[str, Any]] = []
        self.tolerated = dict.fromkeys(tolerate, -1)
        self.failure: Failure | None = None
        self.stuck: tuple[Stuck, ...] = ()

    def take(self, action: Mapping[str, Any]) -> bool:
        """Check ``action`` on both engines; whether it was taken (a disabled one is not, nor, against the real code, one
        where the model answers differently on purpose: rocketmq/findings.py REFINEMENTS)."""
        if self.refinement_of is not None and self.refinement_of(self.ref.state, action) is not None:
            return False
        self.failure, after = check_step(self.ref, self.impl, action, len(self.taken) + 1, self.v, self.tolerated)
        if after is None and self.failure is None:
            return False
        self.taken.append(dict(action))
        if self.failure is None:
            self.v = after
            if self.abstract:
                self.states.append(abstract_state(after))
        return True

    def heal(self) -> tuple[int, bool, set[Stuck] | None]:
        """Fair steps (fair.py) until quiescence, a failure or FAIR_BOUND steps: their number, whether quiescent, and the
        properties stuck in every state of the last FAIR_WINDOW steps (None: fewer steps)."""
        scheduler = FairScheduler(self.ref.options)
        window: set[Stuck] | None = None
        while scheduler.steps < FAIR_BOUND:
            action = scheduler.next(self.ref.cluster, self.v)
            if action is None:
                return scheduler.steps, True, window
            self.take(action)
            if self.failure is not None:
                break
            if scheduler.steps > FAIR_BOUND - FAIR_WINDOW:
                now = set(stuck(self.v))
                window = now if window is None else window & now
        return scheduler.steps, False, window

    def fair_suffix(self, control: str | None) -> tuple[int, bool]:
        """The fair suffix and the liveness verdict at its end (fair.py); returns its length and whether it ended at
        quiescence. A stuck property of ``tolerated`` is recorded (at the last state), the first other one (``control``
        first) is the failure."""
        steps, quiescent, window = self.heal()
        if self.failure is not None:
            return steps, False
        found = stuck(self.v) if quiescent else [s for s in stuck(self.v) if window is not None and s in window]
        last = len(self.taken)
        found.sort(key=lambda s: s.name != control)
        self.stuck = tuple(found)
        for s in found:
            if s.name not in self.tolerated:
                how = "quiescent" if quiescent else f"false for the last {FAIR_WINDOW} of {FAIR_BOUND} steps"
                who = f" of {s.process}" if s.process else ""
                self.failure = Failure(LIVENESS_FAILURE, s.name, last, f"ok{who} false after {steps} fair steps ({how})")
                break
            if self.tolerated[s.name] < 0:
                self.tolerated[s.name] = last
        return steps, quiescent

    def run(self, fair: bool, control: str | None) -> Run:
        suffix, quiescent = self.fair_suffix(control) if fair and self.failure is None else (0, False)
        return Run(self.taken, self.failure, self.states, {k: i for k, i in self.tolerated.items() if i >= 0},
                   suffix if fair else None, quiescent, self.stuck)


def _checked_run(config: Config, draw: Callable[[dict[str, Any]], Mapping[str, Any] | None], tries: int, length: int,
                 tolerate: Sequence[str], with_impl: bool, abstract: bool, live: bool = False, control: str | None = None,
                 warm: bool = False, against: str = "impl") -> Run:
    """Up to ``length`` enabled actions from ``tries`` calls of ``draw(variables)`` (None: nothing drawn),
    each checked on both engines; a disabled action is skipped. Stops at the first failure (a property
    of ``tolerate`` failing is recorded, not a failure). ``abstract``: collect the abstract states. ``live``: then
    the fair suffix and the liveness verdict, looking for the property ``control`` first. ``warm``: fair steps from
    Init to quiescence first (a registered set, a master, its slaves in sync), then the ``length`` actions drawn.
    ``against``: the engine the reference is compared with (with ``with_impl``): the implementation, or a real one."""
    walker = _Walker(config, tolerate, with_impl, abstract, against)
    scheduled = getattr(walker.impl, "scheduled", None)  # an engine that schedules some steps (rocketmq/datawalk.py)
    if scheduled is not None:
        draw = scheduled(draw)
    if warm:
        walker.heal()
    length += len(walker.taken)
    for _ in range(tries):
        if walker.failure is not None or len(walker.taken) == length:
            break
        action = draw(walker.v)
        if action is None:
            continue
        if walker.take(action):
            if walker.failure is not None:
                break
        elif walker.failure is None and getattr(walker.impl, "owed", None) is action:
            walker.failure = Failure(DIVERGENCE, "enabled", len(walker.taken) + 1,
                                     f"{action['tag']}: the real code took it (its store proposed it), the model refuses it")
    return walker.run(live, control)


def run_walk(config: Config, weights: Mapping[str, float], seed: int, length: int, tolerate: Sequence[str] = (),
             with_impl: bool = True, live: bool = False, control: str | None = None, warm: bool = False,
             swarm: bool = False, prefix: Sequence[Mapping[str, Any]] = (), against: str = "impl") -> Run:
    """Up to ``length`` enabled actions drawn with ``random.Random(seed)``, checked at every step; stops
    at the first failure (a property of ``tolerate`` failing is recorded, not a failure), or after
    ``length * 20`` draws without reaching ``length``. ``live``: a liveness walk, whose first draw is the cut point
    (0 to ``length``) where the faults stop and the fair suffix starts, looking for the property ``control`` first;
    ``warm``: the walk starts with fair steps from Init to quiescence (_checked_run); ``swarm``: the weights are the
    walk's swarm variant of ``weights`` (swarm.swarm_weights); ``prefix``: actions taken first (a disabled one
    skipped, as is a fault outside the bounds of generate.fault_action), then the draws (guide.py; a safety walk only)."""
    rng = random.Random(seed)
    if swarm:
        weights = swarm_weights(seed, weights)
    drawer = Drawer(config, weights, 1 if live and config.options.design != CONTROLLER else None)
    if live:
        length = rng.randint(0, length)
    given = iter(prefix)

    def draw(v: dict[str, Any]) -> Mapping[str, Any] | None:
        action = next(given, None)
        if action is None:
            return drawer.draw(rng, v)
        return action if within_bounds(v, action) else None
    return _checked_run(config, draw, length * 20, length, tolerate, with_impl, True, live, control, warm, against)


def rerun(config: Config, actions: Sequence[Mapping[str, Any]], tolerate: Sequence[str] = (), with_impl: bool = True,
          live: bool = False, control: str | None = None, against: str = "impl") -> Run:
    """Run a fixed action list, skipping actions that are disabled where they come, checked like a walk
    (abstract states are not collected); ``live``: the list is a liveness walk's prefix, followed by the fair
    suffix as in run_walk."""
    given = iter(actions)
    return _checked_run(config, lambda _v: next(given), len(actions), len(actions), tolerate, with_impl, False, live, control,
                        against=against)


def action_counts(actions: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    return dict(sorted(Counter(a["tag"] for a in actions).items()))


def fault_count(actions: Sequence[Mapping[str, Any]]) -> int:
    """Faults in a walk: crashes, expiries, controller failovers, the faults of MODEL.md §9 and actions whose response
    (or, PartitionLink, replication connection) is lost."""
    return sum(a["tag"] in FAULTS or bool(a.get("lost")) for a in actions)


# ---- a campaign ------------------------------------------------------------------------------------------------
MAX_LENGTH = 100_000  # steps per walk
MAX_TASKS = 100_000  # chunks per campaign


def _count(minimum: int, maximum: int | None = None) -> Callable[[Any, Any, Any], None]:
    def check(_campaign: Any, attribute: Any, value: Any) -> None:
        if not isinstance(value, int) or isinstance(value, bool) or value < minimum or (maximum is not None and value > maximum):
            bounds = f">= {minimum}" if maximum is None else f"from {minimum} to {maximum}"
            raise InputError(f"{attribute.name}: expected an integer {bounds}, got {value!r}")
    return check


def _seed(_campaign: Any, _attribute: Any, value: Any) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise InputError(f"seed: expected an integer, got {value!r}")


def _flag(_campaign: Any, attribute: Any, value: Any) -> None:
    if not isinstance(value, bool):
        raise InputError(f"{attribute.name}: expected true or false, got {value!r}")


def _against(_campaign: Any, _attribute: Any, value: Any) -> None:
    if value != "impl" and (not isinstance(value, str) or real_version(value) is None):
        raise InputError(f"against: the implementation (impl) or the real code (rocketmq, rocketmq@VERSION), got {value!r}")


def _against_options(against: str) -> str:
    """``--against``/``--rocketmq-version`` of the command that re-runs a walk of a campaign against ``against``."""
    version = real_version(against)
    if version is None:
        return ""
    name = REAL_DATA if data_path(against) else REAL
    return f" --against {name}" + ("" if against == name else f" --rocketmq-version {version}")


def _configs(_campaign: Any, _attribute: Any, value: tuple[str, ...]) -> None:
    known = grid()
    if not value:
        raise InputError("configs: no configuration named")
    unknown = [c for c in value if c not in known]
    if unknown:
        raise InputError(f"configs: unknown configuration(s) {', '.join(map(repr, unknown))}")


def _weights(campaign: Campaign, _attribute: Any, value: Mapping[str, float]) -> None:
    parse_weights(",".join(f"{k}={v!r}" for k, v in value.items()))  # each name known, each number in range
    for name in campaign.configs:
        check_weights(name, grid()[name].weights(value))


@frozen
class Campaign:
    """What a campaign runs: ``walks`` walks of ``length`` steps per configuration, ``chunk`` walks per
    task, weights overriding the configurations' own, every ``sample``-th passing walk exported (walk
    indices 0, sample, 2 * sample, ...; 0: none). ``seed`` is any integer: walk i of configuration c is
    seeded with a hash of (seed, c, i). ``swarm``: each walk draws its own variant of the weights (swarm.py);
    ``guide``: coverage guidance within each chunk (guide.py). A parameter out of range (walks at most MAX_LENGTH
    steps, at most MAX_TASKS chunks) is an InputError."""

    seed: int = field(default=1, validator=_seed)
    walks: int = field(default=DEFAULT_WALKS, validator=_count(1))
    length: int = field(default=100, validator=_count(1, MAX_LENGTH))
    configs: tuple[str, ...] = field(default=DEFAULT_CONFIGS, converter=tuple, validator=_configs)
    chunk: int = field(default=100, validator=_count(1))
    weights: Mapping[str, float] = field(factory=dict, validator=_weights)
    sample: int = field(default=250, validator=_count(0))
    swarm: bool = field(default=True, validator=_flag)
    guide: bool = field(default=False, validator=_flag)
    against: str = field(default="impl", validator=_against)

    def __attrs_post_init__(self) -> None:
        if real_version(self.against) is not None:
            foreign = [c for c in self.configs if not controller_mode(c)]
            if foreign:
                raise InputError(f"against the real code: {', '.join(foreign)} is not RocketMQ's controller mode (another "
                                 "policy or design); give rocketmq configurations")
        chunks = -(-self.walks // self.chunk)
        if len(self.configs) * chunks > MAX_TASKS:
            raise InputError(f"{len(self.configs)} configurations x {chunks} chunks of {self.chunk} walks: more than {MAX_TASKS:,} "
                             "tasks; give a larger --chunk")

    def tasks(self) -> list[tuple[str, int]]:
        return [(c, k) for c in self.configs for k in range((self.walks + self.chunk - 1) // self.chunk)]

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "configs": list(self.configs), "weights": dict(sorted(self.weights.items()))}

    def reproduce(self, config: str, walk: int | str) -> str:
        """The command that re-runs one walk alone."""
        weights = ",".join(f"{k}={v:g}" for k, v in sorted(self.weights.items()))
        return (f"autoswitch simulate --seed {self.seed} --length {self.length} --walks {self.walks} --configs {config} "
                f"--walk {walk}" + (f" --weights {weights}" if weights else "") + ("" if self.swarm else " --no-swarm")
                + (f" --guide --chunk {self.chunk}" if self.guide else "") + _against_options(self.against))
