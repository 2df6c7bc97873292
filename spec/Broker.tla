------------------------------- MODULE Broker -------------------------------
(***************************************************************************)
(* The broker processes of one broker set (MODEL.md §4): one action per    *)
(* step a process takes, over the variables of State.tla.  Mirrors         *)
(* reference/broker.py function for function; the action names are the    *)
(* trace tags of reference/actions.py.                                     *)
(*                                                                         *)
(* Registration runs                                                       *)
(*   INITIAL -> TEMP_DONE -> ID_APPLIED -> META_WRITTEN -> META_DONE       *)
(*           -> REGISTERED                                                 *)
(* with the failure arrow TEMP_DONE -> APPLY_FAILED -> INITIAL, one arrow  *)
(* per action so that a Crash can fall between any two (the code writes    *)
(* the meta file and deletes the temp file in two steps, and deletes the   *)
(* temp file after a failed apply in a step of its own).                   *)
(*                                                                         *)
(* A request's result is bound by \E r \in {Ctl...(...)} rather than LET:  *)
(* the same value, but TLC evaluates it once also where it evaluates       *)
(* ENABLED and the fairness conditions' actions (Liveness.tla), which      *)
(* re-evaluate a LET at each use (measured: over ten times slower).        *)
(*                                                                         *)
(* A step that calls the controller applies the request atomically on the *)
(* controller (Controller.tla); with `lost` the response never reaches the *)
(* process, which then behaves as on a timeout.                            *)
(*                                                                         *)
(* A role change and a crash act on the data path's variables too          *)
(* (MODEL.md §4-§5): changeToMaster appends to the epoch file, every role  *)
(* change and crash drops HA connections, a crash keeps only the flushed   *)
(* prefix of the log.  The data path's own actions are in Replication.tla. *)
(***************************************************************************)
EXTENDS State

CONSTANTS
    \* (Policy, the truncation policy, is declared in Acks.tla.)
    \* Kafka policies: Kafka 2.1.0's leader-epoch cache (KAFKA-7415, commit
    \* f2dd6aa): a new leader assigns (epoch, LEO) in Partition.makeLeader,
    \* assign removes conflicting entries, endOffsetFor answers a request
    \* below the first epoch (EpochFile.tla).  FALSE: 0.11.0.0 / 2.0.0.
    \* @type: Bool;
    KafkaLeaderEpochOnElection,
    \* startBasicService retried after a failed ApplyBrokerId (ReplicasManager):
    \* FALSE (a liveness control, Options.register_retry) disables
    \* AbandonTempFile, so a broker whose apply failed stays APPLY_FAILED.
    \* @type: Bool;
    RegisterRetry

-----------------------------------------------------------------------------
(***************************************************************************)
(* Helpers of the process actions.                                         *)
(***************************************************************************)

\* @type: (Int -> Int, Int) => (Int -> Int);
Forget(f, k) == [b \in DOMAIN f \ {k} |-> f[b]]

\* _drop_connections_to(id): the HA connections of broker `id` break (it
\* crashed or changed role): its TRANSFER slaves go back to READY and the
\* masters forget its ack.  Two operators, one per variable.
\* @type: Int => (Str -> Str);
DroppedHa(id) ==
    [q \in Processes |-> IF id # NoId /\ haState[q] = TRANSFER /\ localMasterId[q] = id
                         THEN READY ELSE haState[q]]

\* @type: Int => (Str -> (Int -> Int));
DroppedAcks(id) ==
    [q \in Processes |-> IF /\ id # NoId
                            /\ ~(haState[q] = TRANSFER /\ localMasterId[q] = id)
                            /\ id \in DOMAIN acks[q]
                         THEN Forget(acks[q], id) ELSE acks[q]]

\* settle_master: after a step of master p that gave it syncStateSet `lss`,
\* alter in flight `pend`, log `lg` and acks `ak`, with event `rc`: its new
\* confirmOffset, and the ghost `acked` with the messages now acknowledged
\* (Acks.tla).
\* @type: (Str, Set(Int), $pending, Seq($entry), Int -> Int, Str) => Int;
SettledConfirm(p, lss, pend, lg, ak, rc) ==
    MasterConfirm(metaFile[p], lss, pend, Len(lg), ak, confirmOffset[p], rc)

\* @type: (Str, Set(Int), $pending, Seq($entry), Int -> Int) => Set(Int);
SettledAcked(p, lss, pend, lg, ak) ==
    acked \cup MsgsBelow(lg, AckedUpTo(metaFile[p], lss, pend, Len(lg), ak))

\* The epoch file of a process that becomes master in `epoch` with LEO `leo`:
\* under `rocketmq` AutoSwitchHAService.changeToMaster (EfChangeToMaster:
\* refused below the last epoch, else the suffix from `epoch` is dropped and
\* <<epoch, LEO>> appended; ReplicasManager.changeToMaster ignores a refusal:
\* the process becomes master all the same).  Kafka's Partition.makeLeader
\* assigns (epoch, LEO) only from 2.1.0 (KAFKA-7415, the option
\* KafkaLeaderEpochOnElection); before, the leader files nothing.
\* @type: (Seq($entry), Int, Int) => Seq($entry);
NewMasterEpochFile(ef, epoch, leo) ==
    IF Policy = "rocketmq" THEN EfChangeToMaster(ef, epoch, leo, EpochReentryFix)
    ELSE IF KafkaLeaderEpochOnElection THEN KafkaAssign(ef, epoch, leo, TRUE)
    ELSE ef

\* changeToMaster / changeToSlave from a controller answer, only for a master
\* epoch greater than the local one (role changes are fenced by epoch).
\* Either way the process follows the named master, forgets its acks and
\* its alter in flight, and its own HA connections break (DroppedHa/Acks).
\* changeToMaster updates the epoch file (NewMasterEpochFile), adopts the
\* answer's syncStateSet, recomputes confirmOffset and acks, and records
\* <<epoch, p>> in the ghost history.  changeToSlave leaves the slave READY
\* to hand-shake with the new master.
\* @type: (Str, $outcome) => Bool;
AdoptEnabled(p, o) == o.masterId # NoMaster /\ o.masterEpoch > localMasterEpoch[p]

\* @type: (Str, $outcome) => Bool;
AdoptRole(p, o) ==
    IF AdoptEnabled(p, o)
    THEN LET isMaster == o.masterId = BrokerIdOf(p)
             lss == IF isMaster THEN o.syncStateSet ELSE {}
         IN
         /\ role' = [role EXCEPT ![p] = IF isMaster THEN MASTER ELSE SLAVE]
         /\ localMasterEpoch' = [localMasterEpoch EXCEPT ![p] = o.masterEpoch]
         /\ localSyncStateSetEpoch' = [localSyncStateSetEpoch EXCEPT ![p] = o.syncStateSetEpoch]
         /\ localMasterId' = [localMasterId EXCEPT ![p] = o.masterId]
         /\ localSyncStateSet' = [localSyncStateSet EXCEPT ![p] = lss]
         /\ pendingAlter' = [pendingAlter EXCEPT ![p] = NoPending]
         /\ acks' = [DroppedAcks(metaFile[p]) EXCEPT ![p] = NoAcks]
         /\ haState' = [DroppedHa(metaFile[p]) EXCEPT ![p] = IF isMaster THEN HA_NONE ELSE READY]
         /\ IF isMaster
            THEN /\ epochFile' = [epochFile EXCEPT ![p] = NewMasterEpochFile(epochFile[p], o.masterEpoch, Len(log[p]))]
                 /\ confirmOffset' = [confirmOffset EXCEPT ![p] = SettledConfirm(p, lss, NoPending, log[p], NoAcks, SET_RECOMPUTE)]
                 /\ acked' = SettledAcked(p, lss, NoPending, log[p], NoAcks)
                 /\ masterHistory' = masterHistory \cup {<<o.masterEpoch, p>>}
            ELSE UNCHANGED <<epochFile, confirmOffset, acked, masterHistory>>
    ELSE UNCHANGED roleVars

-----------------------------------------------------------------------------
(***************************************************************************)
(* Registration.                                                           *)
(***************************************************************************)

\* A meta file on disk wins: registration goes straight to META_DONE with its id.
LoadMetaFile(p) ==
    /\ regState[p] = INITIAL
    /\ metaFile[p] # NoId
    /\ regState' = [regState EXCEPT ![p] = META_DONE]
    /\ action' = PAct("LoadMetaFile", p)
    /\ outcome' = Out(OK)
    /\ UNCHANGED <<netVars, ctlVars, diskVars, addr, role, localMasterEpoch, localSyncStateSetEpoch, envVars, ghostVars, dataVars>>

\* No meta file but a temp file: resume with its (id, checkCode).
LoadTempFile(p) ==
    /\ regState[p] = INITIAL
    /\ metaFile[p] = NoId
    /\ tempFile[p] # NoTempFile
    /\ regState' = [regState EXCEPT ![p] = TEMP_DONE]
    /\ action' = PAct("LoadTempFile", p)
    /\ outcome' = Out(OK)
    /\ UNCHANGED <<netVars, ctlVars, diskVars, addr, role, localMasterEpoch, localSyncStateSetEpoch, envVars, ghostVars, dataVars>>

\* GetNextBrokerId, then write the temp file with a fresh "addr;timestamp"
\* checkCode.  Nothing is reserved: two processes may write the same id.
CreateTempFile(p) ==
    /\ regState[p] = INITIAL
    /\ metaFile[p] = NoId
    /\ tempFile[p] = NoTempFile
    /\ \E r \in {CtlGetNextBrokerId(Ctl)} :
       /\ tempFile' = [tempFile EXCEPT ![p] = [brokerId |-> r.out.nextBrokerId,
                                               checkCode |-> [addr |-> addr[p], ts |-> clock]]]
       /\ outcome' = r.out
    /\ regState' = [regState EXCEPT ![p] = TEMP_DONE]
    /\ clock' = clock + 1
    /\ action' = PAct("CreateTempFile", p)
    /\ UNCHANGED <<netVars, ctlVars, metaFile, designVars, addr, role, localMasterEpoch, localSyncStateSetEpoch,
                   masterHistory, dataVars>>

\* ApplyBrokerId(temp id, checkCode).  SUCCESS heard -> ID_APPLIED; a refusal
\* or a lost response -> APPLY_FAILED (the temp file is deleted next), even
\* though the controller may have bound the id: that id is then orphaned.
SendApplyBrokerId(p, lost) ==
    /\ regState[p] = TEMP_DONE
    /\ \E r \in {CtlApplyBrokerId(Ctl, tempFile[p].brokerId, tempFile[p].checkCode)} :
       /\ SetCtl(r.ctl)
       /\ regState' = [regState EXCEPT ![p] = IF r.out.code = SUCCESS /\ ~lost
                                              THEN ID_APPLIED ELSE APPLY_FAILED]
       /\ outcome' = r.out
    /\ action' = PActLost("SendApplyBrokerId", p, lost)
    /\ UNCHANGED <<netVars, diskVars, addr, role, localMasterEpoch, localSyncStateSetEpoch, envVars, ghostVars, dataVars>>

