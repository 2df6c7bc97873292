"""DLedger mode (spec/DLedger.tla): the commit log replicated by Raft, shaped like OpenMessaging DLedger's server at the
level of its guarantees. A running broker is a :class:`DLedgerServer` with its :class:`MemberState` (currTerm, persisted
in the file ``currterm`` as ``MemberState.persistTerm`` does, the role and the leader), its :class:`DLedgerStore`
(the broker's commit log, whose entries carry the term they were written in, and its committed index), its
:class:`DLedgerLeaderElector` and, as leader, its :class:`DLedgerEntryPusher` (the followers' match indexes, the
``QuorumAckChecker``'s commit); :class:`EntryHandler` is the follower side of the push.

Differs from DLedger's message-level protocol as the reference does (reference/dledger.py): an election is one step
(a candidate with the votes of a majority, each voter's log no more up to date than its own by last term and length,
leads a term above every voter's); a push is one step (the follower keeps the longest prefix it shares with the
leader, takes the next entry and answers with its length); no CANDIDATE role, no vote record (a voter's term is
raised to the new one, which it cannot vote in again).
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Protocol

from .ha import BrokerSet, MessageStore
from .protocol import NO_MASTER_ID
from .states import S_HA_NONE, S_HA_TRANSFER, S_MASTER, S_REGISTERED, S_SLAVE, HAState, IllegalStateError, Role
from .storage import Storage
from .store_config import load_store_config

CURR_TERM_FILE = "currterm"


class Member(MessageStore, Protocol):
    """What a DLedger server uses of its broker besides the store: the callback the master history is kept by."""

    @property
    def on_become_master(self) -> Callable[[str, int], None]: ...


class DLedgerRole(StrEnum):
    """DLedger ``MemberState.Role`` (CANDIDATE is inside the one-step election)."""

    LEADER = "LEADER"
    FOLLOWER = "FOLLOWER"


def load_term(storage: Storage) -> int:
    """The ``currTerm`` persisted in ``currterm`` (0 before the first election)."""
    text = storage.read(CURR_TERM_FILE)
    if text is None:
        return 0
    props = dict(line.split("=", 1) for line in text.splitlines() if "=" in line)
    return int(props["currTerm"])


class MemberState:
    """DLedger ``MemberState``: ``curr_term`` (on disk: a crash keeps it), ``role`` and ``leader_id`` (volatile)."""

    __slots__ = ("_storage", "curr_term", "role", "leader_id")

    def __init__(self, storage: Storage) -> None:
        self._storage = storage
        self.curr_term = load_term(storage)
        self.role = DLedgerRole.FOLLOWER
        self.leader_id = NO_MASTER_ID

    def _persist_term(self, term: int) -> None:
        """``persistTerm``: the term is on disk before the member acts in it."""
        if term != self.curr_term:
            self._storage.write(CURR_TERM_FILE, f"currTerm={term}\n")
            self.curr_term = term

    def change_to_leader(self, self_id: int) -> None:
        self.role = DLedgerRole.LEADER
        self.leader_id = self_id

    def change_to_follower(self, term: int, leader_id: int) -> None:
        self._persist_term(term)
        self.role = DLedgerRole.FOLLOWER
        self.leader_id = leader_id


class DLedgerStore:
    """The broker's commit log as DLedger's store: entry ``i`` (index ``i + 1``) is ``(msg, term)``; the committed
    index is the broker's confirmOffset (what consumers may read)."""

    __slots__ = ("_store", "_sync")

    def __init__(self, store: MessageStore, sync: bool) -> None:
        self._store = store
        self._sync = sync

    @property
    def entries(self) -> list[tuple[int, int]]:
        return self._store.commit_log.entries

    def last(self) -> tuple[int, int]:
        """(ledgerEndTerm, ledgerEndIndex): Raft's up-to-date order."""
        entries = self.entries
        return (entries[-1][1] if entries else 0, len(entries))

    def append(self, entry: tuple[int, int]) -> None:
        self._store.commit_log.append(entry, self._sync)

    @property
    def committed_index(self) -> int:
        return self._store.confirm_offset

    def update_committed_index(self, index: int) -> None:
        if index != self._store.confirm_offset:
            self._store.set_confirm_offset(index)

    def truncate(self, index: int) -> None:
        self._store.truncate(index)


