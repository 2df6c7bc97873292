"""The strategies of ``validate``'s search (conformance/logs/search.py, spec/README.md "Event logs"), each run alone on
logs cut from sampled walks: the lazy search explains a controller-only log the exact one cannot within the same
budget; lazy-carry explains a one-node log whose steps the lazy search piles up past the gap, and ``validate`` then
explains it, since only the exact search's refusal is a verdict; with the gap as a rate, lazy-carry explains one
whose burst of unobserved steps the gap's own carry cannot hold; the fault-bounded searches explain with few faults
first, their refusals are no verdict, each with a fault more starts from the memo of the one before, and the chain
ends where more faults change nothing, but goes on past a node skipped for want of faults; fault-bounded lazy-carry,
run first, explains a 100-step controller view the search without a fault budget gives up on; a search resumed in slices is the search run at once;
a budget past the schedule's first phases searches on where a smaller one stopped, and the default one explains a
100-step every-third cut past them; and every
strategy's explanation is a behaviour of the model that meets every event of the log."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from test_logs_sources import _walk

from autoswitch.conformance.engines import Config, trace_states
from autoswitch.conformance.logs import bench, cut, search
from autoswitch.conformance.logs.events import read_log
from autoswitch.conformance.logs.facts import Guards
from autoswitch.conformance.logs.merge import merge
from autoswitch.conformance.logs.search import (
    CARRY,
    EXACT,
    EXPLAINED,
    GAVE_UP,
    LAZY,
    NEVER_UNOBSERVED,
    REFUSED,
    RESTART,
    Search,
    _behaviour,
    _fits,
    _Frame,
    _Problem,
    luby,
    validate,
)
from autoswitch.conformance.simulation.campaign import grid
from autoswitch.conformance.trace.itf import dumps_trace, encode
from autoswitch.conformance.trace.replay import replay_file

BUDGET = 20_000  # states one strategy may expand in these tests


def _problem(name: str, walk: int, source: str, label: str, tmp: Path, steps: bool = False) -> tuple[_Problem, int]:
    """The log cut ``label`` from walk ``walk`` of ``name`` (``source``: the walk, or the implementation's own files), as
    the search reads it, and the largest gap between two of its events. Its clock only orders, unless ``steps``: the
    lazy strategies' subject (where the clock counts steps, each gap has the clock's bound and only exact searches run)."""
    config, actions = _walk(name, walk)
    return _cut_problem(config, actions, source, label, tmp, steps)


def _cut_problem(config: Config, actions: list[dict[str, Any]], source: str, label: str, tmp: Path,
                 steps: bool = False) -> tuple[_Problem, int]:
    """:func:`_problem` for the walk ``actions`` of ``config``."""
    full = cut.walk_log(config, actions) if source == "walk" else cut.impl_log(config, actions, tmp / "run")
    log = cut.FILTERS[label](full)
    log = log if steps else cut.clock_orders_only(log)
    read = read_log(log.write(tmp / "log"))
    return _Problem(read, merge(read)), cut.max_gap(log)


def test_the_lazy_search_explains_a_controller_log_the_exact_one_cannot_within_the_budget(tmp_path: Path) -> None:
    """Both in Next's order, without restarts (the exact search with them explains this log too)."""
    problem, gap = _problem("fast-leader-kip279-2p", 3, "impl", "controller-roles-truncations", tmp_path)
    lazy, exact = Search(problem, gap, LAZY, restart=0), Search(problem, gap, EXACT, restart=0)
    assert lazy.run(BUDGET) is not None and lazy.verdict == EXPLAINED, lazy.expanded
    assert exact.run(BUDGET) is None and exact.verdict is None and exact.expanded == BUDGET


