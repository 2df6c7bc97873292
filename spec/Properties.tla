------------------------------ MODULE Properties ------------------------------
(***************************************************************************)
(* The properties of the model (MODEL.md §6): the type invariant, the     *)
(* safety invariants and the action properties, over the variables of     *)
(* State.tla.  The twin of reference/invariants.py, property for property. *)
(***************************************************************************)
EXTENDS Designs

(***************************************************************************)
(* Invariants (MODEL.md §6, reference/invariants.py).                      *)
(***************************************************************************)

IsCheckCode(cc) == cc.addr \in AllAddrs /\ cc.ts \in Nat

TypeOK ==
    /\ \A b \in DOMAIN replicas :
          b \in Nat /\ b >= 1 /\ replicas[b].addr \in AllAddrs /\ IsCheckCode(replicas[b].checkCode)
    /\ nextBrokerId \in Nat /\ nextBrokerId >= 1
    /\ masterId = NoMaster \/ (masterId \in Nat /\ masterId >= 1)
    /\ masterEpoch \in Nat
    /\ syncStateSetEpoch \in Nat
    /\ \A b \in syncStateSet : b \in Nat /\ b >= 1
    /\ \A b \in DOMAIN alive :
          /\ b \in Nat
          /\ alive[b].epoch \in Nat /\ alive[b].maxOffset \in Nat /\ alive[b].priority \in Nat
    /\ electTriesLeft \in 0..ElectMasterMaxRetryCount
    /\ DOMAIN metaFile = Processes /\ \A p \in Processes : metaFile[p] \in Nat
    /\ DOMAIN tempFile = Processes
    /\ \A p \in Processes :
          \/ tempFile[p] = NoTempFile
          \/ tempFile[p].brokerId \in Nat /\ tempFile[p].brokerId >= 1 /\ IsCheckCode(tempFile[p].checkCode)
    /\ regState \in [Processes -> RegStates]
    /\ addr \in [Processes -> AllAddrs]
    /\ role \in [Processes -> Roles]
    /\ \A p \in Processes : localMasterEpoch[p] \in Nat /\ localSyncStateSetEpoch[p] \in Nat
    /\ clock \in Nat
    /\ \A p \in Processes :
          /\ \A i \in 1..Len(log[p]) : log[p][i][1] \in Nat /\ log[p][i][2] \in Nat
          /\ flushed[p] \in 0..Len(log[p])
          /\ \A i \in 1..Len(epochFile[p]) : epochFile[p][i][1] \in Nat /\ epochFile[p][i][2] \in Nat
          /\ confirmOffset[p] \in Nat
          /\ localMasterId[p] = NoMaster \/ localMasterId[p] \in Nat
          /\ haState[p] \in HaStates
          /\ \A b \in DOMAIN acks[p] : b \in Nat /\ acks[p][b] \in Nat
    /\ nextMsg \in Nat /\ acked \subseteq 1..(nextMsg - 1) /\ seen \subseteq 1..(nextMsg - 1)
    /\ \A link \in partitions : link \subseteq Processes /\ Cardinality(link) = 2
    /\ DOMAIN late \subseteq Processes /\ \A p \in DOMAIN late : late[p].tag \in LateRequests
    /\ faults \in 0..MaxFaults
    /\ brokerRole \in [Processes -> BrokerRoles]
    /\ \A p \in Processes : term[p] \in Nat

\* The controller's master is in its syncStateSet.
MasterInSyncStateSet == masterId = NoMaster \/ masterId \in syncStateSet

\* Every member of the syncStateSet is a registered id.
SyncStateSetRegistered == syncStateSet \subseteq DOMAIN replicas

\* No two processes persist the same brokerId in their meta files.  (The
\* controller binding an id to one checkCode holds by construction: replicas
\* is a function.)
UniqueBrokerIds ==
    \A p, q \in Processes : p # q /\ metaFile[p] # NoId => metaFile[p] # metaFile[q]

\* No two processes ever acted as master in the same master epoch.
AtMostOneMasterPerEpoch ==
    \A x, y \in masterHistory : x[1] = y[1] => x[2] = y[2]