\* After a failed apply, delete the temp file and start again from INITIAL
\* (only with RegisterRetry).
AbandonTempFile(p) ==
    /\ RegisterRetry
    /\ regState[p] = APPLY_FAILED
    /\ tempFile' = [tempFile EXCEPT ![p] = NoTempFile]
    /\ regState' = [regState EXCEPT ![p] = INITIAL]
    /\ action' = PAct("AbandonTempFile", p)
    /\ outcome' = Out(OK)
    /\ UNCHANGED <<netVars, ctlVars, metaFile, designVars, addr, role, localMasterEpoch, localSyncStateSetEpoch,
                   envVars, ghostVars, dataVars>>

\* Persist the applied id in the meta file (the temp file is still there).
WriteMetaFile(p) ==
    /\ regState[p] = ID_APPLIED
    /\ metaFile' = [metaFile EXCEPT ![p] = tempFile[p].brokerId]
    /\ regState' = [regState EXCEPT ![p] = META_WRITTEN]
    /\ action' = PAct("WriteMetaFile", p)
    /\ outcome' = Out(OK)
    /\ UNCHANGED <<netVars, ctlVars, tempFile, designVars, addr, role, localMasterEpoch, localSyncStateSetEpoch,
                   envVars, ghostVars, dataVars>>