def test_lazy_carry_explains_the_steps_the_lazy_search_piles_up(tmp_path: Path) -> None:
    """p2 registers and handshakes unobserved; the lazy search defers every one of those steps to p1's last event, more
    than the gap, and refuses; lazy-carry takes them with the steps earlier gaps left unused."""
    problem, gap = _problem("fast-leader-kip279-2p", 5, "walk", "one-node", tmp_path)
    lazy, carry = Search(problem, gap, LAZY), Search(problem, gap, CARRY)
    assert lazy.run(10 * BUDGET) is None and lazy.verdict == REFUSED
    assert carry.run(BUDGET) is not None and carry.verdict == EXPLAINED
    verdict = validate(tmp_path / "log", max_gap=gap)
    assert verdict.status == EXPLAINED and verdict.found_by != f"{LAZY}, gap {gap}", verdict.describe()


def test_lazy_carry_with_the_gap_as_a_rate_piles_up_what_every_earlier_gap_left_unused(tmp_path: Path) -> None:
    """p1's one-node cut of a walk the default campaign samples at 100 steps, its clock only ordering: p2 crashes,
    restarts and writes unobserved, and lazy-carry with a gap of 1 as a rate explains the log with 11 steps between two
    of p1's events, which the steps its earlier events did without give it; carrying the unused steps of one gap only
    (at most 2 between two events), it finds no explanation."""
    name, gap = "fast-leader-kip101-2p", 1
    _, _, actions = next(w for w in bench.sampled_walks([name], 1000, 100, 1) if w[1] == 500)
    problem, _ = _cut_problem(grid()[name].config, actions, "walk", "one-node", tmp_path)
    carry, capped = Search(problem, gap, CARRY, rate=True), Search(problem, gap, CARRY)
    frames = carry.run(BUDGET)
    assert frames is not None and carry.verdict == EXPLAINED, carry.expanded
    assert capped.run(BUDGET) is None and capped.verdict == REFUSED
    steps = [f.via for f in frames if f.via is not None]  # a node with none is a level of the iterative deepening
    runs = [len(list(run)) for unobserved, run in itertools.groupby(steps, key=lambda via: via[2] is None) if unobserved]
    assert max(runs) > 2 * gap, runs


def test_a_search_resumed_in_slices_is_the_search_run_at_once(tmp_path: Path) -> None:
    problem, gap = _problem("safe-kip279-2p", 1, "walk", "one-node", tmp_path)
    whole = Search(problem, gap, EXACT)
    frames = whole.run(BUDGET)
    sliced = Search(problem, gap, EXACT)
    resumed = None
    while sliced.verdict is None and sliced.expanded < BUDGET:
        resumed = sliced.run(sliced.expanded + 7)
    assert frames is not None and resumed is not None
    assert (sliced.verdict, sliced.expanded) == (whole.verdict, whole.expanded)
    assert [f.via for f in resumed] == [f.via for f in frames]


def test_restarts_follow_lubys_sequence() -> None:
    assert [luby(i) for i in range(1, 32)] == [1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8,
                                               1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8, 16]


def test_restarts_explain_a_log_one_run_in_nexts_order_gives_up_on(tmp_path: Path) -> None:
    """The every-third cut of a walk the default campaign samples at 100 steps, its clock counting steps: the brokers' ids
    are bound early and unobserved, and the exact search in Next's order tries each wrong binding against every
    interleaving of the steps until the controller's ``replicas`` many events later; restarting in other orders (module
    docstring of search.py), it explains the log, the same way on every run."""
    name, budget = "fast-leader-kip101-2p", 50_000
    _, _, actions = next(w for w in bench.sampled_walks([name], 1000, 100, 1) if w[1] == 500)
    problem, gap = _cut_problem(grid()[name].config, actions, "walk", "every-3rd", tmp_path, steps=True)
    once = Search(problem, gap, EXACT, restart=0, nearest=False)
    assert once.run(budget) is None and once.verdict is None and once.restarts == 0
    runs = [Search(problem, gap, EXACT, nearest=False) for _ in range(2)]
    found = [search.run(budget) for search in runs]
    assert found[0] is not None and runs[0].verdict == EXPLAINED and runs[0].restarts > 0, runs[0].expanded
    assert runs[0].expanded > RESTART
    assert found[1] is not None and [f.via for f in found[1]] == [f.via for f in found[0]]
    assert (runs[1].expanded, runs[1].restarts) == (runs[0].expanded, runs[0].restarts)