class EntryHandler:
    """The follower side of the push (DLedger ``EntryHandler``): ``ha_state`` TRANSFER once a leader of its term has
    pushed to it, READY when that leader went away, NONE after an election or a start."""

    __slots__ = ("ha_state",)

    def __init__(self) -> None:
        self.ha_state: HAState = S_HA_NONE


class DLedgerEntryPusher:
    """The leader side of the push (DLedger ``EntryDispatcher`` per follower, and the ``QuorumAckChecker``): ``acks``
    holds each follower's match index (peerWaterMarks) for the term it leads."""

    __slots__ = ("_server", "_broker_set", "acks")

    def __init__(self, server: DLedgerServer, broker_set: BrokerSet) -> None:
        self._server = server
        self._broker_set = broker_set
        self.acks: dict[int, int] = {}

    def check_quorum_ack(self) -> None:
        """DlCommit (spec/DLedger.tla): the committed index moves to the largest index a majority holds whose entry is
        of the leader's term; the messages below it are acknowledged."""
        server, broker_set = self._server, self._broker_set
        store, dledger = server.process, server.store
        entries, term = dledger.entries, server.member_state.curr_term
        members = len(broker_set.processes)
        for n in range(len(entries), dledger.committed_index, -1):
            holders = 1 + sum(1 for offset in self.acks.values() if offset >= n)
            if 2 * holders > members and entries[n - 1][1] == term:
                dledger.update_committed_index(n)
                if n > store.acked_upto:
                    broker_set.acked.update(m for m, _ in entries[store.acked_upto:n])
                    store.acked_upto = n
                return

    def push(self, peer_name: str) -> tuple[bool, int]:
        """DlPush (spec/DLedger.tla): push to ``peer_name``, which answers with its log length: ``(True, length)``; or
        ``(False, term)`` when the peer is in a later term (EXPIRED_TERM), and the leader steps down to follow it."""
        server = self._server
        leader = server.require_leader()
        broker_set = self._broker_set
        peer_store = next((p for p in broker_set.processes if p.name == peer_name), None)
        peer = None if peer_store is None else peer_store.replicas_manager
        if peer_store is None or peer_store is leader or not isinstance(peer, DLedgerServer):
            raise IllegalStateError(f"{leader.name} cannot push to {peer_name!r}: not another running member")
        if frozenset((leader.name, peer_name)) in broker_set.partitions:
            raise IllegalStateError(f"{leader.name} cannot reach {peer_name}")
        term = server.member_state.curr_term
        if peer.member_state.curr_term > term:
            server.step_down(peer.member_state.curr_term)
            return False, peer.member_state.curr_term
        mine, theirs = server.store.entries, peer.store.entries
        keep = next(k for k in range(min(len(theirs), len(mine)), -1, -1) if theirs[:k] == mine[:k])
        length = min(keep + 1, len(mine))
        log = peer_store.commit_log
        flushed = min(log.flushed, keep) if broker_set.config.async_flush else length
        committed = max(min(peer.store.committed_index, keep), min(server.store.committed_index, length))
        peer_changes = (theirs != mine[:length] or log.flushed != flushed or peer.store.committed_index != committed
                        or peer.member_state.curr_term != term or peer.role is not S_SLAVE or peer.master_id != leader.meta_id
                        or peer.entry_handler.ha_state is not S_HA_TRANSFER)
        if not peer_changes and self.acks.get(peer_store.meta_id) == length:
            raise IllegalStateError(f"{peer_name} is in step with {leader.name}")
        peer.store.truncate(keep)
        if keep < length:
            peer.store.append(mine[keep])
        peer.store.update_committed_index(committed)
        peer.member_state.change_to_follower(term, leader.meta_id)
        peer.entry_handler.ha_state = S_HA_TRANSFER
        self.acks[peer_store.meta_id] = length
        self.check_quorum_ack()
        return True, length


