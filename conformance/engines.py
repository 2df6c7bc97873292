"""The two executable models behind one small interface - ``step(action) -> outcome`` and
``variables()`` - built from a trace's ``#meta`` (its processes and options)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from attrs import frozen

from autoswitch.reference import Options, initial_system
from autoswitch.reference import step as reference_step
from autoswitch.reference.variables import variables as reference_variables

KINDS = ("reference", "impl")


class Engine(Protocol):
    def step(self, action: Mapping[str, Any]) -> Mapping[str, Any]: ...

    def variables(self) -> dict[str, Any]: ...


@frozen
class Config:
    """What a trace's ``#meta`` fixes before the first step."""

    processes: Mapping[str, str]  # process name -> first address
    enable_elect_unclean_master: bool = False

    def to_meta(self) -> dict[str, Any]:
        return {
            "processes": dict(self.processes),
            "options": {"enableElectUncleanMaster": self.enable_elect_unclean_master},
        }


def config_from_meta(meta: Mapping[str, Any]) -> tuple[Config | None, str, str]:
    """The config a trace's ``#meta`` describes, or ``(None, field, problem)``."""
    processes = meta.get("processes", {})
    if not isinstance(processes, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in processes.items()):
        return None, "#meta.processes", "must map process names to address strings"
    options = meta.get("options", {})
    if not isinstance(options, dict):
        return None, "#meta.options", "must be an object"
    unknown = set(options) - {"enableElectUncleanMaster"}
    if unknown:
        return None, "#meta.options", f"unknown option(s) {sorted(unknown)}"
    unclean = options.get("enableElectUncleanMaster", False)
    if not isinstance(unclean, bool):
        return None, "#meta.options.enableElectUncleanMaster", "must be true or false"
    return Config(processes, unclean), "", ""


class ReferenceEngine:
    """The reference model behind the engine interface (it keeps the current immutable state)."""

    def __init__(self, config: Config):
        self.options = Options(enable_elect_unclean_master=config.enable_elect_unclean_master)
        self.state = initial_system(dict(config.processes))

    def step(self, action: Mapping[str, Any]) -> Mapping[str, Any]:
        self.state, outcome = reference_step(self.state, action, self.options)
        return outcome

    def variables(self) -> dict[str, Any]:
        return reference_variables(self.state)


def make_engine(kind: str, config: Config, **impl_kwargs: Any) -> Engine:
    """A fresh engine of ``kind`` ("reference" or "impl") in the Init state of ``config``."""
    if kind == "reference":
        return ReferenceEngine(config)
    if kind == "impl":
        from autoswitch.impl.engine import ImplSystem

        return ImplSystem(config.processes, enable_elect_unclean_master=config.enable_elect_unclean_master, **impl_kwargs)
    raise ValueError(f"unknown engine {kind!r}; expected one of {KINDS}")