def test_nearest_first_explains_a_log_in_fewer_states_than_nexts_order(tmp_path: Path) -> None:
    """The walk's one-node cut of walk 250 the default campaign samples of safe-rocketmq-3p at 100 steps, its clock only
    ordering: taking the unobserved steps nearest to what the next event shows first (distance.py; search.py's module
    docstring), the exact search explains the log in fewer states than in Next's order (457 against 618)."""
    name, budget = "safe-rocketmq-3p", 40_000
    _, _, actions = next(w for w in bench.sampled_walks([name], 1000, 100, 1) if w[1] == 250)
    problem, gap = _cut_problem(grid()[name].config, actions, "walk", "one-node", tmp_path)
    assert problem.terms, "the log shows no counter"
    near, nexts = Search(problem, gap, EXACT), Search(problem, gap, EXACT, nearest=False)
    assert near.run(budget) is not None and near.verdict == EXPLAINED, near.expanded
    assert nexts.run(budget) is not None and nexts.verdict == EXPLAINED, nexts.expanded
    assert near.expanded < nexts.expanded, (near.expanded, nexts.expanded)


def test_fault_bounded_lazy_carry_first_explains_a_log_the_unbounded_one_gives_up_on(tmp_path: Path) -> None:
    """The implementation's controller view of a walk the default campaign samples at 100 steps, its clock only
    ordering (up to 23 steps between two events): lazy-carry with no unobserved fault to spend explains it, and without
    a fault budget gives up within as many states (lost responses, crashes and expiries, tried at each step, multiply
    the hidden interleavings); ``validate`` runs the fault-bounded one first and explains the log within that budget
    (with the small-gap searches first, it gave up at 200,000)."""
    name, budget = "safe-rocketmq-3p", 20_000
    _, _, actions = next(w for w in bench.sampled_walks([name], 1000, 100, 1) if w[1] == 750)
    problem, gap = _cut_problem(grid()[name].config, actions, "impl", "controller-roles-truncations", tmp_path)
    bounded, unbounded = Search(problem, gap, CARRY, 0), Search(problem, gap, CARRY)
    assert bounded.run(budget) is not None and bounded.verdict == EXPLAINED, bounded.expanded
    assert unbounded.run(budget) is None and unbounded.verdict is None
    verdict = validate(problem.log, max_gap=gap, max_states=budget)
    assert verdict.ok and verdict.found_by == f"lazy-carry, gap {gap}, at most 0 faults unobserved", verdict.describe()


@pytest.mark.parametrize("strategy", [EXACT, LAZY, CARRY])
@pytest.mark.parametrize(("name", "label"), [("safe-rocketmq-2p", "controller-roles-truncations"),
                                              ("safe-kip279-2p", "one-node"), ("safe-rocketmq-2p", "every-3rd")])
def test_every_strategy_explains_with_a_behaviour_of_the_model(tmp_path: Path, strategy: str, name: str, label: str) -> None:
    """The explanation replays on both engines, and each event's observations hold in the state it was consumed at."""
    problem, gap = _problem(name, 1, "walk", label, tmp_path)
    search = Search(problem, gap, strategy)
    frames = search.run(BUDGET)
    if frames is None:
        assert strategy != EXACT and search.verdict == REFUSED, (strategy, search.verdict)
        return
    states, at = _behaviour(problem.log, frames)
    assert sorted(at) == list(range(len(problem.merged.events)))
    consumed_in = {f.via[2]: f.s for f in frames if f.via is not None and f.via[2] is not None}
    for index, s in consumed_in.items():
        assert _fits(problem.merged.events[index], s), index
    path = tmp_path / "explanation.itf.json"
    path.write_text(dumps_trace(dict(problem.log.config.to_meta()), states))
    for engine in ("reference", "impl"):
        result = replay_file(str(path), engine)
        assert result.ok, result.describe()


