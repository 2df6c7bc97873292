------------------------------ MODULE Liveness ------------------------------
(***************************************************************************)
(* Liveness (MODEL.md §8): what the controller's and the brokers' retry    *)
(* loops exist for, under weak fairness of the healing steps, once the     *)
(* faults stop (the fault budget, Faults.tla).  The twin of                *)
(* reference/liveness.py, name for name: each property is []<>ok for the   *)
(* state predicate ok of LIVENESS (per process where it speaks of every    *)
(* broker), Fairness is WF of every record of FAIRNESS, for every process, *)
(* broker id or peer the action ranges over in Next, where its guard       *)
(* holds.  Each WF'd action is the disjunct Next takes (Fault(A): the      *)
(* healing steps are never charged, so it is A /\ UNCHANGED faults), and   *)
(* is asked for only when that disjunct is in Next (DataPath for the data  *)
(* path, "PartitionLink" \in Faults for HealLink): WF of an action Next    *)
(* cannot take would leave no behaviour at all.                           *)
(*                                                                         *)
(* The subscript of WF is liveVars, the state without action and outcome:  *)
(* a step that changes only the label of the last step is not progress.    *)
(* No action reads action or outcome, so the liveness configurations can   *)
(* keep VIEW <<modelVars, faults>> (spec/README.md, "Liveness").           *)
(***************************************************************************)
EXTENDS AutoSwitch

liveVars == <<modelVars, faults>>

-----------------------------------------------------------------------------
(***************************************************************************)
(* The properties.                                                         *)
(***************************************************************************)

\* EventuallyMaster's ok in controller mode: no REGISTERED process holds an
\* id of the syncStateSet, or the controller has a master whose process is
\* MASTER in the controller's master epoch and every REGISTERED process
\* follows it in that epoch.
ControllerMasterKnown ==
    \/ ~\E p \in Processes : regState[p] = REGISTERED /\ metaFile[p] \in syncStateSet
    \/ /\ masterId # NoMaster
       /\ \E p \in Processes : metaFile[p] = masterId /\ role[p] = MASTER /\ localMasterEpoch[p] = masterEpoch
       /\ \A p \in Processes : regState[p] = REGISTERED =>
             localMasterId[p] = masterId /\ localMasterEpoch[p] = masterEpoch

\* _design_master_known: EventuallyMaster's ok in the designs RIP-44
\* replaced: no process runs, or 4.x: one runs as MASTER; DLedger: a leader
\* of the highest term runs and every running member follows it in that
\* term.
DesignMasterKnown ==
    LET up == {p \in Processes : regState[p] = REGISTERED} IN
    \/ up = {}
    \/ Design = MASTER_SLAVE /\ MasterProcs # {}
    \/ /\ Design = DLEDGER
       /\ \E m \in MasterProcs : \A q \in up : term[q] = term[m] /\ localMasterId[q] = metaFile[m]

MasterKnown == IF Design = CONTROLLER_MODE THEN ControllerMasterKnown ELSE DesignMasterKnown

\* EventuallyRegistered's ok for process p: it is down or REGISTERED.
Registered(p) == regState[p] \in {DOWN, REGISTERED}

\* master_of: the REGISTERED MASTER processes holding the id slave p follows
\* (at most one while UniqueBrokerIds holds).
MasterOf(p) ==
    {q \in Processes : /\ localMasterId[p] \notin {NoMaster, NoId}
                       /\ metaFile[q] = localMasterId[p]
                       /\ role[q] = MASTER /\ regState[q] = REGISTERED}

\* EventuallyInSync's ok for process p: it is not a REGISTERED slave of a
\* REGISTERED master reachable over an unpartitioned link, or it is
\* connected (TRANSFER) and its log equals the master's.
InSync(p) ==
    \/ regState[p] # REGISTERED
    \/ role[p] # SLAVE
    \/ \A m \in MasterOf(p) : {p, m} \in partitions \/ (haState[p] = TRANSFER /\ log[p] = log[m])

\* EventuallyAnswered's ok for process p: it is not a REGISTERED master, or
\* its confirmOffset covers its log (every write it took is acknowledged; a
\* write on a master that lost its role was refused or timed out).  A
\* DLedger leader answers the writes of its own term: an entry of an older
\* term was its old leader's, whose requests failed when it lost the lead.
Answered(p) ==
    \/ ~(regState[p] = REGISTERED /\ role[p] = MASTER)
    \/ confirmOffset[p] >= Len(log[p])
    \/ Design = DLEDGER /\ \A i \in (confirmOffset[p] + 1)..Len(log[p]) : log[p][i][2] < term[p]

EventuallyMaster == []<>MasterKnown
EventuallyRegistered == \A p \in Processes : []<>Registered(p)
EventuallyInSync == \A p \in Processes : []<>InSync(p)
EventuallyAnswered == \A p \in Processes : []<>Answered(p)

