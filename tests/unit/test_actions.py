"""The action table (reference/actions.py) and the enumerator of Next read from it (conformance/explore.py)."""

from __future__ import annotations

import pytest
from attrs import evolve

from autoswitch.conformance.check.specconfig import load_spec_config
from autoswitch.conformance.explore import NextActions, next_actions
from autoswitch.conformance.trace.vocabulary import action_problem
from autoswitch.reference import NotEnabled, Options, initial_system, step
from autoswitch.reference.actions import ACTIONS, INIT, LEADERSHIP, record


@pytest.mark.parametrize("name", ["MC_small", "MC_data", "MC_neg_union"])
def test_next_has_each_action_of_the_table_once_per_choice(name: str) -> None:
    spec = load_spec_config(name)
    actions = next_actions(spec)
    assert all(action_problem(a) is None for a in actions)
    expected = {t for t, a in ACTIONS.items() if a.in_next and spec.design in a.designs
                and (a.switch is None or spec.switch(a.switch)) and (a.fault is None or a.fault in spec.faults)}
    assert {a["tag"] for a in actions} == expected
    assert len({tuple(sorted(a.items(), key=repr)) for a in actions}) == len(actions)
    if spec.switch("DataPath"):
        assert "Write" in {a["tag"] for a in actions}


def test_write_leaves_next_past_max_msgs() -> None:
    spec = load_spec_config("MC_data")
    next_ = NextActions(spec)
    s = initial_system(dict(zip(spec.processes, (a[0] for a in spec.addrs.values()), strict=True)))
    assert any(a["tag"] == "Write" for a in next_(s))
    past = evolve(s, next_msg=spec.bound("MaxMsgs") + 1)
    assert not any(a["tag"] == "Write" for a in next_(past)) and len(next_(past)) < len(next_(s))


def test_step_refuses_tags_it_does_not_run() -> None:
    s = initial_system({"p1": "10.0.0.1:1"})
    for tag, entry in ACTIONS.items():
        if entry.group in (INIT, LEADERSHIP):
            with pytest.raises(NotEnabled, match="unknown action tag"):
                step(s, {"tag": tag}, Options())
    with pytest.raises(NotEnabled, match="unknown action tag"):
        step(s, {"tag": "Nope"}, Options())


def test_record_names_a_missing_kind() -> None:
    with pytest.raises(ValueError, match=r"Expand: no value for process \(process\), brokerId \(broker id\), lost"):
        record("Expand", {})