\* The meta file is written; drop the temp file.
DeleteTempFile(p) ==
    /\ regState[p] = META_WRITTEN
    /\ tempFile' = [tempFile EXCEPT ![p] = NoTempFile]
    /\ regState' = [regState EXCEPT ![p] = META_DONE]
    /\ action' = PAct("DeleteTempFile", p)
    /\ outcome' = Out(OK)
    /\ UNCHANGED <<netVars, ctlVars, metaFile, designVars, addr, role, localMasterEpoch, localSyncStateSetEpoch,
                   envVars, ghostVars, dataVars>>

\* RegisterBrokerToController(id, current addr).  SUCCESS heard -> REGISTERED
\* and the role of a live master in the answer is adopted; otherwise the
\* process stays META_DONE and retries (the address update may have happened).
SendRegister(p, lost) ==
    /\ regState[p] = META_DONE
    /\ \E r \in {CtlRegisterBroker(Ctl, metaFile[p], addr[p])} :
       /\ SetCtl(r.ctl)
       /\ outcome' = r.out
       /\ IF r.out.code = SUCCESS /\ ~lost
          THEN /\ regState' = [regState EXCEPT ![p] = REGISTERED]
               /\ AdoptRole(p, r.out)
          ELSE UNCHANGED <<regState, roleVars>>
    /\ action' = PActLost("SendRegister", p, lost)
    /\ UNCHANGED <<netVars, diskVars, addr, clock, log, flushed, nextMsg, seen>>

