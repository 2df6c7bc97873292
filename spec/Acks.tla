-------------------------------- MODULE Acks --------------------------------
(***************************************************************************)
(* What a master counts as in sync (MODEL.md §5; reference/acks.py): its   *)
(* confirmOffset and the messages acknowledged to producers, as pure       *)
(* operators over the master's own fields, evaluated after every step of  *)
(* a master that can move them (SettledConfirm/SettledAcked in Broker.tla) *)
(* with the event that RocketMQ recomputes confirmOffset on.              *)
(***************************************************************************)
EXTENDS EpochFile

CONSTANTS
    \* The truncation policy: "rocketmq", "hw", "kip101" or "kip279"; it also
    \* selects the epoch-file rules of a new master and of a transfer (the
    \* RocketMQ code's, or Kafka's leader-epoch cache).
    \* @type: Str;
    Policy,
    \* acks=all: a message is acknowledged (and confirmOffset moves) only when
    \* every member of the syncStateSet has it.  FALSE: InSyncReplicas copies.
    \* @type: Bool;
    AllAckInSyncStateSet,
    \* Copies (the master's included) a producer waits for without AllAckInSyncStateSet.
    \* @type: Int;
    InSyncReplicas,
    \* RocketMQ #5663 fix: while an alter is in flight, count acks against the
    \* local set united with the proposed one.
    \* @type: Bool;
    UnionAckFix,
    \* RocketMQ #6662 fix: freeze confirmOffset while a counted member has no
    \* connection (without it, a disconnected member is skipped).
    \* @type: Bool;
    ConfirmFreezeFix,
    \* A hypothetical fix, not in RocketMQ (FALSE = the code at the snapshot):
    \* getConfirmOffset's shortcut for a one-member set (the LEO) looks at the
    \* counted set (local united with an alter in flight, CountedSet) instead
    \* of the local set alone (CommitLog.getConfirmOffset:
    \* getLocalSyncStateSet().size() == 1).  See spec/README.md, "confirmOffset
    \* while an Expand is in flight".
    \* @type: Bool;
    ConfirmShortcutFix,
    \* A hypothetical fix, not in RocketMQ (FALSE = the code at the snapshot):
    \* computeConfirmOffset counts a connected member's ack of 0 too (the code
    \* skips acks not above 0, `getSlaveAckOffset() > 0`, which also skips an
    \* empty slave that has reported).  See spec/README.md.
    \* @type: Bool;
    ConfirmZeroAckFix,
    \* Hypothetical (FALSE = RocketMQ at the snapshot): changeToMaster(E) on a
    \* file whose last epoch is E keeps that entry (truncateSuffixByEpoch(E + 1))
    \* instead of moving its start to the LEO.  The code's re-entry lets a
    \* deposed master's unacknowledged suffix survive its handshake, so the
    \* logs diverge (LogMatching).  See spec/README.md, "Epoch re-entry finding".
    \* (Used by Broker.tla's NewMasterEpochFile.)
    \* @type: Bool;
    EpochReentryFix

Policies == {"rocketmq", "hw", "kip101", "kip279"}

\* A master's AlterSyncStateSet whose outcome it does not know yet (reference
\* PendingAlter); `delivered`: the answer is on its way (AlterArrives);
\* otherwise it was lost and the master learns the outcome only from the
\* controller's replica info (SyncReplicaInfo).  NoPending = none
\* (variables.py NO_PENDING).
\* @typeAlias: pending = {newSyncStateSet: Set(Int), code: Str, syncStateSetEpoch: Int, delivered: Bool};
Acks_typedefs == TRUE

\* @type: $pending;
NoPending == [newSyncStateSet |-> {}, code |-> "", syncStateSetEpoch |-> -1, delivered |-> FALSE]

\* The members whose acks count: the local syncStateSet, united with the set
\* of an alter still in flight when the #5663 fix is on.
\* @type: (Set(Int), $pending) => Set(Int);
CountedSet(lss, pending) ==
    IF UnionAckFix /\ pending # NoPending THEN lss \cup pending.newSyncStateSet ELSE lss

\* The least of the LEO and the acks of `members` that have one.
\* @type: (Int, Int -> Int, Set(Int)) => Int;
MinAck(leo, acks, members) ==
    LET vals == {leo} \cup {acks[b] : b \in members \cap DOMAIN acks}
    IN CHOOSE v \in vals : \A w \in vals : v <= w

\* The event of a master step, for confirmOffset: nothing that recomputes it;
\* an ack from a slave in the master's LOCAL set (AckEvent,
\* updateConfirmOffsetWhenSlaveAck); setSyncStateSet or changeToMaster.
NO_RECOMPUTE == "none"
ACK_RECOMPUTE == "ack"
SET_RECOMPUTE == "set"