def test_an_unobserved_consume_is_never_needed(tmp_path: Path) -> None:
    """NEVER_UNOBSERVED: a walk with its Consume steps left out reaches the same states but for ``seen`` (so a log that
    does not name them is explained without them), and the search takes none unobserved, while an observed Consume
    is still checked against ``seen``."""
    config, actions = _walk("safe-rocketmq-2p", 0, 40)  # three Consume steps
    assert "Consume" in NEVER_UNOBSERVED and any(a["tag"] == "Consume" for a in actions)
    kept = [a for a in actions if a["tag"] != "Consume"]
    full, without = trace_states(config, actions), trace_states(config, kept)
    at = [k for k, a in enumerate(actions, 1) if a["tag"] != "Consume"]
    for k, state in zip(at, without[1:], strict=True):
        assert {v: x for v, x in full[k].items() if v not in ("seen", "action", "outcome")} == \
               {v: x for v, x in state.items() if v not in ("seen", "action", "outcome")}, k
    cut_log = cut.keep(cut.walk_log(config, actions), lambda e: e.get("action", {}).get("tag") != "Consume")
    meta = {k: v for k, v in cut_log.meta.items() if k not in ("complete", "completeOf")}  # no tag claimed complete
    log = cut.CutLog(meta, cut_log.events)
    verdict = validate(log.write(tmp_path / "log"), max_gap=cut.max_gap(log))
    assert verdict.ok and verdict.trace is not None, verdict.describe()
    assert not any(s["action"]["tag"] == "Consume" for s in verdict.trace)
    read = read_log(tmp_path / "log")
    problem = _Problem(read, merge(read))
    assert {problem.actions.all[i]["tag"] for i in problem.skipped} == {"Consume"}
    # a Consume logged right after another with nothing written between shows nothing new: no behaviour has it
    first = next(k for k, a in enumerate(actions) if a["tag"] == "Consume")
    once = cut.walk_log(config, actions[:first + 1])
    again = {"node": actions[first]["process"], "ts": 10 * (first + 2), "clock": first + 2, "action": encode(dict(actions[first]))}
    twice = cut.CutLog(once.meta, (*once.events, again))
    verdict = validate(twice.write(tmp_path / "twice"), max_gap=2)
    assert verdict.status == REFUSED and verdict.event is not None and verdict.event.index == len(once.events), verdict.describe()


def test_fault_bounded_exact_searches_explain_with_few_faults_first(tmp_path: Path) -> None:
    """A controller's log whose clock counts steps: the exact search alone gives up within 5,000 states; the exact
    search with no unobserved fault refuses, with one it explains within as many, and validate's schedule (the two
    taking turns with the exact one) finds that explanation."""
    problem, gap = _problem("safe-rocketmq-3p", 1, "impl", "controller-roles-truncations", tmp_path, steps=True)
    budget = 5_000
    exact = Search(problem, gap, EXACT)
    assert exact.run(budget) is None and exact.verdict is None
    none, one = Search(problem, gap, EXACT, 0), Search(problem, gap, EXACT, 1)
    assert none.run(budget) is None and none.verdict == REFUSED
    assert one.run(budget - none.expanded) is not None and one.verdict == EXPLAINED
    verdict = validate(problem.log, max_states=4 * budget)
    assert verdict.ok and verdict.found_by == f"exact, gap {gap}, at most 1 fault unobserved", verdict.describe()


