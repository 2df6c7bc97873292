----------------------------- MODULE AutoSwitch -----------------------------
(***************************************************************************)
(* RocketMQ controller mode (RIP-44) with persistent broker ids: one       *)
(* controller, the broker processes of one broker set, crashes, restarts   *)
(* under new addresses, lost responses, expired heartbeats and controller  *)
(* leader changes.  The contract is ../shared/MODEL.md §1-§4, §6, §7;     *)
(* the executable twin is reference/ (actions.py names the same actions). *)
(*                                                                         *)
(*   State.tla       the constants, variables and action records        *)
(*   Controller.tla  the controller requests as pure operators             *)
(*   Broker.tla      the process actions                                   *)
(*   Replication.tla the data path (MODEL.md §5), with EpochFile.tla,      *)
(*                   Acks.tla and one Truncate*.tla module per policy      *)
(*   Faults.tla      the faults of MODEL.md §9 and the fault budget        *)
(*   MasterSlave.tla, DLedger.tla, Designs.tla  the designs RIP-44         *)
(*                   replaced (RocketMQ 4.x master-slave, DLedger mode)    *)
(*   Properties.tla  the invariants and action properties (MODEL.md §6)    *)
(*   AutoSwitch.tla  Init, the raw controller actions, Next, Spec          *)
(***************************************************************************)
EXTENDS Properties