\* What a write is checked against MinInSyncReplicas with: `rocketmq`:
\* inSyncReplicasNums, max(|local|, |proposed|) while an alter is in flight
\* (with the #5663 fix); otherwise the local set's size.
\* @type: (Set(Int), $pending) => Int;
InSyncCount(lss, pending) ==
    IF Policy = "rocketmq" /\ UnionAckFix /\ pending # NoPending
    THEN LET a == Cardinality(lss)
             b == Cardinality(pending.newSyncStateSet)
         IN IF a >= b THEN a ELSE b
    ELSE Cardinality(lss)

\* AutoSwitchHAService.computeConfirmOffset: with the #6662 fix, the stored
\* `co` while a counted member other than the master has no connection,
\* else the least of the LEO and the counted members' acks above 0 (all of
\* them with the hypothetical ConfirmZeroAckFix); without
\* it (5.1.0) the least of the LEO and every connected counted member's ack,
\* 0 included.
\* @type: (Int, Set(Int), $pending, Int, Int -> Int, Int) => Int;
ComputeConfirm(self, lss, pending, leo, acks, co) ==
    LET members == CountedSet(lss, pending) \ {self} IN
    IF ConfirmFreezeFix
    THEN IF \E b \in members : b \notin DOMAIN acks THEN co
         ELSE MinAck(leo, acks, {b \in members : ConfirmZeroAckFix \/ acks[b] > 0})
    ELSE MinAck(leo, acks, members)

\* confirmOffset of a master with id `self`, syncStateSet `lss`, alter in
\* flight `pending`, LEO `leo`, slave acks `acks`, current confirmOffset `co`
\* and event `rc`.  `rocketmq`: CommitLog.getConfirmOffset(): the LEO when
\* the LOCAL set (ConfirmShortcutFix: the counted set) has one member or
\* AllAckInSyncStateSet is off; otherwise the
\* stored value, recomputed (ComputeConfirm) on an ack and, with the #6662
\* fix, on setSyncStateSet and changeToMaster.  The Kafka policies: the least
\* ack of the counted members at every step, frozen at min(co, LEO) while a
\* member has no connection (#6662 fix), else skipping it.
\* @type: (Int, Set(Int), $pending, Int, Int -> Int, Int, Str) => Int;
MasterConfirm(self, lss, pending, leo, acks, co, rc) ==
    IF Policy = "rocketmq"
    THEN IF ~AllAckInSyncStateSet
            \/ Cardinality(IF ConfirmShortcutFix THEN CountedSet(lss, pending) ELSE lss) = 1
         THEN leo
         ELSE IF rc = ACK_RECOMPUTE \/ (rc = SET_RECOMPUTE /\ ConfirmFreezeFix)
         THEN ComputeConfirm(self, lss, pending, leo, acks, co)
         ELSE co
    ELSE LET members == CountedSet(lss, pending) \ {self} IN
         IF ~AllAckInSyncStateSet \/ members = {} THEN leo
         ELSE IF ConfirmFreezeFix /\ \E b \in members : b \notin DOMAIN acks THEN Min2(co, leo)
         ELSE MinAck(leo, acks, members)

\* How many messages of the master's log a producer has been acknowledged
\* for: with AllAckInSyncStateSet, every counted member holds them (0 while
\* one has no connection); otherwise InSyncReplicas copies exist, the
\* master's included: the (InSyncReplicas-1)-th largest slave ack, counted
\* with multiplicity (reference: sorted(acks.values())[need - 1]).
\* @type: (Int, Set(Int), $pending, Int, Int -> Int) => Int;
AckedUpTo(self, lss, pending, leo, acks) ==
    IF AllAckInSyncStateSet
    THEN LET members == CountedSet(lss, pending) \ {self} IN
         IF \E b \in members : b \notin DOMAIN acks THEN 0 ELSE MinAck(leo, acks, members)
    ELSE LET need == InSyncReplicas - 1
             \* values v with at least `need` acks >= v; the largest is the need-th largest ack
             reached == {acks[b] : b \in {c \in DOMAIN acks :
                             Cardinality({d \in DOMAIN acks : acks[d] >= acks[c]}) >= need}}
         IN IF need <= 0 THEN leo
            ELSE IF Cardinality(DOMAIN acks) < need THEN 0
            ELSE Min2(leo, MaxOf(reached))

=============================================================================