def test_a_larger_budget_searches_on_where_a_smaller_one_stopped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The schedule's first phases share at most PHASED states and stop there; past them every search takes turns, so a
    budget of PHASED or more runs as PHASED does until it is spent. The implementation's controller view of
    ``safe-rocketmq-3p`` walk 1 (clock only ordering): with the phases' shares taken of the whole budget (PHASED above
    it), budgets of 5,000 and 20,000 explain it by two searches in different numbers of states; with PHASED cut to
    5,000, the two explain it alike."""
    problem, gap = _problem("safe-rocketmq-3p", 1, "impl", "controller-roles-truncations", tmp_path)

    def found(budget: int) -> tuple[str, int, str]:
        verdict = validate(problem.log, max_gap=gap, max_states=budget)
        return verdict.status, verdict.expanded, verdict.found_by

    monkeypatch.setattr(search, "PHASED", 10 ** 9)
    small, large = found(5_000), found(20_000)
    assert small[0] == large[0] == EXPLAINED and small[1:] != large[1:], (small, large)
    monkeypatch.setattr(search, "PHASED", 5_000)
    assert found(5_000) == found(20_000) == small


@pytest.mark.slow
def test_the_default_budget_explains_past_the_first_phases(tmp_path: Path) -> None:
    """The walk's every-third cut of ``fast-leader-kip101-2p`` walk 500 (100 steps, one of the default campaign's
    samples; clock only ordering; 11 unobserved faults): every search gives up within the first phases' PHASED states,
    and with ``validate``'s default budget the turns after them explain it."""
    _, _, actions = next(w for w in bench.sampled_walks(["fast-leader-kip101-2p"], 1000, 100, 1) if w[1] == 500)
    problem, gap = _cut_problem(grid()["fast-leader-kip101-2p"].config, actions, "walk", "every-3rd", tmp_path)
    verdict = validate(problem.log, max_gap=gap)
    assert verdict.ok and verdict.expanded > search.PHASED, verdict.describe()


def test_a_fault_bounded_refusal_is_no_verdict(tmp_path: Path) -> None:
    """The crash log (_crash_log), its clock counting steps: the exact search with no fault to spend refuses it in 21
    states; with 25 in all, the exact search has not finished, so validate gives up (it refuses only where the exact
    search does), and with 50 it explains."""
    path = _crash_log(tmp_path, {"clockCountsSteps": True})
    assert validate(path, max_states=25).status == GAVE_UP
    assert validate(path, max_states=50).ok


def test_a_crash_its_process_next_logs_a_restart_of_is_no_unobserved_fault(tmp_path: Path) -> None:
    """The crash log, and the same log whose last line is p1's Restart instead of its DOWN state: the restart shows the
    crash before it (only a Restart brings a down process up), so the exact search with no fault to spend explains that
    log, and refuses the one where nothing shows the crash (test_a_fault_bounded_refusal_is_no_verdict)."""
    restart = {"tag": "Restart", "addr": "10.0.0.1:30911"}
    for last, verdict in (({"observe": {"regState": "DOWN"}}, REFUSED), ({"action": restart}, EXPLAINED)):
        log = read_log(_crash_log(tmp_path, {"clockCountsSteps": True}, last=last))
        none = Search(_Problem(log, merge(log)), 1, EXACT, 0)
        none.run(BUDGET)
        assert none.verdict == verdict, (last, none.verdict)


