"""The checker's fingerprints (conformance/check/fingerprint.py): the same in every process, whatever its hash seed, and
equal exactly for equal states; and the guards (reference/broker.py) skip only actions that are disabled."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys

from autoswitch.conformance.check.checker import Checker
from autoswitch.conformance.check.specconfig import load_spec_config
from autoswitch.reference import NotEnabled
from autoswitch.reference.actions import ACTIONS
from autoswitch.reference.broker import GUARDS

CONFIG = "MC_data_reg1"
SCRIPT = f"""
import json
from autoswitch.conformance.check.checker import Checker
from autoswitch.conformance.check.specconfig import load_spec_config
checker = Checker(load_spec_config({CONFIG!r}))
start, fp = checker.initial()[0]
print(json.dumps([fp] + [wfp for _, _, wfp in checker.expand(start.state, fp).successors]))
"""


def _fingerprints(seed: str) -> list[int]:
    env = {**os.environ, "PYTHONHASHSEED": seed}
    out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def test_fingerprints_do_not_depend_on_the_hash_seed() -> None:
    assert _fingerprints("1") == _fingerprints("2")


def test_fingerprints_tell_states_apart_and_survive_pickling() -> None:
    checker = Checker(load_spec_config(CONFIG))
    start, fp = checker.initial()[0]
    successors = checker.expand(start.state, fp).successors
    by_fp: dict[int, object] = {}
    for _, w, wfp in successors:
        assert by_fp.setdefault(wfp, w) == w  # one state per fingerprint
    assert len(by_fp) == len({w for _, w, _ in successors})
    clone = pickle.loads(pickle.dumps(checker))
    assert [wfp for _, _, wfp in clone.expand(start.state, fp).successors] == [wfp for _, _, wfp in successors]


def test_a_guard_skips_only_disabled_actions() -> None:
    checker = Checker(load_spec_config(CONFIG))
    assert set(GUARDS) <= set(ACTIONS)
    frontier = [start.state for start, _ in checker.initial()]
    for _ in range(4):  # a few levels of the search
        level = []
        for s in frontier:
            kept = set(checker.actions.candidates(s))
            for action in checker.actions(s):
                run = ACTIONS[action["tag"]].run
                assert run is not None
                try:
                    w, _ = run(s, action, checker.opts)
                except NotEnabled:
                    continue
                assert checker.actions.all.index(action) in kept, f"{action} is enabled but its guard skips it"
                level.append(w)
        frontier = level[:200]
