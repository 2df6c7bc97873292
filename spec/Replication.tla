---------------------------- MODULE Replication ----------------------------
(***************************************************************************)
(* The data path (MODEL.md §5; reference/replication.py): producer writes, *)
(* the HA handshake with the truncation policy, transfer, acks, the        *)
(* master's syncStateSet expand/shrink with the controller's answer        *)
(* arriving later, flush and consumption.  One action per function of     *)
(* replication.py, with the same name; the action tags are those of        *)
(* reference/actions.py.                                                   *)
(*                                                                         *)
(* Layered as hachikuji's kafka-specification: one replication model, the  *)
(* truncation step swapped.  Each policy is one small operator in a module *)
(* of its own (TruncateRocketMQ, TruncateHW, TruncateKIP101,               *)
(* TruncateKIP279); the constant Policy selects it.  The confirmOffset and *)
(* producer-ack rules are in Acks.tla; the variables in State.tla; role    *)
(* changes and crashes in Broker.tla, so elections, syncStateSet changes   *)
(* and crashes interleave with every step here.                            *)
(***************************************************************************)
EXTENDS Broker, TruncateRocketMQ, TruncateHW, TruncateKIP101, TruncateKIP279

CONSTANTS
    \* A master refuses writes while its local syncStateSet is smaller.
    \* @type: Int;
    MinInSyncReplicas,
    \* TRUE: the log becomes durable only by Flush (a crash keeps the flushed
    \* prefix); FALSE: every append is durable at once.
    \* @type: Bool;
    AsyncFlush,
    \* Processes that replicate but never join the syncStateSet.
    \* @type: Set(Str);
    AsyncLearners,
    \* The replication design (Designs.tla): "controller" (RIP-44, every
    \* module but MasterSlave.tla and DLedger.tla), "masterslave" (RocketMQ
    \* 4.x master-slave HA) or "dledger" (DLedger mode).
    \* @type: Str;
    Design

\* The designs (reference/state.py DESIGNS).
CONTROLLER_MODE == "controller"
MASTER_SLAVE == "masterslave"
DLEDGER == "dledger"

IN_SYNC_REPLICAS_NOT_ENOUGH == "IN_SYNC_REPLICAS_NOT_ENOUGH"
NO_CONSISTENT_POINT == "NO_CONSISTENT_POINT"

\* The offset a slave keeps when it hand-shakes (-1: none, cannot sync).
\* @type: (Seq($entry), Int, Int, Seq($entry), Int) => Int;
TruncatePoint(local, leo, hw, remote, remoteLeo) ==
    CASE Policy = "rocketmq" -> TruncRocketMQ(local, leo, hw, remote, remoteLeo)
      [] Policy = "hw"       -> TruncHW(local, leo, hw, remote, remoteLeo)
      [] Policy = "kip101"   -> TruncKIP101(local, leo, hw, remote, remoteLeo, KafkaLeaderEpochOnElection)
      [] Policy = "kip279"   -> TruncKIP279(local, leo, hw, remote, remoteLeo, KafkaLeaderEpochOnElection)

\* f with key k set to v (added if absent).
\* @type: (Int -> Int, Int, Int) => (Int -> Int);
SetKey(f, k, v) == [b \in DOMAIN f \cup {k} |-> IF b = k THEN v ELSE f[b]]

\* A log append is durable at once unless AsyncFlush.
\* @type: (Str, Seq($entry)) => Bool;
AppendDurably(p, lg) ==
    /\ log' = [log EXCEPT ![p] = lg]
    /\ flushed' = IF AsyncFlush THEN flushed ELSE [flushed EXCEPT ![p] = Len(lg)]

\* @type: Str => Bool;
ActsAsMaster(p) == regState[p] = REGISTERED /\ role[p] = MASTER

\* _slave_link: p is a registered slave in HA state st, and q is the process
\* holding the id p follows, up, acting as master, in the SAME master epoch
\* (a master refuses a slave of another epoch; refinement of MODEL.md).
\* @type: (Str, Str, Str) => Bool;
SlaveLink(p, q, st) ==
    /\ regState[p] = REGISTERED /\ role[p] = SLAVE /\ haState[p] = st
    /\ localMasterId[p] # NoId /\ metaFile[q] = localMasterId[p]
    /\ ActsAsMaster(q)
    /\ localMasterEpoch[q] = localMasterEpoch[p]

\* The replication link between p and q is not cut (PartitionLink): while it
\* is, the slave's handshakes, transfers and acks wait (the controller's
\* traffic is not affected).
\* @type: (Str, Str) => Bool;
Linked(p, q) == {p, q} \notin partitions