-----------------------------------------------------------------------------
(***************************************************************************)
(* A registered process.                                                   *)
(***************************************************************************)

\* A broker asks for an election only when its view has no live master
\* (ReplicasManager): it has learnt no master since it registered
\* (startBasicService: masterBrokerId != null || brokerElect(), retried), or
\* a GetReplicaInfo poll names no master in a master epoch newer than its
\* own (schedulingSyncBrokerMetadata).  The poll is read in the same step.
ElectWanted(p) ==
    LET o == CtlGetReplicaInfo(Ctl).out IN
    \/ localMasterId[p] = NoMaster
    \/ o.code = SUCCESS /\ o.masterId = NoMaster /\ o.masterEpoch > localMasterEpoch[p]

\* ElectMaster(broker(id)); a heard SUCCESS or MASTER_STILL_EXIST (the codes
\* BrokerOuterAPI.brokerElect accepts) is adopted if its epoch is newer.
SendElectMaster(p, lost) ==
    /\ regState[p] = REGISTERED
    /\ ElectWanted(p)
    /\ \E r \in {CtlElectMaster(Ctl, "broker", metaFile[p])} :
       /\ SetCtl(r.ctl)
       /\ outcome' = r.out
       /\ IF lost \/ r.out.code \notin {SUCCESS, CONTROLLER_MASTER_STILL_EXIST}
          THEN UNCHANGED roleVars
          ELSE AdoptRole(p, r.out)
    /\ action' = PActLost("SendElectMaster", p, lost)
    /\ UNCHANGED <<netVars, diskVars, regState, addr, clock, log, flushed, nextMsg, seen>>

