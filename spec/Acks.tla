-------------------------------- MODULE Acks --------------------------------
(***************************************************************************)
(* What a master counts as in sync (MODEL.md §5; reference/acks.py): its   *)
(* confirmOffset and the messages acknowledged to producers, as pure       *)
(* operators over the master's own fields.  Both are recomputed after      *)
(* every step of a master that can move them (SettleMaster in Broker.tla), *)
(* never stored apart from confirmOffset and the ghost `acked`.           *)
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
    ConfirmFreezeFix

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

\* confirmOffset of a master with id `self`, syncStateSet `lss`, alter in
\* flight `pending`, LEO `leo`, slave acks `acks` and current confirmOffset
\* `co`: with AllAckInSyncStateSet and another counted member, the least ack
\* of the members (its own LEO for itself); frozen at min(co, LEO) while a
\* member has no connection (#6662 fix); otherwise the LEO.
\* @type: (Int, Set(Int), $pending, Int, Int -> Int, Int) => Int;
MasterConfirm(self, lss, pending, leo, acks, co) ==
    LET members == CountedSet(lss, pending) \ {self} IN
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
