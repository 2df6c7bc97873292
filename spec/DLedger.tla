------------------------------ MODULE DLedger ------------------------------
(***************************************************************************)
(* DLedger mode, one of the designs RIP-44 replaced (Designs.tla),         *)
(* abstracted at the level of Raft's guarantees rather than DLedger's      *)
(* code: one action per function of reference/dledger.py, with the same   *)
(* name.  The broker set's processes form one Raft group; a log entry      *)
(* carries the term it was written in (<<msg, term>>); term is each        *)
(* member's currentTerm (on disk), role MASTER for a leader and SLAVE for  *)
(* a follower, confirmOffset its commit index and, on a leader, acks the   *)
(* entries each follower is known to match.                                *)
(*                                                                         *)
(* Differs from Raft's message-level protocol (and DLedger's               *)
(* DLedgerLeaderElector, DLedgerEntryPusher, QuorumAckChecker): an         *)
(* election is one step (a candidate with the votes of a majority, each    *)
(* voter's log no more up to date than the candidate's by last term and    *)
(* length, becomes leader of a term above every voter's); a push is one    *)
(* step (the follower keeps the longest prefix it shares with the leader,  *)
(* takes the next entry, and answers with its length); the leader commits  *)
(* an index once a majority holds it and its entry is of the leader's     *)
(* term (entries of older terms commit with it: Raft's commit rule).      *)
(***************************************************************************)
EXTENDS Faults

EXPIRED_TERM == "EXPIRED_TERM"

\* A majority of the group.
\* @type: Int => Bool;
Majority(count) == 2 * count > Cardinality(Processes)

\* Raft's up-to-date order: log a is no more up to date than log b (by last
\* term, then length).
\* @type: (Seq($entry), Seq($entry)) => Bool;
NoMoreUpToDate(a, b) ==
    LET ta == IF a = <<>> THEN 0 ELSE a[Len(a)][2]
        tb == IF b = <<>> THEN 0 ELSE b[Len(b)][2]
    IN ta < tb \/ (ta = tb /\ Len(a) <= Len(b))

\* p reaches q (itself, or over an uncut link).
\* @type: (Str, Str) => Bool;
DlLinked(p, q) == p = q \/ Linked(p, q)

\* _commit: the commit index of a leader of term t with log lg, commit index
\* co and acks ak: the largest index a majority holds whose entry is of
\* term t, else co.
\* @type: (Seq($entry), Int, Int -> Int, Int) => Int;
DlCommit(lg, co, ak, t) ==
    LET ns == {n \in (co + 1)..Len(lg) :
                  /\ Majority(1 + Cardinality({b \in DOMAIN ak : ak[b] >= n}))
                  /\ lg[n][2] = t}
    IN IF ns = {} THEN co ELSE MaxOf(ns)

\* The ghost acked after the leader's commit index moved from co to n: the
\* messages below n are acknowledged.
\* @type: (Seq($entry), Int, Int) => Set(Int);
DlAcked(lg, co, n) == IF n > co THEN acked \cup MsgsBelow(lg, n) ELSE acked

\* _pushed: how many entries a follower with log f keeps of a leader's log
\* l: the longest prefix they share.
\* @type: (Seq($entry), Seq($entry)) => Int;
DlKeep(f, l) == MaxOf({k \in 0..Min2(Len(f), Len(l)) : \A i \in 1..k : f[i] = l[i]})

-----------------------------------------------------------------------------

\* p, seeing no leader of its term or a later one, wins the votes of every
\* running member it reaches whose log is no more up to date than its own;
\* with a majority it leads a term above each voter's, and the voters follow
\* that term (a deposed leader among them steps down).
DlElect(p) ==
    /\ regState[p] = REGISTERED
    /\ role[p] # MASTER
    /\ ~\E q \in Processes \ {p} :
          regState[q] = REGISTERED /\ role[q] = MASTER /\ term[q] >= term[p] /\ DlLinked(p, q)
    /\ LET voters == {q \in Processes : regState[q] = REGISTERED /\ DlLinked(p, q) /\ NoMoreUpToDate(log[q], log[p])}
           t == 1 + MaxOf({term[q] : q \in voters})
           n == DlCommit(log[p], confirmOffset[p], NoAcks, t)
       IN
       /\ Majority(Cardinality(voters))
       /\ term' = [q \in Processes |-> IF q \in voters THEN t ELSE term[q]]
       /\ role' = [q \in Processes |-> IF q = p THEN MASTER ELSE IF q \in voters THEN SLAVE ELSE role[q]]
       /\ localMasterId' = [q \in Processes |-> IF q = p THEN metaFile[p]
                                                ELSE IF q \in voters THEN NoMaster ELSE localMasterId[q]]
       /\ haState' = [q \in Processes |-> IF q \in voters THEN HA_NONE ELSE haState[q]]
       /\ acks' = [q \in Processes |-> IF q \in voters THEN NoAcks ELSE acks[q]]
       /\ masterHistory' = masterHistory \cup {<<t, p>>}
       /\ confirmOffset' = [confirmOffset EXCEPT ![p] = n]
       /\ acked' = DlAcked(log[p], confirmOffset[p], n)
       /\ outcome' = [Out(OK) EXCEPT !.term = t]
    /\ action' = PAct("DlElect", p)
    /\ UNCHANGED <<netVars, ctlVars, metaFile, tempFile, brokerRole, regState, addr, localMasterEpoch,
                   localSyncStateSetEpoch, envVars, log, flushed, epochFile, localSyncStateSet, pendingAlter,
                   nextMsg, seen>>

\* The leader appends the message in its term; it is acknowledged when it
\* commits.
DlWrite(p) ==
    /\ regState[p] = REGISTERED
    /\ role[p] = MASTER
    /\ LET lg == Append(log[p], <<nextMsg, term[p]>>)
           n == DlCommit(lg, confirmOffset[p], acks[p], term[p])
       IN
       /\ AppendDurably(p, lg)
       /\ confirmOffset' = [confirmOffset EXCEPT ![p] = n]
       /\ acked' = DlAcked(lg, confirmOffset[p], n)
    /\ nextMsg' = nextMsg + 1
    /\ action' = PAct("DlWrite", p)
    /\ outcome' = [Out(SUCCESS) EXCEPT !.msg = nextMsg, !.offset = Len(log[p])]
    /\ UNCHANGED <<netVars, ctlVars, diskVars, procVars, envVars, ghostVars, epochFile, dataProcVars, seen>>

\* Leader p pushes to peer, which keeps the longest prefix it shares with
\* p's log, takes p's next entry and p's commit index as far as its log
\* goes, follows p in p's term and answers with its length (enabled when that
\* changes the peer or p's record of it); a peer in a later term answers
\* EXPIRED_TERM and p steps down to follow that term.
DlPush(p, peer) ==
    /\ regState[p] = REGISTERED
    /\ role[p] = MASTER
    /\ regState[peer] = REGISTERED
    /\ peer # p
    /\ Linked(p, peer)
    /\ IF term[peer] > term[p]
       THEN /\ term' = [term EXCEPT ![p] = term[peer]]
            /\ role' = [role EXCEPT ![p] = SLAVE]
            /\ localMasterId' = [localMasterId EXCEPT ![p] = NoMaster]
            /\ acks' = [acks EXCEPT ![p] = NoAcks]
            /\ outcome' = [Out(EXPIRED_TERM) EXCEPT !.term = term[peer]]
            /\ UNCHANGED <<log, flushed, confirmOffset, haState, acked>>
       ELSE LET keep == DlKeep(log[peer], log[p])
                lg == SubSeq(log[p], 1, Min2(keep + 1, Len(log[p])))
                fl == IF AsyncFlush THEN Min2(flushed[peer], keep) ELSE Len(lg)
                low == Min2(confirmOffset[peer], keep)
                high == Min2(confirmOffset[p], Len(lg))
                co == IF low >= high THEN low ELSE high
                ak == SetKey(acks[p], metaFile[peer], Len(lg))
                n == DlCommit(log[p], confirmOffset[p], ak, term[p])
            IN
            /\ \/ lg # log[peer] \/ fl # flushed[peer] \/ co # confirmOffset[peer] \/ term[p] # term[peer]
               \/ role[peer] # SLAVE \/ localMasterId[peer] # metaFile[p] \/ haState[peer] # TRANSFER
               \/ ~(metaFile[peer] \in DOMAIN acks[p] /\ acks[p][metaFile[peer]] = Len(lg))
            /\ log' = [log EXCEPT ![peer] = lg]
            /\ flushed' = [flushed EXCEPT ![peer] = fl]
            /\ confirmOffset' = [confirmOffset EXCEPT ![peer] = co, ![p] = n]
            /\ term' = [term EXCEPT ![peer] = term[p]]
            /\ role' = [role EXCEPT ![peer] = SLAVE]
            /\ localMasterId' = [localMasterId EXCEPT ![peer] = metaFile[p]]
            /\ haState' = [haState EXCEPT ![peer] = TRANSFER]
            /\ acks' = [acks EXCEPT ![p] = ak]
            /\ acked' = DlAcked(log[p], confirmOffset[p], n)
            /\ outcome' = [Out(SUCCESS) EXCEPT !.offset = Len(lg)]
    /\ action' = [PAct("DlPush", p) EXCEPT !.peer = peer]
    /\ UNCHANGED <<netVars, ctlVars, metaFile, tempFile, brokerRole, regState, addr, localMasterEpoch,
                   localSyncStateSetEpoch, envVars, ghostVars, epochFile, localSyncStateSet, pendingAlter,
                   nextMsg, seen>>

\* A down member starts as a follower of its term, no leader known (a
\* restart is not fair: a down process may stay down).
DlRestart(p) ==
    /\ regState[p] = DOWN
    /\ regState' = [regState EXCEPT ![p] = REGISTERED]
    /\ role' = [role EXCEPT ![p] = SLAVE]
    /\ localMasterId' = [localMasterId EXCEPT ![p] = NoMaster]
    /\ haState' = [haState EXCEPT ![p] = HA_NONE]
    /\ acks' = [acks EXCEPT ![p] = NoAcks]
    /\ action' = PAct("DlRestart", p)
    /\ outcome' = Out(OK)
    /\ UNCHANGED <<netVars, ctlVars, diskVars, addr, localMasterEpoch, localSyncStateSetEpoch, envVars, ghostVars,
                   dataDiskVars, localSyncStateSet, pendingAlter, msgVars>>

=============================================================================