CONSTANTS
    \* The ids the admin actions and the proposed sync state sets range over
    \* (the generator's parameter space; nextBrokerId is bounded by the constraint).
    \* @type: Set(Int);
    BrokerIds,
    \* Let an admin run CleanBrokerData.  FALSE in the committed configs: a
    \* cleaned id can be handed out again while the process that held it still
    \* has it in its meta file (the disk survives), so two processes persist
    \* the same id and UniqueBrokerIds fails - the operational rule is "clean
    \* a broker only after wiping its disk", which this model does not encode.
    \* @type: Bool;
    AllowCleanBrokerData,
    \* Bounds of the state constraint (not of the actions).
    \* @type: Int;
    MaxEpoch,
    \* @type: Int;
    MaxClock,
    \* @type: Int;
    MaxNextBrokerId,
    \* Messages producers may write (Write is in Next while nextMsg <= MaxMsgs);
    \* 0 keeps a configuration on the controller and the HA handshakes.
    \* @type: Int;
    MaxMsgs,
    \* The data path's actions (Replication.tla) are in Next.  FALSE keeps a
    \* configuration controller-only, as MC_small (role changes and crashes
    \* still maintain the epoch files and HA views).
    \* @type: Bool;
    DataPath,
    \* SendAlterSyncStateSet with ANY proposed set (the controller-only model's
    \* over-approximation of the master's set changes) is in Next.  The data
    \* configurations use FALSE: there the master changes its set by Expand
    \* and Shrink, the code's triggers (one alter in flight at a time).  With
    \* both TRUE a stale Expand/Shrink answer can arrive after a newer alter
    \* (spec/README.md, "stale alter answer").
    \* @type: Bool;
    AnySetAlter
    \* (The fault budget's constants Faults, MaxFaults and BoundAllFaults are
    \* declared in Faults.tla, the options of the liveness controls where they
    \* act: ReelectScan in Controller.tla, RegisterRetry in Broker.tla.)

-----------------------------------------------------------------------------
Init ==
    /\ replicas = NoReplicas
    /\ nextBrokerId = 1
    /\ masterId = NoMaster
    /\ masterEpoch = 0
    /\ syncStateSet = {}
    /\ syncStateSetEpoch = 0
    /\ alive = NoAlive
    /\ electTriesLeft = 0
    /\ metaFile = [p \in Processes |-> NoId]
    /\ tempFile = [p \in Processes |-> NoTempFile]
    /\ brokerRole = [p \in Processes |-> NONE]
    /\ term = [p \in Processes |-> 0]
    /\ regState = [p \in Processes |-> INITIAL]
    \* every process starts under one of its addresses
    /\ addr \in [Processes -> AllAddrs]
    /\ \A p \in Processes : addr[p] \in Addrs[p]
    /\ role = [p \in Processes |-> NONE]
    /\ localMasterEpoch = [p \in Processes |-> 0]
    /\ localSyncStateSetEpoch = [p \in Processes |-> 0]
    /\ clock = 0
    /\ masterHistory = {}
    /\ log = [p \in Processes |-> <<>>]
    /\ flushed = [p \in Processes |-> 0]
    /\ epochFile = [p \in Processes |-> <<>>]
    /\ confirmOffset = [p \in Processes |-> 0]
    /\ localMasterId = [p \in Processes |-> NoMaster]
    /\ localSyncStateSet = [p \in Processes |-> {}]
    /\ haState = [p \in Processes |-> HA_NONE]
    /\ acks = [p \in Processes |-> NoAcks]
    /\ pendingAlter = [p \in Processes |-> NoPending]
    /\ nextMsg = 1
    /\ acked = {}
    /\ seen = {}
    /\ partitions = {}
    /\ late = NoLate
    /\ faults = 0
    /\ action = Act("Init")
    /\ outcome = Out(OK)

(***************************************************************************)
(* InitRegistered: a state Next reaches from Init, used as the initial    *)
(* predicate of the data-path negative controls so that breadth-first     *)
(* search spends its depth on the data path, not on registration.  Every  *)
(* process is REGISTERED with an id in 1..n (n processes), no master yet, *)
(* all logs empty.  Reachable: take the processes in the order ord (id    *)
(* ord[p]); for each in turn, from Init:                                   *)
(*   CreateTempFile(p)      GetNextBrokerId answers nextBrokerId = ord[p]; *)
(*                          temp file [ord[p], [addr[p], ts = clock]],     *)
(*                          clock = ord[p] - 1 before, ord[p] after        *)
(*   SendApplyBrokerId(p, FALSE)  id 1 creates the set (EmptyCtl), later   *)
(*                          ids are free: replicas[ord[p]] is bound to the *)
(*                          temp file's checkCode, nextBrokerId + 1        *)
(*   WriteMetaFile(p)       metaFile[p] = ord[p]                           *)
(*   DeleteTempFile(p)      tempFile[p] = NoTempFile, META_DONE            *)
(*   SendRegister(p, FALSE) the stored address is already addr[p]; no      *)
(*                          master, so AdoptRole changes nothing: role     *)
(*                          NONE, local epochs 0 -> REGISTERED             *)
(*   SendHeartbeat(p)       alive[ord[p]] = [epoch |-> LastEpoch(<<>>) = 0,*)
(*                          maxOffset |-> Len(<<>>) = 0, priority |-> 0]   *)
(* No action of these touches the data variables, the epochs or the      *)
(* history.  6n steps; for two processes 12 steps and clock 2 (MaxClock  *)
(* 2 admits it).  RegisteredVars fixes the model variables only (the last *)
(* step's action/outcome aside); a TLC run from Init with the invariant   *)
(* ~RegisteredVars reports it reached in 12 steps (spec/README.md).       *)
(* InitRegistered sets action/outcome as Init does (no VIEW or property   *)
(* of the data configs reads them).                                        *)
(***************************************************************************)
RegisteredVars ==
    \E ord \in [Processes -> 1..Cardinality(Processes)] :
       /\ \A p, q \in Processes : p # q => ord[p] # ord[q]
       /\ addr \in [Processes -> AllAddrs]
       /\ \A p \in Processes : addr[p] \in Addrs[p]
       /\ replicas = [b \in 1..Cardinality(Processes) |->
                        LET p == CHOOSE q \in Processes : ord[q] = b IN
                        [addr |-> addr[p], checkCode |-> [addr |-> addr[p], ts |-> b - 1]]]
       /\ nextBrokerId = Cardinality(Processes) + 1
       /\ masterId = NoMaster
       /\ masterEpoch = 0
       /\ syncStateSet = {}
       /\ syncStateSetEpoch = 0
       /\ alive = [b \in 1..Cardinality(Processes) |-> [epoch |-> 0, maxOffset |-> 0, priority |-> 0]]
       /\ electTriesLeft = 0
       /\ metaFile = ord
       /\ tempFile = [p \in Processes |-> NoTempFile]
       /\ brokerRole = [p \in Processes |-> NONE]
       /\ term = [p \in Processes |-> 0]
       /\ regState = [p \in Processes |-> REGISTERED]
       /\ role = [p \in Processes |-> NONE]
       /\ localMasterEpoch = [p \in Processes |-> 0]
       /\ localSyncStateSetEpoch = [p \in Processes |-> 0]
       /\ clock = Cardinality(Processes)
       /\ masterHistory = {}
       /\ log = [p \in Processes |-> <<>>]
       /\ flushed = [p \in Processes |-> 0]
       /\ epochFile = [p \in Processes |-> <<>>]
       /\ confirmOffset = [p \in Processes |-> 0]
       /\ localMasterId = [p \in Processes |-> NoMaster]
       /\ localSyncStateSet = [p \in Processes |-> {}]
       /\ haState = [p \in Processes |-> HA_NONE]
       /\ acks = [p \in Processes |-> NoAcks]
       /\ pendingAlter = [p \in Processes |-> NoPending]
       /\ nextMsg = 1
       /\ acked = {}
       /\ seen = {}
       /\ partitions = {}
       /\ late = NoLate

InitRegistered ==
    /\ RegisteredVars
    /\ faults = 0
    /\ action = Act("Init")
    /\ outcome = Out(OK)

-----------------------------------------------------------------------------
(***************************************************************************)
(* Raw controller actions: a request addressed to the controller directly  *)
(* (an admin, a tool, an outside trace).  Only the admin/environment ones  *)
(* are in Next; the others exist so that controller-level traces (MODEL.md *)
(* §7) name a spec action too.                                             *)
(***************************************************************************)

\* @type: ($result, $action) => Bool;
CtlStep(r, act) ==
    /\ SetCtl(r.ctl)
    /\ outcome' = r.out
    /\ action' = act
    /\ UNCHANGED <<netVars, diskVars, procVars, envVars, ghostVars, dataVars>>

GetNextBrokerId == CtlStep(CtlGetNextBrokerId(Ctl), Act("GetNextBrokerId"))

ApplyBrokerId(id, cc) ==
    CtlStep(CtlApplyBrokerId(Ctl, id, cc), [Act("ApplyBrokerId") EXCEPT !.brokerId = id, !.checkCode = cc])

RegisterBrokerToController(id, a) ==
    CtlStep(CtlRegisterBroker(Ctl, id, a), [Act("RegisterBrokerToController") EXCEPT !.brokerId = id, !.addr = a])

\* trigger "broker", "controller" (id -1) or "admin"
ElectMaster(trigger, id) ==
    CtlStep(CtlElectMaster(Ctl, trigger, id), [Act("ElectMaster") EXCEPT !.trigger = trigger, !.brokerId = id])

AlterSyncStateSet(mId, mEpoch, newSet, ssEpoch) ==
    CtlStep(CtlAlterSyncStateSet(Ctl, mId, mEpoch, newSet, ssEpoch),
            [Act("AlterSyncStateSet") EXCEPT !.masterId = mId, !.masterEpoch = mEpoch,
                                             !.newSyncStateSet = newSet, !.syncStateSetEpoch = ssEpoch])

GetReplicaInfo == CtlStep(CtlGetReplicaInfo(Ctl), Act("GetReplicaInfo"))

BrokerHeartbeat(id, epoch, maxOffset, priority) ==
    CtlStep(CtlBrokerHeartbeat(Ctl, id, epoch, maxOffset, priority),
            [Act("BrokerHeartbeat") EXCEPT !.brokerId = id, !.epoch = epoch,
                                           !.maxOffset = maxOffset, !.priority = priority])

\* A live entry expires: a death, a pause or a partition.
HeartbeatExpire(id) ==
    /\ CanExpire(Ctl, id)
    /\ CtlStep(CtlHeartbeatExpire(Ctl, id), [Act("HeartbeatExpire") EXCEPT !.brokerId = id])

\* A new controller leader: the liveness table is empty.
ControllerFailover == CtlStep(CtlControllerFailover(Ctl), Act("ControllerFailover"))

CleanBrokerData(ids, cleanLiving) ==
    CtlStep(CtlCleanBrokerData(Ctl, ids, cleanLiving),
            [Act("CleanBrokerData") EXCEPT !.brokerIds = ids, !.cleanLiving = cleanLiving])

-----------------------------------------------------------------------------
(***************************************************************************)
(* The next-state relation: every process step, the controller's scan, and *)
(* the admin/environment perturbations.                                    *)
(***************************************************************************)
ProcessNext(p) ==
    \/ LoadMetaFile(p)
    \/ LoadTempFile(p)
    \/ CreateTempFile(p)
    \/ \E lost \in BOOLEAN : SendApplyBrokerId(p, lost)
    \/ AbandonTempFile(p)
    \/ WriteMetaFile(p)
    \/ DeleteTempFile(p)
    \/ \E lost \in BOOLEAN : SendRegister(p, lost)
    \/ \E lost \in BOOLEAN : SendElectMaster(p, lost)
    \/ SyncReplicaInfo(p)
    \/ SendHeartbeat(p)
    \/ AnySetAlter /\ \E newSet \in SUBSET BrokerIds, lost \in BOOLEAN : SendAlterSyncStateSet(p, newSet, lost)
    \/ Crash(p)
    \/ \E a \in Addrs[p] : Restart(p, a)
    \* the faults of the budget (Faults.tla), each when Faults names it
    \/ "CrashTorn" \in Faults /\ CrashTorn(p)
    \/ "PartitionLink" \in Faults /\ \E q \in Processes, lost \in BOOLEAN : PartitionLink(p, q, lost)
    \/ "PartitionLink" \in Faults /\ \E q \in Processes : HealLink(p, q)
    \/ "SendLate" \in Faults /\ \E r \in LateRequests : SendLate(p, r)
    \/ "SendLate" \in Faults /\ DeliverLate(p)
    \/ "WipeDisk" \in Faults /\ WipeDisk(p)

\* The data path (Replication.tla).  Write is bounded by MaxMsgs (here, not
\* in the action, which stays the reference's); the other steps are bounded
\* by the logs they copy.
DataNext(p) ==
    \/ nextMsg <= MaxMsgs /\ Write(p)
    \/ Handshake(p)
    \/ Transfer(p)
    \/ Ack(p)
    \/ \E b \in BrokerIds, lost \in BOOLEAN : Expand(p, b, lost)
    \/ \E b \in BrokerIds, lost \in BOOLEAN : Shrink(p, b, lost)
    \/ AlterArrives(p)
    \/ Flush(p)
    \/ Consume(p)

EnvNext ==
    \/ ControllerElectScan
    \/ \E id \in BrokerIds : ElectMaster("admin", id)
    \/ \E id \in BrokerIds : HeartbeatExpire(id)
    \/ ControllerFailover
    \/ AllowCleanBrokerData /\ \E ids \in SUBSET BrokerIds, cl \in BOOLEAN : CleanBrokerData(ids, cl)
    \/ "ControllerMetadataLoss" \in Faults /\ ControllerMetadataLoss

\* Controller mode's Next.
ControllerNext == (\E p \in Processes : ProcessNext(p) \/ (DataPath /\ DataNext(p))) \/ EnvNext

\* The Next of the designs RIP-44 replaced (Designs.tla), the writes bounded
\* by MaxMsgs as in DataNext.
DesignNext ==
    \E p \in Processes :
        \/ DesignProcessNext(p)
        \/ DataPath /\ ((nextMsg <= MaxMsgs /\ DesignWrite(p)) \/ DesignDataNext(p))

\* Every step is taken under the fault budget (Faults.tla: Fault).
Next == Fault(IF Design = CONTROLLER_MODE THEN ControllerNext ELSE DesignNext)

Spec == Init /\ [][Next]_vars

\* Finite state space for TLC: a state past a bound is not explored.  Epochs
\* and the clock grow only through elections, alters and fresh checkCodes, so
\* the bounds cut long runs of perturbations (each failure costs an epoch or a
\* checkCode), not the steps that heal the set after them.
StateConstraint ==
    /\ masterEpoch <= MaxEpoch
    /\ syncStateSetEpoch <= MaxEpoch
    /\ clock <= MaxClock
    /\ nextBrokerId <= MaxNextBrokerId
    \* DLedger's terms, as the master epoch (an election costs one)
    /\ \A p \in Processes : term[p] <= MaxEpoch

=============================================================================