-----------------------------------------------------------------------------
(***************************************************************************)
(* Fairness: the healing steps (reference/liveness.py FAIRNESS).           *)
(***************************************************************************)

\* Shrink's guard (_lagging): the slave is not connected to the master or
\* has not acked its whole log.  (Written with IF: TLC's liveness checker
\* does not short-circuit a disjunction here.)
Lagging(p, b) == IF b \in DOMAIN acks[p] THEN acks[p][b] < Len(log[p]) ELSE TRUE

\* HeartbeatExpire's guard: no up process holds the id (a dead broker's
\* entry expires; a live one's expiry is a fault).
HolderDown(id) == ~HolderUp(id)

\* registration and the registered broker's loops (ReplicasManager:
\* startBasicService retried every 5 s, the metadata sync every 5 s,
\* heartbeats)
ProcessFairness(p) ==
    /\ WF_liveVars(Fault(LoadMetaFile(p)))
    /\ WF_liveVars(Fault(LoadTempFile(p)))
    /\ WF_liveVars(Fault(CreateTempFile(p)))
    /\ WF_liveVars(Fault(SendApplyBrokerId(p, FALSE)))
    /\ WF_liveVars(Fault(AbandonTempFile(p)))
    /\ WF_liveVars(Fault(WriteMetaFile(p)))
    /\ WF_liveVars(Fault(DeleteTempFile(p)))
    /\ WF_liveVars(Fault(SendRegister(p, FALSE)))
    /\ WF_liveVars(Fault(SendElectMaster(p, FALSE)))
    /\ WF_liveVars(Fault(SyncReplicaInfo(p)))
    /\ WF_liveVars(Fault(SendHeartbeat(p)))

\* the data path's loops (HA client and connection, the syncStateSet check,
\* the flush service)
DataFairness(p) ==
    /\ WF_liveVars(Fault(Handshake(p)))
    /\ WF_liveVars(Fault(Transfer(p)))
    /\ WF_liveVars(Fault(Ack(p)))
    /\ \A b \in BrokerIds : WF_liveVars(Fault(Expand(p, b, FALSE)))
    /\ \A b \in BrokerIds : WF_liveVars(Fault(Lagging(p, b) /\ Shrink(p, b, FALSE)))
    /\ WF_liveVars(Fault(AlterArrives(p)))
    /\ WF_liveVars(Fault(Flush(p)))

\* the controller's loops: the re-elect scan, the expiry of a dead broker's
\* heartbeat; the network heals
EnvFairness ==
    /\ WF_liveVars(Fault(ControllerElectScan))
    /\ \A id \in BrokerIds : WF_liveVars(Fault(HolderDown(id) /\ HeartbeatExpire(id)))
    /\ "PartitionLink" \in Faults => \A p, q \in Processes : WF_liveVars(Fault(HealLink(p, q)))

\* The designs RIP-44 replaced: 4.x's HA client connect, transfer and
\* report loops and the slave timeout of a waiting write; DLedger's election
\* timer and the leader's pushes, per peer; the flush service.  (Restarts and
\* the operator's failover are not fair: a down process may stay down, and
\* 4.x has no automatic failover.)
DesignFairness(p) ==
    /\ Design = MASTER_SLAVE /\ DataPath =>
          /\ WF_liveVars(Fault(MsConnect(p)))
          /\ WF_liveVars(Fault(MsTransfer(p)))
          /\ WF_liveVars(Fault(MsAck(p)))
          /\ WF_liveVars(Fault(MsSlaveTimeout(p)))
    /\ Design = DLEDGER => WF_liveVars(Fault(DlElect(p)))
    /\ Design = DLEDGER /\ DataPath => \A peer \in Processes \ {p} : WF_liveVars(Fault(DlPush(p, peer)))
    /\ DataPath => WF_liveVars(Fault(Flush(p)))

\* WF of the FAIRNESS records of the configuration's design's Next.
Fairness ==
    /\ Design = CONTROLLER_MODE =>
          /\ \A p \in Processes : ProcessFairness(p) /\ (DataPath => DataFairness(p))
          /\ EnvFairness
    /\ Design # CONTROLLER_MODE => \A p \in Processes : DesignFairness(p)

LiveSpec == Init /\ [][Next]_vars /\ Fairness
LiveSpecRegistered == InitRegistered /\ [][Next]_vars /\ Fairness
\* The designs' liveness configurations start from DesignInit(ids), the ids
\* given by the MC module, which defines InitDesign and LiveSpecDesign ==
\* InitDesign /\ [][Next]_vars /\ Fairness (MC_designs.tla; TLC takes a
\* SPECIFICATION only as a formula of operators without arguments).

=============================================================================