\* An ack of slave p recomputes master q's confirmOffset only when p is in
\* q's LOCAL set (updateConfirmOffsetWhenSlaveAck).
\* @type: (Str, Str) => Str;
AckEvent(p, q) == IF metaFile[p] \in localSyncStateSet[q] THEN ACK_RECOMPUTE ELSE NO_RECOMPUTE

-----------------------------------------------------------------------------
(***************************************************************************)
(* Producer writes.                                                        *)
(***************************************************************************)

\* The master's epoch file after a write: unchanged for RocketMQ (the epoch
\* was filed by changeToMaster); Kafka's Log.append assigns the record's
\* epoch at its offset (LeaderEpochFileCache.assign).
\* @type: Str => Seq($entry);
WrittenEpochFile(p) ==
    IF Policy = "rocketmq" THEN epochFile[p]
    ELSE KafkaAssign(epochFile[p], localMasterEpoch[p], Len(log[p]), KafkaLeaderEpochOnElection)

\* A producer sends a new message to a master: refused with
\* IN_SYNC_REPLICAS_NOT_ENOUGH while InSyncCount is below MinInSyncReplicas
\* (no state change), else appended in the master's epoch; the producer acks
\* are recomputed (with a single-member set a write is acknowledged at
\* once), confirmOffset only as far as it is the LEO (no recompute event).  The Kafka policies assign the
\* record's epoch at its offset in the leader-epoch cache (Log.append).
Write(p) ==
    /\ ActsAsMaster(p)
    /\ IF InSyncCount(localSyncStateSet[p], pendingAlter[p]) < MinInSyncReplicas
       THEN /\ outcome' = Out(IN_SYNC_REPLICAS_NOT_ENOUGH)
            /\ UNCHANGED modelVars
       ELSE LET lg == Append(log[p], <<nextMsg, localMasterEpoch[p]>>) IN
            /\ AppendDurably(p, lg)
            /\ nextMsg' = nextMsg + 1
            /\ confirmOffset' = [confirmOffset EXCEPT ![p] =
                                   SettledConfirm(p, localSyncStateSet[p], pendingAlter[p], lg, acks[p], NO_RECOMPUTE)]
            /\ acked' = SettledAcked(p, localSyncStateSet[p], pendingAlter[p], lg, acks[p])
            /\ epochFile' = [epochFile EXCEPT ![p] = WrittenEpochFile(p)]
            /\ outcome' = [Out(SUCCESS) EXCEPT !.msg = nextMsg, !.offset = Len(log[p])]
            /\ UNCHANGED <<netVars, ctlVars, diskVars, procVars, envVars, ghostVars, dataProcVars, seen>>
    /\ action' = PAct("Write", p)

-----------------------------------------------------------------------------
(***************************************************************************)
(* HA: handshake, transfer, ack.                                           *)
(***************************************************************************)