def _crash_log(tmp: Path, meta: dict, down: int = 7, last: dict | None = None) -> Path:
    """p1 registers, every step logged (clocks 1 to 5), then is seen DOWN at clock ``down`` (or logs ``last`` then): only
    an unobserved crash (a fault) explains it."""
    steps = ["CreateTempFile", "SendApplyBrokerId", "WriteMetaFile", "DeleteTempFile", "SendRegister"]
    lines = [{"meta": {"processes": {"p1": "10.0.0.1:30911", "p2": "10.0.0.2:30911"}, **meta}},
             *({"node": "p1", "clock": k, "action": {"tag": tag, **({"lost": False} if tag.startswith("Send") else {})}}
               for k, tag in enumerate(steps, 1)),
             {"node": "p1", "clock": down, **(last or {"observe": {"regState": "DOWN"}})}]
    path = tmp / "log.ndjson"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def test_a_fault_budget_bounds_the_unobserved_faults(tmp_path: Path) -> None:
    """On the crash log: the lazy-carry search with no fault to spend refuses, the one with a fault more
    (Search.more_faults) explains, and validate, which runs these first, finds that explanation."""
    path = _crash_log(tmp_path, {})
    log = read_log(path)
    problem = _Problem(log, merge(log))
    none = Search(problem, 2, CARRY, 0)
    assert none.run(BUDGET) is None and none.verdict == REFUSED and none.starved
    one = none.more_faults()
    assert one is not None and one.faults == 1 and one.strategy == CARRY and one.memo is none.memo
    frames = one.run(BUDGET)
    assert frames is not None and one.verdict == EXPLAINED
    hidden = [f.via[0]["tag"] for f in frames if f.via is not None and f.via[0] is not None and f.via[2] is None]
    assert hidden == ["Crash"], hidden
    verdict = validate(path, max_gap=2)
    assert verdict.ok and verdict.found_by == "lazy-carry, gap 2, at most 1 fault unobserved", verdict.describe()


def test_more_faults_keeps_the_memo_and_ends_where_faults_change_nothing(tmp_path: Path) -> None:
    """Search.more_faults, on the crash log with crashes logged every time (no behaviour explains it): each exact search
    with a fault budget refuses; the one with a fault more starts from its memo and expands fewer states than the same
    search alone; and the chain ends at the first that never left out a step for want of a fault."""
    log = read_log(_crash_log(tmp_path, {"clockCountsSteps": True, "complete": ["Crash", "CrashTorn"]}))
    problem = _Problem(log, merge(log))
    search: Search | None = Search(problem, 2, EXACT, 0)
    budgets = []
    while search is not None:
        assert search.run(BUDGET) is None and search.verdict == REFUSED
        budgets.append(search.faults)
        if search.faults == 1:
            alone = Search(problem, 2, EXACT, 1)
            assert alone.run(BUDGET) is None and alone.verdict == REFUSED
            assert search.expanded < alone.expanded, (search.expanded, alone.expanded)
        last, search = search, search.more_faults()
    assert budgets == [0, 1, 2] and not last.starved


def test_pruning_skips_the_states_that_cannot_write_what_a_later_event_shows(tmp_path: Path) -> None:
    """_Problem.hopeless: every third event of an implementation's run, its clock counting steps. Both exact searches
    explain it; the one that prunes skips states from which too few Writes fit before an event showing their offsets,
    and expands fewer."""
    problem, gap = _problem("union-off-rocketmq-2p", 1, "impl", "every-3rd", tmp_path, steps=True)
    pruning, plain = Search(problem, gap, EXACT), Search(problem, gap, EXACT, prune=False)
    assert pruning.run(BUDGET) is not None and plain.run(BUDGET) is not None
    assert pruning.pruned > 0 and plain.pruned == 0
    assert pruning.expanded < plain.expanded, (pruning.expanded, plain.expanded)


@pytest.mark.slow
def test_the_fault_bounded_searches_skip_the_nodes_short_of_faults(tmp_path: Path) -> None:
    """The implementation's every third event of safe-kip279-3p's walk 500 (100 steps, one of the default campaign's
    samples; clock counting steps): between its controller's lines ``alive`` loses a broker id twice, with no
    HeartbeatExpire logged (facts.Expiries counts 2 faults from Init). The exact searches with 0 and 1 fault to spend
    skip Init and refuse without expanding a state, each one starved, so that the chain goes on; the one with 2 faults
    explains the log (validate gave up on it at 1,000,000 states before)."""
    _, _, actions = next(w for w in bench.sampled_walks(["safe-kip279-3p"], 1000, 100, 1) if w[1] == 500)
    problem, gap = _cut_problem(grid()["safe-kip279-3p"].config, actions, "impl", "every-3rd", tmp_path, steps=True)
    search: Search | None = Search(problem, gap, EXACT, 0)
    assert search is not None and problem.expiries is not None
    root = search._root()
    assert problem.expiries.needed(root.s, root.consumed) == 2
    for faults in (0, 1):
        assert search is not None and search.faults == faults
        assert search.run(BUDGET) is None and search.verdict == REFUSED and search.expanded == 0 and search.starved
        search = search.more_faults()
    assert search is not None and search.faults == 2
    assert search.run(5 * BUDGET) is not None and search.verdict == EXPLAINED, search.expanded