class DLedgerLeaderElector:
    """DLedger ``DLedgerLeaderElector``, the election as one step."""

    __slots__ = ("_server", "_broker_set")

    def __init__(self, server: DLedgerServer, broker_set: BrokerSet) -> None:
        self._server = server
        self._broker_set = broker_set

    def _reaches(self, name: str, peer: str) -> bool:
        return name == peer or frozenset((name, peer)) not in self._broker_set.partitions

    def elect(self) -> int:
        """DlElect (spec/DLedger.tla): this member, seeing no leader of its term or a later one, wins the votes of every
        running member it reaches whose log is no more up to date than its own; with a majority it leads a term above
        each voter's, and the voters follow that term (a deposed leader among them steps down). Returns the term."""
        server = self._server
        me = server.process
        if server.state is not S_REGISTERED or server.role is S_MASTER:
            raise IllegalStateError(f"{me.name} is a leader or not running")
        my_term, my_last = server.member_state.curr_term, server.store.last()
        running = [(p, p.replicas_manager) for p in self._broker_set.processes if isinstance(p.replicas_manager, DLedgerServer)
                   and self._reaches(me.name, p.name)]
        leaders = [p.name for p, x in running if p is not me and x.role is S_MASTER and x.member_state.curr_term >= my_term]
        if leaders:
            raise IllegalStateError(f"{me.name} follows the leader {', '.join(leaders)}")
        voters = [x for _, x in running if x.store.last() <= my_last]
        members = len(self._broker_set.processes)
        if 2 * len(voters) <= members:
            raise IllegalStateError(f"{me.name} reaches {len(voters)} voters of {members}")
        term = 1 + max(x.member_state.curr_term for x in voters)
        for voter in voters:
            voter.member_state.change_to_follower(term, NO_MASTER_ID)
            voter.entry_handler.ha_state = S_HA_NONE
            voter.entry_pusher.acks = {}
        server.member_state.change_to_leader(me.meta_id)
        me.on_become_master(me.name, term)
        server.entry_pusher.check_quorum_ack()
        return term


class DLedgerServer:
    """A running DLedger member (DlRestart, spec/DLedger.tla): a follower of its persisted term with no leader known.
    Always REGISTERED (no registration in DLedger mode); created on start, dropped by a crash. ``ha_service`` and
    ``ha_client`` are its leader and follower sides under the names the broker set's link code reads."""

    __slots__ = ("process", "_broker_set", "state", "member_state", "store", "entry_pusher", "entry_handler", "leader_elector")

    def __init__(self, process: Member, broker_set: BrokerSet) -> None:
        config = load_store_config(process.storage)
        if config is None or not config.enable_dleger_commit_log:
            raise IllegalStateError(f"{process.name} is not configured as a DLedger member")
        self.process = process
        self._broker_set = broker_set
        self.state = S_REGISTERED
        self.member_state = MemberState(process.storage)
        self.store = DLedgerStore(process, not broker_set.config.async_flush)
        self.entry_pusher = DLedgerEntryPusher(self, broker_set)
        self.entry_handler = EntryHandler()
        self.leader_elector = DLedgerLeaderElector(self, broker_set)

    @property
    def role(self) -> Role:
        """The broker's role (DLedgerRoleChangeHandler: a leader's broker is the MASTER)."""
        return S_MASTER if self.member_state.role is DLedgerRole.LEADER else S_SLAVE

    @property
    def master_id(self) -> int:
        return self.member_state.leader_id

    @property
    def ha_service(self) -> DLedgerEntryPusher:
        return self.entry_pusher

    @property
    def ha_client(self) -> EntryHandler:
        return self.entry_handler

    def require_leader(self) -> MessageStore:
        if self.state is not S_REGISTERED or self.member_state.role is not DLedgerRole.LEADER:
            raise IllegalStateError(f"{self.process.name} is not a leader")
        return self.process

    def step_down(self, term: int) -> None:
        """A leader that met a later term follows it, no leader known (its pushes stop)."""
        self.member_state.change_to_follower(term, NO_MASTER_ID)
        self.entry_pusher.acks = {}

    def append_as_leader(self) -> tuple[int, int]:
        """DlWrite (spec/DLedger.tla): the leader appends the next message in its term; it is acknowledged when it
        commits. Returns the message and its offset."""
        self.require_leader()
        broker_set = self._broker_set
        msg, offset = broker_set.next_msg, len(self.store.entries)
        self.store.append((msg, self.member_state.curr_term))
        broker_set.next_msg = msg + 1
        self.entry_pusher.check_quorum_ack()
        return msg, offset
