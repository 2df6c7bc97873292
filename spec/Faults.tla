------------------------------- MODULE Faults -------------------------------
(***************************************************************************)
(* The faults real clusters see beyond crashes, lost responses, expiries   *)
(* and controller failovers (MODEL.md §9), one action each, and the fault  *)
(* budget.  The twin of reference/faults.py (the actions) and              *)
(* reference/liveness.py (FaultKind, Charged: fault_kind, charged).        *)
(*                                                                         *)
(*   CrashTorn(p)            a crash whose last durable record is torn     *)
(*   ControllerMetadataLoss  the controller forgets everything             *)
(*   PartitionLink(p, q, l)  the replication link p-q is cut (and with l   *)
(*                           its connection breaks at once)                *)
(*   HealLink(p, q)          the link heals (a healing step, weakly fair)  *)
(*   SendLate(p, r)          p's controller request r, computed now on its *)
(*                           view, is held in the network ...              *)
(*   DeliverLate(p)          ... and applied by the controller later       *)
(*   WipeDisk(p)             a crashed broker's disk is wiped or replaced  *)
(*                                                                         *)
(* Each is in Next only when the configuration's Faults names it (HealLink *)
(* with "PartitionLink", DeliverLate with "SendLate").  Brokers notice a   *)
(* fault only through its effects: none of these steps is a process step.  *)
(***************************************************************************)
EXTENDS Replication

CONSTANTS
    \* The faults of NewFaults that are in Next.
    \* @type: Set(Str);
    Faults,
    \* How many budgeted faults (Charged) a behaviour may take.
    \* @type: Int;
    MaxFaults,
    \* The older faults (crash, lost responses, expiry of a live broker,
    \* controller failover, admin election, clean) are charged too: every
    \* fault is bounded (the liveness configurations).
    \* @type: Bool;
    BoundAllFaults

\* liveness.NEW_FAULTS: always charged.  OLD_FAULTS: charged with BoundAllFaults.
NewFaults == {"CrashTorn", "ControllerMetadataLoss", "PartitionLink", "SendLate", "WipeDisk"}
OldFaults == {"Crash", "LostResponse", "HeartbeatExpire", "ControllerFailover", "ElectMaster", "CleanBrokerData"}
NoFault == ""

\* The controller requests SendLate may hold back.
LateRequests == {"BrokerHeartbeat", "RegisterBrokerToController", "ElectMaster"}

\* @type: Str -> $action;
NoLate == [p \in {} |-> Act("Init")]

-----------------------------------------------------------------------------
(***************************************************************************)
(* The fault budget.                                                       *)
(***************************************************************************)

\* Some up process holds broker id `id` (its heartbeat's expiry is a fault).
\* @type: Int => Bool;
HolderUp(id) == \E p \in Processes : metaFile[p] = id /\ regState[p] # DOWN

\* fault_kind: the fault the step with action record `a` is when taken in the
\* current state, NoFault for a healing or ordinary step.  The expiry of an
\* id no up process holds heals (the broker is dead); any step taken with
\* lost = TRUE (the padding is FALSE) is a lost response.
\* @type: $action => Str;
FaultKind(a) ==
    IF a.tag \in NewFaults \cup {"Crash", "ControllerFailover", "ElectMaster", "CleanBrokerData"} THEN a.tag
    ELSE IF a.tag = "HeartbeatExpire" THEN (IF HolderUp(a.brokerId) THEN a.tag ELSE NoFault)
    ELSE IF a.lost THEN "LostResponse"
    ELSE NoFault

\* charged: whether a fault of `kind` costs one of the budget's MaxFaults.
\* @type: Str => Bool;
Charged(kind) == kind # NoFault /\ (kind \in NewFaults \/ BoundAllFaults)

\* The budget around a step A of Next: a charged fault is taken only while
\* faults < MaxFaults and counts one; every other step leaves the count.
\* The kind is FaultKind of the record A takes (action'), in the state A is
\* taken from, so that one wrapper serves every disjunct: Fault(A) is
\* Fault(FaultKind(a), A) of ../shared/MODEL.md's contract for A's record a.
Fault(A) ==
    /\ A
    /\ IF Charged(FaultKind(action'))
       THEN faults < MaxFaults /\ faults' = faults + 1
       ELSE UNCHANGED faults

-----------------------------------------------------------------------------
(***************************************************************************)
(* Process faults.                                                         *)
(***************************************************************************)

\* crash_torn: Crash, but recovery cuts the last durable record too (a torn
\* write).  Only a record nobody else relies on can be torn: above the
\* confirmOffset checkpoint, not acknowledged to a producer, not yet
\* reported to any master as acked, and, unless p is a slave (its master
\* has the record), in no other process's log (a record the process served
\* or reported was complete on its disk; a master's torn record that a slave
\* already copied is left out: spec/README.md, "Faults").
CrashTorn(p) ==
    /\ regState[p] \in UpStates
    /\ LET kept == Durable(p) IN
       /\ kept > confirmOffset[p]
       /\ log[p][kept][1] \notin acked
       /\ \A q \in Processes : metaFile[p] \in DOMAIN acks[q] => acks[q][metaFile[p]] < kept
       /\ role[p] = SLAVE \/ \A q \in Processes \ {p} : Len(log[q]) >= kept => log[q][kept] # log[p][kept]
       /\ CrashKeeping(p, kept - 1, "CrashTorn")

\* wipe_disk: a crashed broker's disk is wiped or replaced: its identity
\* files, log, epoch file and confirmOffset checkpoint are gone (its volatile
\* state went with the crash).  Restart registers it as a new broker.
WipeDisk(p) ==
    /\ regState[p] = DOWN
    /\ metaFile' = [metaFile EXCEPT ![p] = NoId]
    /\ tempFile' = [tempFile EXCEPT ![p] = NoTempFile]
    /\ log' = [log EXCEPT ![p] = <<>>]
    /\ flushed' = [flushed EXCEPT ![p] = 0]
    /\ epochFile' = [epochFile EXCEPT ![p] = <<>>]
    /\ confirmOffset' = [confirmOffset EXCEPT ![p] = 0]
    /\ action' = PAct("WipeDisk", p)
    /\ outcome' = Out(OK)
    /\ UNCHANGED <<netVars, ctlVars, designVars, procVars, envVars, ghostVars, dataProcVars, msgVars>>

-----------------------------------------------------------------------------
(***************************************************************************)
(* The replication link between two live brokers.                         *)
(***************************************************************************)

\* Slave s is connected (TRANSFER) to the process m it follows.
\* @type: (Str, Str) => Bool;
Connected(s, m) == haState[s] = TRANSFER /\ localMasterId[s] = metaFile[m]

\* partition_link: the link p-q is cut; Handshake, Transfer and Ack between
\* them wait (Linked, Replication.tla) until HealLink.  With `lost` the HA
\* connection breaks at once, in either direction: the slave goes back to
\* READY and its master forgets its ack (as _drop_connections_to); without,
\* transfers and acks are only delayed.
PartitionLink(p, q, lost) ==
    /\ p # q
    /\ {p, q} \notin partitions
    /\ partitions' = partitions \cup {{p, q}}
    /\ IF lost
       THEN /\ haState' = [x \in Processes |->
                             IF (x = p /\ Connected(p, q)) \/ (x = q /\ Connected(q, p)) THEN READY ELSE haState[x]]
            /\ acks' = [x \in Processes |->
                          IF x = q /\ Connected(p, q) THEN Forget(acks[q], metaFile[p])
                          ELSE IF x = p /\ Connected(q, p) THEN Forget(acks[p], metaFile[q])
                          ELSE acks[x]]
       ELSE UNCHANGED <<haState, acks>>
    /\ action' = [PActLost("PartitionLink", p, lost) EXCEPT !.peer = q]
    /\ outcome' = Out(OK)
    /\ UNCHANGED <<late, ctlVars, diskVars, procVars, envVars, ghostVars, dataDiskVars,
                   localMasterId, localSyncStateSet, pendingAlter, msgVars>>

\* heal_link: the link p-q works again.
HealLink(p, q) ==
    /\ {p, q} \in partitions
    /\ partitions' = partitions \ {{p, q}}
    /\ action' = [PAct("HealLink", p) EXCEPT !.peer = q]
    /\ outcome' = Out(OK)
    /\ UNCHANGED <<late, ctlVars, diskVars, procVars, envVars, ghostVars, dataVars>>

-----------------------------------------------------------------------------
(***************************************************************************)
(* Controller requests applied late.                                       *)
(***************************************************************************)

\* The controller-level action record of p's request r, computed on p's view
\* now: the request SendHeartbeat, SendRegister or SendElectMaster would send.
\* @type: (Str, Str) => $action;
LateRecord(p, r) ==
    IF r = "BrokerHeartbeat"
    THEN [Act(r) EXCEPT !.brokerId = metaFile[p], !.epoch = LastEpoch(epochFile[p]),
                        !.maxOffset = Len(log[p]), !.priority = 0]
    ELSE IF r = "RegisterBrokerToController"
    THEN [Act(r) EXCEPT !.brokerId = metaFile[p], !.addr = addr[p]]
    ELSE [Act(r) EXCEPT !.trigger = "broker", !.brokerId = metaFile[p]]

\* Whether p would send request r now.
\* @type: (Str, Str) => Bool;
LateEnabled(p, r) ==
    IF r = "BrokerHeartbeat" THEN regState[p] = REGISTERED
    ELSE IF r = "RegisterBrokerToController" THEN regState[p] \in {META_DONE, REGISTERED}
    ELSE regState[p] = REGISTERED /\ ElectWanted(p)

\* send_late: p's request r is computed now and held in the network (one per
\* process); p times out and goes on, nothing else changes.
SendLate(p, r) ==
    /\ p \notin DOMAIN late
    /\ r \in LateRequests
    /\ LateEnabled(p, r)
    /\ late' = [x \in DOMAIN late \cup {p} |-> IF x = p THEN LateRecord(p, r) ELSE late[x]]
    /\ action' = [PAct("SendLate", p) EXCEPT !.request = r]
    /\ outcome' = Out(OK)
    /\ UNCHANGED <<partitions, ctlVars, diskVars, procVars, envVars, ghostVars, dataVars>>

\* deliver_late: the controller applies p's held request as the raw
\* controller action of its tag does (AutoSwitch.tla); the response is the
\* outcome and reaches nobody.  No process variable changes.
DeliverLate(p) ==
    /\ p \in DOMAIN late
    /\ LET a == late[p] IN
       \E r \in {IF a.tag = "BrokerHeartbeat" THEN CtlBrokerHeartbeat(Ctl, a.brokerId, a.epoch, a.maxOffset, a.priority)
                ELSE IF a.tag = "RegisterBrokerToController" THEN CtlRegisterBroker(Ctl, a.brokerId, a.addr)
                ELSE CtlElectMaster(Ctl, a.trigger, a.brokerId)} :
       /\ SetCtl(r.ctl)
       /\ outcome' = r.out
    /\ late' = [x \in DOMAIN late \ {p} |-> late[x]]
    /\ action' = PAct("DeliverLate", p)
    /\ UNCHANGED <<partitions, diskVars, procVars, envVars, ghostVars, dataVars>>

-----------------------------------------------------------------------------
(***************************************************************************)
(* The controller forgets.                                                 *)
(***************************************************************************)

\* controller_metadata_loss: the controller leader starts from nothing
\* (InitCtl; ROCKETMQ.md §7.5).  Brokers notice nothing: a poll answered
\* METADATA_NOT_EXIST re-registers, which the unknown set refuses
\* (NEED_TO_BE_REGISTERED), and a broker with a meta file never re-applies
\* its id (SyncReplicaInfo, Broker.tla).
ControllerMetadataLoss ==
    /\ Known(Ctl)
    /\ SetCtl(InitCtl)
    /\ action' = Act("ControllerMetadataLoss")
    /\ outcome' = Out(OK)
    /\ UNCHANGED <<netVars, diskVars, procVars, envVars, ghostVars, dataVars>>

=============================================================================
