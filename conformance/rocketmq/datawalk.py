"""The data path of a differential walk on RocketMQ's own stores (the ``rocketmq-data`` engine): the reference model's
processes and controller take every step, and each broker's data lives in a real ``DefaultMessageStore`` with its
``AutoSwitchHAService`` (``DataDriver.java``), driven as the broker's ``ReplicasManager`` drives it. Its data-path
variables are read back from the stores, so a walk compares the model's data path with the code's at every step.

How a step reaches the stores (:data:`MIRROR`):

- a process that becomes master (or master again, in a new epoch) runs ``changeToMaster`` and gets the model's
  syncStateSet; a slave runs ``changeToSlave`` towards its master over a *stepped* connection (``Stepper.java``), whose
  frames of the HA protocol pass only when the model takes the step they belong to: Handshake, Transfer (one message per
  frame: haTransferBatchSize is a message's size) and Ack (the slave's report of its offset);
- a Write is an ``asyncPutMessage`` (the producer's put, its answer read from the future when the store gives it);
- a Crash shuts the store down, a Restart opens it again on the same folder (``load``);
- a syncStateSet the controller's answer gives a master (AlterArrives, an election) is ``setSyncStateSet``.

The code proposes an expansion itself, when a slave's report reaches its master (``maybeExpandInSyncStateSet``); the
model's Expand is a step of its own. A walk therefore takes the model's Expand right after the step whose report made
the store propose, and never otherwise (:func:`code_draw`): the code is one scheduler of the model's choices. The code
shrinks the set after ``haMaxTimeSlaveNotCatchup`` without a catch-up, which no walk waits for: the walks take no Shrink.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from frozendict import frozendict

from autoswitch.conformance.engines.reference import ReferenceEngine
from autoswitch.conformance.errors import NotAsked
from autoswitch.conformance.rocketmq.jvm import DEFAULT_VERSION, Session, session
from autoswitch.reference import codes
from autoswitch.reference.acks import counted_set
from autoswitch.reference.state import CONTROLLER, HA_NONE, HA_READY, HA_TRANSFER, MASTER, NO_ID, REGISTERED, SLAVE, Options

STEP_MS = 12_000  # the bound of a stepped frame's wait (a report comes every 200 ms; a client retries after 5 s)
# how each data-path step reaches the stores; spec/README.md shows this table
MIRROR = {
    "Write": "DefaultMessageStore.asyncPutMessage on the master's store (SYNC_FLUSH; ASYNC_MASTER, so that no put "
             "waits in GroupTransferService for acks the walk has not taken yet)",
    "Handshake": "the stepped connection passes the slave's handshake, the master's answer (the slave truncates, "
                 "doTruncate) and the slave's first report",
    "Transfer": "the stepped connection passes the master's frames up to the next one that carries a message",
    "Ack": "the stepped connection passes the slave's newest report of its current offset (older ones are dropped)",
    "Expand": "taken right after the step whose report made the master's AutoSwitchHAService propose the set "
              "(maybeExpandInSyncStateSet, its listener); a model that refuses it diverges",
    "AlterArrives (applied), an election's syncStateSet": "AutoSwitchHAService.setSyncStateSet on the master",
    "a role from the controller": "AutoSwitchHAService.changeToMaster(epoch) and setSyncStateSet; or changeToSlave and "
                                  "updateHaMasterAddress (the stepped connection)",
    "Crash / Restart": "DefaultMessageStore.shutdown; a new DefaultMessageStore on the same folder, load() and start()",
}
# the data-path variables read back from the stores (the rest are the reference model's)
READ = {
    "log": "the commit log's messages (lookMessageByOffset); the model's entries carry the writer's epoch, the code's "
           "none: they are compared by message",
    "epochFile": "AutoSwitchHAService.getEpochEntries() (start offsets in messages)",
    "confirmOffset": "DefaultMessageStore.getConfirmOffset(); a process that is not master agrees when the code's is "
                     "at most the model's (STALE_CONFIRM)",
    "acks": "a master's HAConnections that had their handshake: getSlaveId() -> getSlaveAckOffset()",
    "localSyncStateSet": "a master's AutoSwitchHAService.getLocalSyncStateSet()",
    "haState": "a slave's AutoSwitchHAClient.getCurrentState(): TRANSFER, else (READY, HANDSHAKE) the model's READY",
}
STALE_CONFIRM = ("a slave's confirmOffset is the master's when the master built the frame that carried it (the model "
                 "takes the master's at the Transfer), and a restarted broker's is its checkpoint's last write (a master "
                 "whose set has one member answers maxPhyOffset without writing it): both at most the model's, which "
                 "the walks accept; what a consumer sees of such a broker is less, never more")
NOT_WALKED = {
    "Shrink": "the code shrinks after haMaxTimeSlaveNotCatchup (15 s by default) without a catch-up; the walks set it "
              "to 10 minutes",
    "Flush, flushed": "the safe configurations flush synchronously: a write is on disk when appended",
    "Consume, the consume queue": "not compared: the stores dispatch past confirmOffset (readUnCommitted), which keeps "
                                  "5.3.x's ReputMessageService from spinning while confirmOffset lags (#9811)",
    "WipeDisk, CrashTorn, PartitionLink, SendLate": "the faults of MODEL.md §9 are the controller walks' (simulate)",
}
# a state the real stores leave differently from the model, known and open (spec/README.md says why): a walk does not
# take the action that would show it again (avoided)
ONE_MEMBER_SHORTCUT = ("the one-member shortcut (the model's finding): getConfirmOffset answers maxPhyOffset while the "
                       "master's LOCAL set has one member, also while an expansion is in flight; the safe "
                       "configurations carry the hypothetical fix (ConfirmShortcutFix), so a write in that window "
                       "shows it")


EPOCH_REENTRY = ("the epoch re-entry (the model's finding): a master that restarts and is master again in the epoch its "
                 "file ends with re-bases the epoch at its log's end (changeToMaster: truncateSuffixByEpoch, then the "
                 "entry at maxPhyOffset); the safe configurations carry the hypothetical fix (EpochReentryFix)")


STALE_FREEZE = ("the freeze reads a field the shortcut never wrote (seen on 5.3.3): while the master's set has one "
                "member getConfirmOffset answers maxPhyOffset without storing it; when a set with a member that has no "
                "connection arrives (setSyncStateSet), computeConfirmOffset freezes at getConfirmOffsetDirectly(), the "
                "stored field, so confirmOffset goes back below what the master showed; the model freezes at what it "
                "showed")


SECOND_PROPOSAL = ("a second expansion while one is in flight (seen on 5.3.3): maybeExpandInSyncStateSet does not look "
                   "at isSynchronizingSyncStateSet, so a second slave that catches up is proposed (local set plus it) "
                   "and replaces the remote set the first proposal left; the model's Expand waits for the answer")


TRUNCATION_NOT_DURABLE = ("a slave's truncation does not survive a restart (seen on 5.3.3): truncateFiles moves the mapped "
                          "files' positions and leaves the bytes, so a store restarted on its folder recovers the "
                          "messages its handshake cut; the model's truncation is durable (issue 43): a walk does not "
                          "crash a slave whose log has not grown back past what its handshake cut")


ZERO_ACK = ("an ack of 0 skipped (the model's finding zero-ack-skipped): computeConfirmOffset counts only acks above 0, "
            "so an empty slave of the set that reports 0 leaves confirmOffset at the LEO; the safe configurations carry "
            "the hypothetical fix (ConfirmZeroAckFix)")


def avoided(s: Any, action: Mapping[str, Any], opts: Options) -> str | None:
    """The known divergence ``action`` would show in state ``s`` under ``opts``, or None."""
    x = s.procs.get(action.get("process"))
    if x is None:
        return None
    if action["tag"] == "Write" and x.pending_alter is not None and len(x.local_sync_state_set) == 1:
        return ONE_MEMBER_SHORTCUT
    if action["tag"] in ("Handshake", "Ack") and x.role == SLAVE:
        master = s.procs.get(s.process_of(x.local_master_id) or "")
        if master is None:
            return None
        counted = counted_set(master, opts)
        if master.pending_alter is not None and x.meta_file not in counted:
            return SECOND_PROPOSAL
        if x.leo == 0 and x.meta_file in counted and master.leo > 0:
            return ZERO_ACK
    pending = x.pending_alter
    if (action["tag"] == "AlterArrives" and pending is not None and len(x.local_sync_state_set) == 1
            and any(b != x.meta_file and b not in x.acks for b in pending.new_set)):
        return STALE_FREEZE
    c = s.controller
    if (action["tag"] in ("SendRegister", "SyncReplicaInfo", "SendElectMaster") and x.role != MASTER
            and c.master_id == x.meta_file and x.epoch_file and x.epoch_file[-1][0] == c.master_epoch):
        return EPOCH_REENTRY
    return None


NOT_WALKED_TAGS = frozenset({"Shrink", "Flush", "WipeDisk", "CrashTorn", "PartitionLink", "HealLink", "SendLate",
                             "DeliverLate"})


def body(msg: int) -> str:
    return f"m{msg:06d}"


class DataPathEngine(ReferenceEngine):
    """The reference model with each broker's data path on a real store; ``variables()`` reads it back."""

    def __init__(self, config: Any, version: str = DEFAULT_VERSION):
        if config.options.design != CONTROLLER or config.options.policy != "rocketmq":
            raise NotAsked("the data-path walks run RocketMQ 5's controller mode")
        if config.options.async_flush or config.options.async_learners:
            raise NotAsked("the data-path walks run synchronous flush and no async learner")
        super().__init__(config)
        self.jvm: Session = session(version)
        self.step_no = 0
        self.call("reset")
        self.size = -1
        self.opened: set[int] = set()  # broker ids with a store made
        self.roles: dict[str, tuple] = {}  # process -> what its store was last told (see _key)
        self.views: dict[str, dict[str, Any]] = {}  # process -> its store's last view
        self.proposal: tuple[str, int] | None = None  # (master, broker id) the store proposed and the walk must expand
        self.proposed: dict[int, list[int]] = {}  # broker id -> the set its store last proposed
        self.owed: dict[str, Any] | None = None  # the Expand drawn for the proposal, until it is taken
        self.cut: dict[str, int] = {}  # process -> its log end before a handshake cut it, until the log is that long again

    def call(self, op: str, **fields: Any) -> dict[str, Any]:
        return self.jvm.call({"op": f"data.{op}", **fields}, f"data-path step {self.step_no}, data.{op}", seconds=60)

    # the engine interface

    def step(self, action: Mapping[str, Any]) -> Mapping[str, Any]:
        self.step_no += 1
        tag, p = action["tag"], action.get("process")
        before = self.state
        outcome = super().step(action)  # NotEnabled: nothing happened on either side
        if tag in ("Handshake", "Transfer", "Ack"):
            outcome = self._stepped(tag, p, before, outcome)
            if tag == "Handshake" and outcome.get("code") == codes.OK and outcome["truncateOffset"] < before.procs[p].leo:
                self.cut[p] = max(self.cut.get(p, 0), before.procs[p].leo)
        elif tag == "Write" and outcome.get("code") == codes.SUCCESS:
            outcome = self._write(p, outcome)
        elif tag == "Crash" and p is not None:
            self._close(p)
        elif tag == "Expand":
            self.owed = None
        self._reconcile()
        self._read_back(tag)
        self.cut = {q: end for q, end in self.cut.items() if self.state.procs[q].leo < end}
        return outcome

    def variables(self) -> dict[str, Any]:
        v = super().variables()
        for p, view in self.views.items():
            x = self.state.procs[p]
            if not x.up:
                continue
            if [m for m, _ in view["log"]] != [m for m, _ in v["log"][p]]:
                v["log"][p] = view["log"]  # else the model's: its epoch tags are the writers', the code keeps none
            v["epochFile"][p] = view["epochs"]
            confirm = view["confirmOffset"]
            if x.role != MASTER and confirm <= v["confirmOffset"][p]:
                confirm = v["confirmOffset"][p]  # STALE_CONFIRM: the code's is an older value of the model's
            v["confirmOffset"][p] = confirm
            if x.role == MASTER:
                v["acks"][p] = view["acks"]
                v["localSyncStateSet"][p] = frozenset(view["localSyncStateSet"])
            if x.role == SLAVE and x.ha_state != HA_NONE:
                v["haState"][p] = HA_TRANSFER if view["client"] == "TRANSFER" else HA_READY
        return v

    # the stores

    def _broker(self, p: str) -> int:
        return self.state.procs[p].meta_file

    def _open(self, broker: int) -> None:
        if broker in self.opened:
            self.call("open", id=broker)
            return
        o = self.options
        self.call("open", id=broker, stepped=True, allAck=o.all_ack_in_sync_state_set)
        self.opened.add(broker)

    def _close(self, p: str) -> None:
        """A crash keeps the meta file: the store of its broker id is shut down (a hung shutdown is left behind and
        logged by the harness)."""
        if self.roles.pop(p, None) is not None:
            self.call("close", id=self._broker(p))
            self.views.pop(p, None)

    def _key(self, p: str) -> tuple:
        x = self.state.procs[p]
        if x.reg_state != REGISTERED or x.role not in (MASTER, SLAVE):
            return ("open",)
        if x.role == MASTER:
            return (MASTER, x.local_master_epoch, x.local_sync_state_set, x.local_sync_state_set_epoch)
        return (SLAVE, x.local_master_id, x.local_master_epoch)

    def _reconcile(self) -> None:
        """Tell each store what its process now is: open, master (changeToMaster; setSyncStateSet) or slave."""
        for p, x in sorted(self.state.procs.items()):
            if not x.up or x.meta_file == NO_ID:
                continue
            key, was = self._key(p), self.roles.get(p)
            if was is None:
                self._open(x.meta_file)
                was = self.roles[p] = ("open",)
            if key == was:
                continue
            if key[0] == MASTER:
                if was[0] != MASTER or was[1] != key[1]:
                    self.call("master", id=x.meta_file, epoch=x.local_master_epoch, syncStateSet=sorted(x.local_sync_state_set))
                else:
                    self.call("syncStateSet", id=x.meta_file, syncStateSet=sorted(x.local_sync_state_set))
            elif key[0] == SLAVE:
                self.call("slave", id=x.meta_file, master=x.local_master_id, epoch=x.local_master_epoch, stepped=True)
            self.roles[p] = key

    def _stepped(self, tag: str, p: str, before: Any, outcome: Mapping[str, Any]) -> Mapping[str, Any]:
        """A frame step on slave ``p``'s connection; a step the stores cannot take is an outcome the model's differs from."""
        x = before.procs[p]
        kind = tag.lower()
        offset = -1
        if tag == "Ack":
            offset = max(self.size, 0) * x.leo
        answer = self.call("step", id=x.meta_file, kind=kind, offset=offset, timeoutMs=STEP_MS)
        if tag == "Handshake" and answer.get("refused") and outcome.get("code") == codes.NO_CONSISTENT_POINT:
            return outcome  # the slave found no consistent point either, and closed the connection to try again
        if not answer["taken"]:
            return frozendict(code="NOT_TAKEN", missing=answer.get("missing", ""))
        if tag == "Handshake" and outcome.get("code") == codes.OK:
            return frozendict(code=codes.OK, truncateOffset=self._messages(answer["offset"]))
        return outcome

    def _write(self, p: str, outcome: Mapping[str, Any]) -> Mapping[str, Any]:
        answer = self.call("put", id=self._broker(p), body=body(outcome["msg"]), **{"async": True})
        if "wroteOffset" not in answer:
            return frozendict(code=answer["status"])
        self.size = answer["view"]["messageSize"]
        return frozendict(code=codes.SUCCESS, msg=int(answer["body"][1:]), offset=self._messages(answer["wroteOffset"]))

    def _messages(self, offset: int) -> int:
        return offset // self.size if self.size > 0 else 0

    def _read_back(self, tag: str) -> None:
        self.views = {}
        for q in self.roles:
            raw = self.call("view", id=self._broker(q))
            self.views[q] = self._view(raw)
            proposed, x = raw["proposed"], self.state.procs[q]
            if proposed != self.proposed.get(x.meta_file, []):
                self.proposed[x.meta_file] = proposed
                new = frozenset(proposed) - x.local_sync_state_set
                if x.role == MASTER and tag in ("Handshake", "Ack") and len(new) == 1:
                    self.proposal = (q, next(iter(new)))

    def _view(self, v: Mapping[str, Any]) -> dict[str, Any]:
        epochs = [(e, self._messages(start)) for e, start in v["epochs"]]
        log = []
        for i, b in enumerate(v["bodies"]):
            epoch = max((e for e, start in epochs if start <= i), default=0)
            log.append((int(b[1:]) if b else -1, epoch))
        return {"log": log, "epochs": epochs, "confirmOffset": self._messages(v["confirmOffset"]),
                "acks": {int(b): self._messages(a) if a > 0 else a for b, a in v["acks"].items()},
                "localSyncStateSet": v["localSyncStateSet"], "client": v["client"], "puts": v["puts"]}

    def scheduled(self, draw: Callable[[dict[str, Any]], Mapping[str, Any] | None]
                  ) -> Callable[[dict[str, Any]], Mapping[str, Any] | None]:
        """``draw`` as the code schedules the data path: the Expand a store proposed comes next (``owed`` until it is
        taken); no other Expand, and none of :data:`NOT_WALKED_TAGS`."""

        def drawn(v: dict[str, Any]) -> Mapping[str, Any] | None:
            if self.proposal is not None:
                (master, broker), self.proposal = self.proposal, None
                self.owed = {"tag": "Expand", "process": master, "brokerId": broker, "lost": False}
                return self.owed
            action = draw(v)
            if action is None or action["tag"] in NOT_WALKED_TAGS or action["tag"] == "Expand":
                return None
            if action["tag"] == "Crash" and action["process"] in self.cut:
                return None  # TRUNCATION_NOT_DURABLE
            return None if avoided(self.state, action, self.options) is not None else action
        return drawn


def markdown_table() -> str:
    """docs/fidelity.md's table of the rocketmq-data engine: how each step reaches the stores, where each variable is read
    from, what the walks do not take, and the known divergences they do not draw (a test holds the page to it)."""
    lines = ["| model | on RocketMQ's stores |", "|---|---|"]
    lines += [f"| `{tag}` | {how} |" for tag, how in MIRROR.items()]
    lines += [f"| `{name}` | {where} |" for name, where in READ.items()]
    lines += [f"| {what} | **not walked**: {why} |" for what, why in NOT_WALKED.items()]
    known = (STALE_CONFIRM, ONE_MEMBER_SHORTCUT, EPOCH_REENTRY, ZERO_ACK, STALE_FREEZE, SECOND_PROPOSAL,
             TRUNCATION_NOT_DURABLE)
    lines += [f"| known divergence | {why} |" for why in known]
    return "\n".join(lines) + "\n"
