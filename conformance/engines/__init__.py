"""The two executable models behind one small interface - ``step(action) -> outcome`` and
``variables()`` - built from a trace's ``#meta`` (its processes and options). The :class:`Config` they are built from,
and the reading of ``#meta``, are in config.py (below the engines: an engine imports it, never this module)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from autoswitch.conformance.engines.config import OPTION_FIELDS as OPTION_FIELDS
from autoswitch.conformance.engines.config import Config
from autoswitch.conformance.engines.config import config_from_meta as config_from_meta
from autoswitch.conformance.engines.config import spec_constant as spec_constant

KINDS = ("reference", "impl")  # the model's two forms
REAL = "rocketmq"  # RocketMQ's own classes (conformance/rocketmq); "rocketmq@5.1.4" names a release
REAL_DATA = "rocketmq-data"  # the same, with each broker's data path on a real store (rocketmq/datawalk.py)
ENGINES = (*KINDS, REAL)


def real_version(kind: str) -> str | None:
    """The RocketMQ release of a real engine's name ("rocketmq" or "rocketmq-data": the default, "rocketmq@5.1.4"),
    None for a model's."""
    from autoswitch.conformance.rocketmq.jvm import DEFAULT_VERSION

    for name in (REAL, REAL_DATA):
        if kind == name:
            return DEFAULT_VERSION
        if kind.startswith(name + "@"):
            return kind[len(name) + 1:]
    return None


def data_path(kind: str) -> bool:
    """Whether a real engine's name is the data-path one."""
    return kind == REAL_DATA or kind.startswith(REAL_DATA + "@")


class Engine(Protocol):
    def step(self, action: Mapping[str, Any]) -> Mapping[str, Any]: ...

    def variables(self) -> dict[str, Any]: ...

    def observed(self) -> dict[str, Any]: ...

    def other_sets(self) -> dict[str, dict[str, Any]]: ...

    def truncation_point(self, pre: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]: ...


def make_engine(kind: str, config: Config, **impl_kwargs: Any) -> Engine:
    """A fresh engine of ``kind`` ("reference", "impl" or a real one, :func:`real_version`) in the Init state of
    ``config``."""
    if kind == "reference":
        from autoswitch.conformance.engines.reference import ReferenceEngine

        return ReferenceEngine(config)
    if kind == "impl":
        from autoswitch.conformance.engines.impl import ImplSystem

        return ImplSystem(config.processes, config.options, broker_sets=config.broker_sets, **impl_kwargs)
    version = real_version(kind)
    if version is not None and data_path(kind):
        from autoswitch.conformance.rocketmq.datawalk import DataPathEngine

        return DataPathEngine(config, version)
    if version is not None:
        from autoswitch.conformance.rocketmq.engine import RocketMQEngine

        return RocketMQEngine(config, version)
    raise ValueError(f"unknown engine {kind!r}; expected one of {ENGINES}")


def trace_states(config: Config, actions: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The full-state trace of enabled ``actions`` on the reference: Init, then each action, its outcome
    and every variable after it."""
    ref = make_engine("reference", config)
    states: list[dict[str, Any]] = [{"action": {"tag": "Init"}, "outcome": {"code": "OK"}, **ref.variables()}]
    for action in actions:
        outcome = ref.step(action)
        states.append({"action": dict(action), "outcome": dict(outcome), **ref.variables()})
    return states