\* A poll of GetReplicaInfo or a role-change notification (either may come
\* late: the controller is read when the process acts).  Adopts a newer
\* master epoch; a master also learns a newer syncStateSet epoch of its own
\* master epoch (an alter whose response was lost), with the set itself;
\* an alter whose answer was lost is then settled (no longer counted); and
\* a master of the answer's epoch recomputes its confirmOffset and acks.
\* (The reference runs the second part after an adoption too; there it
\* changes nothing: the set epoch is the answer's, no alter is in flight,
\* and settling twice gives the same values.  So the branches exclude
\* each other here.)  A poll answered CONTROLLER_BROKER_METADATA_NOT_EXIST
\* makes the broker call registerBrokerToController again, which the same
\* unknown set refuses (NEED_TO_BE_REGISTERED) with no change: the broker
\* never re-applies its id, so nothing changes here either.
SyncReplicaInfo(p) ==
    /\ regState[p] = REGISTERED
    /\ \E o \in {CtlGetReplicaInfo(Ctl).out} :
       LET newer == o.syncStateSetEpoch > localSyncStateSetEpoch[p]
           lss == IF newer THEN o.syncStateSet ELSE localSyncStateSet[p]
           pend == IF pendingAlter[p] # NoPending /\ ~pendingAlter[p].delivered
                   THEN NoPending ELSE pendingAlter[p]
       IN
       /\ outcome' = o
       /\ IF o.code # SUCCESS
          THEN UNCHANGED roleVars
          ELSE IF AdoptEnabled(p, o)
          THEN AdoptRole(p, o)
          ELSE IF /\ role[p] = MASTER
                  /\ o.masterId = metaFile[p]
                  /\ o.masterEpoch = localMasterEpoch[p]
          THEN /\ localSyncStateSetEpoch' = IF newer
                                            THEN [localSyncStateSetEpoch EXCEPT ![p] = o.syncStateSetEpoch]
                                            ELSE localSyncStateSetEpoch
               /\ localSyncStateSet' = [localSyncStateSet EXCEPT ![p] = lss]
               /\ pendingAlter' = [pendingAlter EXCEPT ![p] = pend]
               /\ confirmOffset' = [confirmOffset EXCEPT ![p] =
                                      SettledConfirm(p, lss, pend, log[p], acks[p],
                                                     IF newer THEN SET_RECOMPUTE ELSE NO_RECOMPUTE)]
               /\ acked' = SettledAcked(p, lss, pend, log[p], acks[p])
               /\ UNCHANGED <<role, localMasterEpoch, masterHistory, localMasterId, haState, acks, epochFile>>
          ELSE UNCHANGED roleVars
    /\ action' = PAct("SyncReplicaInfo", p)
    /\ UNCHANGED <<netVars, ctlVars, diskVars, regState, addr, clock, log, flushed, nextMsg, seen>>

\* BrokerHeartbeat(id, last epoch of its epoch file, LEO, priority 0): what
\* the election ranks by (the epoch of the data it holds, not the epoch it
\* last heard of).
SendHeartbeat(p) ==
    /\ regState[p] = REGISTERED
    /\ \E r \in {CtlBrokerHeartbeat(Ctl, metaFile[p], LastEpoch(epochFile[p]), Len(log[p]), 0)} :
       /\ SetCtl(r.ctl)
       /\ outcome' = r.out
    /\ action' = PAct("SendHeartbeat", p)
    /\ UNCHANGED <<netVars, diskVars, procVars, envVars, ghostVars, dataVars>>

\* The master proposes any set with its local epochs (possibly stale),
\* request and answer in one step; a heard SUCCESS updates its local
\* syncStateSet and its epoch, and its confirmOffset and acks.  (The data
\* path's Expand/Shrink send the request and hear the answer in two steps.)
SendAlterSyncStateSet(p, newSet, lost) ==
    /\ regState[p] = REGISTERED
    /\ role[p] = MASTER
    /\ \E r \in {CtlAlterSyncStateSet(Ctl, metaFile[p], localMasterEpoch[p], newSet, localSyncStateSetEpoch[p])} :
       /\ SetCtl(r.ctl)
       /\ outcome' = r.out
       /\ IF r.out.code = SUCCESS /\ ~lost
          THEN /\ localSyncStateSetEpoch' = [localSyncStateSetEpoch EXCEPT ![p] = r.out.syncStateSetEpoch]
               /\ localSyncStateSet' = [localSyncStateSet EXCEPT ![p] = newSet]
               /\ confirmOffset' = [confirmOffset EXCEPT ![p] =
                                      SettledConfirm(p, newSet, pendingAlter[p], log[p], acks[p], SET_RECOMPUTE)]
               /\ acked' = SettledAcked(p, newSet, pendingAlter[p], log[p], acks[p])
          ELSE UNCHANGED <<localSyncStateSetEpoch, localSyncStateSet, confirmOffset, acked>>
    /\ action' = [PActLost("SendAlterSyncStateSet", p, lost) EXCEPT !.newSyncStateSet = newSet]
    /\ UNCHANGED <<netVars, diskVars, regState, addr, role, localMasterEpoch, envVars, ghostVars,
                   log, flushed, epochFile, localMasterId, haState, acks, pendingAlter, nextMsg, seen>>