\* The slave gets the master's epoch file and LEO and truncates its log and
\* epoch file to the policy's point (one atomic step: the exchange is a
\* request/response on one connection, and any change on either side
\* drops the connection); then TRANSFER, with the point as its first ack on
\* the master.  No point (`rocketmq` only): NO_CONSISTENT_POINT, the slave
\* stays READY (no state change) and may retry after the master changes.
Handshake(p) ==
    /\ \E q \in Processes :
        /\ SlaveLink(p, q, READY)
        /\ Linked(p, q)
        /\ \E point \in {TruncatePoint(epochFile[p], Len(log[p]), confirmOffset[p], epochFile[q], Len(log[q]))} :
           LET ak == SetKey(acks[q], metaFile[p], point) IN
           IF point < 0
           THEN /\ outcome' = [Out(NO_CONSISTENT_POINT) EXCEPT !.truncateOffset = -1]
                /\ UNCHANGED modelVars
           ELSE /\ log' = [log EXCEPT ![p] = SubSeq(log[p], 1, point)]
                /\ flushed' = [flushed EXCEPT ![p] = Min2(flushed[p], point)]
                /\ epochFile' = [epochFile EXCEPT ![p] = TruncateSuffix(epochFile[p], point)]
                /\ haState' = [haState EXCEPT ![p] = TRANSFER]
                /\ acks' = [acks EXCEPT ![q] = ak]
                /\ confirmOffset' = [confirmOffset EXCEPT
                       ![p] = Min2(confirmOffset[p], point),
                       ![q] = SettledConfirm(q, localSyncStateSet[q], pendingAlter[q], log[q], ak,
                                             AckEvent(p, q))]
                /\ acked' = SettledAcked(q, localSyncStateSet[q], pendingAlter[q], log[q], ak)
                /\ outcome' = [Out(OK) EXCEPT !.truncateOffset = point]
                /\ UNCHANGED <<netVars, ctlVars, diskVars, procVars, envVars, ghostVars, localMasterId,
                               localSyncStateSet, pendingAlter, nextMsg, seen>>
    /\ action' = PAct("Handshake", p)

\* The master q can send the message at offset `off` (`rocketmq`: its epoch
\* file has an entry containing `off`, findEpochEntryByOffset; without one
\* AutoSwitchHAConnection sends no data and retries).
\* @type: (Str, Int) => Bool;
CanTransferFrom(q, off) ==
    IF Policy = "rocketmq" THEN EntryAtOffset(epochFile[q], off) > 0 ELSE TRUE

\* The slave's epoch file after receiving the message at offset `off` from
\* master q: under `rocketmq` the packet header carries the master's entry
\* for `off` (epoch, epochStartOffset) and the slave appends it with the
\* strict rule, result ignored (AutoSwitchHAClient TRANSFER): the file is a
\* copy of the master's entries, not of the messages' (ghost) epochs.  Under
\* the Kafka policies the follower's Log.append assigns the record's epoch
\* at its offset (LeaderEpochFileCache.assign).
\* @type: (Str, Str, Int) => Seq($entry);
TransferEpochFile(p, q, off) ==
    IF Policy = "rocketmq"
    THEN LET me == epochFile[q][EntryAtOffset(epochFile[q], off)]
         IN EfAppend(epochFile[p], me[1], me[2])
    ELSE KafkaAssign(epochFile[p], log[q][off + 1][2], off, KafkaLeaderEpochOnElection)

\* The master sends the next message from the slave's offset (one message
\* per transfer, so a batch never crosses an epoch boundary), with the epoch
\* entry of TransferEpochFile; the slave's confirmOffset becomes min(the
\* master's, its own new LEO).
Transfer(p) ==
    /\ \E q \in Processes :
        /\ SlaveLink(p, q, TRANSFER)
        /\ Linked(p, q)
        /\ Len(log[p]) < Len(log[q])
        /\ CanTransferFrom(q, Len(log[p]))
        /\ LET e == log[q][Len(log[p]) + 1]
               lg == Append(log[p], e)
           IN
           /\ AppendDurably(p, lg)
           /\ epochFile' = [epochFile EXCEPT ![p] = TransferEpochFile(p, q, Len(log[p]))]
           /\ confirmOffset' = [confirmOffset EXCEPT ![p] = Min2(confirmOffset[q], Len(lg))]
    /\ action' = PAct("Transfer", p)
    /\ outcome' = Out(OK)
    /\ UNCHANGED <<netVars, ctlVars, diskVars, procVars, envVars, ghostVars, dataProcVars, msgVars>>

