"""The two trace builders of the hand-written scenarios: :class:`Scenario` (states appended one at a time
with their expectations) and :class:`Cluster` (one broker set driven through its processes, built on
Scenario)."""

from __future__ import annotations

from typing import Any

from autoswitch.conformance.engines import Config
from autoswitch.reference import Options


class Scenario:
    """A trace under construction: ``step`` appends one state with its expectations."""

    def __init__(self, name: str, about: str, processes: dict[str, str] | None = None, unclean: bool = False, **init: Any):
        self.name, self.about = name, about
        self.config = Config(processes or {}, Options(enable_elect_unclean_master=unclean))
        self.states: list[dict[str, Any]] = [{"action": {"tag": "Init"}, "outcome": {"code": "OK"}, **init}]
        self.expect: dict[str, Any] | None = None

    def step(self, tag: str, code: str = "SUCCESS", returns: dict[str, Any] | None = None, **then: Any) -> Scenario:
        """Append ``tag`` with the parameters in ``then['params']``; ``then`` otherwise holds expected
        variable values after the step, ``returns`` expected response fields beside ``code``."""
        params = then.pop("params", {})
        self.states.append({"action": {"tag": tag, **params}, "outcome": {"code": code, **(returns or {})}, **then})
        return self

    def meta(self) -> dict[str, Any]:
        return {"scenario": self.name, "description": self.about, "generator": "autoswitch scenarios (hand-written)",
                **self.config.to_meta(), **({"expect": self.expect} if self.expect else {})}

    def expect_violation(self, invariant: str, state: int) -> Scenario:
        """Mark the trace as a negative example: ``invariant`` must first fail at ``state``."""
        self.expect = {"violation": invariant, "state": state}
        return self


ADDR = {"pA": "10.0.0.1:30911", "pB": "10.0.0.2:30911", "pC": "10.0.0.3:30911"}


class Cluster:
    """A trace builder for one broker set: processes pA, pB (, pC); ids are handed out in start order."""

    def __init__(self, name: str, about: str, procs: tuple[str, ...] = ("pA", "pB"), **options: Any):
        self.s = Scenario(name, about, {p: ADDR[p] for p in procs})
        self.s.config = type(self.s.config)(self.s.config.processes, Options(**options))
        self.procs = procs
        self.ids: dict[str, int] = {}

    def do(self, tag: str, code: str = "OK", returns: dict[str, Any] | None = None, **params_and_vars: Any) -> Cluster:
        params = {k: v for k, v in params_and_vars.items() if k in ("process", "lost", "brokerId", "addr", "trigger")}
        then = {k: v for k, v in params_and_vars.items() if k not in params}
        self.s.step(tag, code, returns, params=params, **then)
        return self

    def start(self, p: str, role_code: str = "SUCCESS") -> Cluster:
        """Registration of a fresh process, then a heartbeat."""
        self.ids[p] = len(self.ids) + 1
        self.do("CreateTempFile", "SUCCESS", process=p).do("SendApplyBrokerId", "SUCCESS", process=p, lost=False)
        self.do("WriteMetaFile", process=p).do("DeleteTempFile", process=p)
        return self.do("SendRegister", role_code, process=p, lost=False).do("SendHeartbeat", "SUCCESS", process=p)

    def elect(self, p: str, epoch: int) -> Cluster:
        return self.do("SendElectMaster", "SUCCESS", {"masterId": self.ids[p], "masterEpoch": epoch}, process=p, lost=False)

    def follow(self, p: str, truncate_to: int, code: str = "OK") -> Cluster:
        """A slave learns the master (SyncReplicaInfo) and hand-shakes; ``truncate_to`` is asserted."""
        return self.do("Handshake", code, {"truncateOffset": truncate_to}, process=p)

    def join(self, master: str, p: str) -> Cluster:
        """The master adds a caught-up slave to the syncStateSet and hears the answer."""
        self.do("Expand", "SUCCESS", process=master, brokerId=self.ids[p], lost=False)
        return self.do("AlterArrives", "SUCCESS", process=master)

    def write(self, master: str, n: int) -> Cluster:
        for _ in range(n):
            self.do("Write", "SUCCESS", process=master)
        return self

    def replicate(self, p: str, n: int, ack: bool = True) -> Cluster:
        for _ in range(n):
            self.do("Transfer", process=p)
        return self.do("Ack", process=p) if ack else self

    def die(self, p: str) -> Cluster:
        """A crash the controller notices: the process goes down and its heartbeat expires."""
        return self.do("Crash", process=p).do("HeartbeatExpire", brokerId=self.ids[p])

    def back(self, p: str) -> Cluster:
        """Restart with the same address, meta file, register (adopting the live master), heartbeat."""
        self.do("Restart", process=p, addr=ADDR[p]).do("LoadMetaFile", process=p)
        return self.do("SendRegister", "SUCCESS", process=p, lost=False).do("SendHeartbeat", "SUCCESS", process=p)

    def scan(self, winner: str, epoch: int) -> Cluster:
        """The controller's scan elects ``winner``, which hears of it (role-change notification) and the
        live slaves too."""
        self.do("ControllerElectScan", "SUCCESS", {"masterId": self.ids[winner], "masterEpoch": epoch})
        return self.notify(winner)

    def notify(self, *procs: str) -> Cluster:
        for p in procs:
            self.do("SyncReplicaInfo", "SUCCESS", process=p)
        return self

    def expect(self, **variables: Any) -> Cluster:
        self.s.states[-1].update(variables)
        return self

    def violation(self, invariant: str, back: int = 0) -> Scenario:
        """The invariant must first fail at the last state written so far (or ``back`` states before)."""
        return self.s.expect_violation(invariant, len(self.s.states) - 1 - back)
