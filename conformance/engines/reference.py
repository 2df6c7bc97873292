"""The reference model behind the engine interface of :mod:`autoswitch.conformance.engines`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from autoswitch.reference import cluster, codes, initial_system, replication
from autoswitch.reference.codes import NO_CONSISTENT_POINT
from autoswitch.reference.state import System
from autoswitch.reference.variables import controller_variables
from autoswitch.reference.variables import variables as reference_variables

if TYPE_CHECKING:
    from autoswitch.conformance.engines.config import Config


class ReferenceEngine:
    """The reference model behind the engine interface (it keeps the current immutable state: the
    ``System`` inside the trace layer of ``reference/cluster.py``)."""

    def __init__(self, config: Config):
        self.options = config.options
        self.multi_set = config.broker_sets is not None
        self.cluster = cluster.initial_cluster(initial_system(dict(config.processes), config.options.design), config.broker_sets)

    @property
    def state(self) -> System:
        return self.cluster.system

    def step(self, action: Mapping[str, Any]) -> Mapping[str, Any]:
        self.cluster, outcome = cluster.step(self.cluster, action, self.options)
        return outcome

    def variables(self) -> dict[str, Any]:
        """The spec's variables, the default set's controller among them."""
        return reference_variables(self.state)

    def observed(self) -> dict[str, Any]:
        """What a trace compares (spec/README.md, "Trace kinds")."""
        return cluster.observed(self.cluster, self.multi_set)

    def other_sets(self) -> dict[str, dict[str, Any]]:
        """The controller variables of each set but the default one, by brokerName."""
        return {b: controller_variables(c) for b, c in self.cluster.sets.items()}

    def truncation_point(self, pre: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """A slave's Handshake from given inputs (the handshake trace kind: ``slaveEpochs``, ``slaveLeo``,
        ``slaveConfirmOffset``, ``masterEpochs``, ``masterLeo``) under these options' truncation policy
        (reference/replication.py::truncate_slave): the outcome and the slave's
        ``slaveEpochs``, ``slaveLeo`` and ``slaveConfirmOffset`` after it; no point (-1) leaves them as they were."""
        local, leo, confirm = tuple(map(tuple, pre["slaveEpochs"])), pre["slaveLeo"], pre["slaveConfirmOffset"]
        point, epochs, confirm_after = replication.truncate_slave(local, leo, confirm, tuple(map(tuple, pre["masterEpochs"])),
                                                                  pre["masterLeo"], self.options)
        code = NO_CONSISTENT_POINT if point < 0 else codes.OK
        return {"code": code, "truncateOffset": point}, {"slaveEpochs": list(epochs), "slaveLeo": leo if point < 0 else point,
                                                         "slaveConfirmOffset": confirm_after}