\* Epochs and start offsets strictly increase; the last start is at most the LEO.
EpochFileWellFormed == \A p \in Processes : EfWellFormed(epochFile[p], Len(log[p]))

\* Two logs holding the same <<msg, epoch>> at an offset agree on every
\* earlier offset; no message stands at two offsets (in one log or two).
LogMatching ==
    /\ \A p, q \in Processes :
          \A i \in 1..Len(log[p]), j \in 1..Len(log[q]) : log[p][i][1] = log[q][j][1] => i = j
    /\ \A p, q \in Processes :
          \A i \in 1..Len(log[p]) :
              (i <= Len(log[q]) /\ log[p][i] = log[q][i]) => \A k \in 1..(i - 1) : log[p][k] = log[q][k]

\* master_processes: the processes the invariants hold to the master's
\* duties.  Controller mode: the process holding the controller's masterId;
\* 4.x: every running MASTER; DLedger: every running leader of the highest
\* term any process has (a leader of an older term has been deposed, it may
\* not know yet).
MasterProcs ==
    IF Design = CONTROLLER_MODE
    THEN {p \in Processes : masterId # NoMaster /\ metaFile[p] = masterId}
    ELSE LET running == {p \in Processes : regState[p] # DOWN /\ role[p] = MASTER}
             maxTerm == MaxOf({term[q] : q \in Processes})
         IN IF Design = MASTER_SLAVE THEN running ELSE {p \in running : term[p] = maxTerm}

\* Every acked message is in the log of (the process holding) every member
\* of the controller's syncStateSet and of every process of MasterProcs.
NoAckedMessageLost ==
    /\ \A b \in syncStateSet :
          \A p \in Processes : metaFile[p] = b /\ b # NoId => acked \subseteq Msgs(log[p])
    /\ \A p \in MasterProcs : acked \subseteq Msgs(log[p])

\* A message a consumer has seen is in the log of every process of
\* MasterProcs (controller mode: the controller's master).
NoPhantomRead == \A p \in MasterProcs : seen \subseteq Msgs(log[p])

ConfirmOffsetBound == \A p \in Processes : confirmOffset[p] <= Len(log[p])

Invariants ==
    /\ TypeOK
    /\ MasterInSyncStateSet
    /\ SyncStateSetRegistered
    /\ UniqueBrokerIds
    /\ AtMostOneMasterPerEpoch
    /\ EpochFileWellFormed
    /\ LogMatching
    /\ NoAckedMessageLost
    /\ NoPhantomRead
    /\ ConfirmOffsetBound

-----------------------------------------------------------------------------
(***************************************************************************)
(* Action properties (reference/invariants.py ACTION_PROPERTIES).          *)
(***************************************************************************)

\* Controller epochs never decrease, except when CleanBrokerData removes the
\* whole set (a new set starts at 0); a process's local epochs never
\* decrease while it stays up (a crash forgets them).
EpochsMonotonicStep ==
    LET setRemoved == DOMAIN replicas # {} /\ DOMAIN replicas' = {} IN
    /\ ~setRemoved => (masterEpoch' >= masterEpoch /\ syncStateSetEpoch' >= syncStateSetEpoch)
    /\ \A p \in Processes :
          regState'[p] # DOWN =>
              /\ localMasterEpoch'[p] >= localMasterEpoch[p]
              /\ localSyncStateSetEpoch'[p] >= localSyncStateSetEpoch[p]

\* A process with a meta file keeps its id for ever, unless its disk is wiped
\* (WipeDisk: a wiped disk is a new broker; the process is DOWN after it).
BrokerIdStableStep ==
    \A p \in Processes :
        metaFile[p] # NoId => \/ metaFile'[p] = metaFile[p]
                              \/ metaFile'[p] = NoId /\ regState'[p] = DOWN

EpochsMonotonic == [][EpochsMonotonicStep]_vars
BrokerIdStable == [][BrokerIdStableStep]_vars

=============================================================================