\* The slave reports its LEO (when the master's record differs); the master
\* records it, recomputes confirmOffset and acknowledges producers.
Ack(p) ==
    /\ \E q \in Processes :
        /\ SlaveLink(p, q, TRANSFER)
        /\ Linked(p, q)
        /\ ~(metaFile[p] \in DOMAIN acks[q] /\ acks[q][metaFile[p]] = Len(log[p]))
        /\ LET ak == SetKey(acks[q], metaFile[p], Len(log[p])) IN
           /\ acks' = [acks EXCEPT ![q] = ak]
           /\ confirmOffset' = [confirmOffset EXCEPT ![q] =
                                  SettledConfirm(q, localSyncStateSet[q], pendingAlter[q], log[q], ak, AckEvent(p, q))]
           /\ acked' = SettledAcked(q, localSyncStateSet[q], pendingAlter[q], log[q], ak)
    /\ action' = PAct("Ack", p)
    /\ outcome' = Out(OK)
    /\ UNCHANGED <<netVars, ctlVars, diskVars, procVars, envVars, ghostVars, log, flushed, epochFile,
                   localMasterId, localSyncStateSet, haState, pendingAlter, nextMsg, seen>>

-----------------------------------------------------------------------------
(***************************************************************************)
(* The master's syncStateSet changes: the request is applied by the        *)
(* controller at once, its answer reaches the master later (AlterArrives)  *)
(* or, lost, never; the local set changes only when a SUCCESS arrives.     *)
(* While the answer is on its way, acks count against local ∪ proposed     *)
(* set (UnionAckFix, RocketMQ #5663).  One alter in flight at a time.      *)
(***************************************************************************)

\* _propose: AlterSyncStateSet with the master's local epochs; the proposal
\* stays in flight either way: delivered, its answer arrives by AlterArrives;
\* lost, it stays counted (with the #5663 fix: the code keeps its
\* "synchronizing" set after a timeout) until replica info tells the master
\* the outcome (SyncReplicaInfo).  No recomputation here, as in the
\* reference: confirmOffset moves at the master's next settling step.
\* @type: (Str, Set(Int), Bool) => Bool;
Propose(p, newSet, lost) ==
    \E r \in {CtlAlterSyncStateSet(Ctl, metaFile[p], localMasterEpoch[p], newSet, localSyncStateSetEpoch[p])} :
    /\ SetCtl(r.ctl)
    /\ outcome' = r.out
    /\ pendingAlter' = [pendingAlter EXCEPT ![p] =
            [newSyncStateSet |-> newSet, code |-> r.out.code,
             syncStateSetEpoch |-> r.out.syncStateSetEpoch, delivered |-> ~lost]]
    /\ UNCHANGED <<netVars, diskVars, procVars, envVars, ghostVars, dataDiskVars, localMasterId,
                   localSyncStateSet, haState, acks, msgVars>>

\* A connected slave outside the set whose ack has reached both the master's
\* confirmOffset and the start of its current epoch joins the set; an async
\* learner never does.
Expand(p, b, lost) ==
    /\ ActsAsMaster(p)
    /\ pendingAlter[p] = NoPending
    /\ b \notin localSyncStateSet[p]
    /\ b \in DOMAIN acks[p]
    /\ acks[p][b] >= confirmOffset[p]
    /\ acks[p][b] >= LastStart(epochFile[p])
    /\ \A q \in Processes : metaFile[q] = b => q \notin AsyncLearners
    /\ Propose(p, localSyncStateSet[p] \cup {b}, lost)
    /\ action' = [PActLost("Expand", p, lost) EXCEPT !.brokerId = b]

\* A member that is disconnected or behind leaves the set
\* (haMaxTimeSlaveNotCatchup: time is abstract, any lagging member may go).
Shrink(p, b, lost) ==
    /\ ActsAsMaster(p)
    /\ pendingAlter[p] = NoPending
    /\ b \in localSyncStateSet[p]
    /\ b # metaFile[p]
    /\ (IF b \in DOMAIN acks[p] THEN acks[p][b] ELSE -1) < Len(log[p])
    /\ Propose(p, localSyncStateSet[p] \ {b}, lost)
    /\ action' = [PActLost("Shrink", p, lost) EXCEPT !.brokerId = b]

\* The controller's answer reaches the master; a SUCCESS becomes its local
\* set (and set epoch) unless the master already knows a newer set epoch
\* (replica info came first: changeSyncStateSet takes only a newer epoch, so
\* a late answer never rolls the set back); a master recomputes
\* confirmOffset (setSyncStateSet) and acks.
AlterArrives(p) ==
    /\ regState[p] = REGISTERED
    /\ pendingAlter[p] # NoPending
    /\ pendingAlter[p].delivered
    /\ LET pd == pendingAlter[p]
           \* a late answer never rolls the set back: only a newer set epoch is taken
           applied == pd.code = SUCCESS /\ role[p] = MASTER
                      /\ pd.syncStateSetEpoch > localSyncStateSetEpoch[p]
           lss == IF applied THEN pd.newSyncStateSet ELSE localSyncStateSet[p]
       IN
       /\ localSyncStateSet' = [localSyncStateSet EXCEPT ![p] = lss]
       /\ localSyncStateSetEpoch' = IF applied
                                    THEN [localSyncStateSetEpoch EXCEPT ![p] = pd.syncStateSetEpoch]
                                    ELSE localSyncStateSetEpoch
       /\ pendingAlter' = [pendingAlter EXCEPT ![p] = NoPending]
       /\ IF role[p] = MASTER
          THEN /\ confirmOffset' = [confirmOffset EXCEPT ![p] =
                                      SettledConfirm(p, lss, NoPending, log[p], acks[p],
                                                     IF applied THEN SET_RECOMPUTE ELSE NO_RECOMPUTE)]
               /\ acked' = SettledAcked(p, lss, NoPending, log[p], acks[p])
          ELSE UNCHANGED <<confirmOffset, acked>>
       /\ outcome' = Out(pd.code)
    /\ action' = PAct("AlterArrives", p)
    /\ UNCHANGED <<netVars, ctlVars, diskVars, regState, addr, role, localMasterEpoch, envVars, ghostVars,
                   log, flushed, epochFile, localMasterId, haState, acks, nextMsg, seen>>

-----------------------------------------------------------------------------
(***************************************************************************)
(* Flush and consumption.                                                  *)
(***************************************************************************)

\* The whole log becomes durable (does something only with AsyncFlush).
Flush(p) ==
    /\ regState[p] # DOWN
    /\ flushed[p] < Len(log[p])
    /\ flushed' = [flushed EXCEPT ![p] = Len(log[p])]
    /\ action' = PAct("Flush", p)
    /\ outcome' = Out(OK)
    /\ UNCHANGED <<netVars, ctlVars, diskVars, procVars, envVars, ghostVars, log, epochFile, confirmOffset,
                   dataProcVars, msgVars>>

\* How much of its log process p shows consumers: below its confirmOffset;
\* in 4.x the whole log (the ReputMessageService dispatches every message it
\* stores, without waiting for a slave).
\* @type: Str => Int;
Visible(p) == IF Design = MASTER_SLAVE THEN Len(log[p]) ELSE confirmOffset[p]

\* A consumer reads what a process with a role shows, the messages below
\* Visible(p) (enabled only when that shows something not yet seen).
Consume(p) ==
    /\ regState[p] = REGISTERED
    /\ role[p] # NONE
    /\ LET visible == MsgsBelow(log[p], Visible(p)) IN
       /\ ~(visible \subseteq seen)
       /\ seen' = seen \cup visible
    /\ action' = PAct("Consume", p)
    /\ outcome' = Out(OK)
    /\ UNCHANGED <<netVars, ctlVars, diskVars, procVars, envVars, ghostVars, dataDiskVars, dataProcVars, nextMsg, acked>>

=============================================================================
