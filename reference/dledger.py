"""DLedger mode (spec/DLedger.tla; designs.py), abstracted at the level of Raft's guarantees rather than
DLedger's code: one pure function per action, named as the spec's in snake_case. The broker set's processes form
one Raft group; a log entry carries the term it was written in (``(msg, term)``); ``term`` is each member's
currentTerm (on disk), ``role`` MASTER for a leader and SLAVE for a follower, ``confirm_offset`` its commit index
and, on a leader, ``acks`` the entries each follower is known to match.

Differs from Raft's message-level protocol (and DLedger's ``DLedgerLeaderElector``, ``DLedgerEntryPusher``,
``QuorumAckChecker``): an election is one step (a candidate with the votes of a majority, each voter's log no more
up to date than the candidate's by last term and length, becomes leader of a term above every voter's); a push
is one step (the follower keeps the longest prefix it shares with the leader, takes the next entry, and answers
with its length); the leader commits an index once a majority holds it and its entry is of the leader's term
(entries of older terms commit with it).
"""

from __future__ import annotations

from frozendict import frozendict

from . import codes
from .broker import OK, require_process, with_process
from .precondition import require
from .replication import append_durably
from .state import DOWN, HA_NONE, HA_TRANSFER, MASTER, NO_MASTER, REGISTERED, SLAVE, Entries, Options, Process, System, evolve


def _last(log: Entries) -> tuple[int, int]:
    """A log's (last term, length): Raft's up-to-date order."""
    return (log[-1][1] if log else 0, len(log))


def _linked(s: System, p: str, q: str) -> bool:
    return p == q or frozenset({p, q}) not in s.partitions


def _majority(s: System, count: int) -> bool:
    return 2 * count > len(s.procs)


def _commit(s: System, p: str) -> System:
    """DlCommit (spec/DLedger.tla): the leader's commit index moves to the largest index a majority holds whose entry
    is of its term; the messages below it are acknowledged."""
    leader = s.procs[p]
    for n in range(leader.leo, leader.confirm_offset, -1):
        holders = 1 + sum(1 for offset in leader.acks.values() if offset >= n)
        if _majority(s, holders) and leader.log[n - 1][1] == leader.term:
            leader = evolve(leader, confirm_offset=n)
            return with_process(s, p, leader, acked=s.acked | frozenset(msg for msg, _ in leader.log[:n]))
    return s


def dl_elect(s: System, p: str) -> tuple[System, frozendict]:
    """DlElect (spec/DLedger.tla): ``p``, seeing no leader of its term or a later one, wins the votes of every running
    member it reaches whose log is no more up to date than its own; with a majority it leads a term above each
    voter's, and the voters follow that term (a deposed leader among them steps down)."""
    proc = require_process(s, p, REGISTERED)
    require(proc.role != MASTER, f"{p} is a leader")
    leaders = [q for q, x in s.procs.items() if q != p and x.reg_state == REGISTERED and x.role == MASTER
               and x.term >= proc.term and _linked(s, p, q)]
    require(not leaders, f"{p} follows the leader {', '.join(leaders)}")
    voters = [q for q, x in s.procs.items() if x.reg_state == REGISTERED and _linked(s, p, q) and _last(x.log) <= _last(proc.log)]
    require(_majority(s, len(voters)), f"{p} reaches {len(voters)} voters of {len(s.procs)}")
    term = 1 + max(s.procs[q].term for q in voters)
    procs = dict(s.procs)
    for q in voters:
        procs[q] = evolve(procs[q], term=term, role=SLAVE, local_master_id=NO_MASTER, ha_state=HA_NONE, acks=frozendict())
    procs[p] = evolve(procs[p], role=MASTER, local_master_id=proc.meta_file)
    s = evolve(s, procs=frozendict(procs), master_history=s.master_history | {(term, p)})
    return _commit(s, p), frozendict(code=codes.OK, term=term)


def dl_write(s: System, p: str, opts: Options) -> tuple[System, frozendict]:
    """DlWrite (spec/DLedger.tla): the leader appends the message in its term; it is acknowledged when it commits."""
    proc = require_process(s, p, REGISTERED)
    require(proc.role == MASTER, f"{p} is not a leader")
    msg, offset = s.next_msg, proc.leo
    s = with_process(s, p, append_durably(proc, proc.log + ((msg, proc.term),), opts), next_msg=msg + 1)
    return _commit(s, p), frozendict(code=codes.SUCCESS, msg=msg, offset=offset)


def _pushed(leader: Process, follower: Process, opts: Options) -> Process:
    """The follower after a push: the longest prefix it shares with the leader, then the leader's next entry."""
    keep = next(k for k in range(min(follower.leo, leader.leo), -1, -1) if follower.log[:k] == leader.log[:k])
    kept = evolve(follower, flushed=min(follower.flushed, keep))
    after = append_durably(kept, leader.log[: keep + 1], opts)
    confirm = max(min(follower.confirm_offset, keep), min(leader.confirm_offset, after.leo))
    return evolve(after, confirm_offset=confirm, term=leader.term, role=SLAVE, local_master_id=leader.meta_file,
                  ha_state=HA_TRANSFER)


def dl_push(s: System, p: str, peer: str, opts: Options) -> tuple[System, frozendict]:
    """DlPush (spec/DLedger.tla): leader ``p`` pushes to ``peer``, which answers with the length of its log; a peer
    in a later term answers EXPIRED_TERM and the leader steps down to follow that term."""
    leader = require_process(s, p, REGISTERED)
    require(leader.role == MASTER, f"{p} is not a leader")
    follower = require_process(s, peer, REGISTERED)
    require(peer != p and _linked(s, p, peer), f"{p} cannot reach {peer}")
    if follower.term > leader.term:
        leader = evolve(leader, term=follower.term, role=SLAVE, local_master_id=NO_MASTER, acks=frozendict())
        return with_process(s, p, leader), frozendict(code=codes.EXPIRED_TERM, term=follower.term)
    after = _pushed(leader, follower, opts)
    acks = leader.acks.set(follower.meta_file, after.leo)
    require(after != follower or leader.acks.get(follower.meta_file) != after.leo, f"{peer} is in step with {p}")
    s = with_process(with_process(s, peer, after), p, evolve(leader, acks=acks))
    return _commit(s, p), frozendict(code=codes.SUCCESS, offset=after.leo)


def dl_restart(s: System, p: str) -> tuple[System, frozendict]:
    """DlRestart (spec/DLedger.tla): a down member starts as a follower of its term, no leader known."""
    proc = require_process(s, p, DOWN)
    proc = evolve(proc, reg_state=REGISTERED, role=SLAVE, local_master_id=NO_MASTER, ha_state=HA_NONE, acks=frozendict())
    return with_process(s, p, proc), OK