@pytest.mark.parametrize("label", ["every-3rd", "full"])
def test_room_is_the_steps_a_walk_takes_to_each_event(label: str, tmp_path: Path) -> None:
    """_Problem.rooms, which bounds the steps pruning allows, where the clock counts steps: on every third event of a
    walk, from the walk's state after each event with the gap the search gives it, the room to each later event is
    the steps the walk took to it, its clock less the event's (one more would let pruning keep a node it could skip).
    On the full log, where one step's lines may put a line that only observes before the step's action, it is never
    fewer (fewer would let pruning skip a node the search explains from)."""
    config, actions = _walk("safe-rocketmq-2p", 0)
    problem, gap = _cut_problem(config, actions, "walk", label, tmp_path, steps=True)
    states, m, search = trace_states(config, actions), problem.merged, Search(problem, gap, EXACT)
    checked = 0
    for i in range(len(m.events) - 1):
        consumed = tuple(sum(1 for j in ids if j <= i) for ids in m.by_node)
        if m.in_step(consumed):
            continue
        clock = m.value(i)
        frame = _Frame(states[clock], 0, consumed, search._gap(clock, consumed, 0), True, None)
        for j in range(i + 1, len(m.events)):
            room = problem.rooms(frame, search.per_event)(j)
            assert room == m.value(j) - clock if label == "every-3rd" else room >= m.value(j) - clock, (i, j, room)
            checked += 1
    assert checked >= 40, checked


def test_a_refusal_after_pruning_names_the_event_no_behaviour_explains(tmp_path: Path) -> None:
    """The same log with its last confirmOffset falsified to 30: the pruning search refuses before any event, so
    validate searches again without pruning to name that event; without the budget for it, the log is still refused,
    and the verdict says why it names no event."""
    config, actions = _walk("union-off-rocketmq-2p", 1)
    log = cut.every_kth(cut.impl_log(config, actions, tmp_path / "run"), 3)
    events = [json.loads(json.dumps(e)) for e in log.events]
    k = max(i for i, e in enumerate(events) if "confirmOffset" in e.get("observe", {}))
    events[k]["observe"]["confirmOffset"] = 30
    path = cut.CutLog(log.meta, tuple(events)).write(tmp_path / "falsified")
    read = read_log(path)
    problem = _Problem(read, merge(read))
    pruning = Search(problem, cut.max_gap(log), EXACT)
    assert pruning.run(BUDGET) is None and pruning.verdict == REFUSED and pruning.pruned > 0 and pruning.best < k
    verdict = validate(path)
    assert verdict.status == REFUSED and not verdict.reason, verdict.describe()
    assert verdict.event is not None and (verdict.event.node, verdict.event.observe) == \
           (events[k]["node"], {"confirmOffset": 30}), verdict.describe()
    short = validate(path, max_states=100)
    assert short.status == REFUSED and "too few messages" in short.reason, short.describe()