-----------------------------------------------------------------------------
(***************************************************************************)
(* Crash and restart.  The controller notices nothing: a crashed process's *)
(* heartbeat entry stays until HeartbeatExpire.                            *)
(***************************************************************************)

\* The epoch file a restart reads back with a log of `kept` entries.
\* RocketMQ keeps it whole: recovery clamps confirmOffset and cuts the
\* commit log but no start path calls truncateEpochFileSuffix (shown on the
\* real stores: spec/README.md, refinement 38), so an entry of an epoch with
\* no message, or one that starts past the recovered LEO, survives until a
\* handshake or changeToMaster cuts it.  Kafka's log recovery truncates the
\* leader-epoch cache to the recovered log end (truncateFromEnd).
\* CrashTorn keeps the earlier cut (refinement 38: with the whole file a
\* torn copy makes two logs differ, an open finding).
\* @type: (Str, Int, Str) => Seq($entry);
RecoveredEpochFile(p, kept, tag) ==
    IF Policy = "rocketmq" /\ tag = "Crash" THEN epochFile[p] ELSE TruncateSuffix(epochFile[p], kept)

\* Volatile state is lost and the process's HA connections break; the
\* identity files survive; the log keeps `kept` entries (Crash: its flushed
\* prefix, all of it with synchronous flush), the epoch file is read back
\* (RecoveredEpochFile), and the confirmOffset checkpoint is clamped to the
\* recovered LEO.
\* @type: (Str, Int, Str) => Bool;
CrashKeeping(p, kept, tag) ==
    /\ log' = [log EXCEPT ![p] = SubSeq(log[p], 1, kept)]
    /\ flushed' = [flushed EXCEPT ![p] = kept]
    /\ epochFile' = [epochFile EXCEPT ![p] = RecoveredEpochFile(p, kept, tag)]
    /\ confirmOffset' = [confirmOffset EXCEPT ![p] = Min2(confirmOffset[p], kept)]
    /\ regState' = [regState EXCEPT ![p] = DOWN]
    /\ role' = [role EXCEPT ![p] = NONE]
    /\ localMasterEpoch' = [localMasterEpoch EXCEPT ![p] = 0]
    /\ localSyncStateSetEpoch' = [localSyncStateSetEpoch EXCEPT ![p] = 0]
    /\ localMasterId' = [localMasterId EXCEPT ![p] = NoMaster]
    /\ localSyncStateSet' = [localSyncStateSet EXCEPT ![p] = {}]
    /\ pendingAlter' = [pendingAlter EXCEPT ![p] = NoPending]
    /\ haState' = [DroppedHa(metaFile[p]) EXCEPT ![p] = HA_NONE]
    /\ acks' = [DroppedAcks(metaFile[p]) EXCEPT ![p] = NoAcks]
    /\ action' = PAct(tag, p)
    /\ outcome' = Out(OK)
    /\ UNCHANGED <<netVars, ctlVars, diskVars, addr, envVars, ghostVars, msgVars>>

\* The durable entries a crash keeps.
\* @type: Str => Int;
Durable(p) == Min2(flushed[p], Len(log[p]))

Crash(p) ==
    /\ regState[p] \in UpStates
    /\ CrashKeeping(p, Durable(p), "Crash")

\* Registration starts again, possibly under a new address.
Restart(p, a) ==
    /\ regState[p] = DOWN
    /\ a \in Addrs[p]
    /\ addr' = [addr EXCEPT ![p] = a]
    /\ regState' = [regState EXCEPT ![p] = INITIAL]
    /\ role' = [role EXCEPT ![p] = NONE]
    /\ action' = [PAct("Restart", p) EXCEPT !.addr = a]
    /\ outcome' = Out(OK)
    /\ UNCHANGED <<netVars, ctlVars, diskVars, localMasterEpoch, localSyncStateSetEpoch, envVars, ghostVars, dataVars>>

-----------------------------------------------------------------------------
(***************************************************************************)
(* The controller's own step: one try of its election trigger            *)
(* (controller_elect_scan).                                                *)
(***************************************************************************)
ControllerElectScan ==
    /\ NeedsReelect(Ctl)
    /\ \E r \in {CtlElectScan(Ctl)} :
       /\ SetCtl(r.ctl)
       /\ outcome' = r.out
    /\ action' = Act("ControllerElectScan")
    /\ UNCHANGED <<netVars, diskVars, procVars, envVars, ghostVars, dataVars>>

=============================================================================