def test_a_fault_bounded_search_skips_the_nodes_the_exact_search_found_failing(tmp_path: Path) -> None:
    """The crash log, its clock counting steps and crashes logged every time (``complete``): no behaviour explains it.
    Given the memo of the exact search that refused it (Search.refuted), the exact search with a fault to spend refuses
    it too, expanding fewer states than alone: its behaviours are some of the exact search's."""
    log = read_log(_crash_log(tmp_path, {"clockCountsSteps": True, "complete": ["Crash", "CrashTorn"]}))
    problem = _Problem(log, merge(log))
    exact = Search(problem, 2, EXACT)
    assert exact.run(BUDGET) is None and exact.verdict == REFUSED
    alone, told = Search(problem, 2, EXACT, 1), Search(problem, 2, EXACT, 1)
    told.refuted = exact.memo
    assert alone.run(BUDGET) is None and told.run(BUDGET) is None
    assert alone.verdict == told.verdict == REFUSED
    assert told.expanded < alone.expanded, (told.expanded, alone.expanded)


class _Counted:
    """A stand-in for facts.Restarts or facts.Expiries that counts ``needed`` faults, and for facts.Facts that finds a
    contradiction or none."""

    def __init__(self, needed: int = 0, contradicts: bool = False):
        self.count, self.contradicts = needed, contradicts

    def needed(self, s: Any, consumed: Any) -> int:
        return self.count

    def contradiction(self, s: Any, consumed: Any) -> str | None:
        return "counters: made up" if self.contradicts else None


@pytest.mark.parametrize(("restarts", "expiries", "contradicts", "faults", "short"), [
    (1, 0, False, 1, False), (2, 0, False, 1, True),  # crashes alone
    (0, 2, False, 2, False), (0, 3, False, 2, True),  # stretches alone
    (1, 1, False, 2, False), (1, 2, False, 2, True),  # each a fault of its own
    (0, 0, True, 0, True), (0, 0, True, 1, False),  # a fact only faults break: one fault
    (1, 0, True, 1, True), (1, 0, True, 2, False),  # no crash breaks a fact
    (1, 1, True, 2, False),  # the step that breaks the fact may empty alive's stretch too
])
def test_short_of_faults_counts_crashes_and_the_more_of_stretches_and_a_broken_fact(
        restarts: int, expiries: int, contradicts: bool, faults: int, short: bool) -> None:
    """_Problem.short_of_faults: the faults every behaviour from a node still takes are the crashes before startup
    steps, plus the more of the stretches where a broker id leaves ``alive`` and one for a fact only faults break that
    the state contradicts."""
    problem = _Problem.__new__(_Problem)
    problem.restarts, problem.expiries = _Counted(restarts), _Counted(expiries)  # type: ignore[assignment]
    problem.facts, problem.calm = _Counted(), _Counted(contradicts=contradicts)  # type: ignore[assignment]
    frame = _Frame(None, 0, (), 0, False, None, faults=faults)  # type: ignore[arg-type]
    assert problem.short_of_faults(frame) is short


@pytest.mark.slow
def test_a_process_that_registers_only_where_it_logs_is_held_to_its_next_events_guard(tmp_path: Path) -> None:
    """The implementation's log of p1 alone, of safe-rocketmq-3p's walk 250 (100 steps, one of the default campaign's
    samples; clock only ordering): p1 logs a SendRegister with no answer, then another that registers it. Taking the
    first's answer leaves p1 REGISTERED before a SendRegister, and p1 logs every step that changes its regState, so
    facts.Guards skips that node at once: fault-bounded lazy-carry with no fault explains the log, where without the
    guards it spends the budget on every interleaving of the other brokers' steps (validate gave up on this log at
    200,000 states before)."""
    _, _, actions = next(w for w in bench.sampled_walks(["safe-rocketmq-3p"], 1000, 100, 1) if w[1] == 250)
    problem, gap = _cut_problem(grid()["safe-rocketmq-3p"].config, actions, "impl", "one-node", tmp_path)
    guarded = Search(problem, gap, CARRY, 0)
    assert guarded.run(BUDGET) is not None and guarded.verdict == EXPLAINED, guarded.expanded
    problem.guards = Guards(problem.merged, problem.actions.all)  # every process may change its regState unobserved
    unguarded = Search(problem, gap, CARRY, 0)
    assert unguarded.run(BUDGET) is None and unguarded.expanded == BUDGET
