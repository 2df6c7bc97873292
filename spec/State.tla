-------------------------------- MODULE State --------------------------------
(***************************************************************************)
(* The state of the whole model (MODEL.md §2, §4, §5): the constants that  *)
(* name the processes, every variable grouped by owner, the tuples of      *)
(* those groups, the controller variables as a record (Ctl, SetCtl) and    *)
(* the action records (Act, PAct).  No action is defined here: the         *)
(* controller's are in Controller.tla and AutoSwitch.tla, the processes'   *)
(* in Broker.tla and Replication.tla.  The twin of reference/state.py and  *)
(* reference/variables.py.                                                 *)
(*                                                                         *)
(* The data path's variables (logs, epoch files, HA connections, acks) are *)
(* here too because a role change and a crash (Broker.tla) act on them.    *)
(* Groups: the controller; each process's disk and volatile memory, for    *)
(* registration and for the data path; the environment (not protocol      *)
(* state, not a ghost: the wall clock and the producers' message ids);     *)
(* the ghosts (for the properties); the trace (the step just taken).      *)
(***************************************************************************)
EXTENDS Controller, Acks

CONSTANTS
    \* The broker processes of the set, e.g. {"p1", "p2"}.
    \* @type: Set(Str);
    Processes,
    \* Addrs[p]: the addresses process p may run under (a restart may change it).
    \* @type: Str -> Set(Str);
    Addrs

\* @typeAlias: tempFile = {brokerId: Int, checkCode: $checkCode};
\* @typeAlias: action = {tag: Str, process: Str, lost: Bool, addr: Str, newSyncStateSet: Set(Int), brokerId: Int, checkCode: $checkCode, trigger: Str, masterId: Int, masterEpoch: Int, syncStateSetEpoch: Int, epoch: Int, maxOffset: Int, priority: Int, brokerIds: Set(Int), cleanLiving: Bool, peer: Str, request: Str};
State_typedefs == TRUE

\* Registration states (reference/state.py).  DOWN: crashed, not yet restarted.
DOWN == "DOWN"
INITIAL == "INITIAL"
TEMP_DONE == "TEMP_DONE"
APPLY_FAILED == "APPLY_FAILED"
ID_APPLIED == "ID_APPLIED"
META_WRITTEN == "META_WRITTEN"
META_DONE == "META_DONE"
REGISTERED == "REGISTERED"
UpStates == {INITIAL, TEMP_DONE, APPLY_FAILED, ID_APPLIED, META_WRITTEN, META_DONE, REGISTERED}
RegStates == UpStates \cup {DOWN}

\* Roles.
NONE == "NONE"
MASTER == "MASTER"
SLAVE == "SLAVE"
Roles == {NONE, MASTER, SLAVE}

\* HA connection state of a slave: READY until the handshake has truncated its
\* log, then TRANSFER; HA_NONE for a process that is not a slave.
HA_NONE == "NONE"
READY == "READY"
TRANSFER == "TRANSFER"
HaStates == {HA_NONE, READY, TRANSFER}

\* @type: Int -> Int;
NoAcks == [b \in {} |-> 0]

AllAddrs == UNION {Addrs[p] : p \in Processes}

\* @type: $tempFile;
NoTempFile == [brokerId |-> NoId, checkCode |-> NoCheckCode]

-----------------------------------------------------------------------------
(***************************************************************************)
(* Variables, by owner.                                                    *)
(***************************************************************************)

\* The controller (one replicated state machine; MODEL.md §2).
VARIABLES
    \* brokerId -> [addr, checkCode] for every id applied so far; empty domain = set unknown.
    \* @type: Int -> $replica;
    replicas,
    \* Next id to hand out; +1 on every successful application of a new id.
    \* @type: Int;
    nextBrokerId,
    \* The master's brokerId, or NoMaster (-1).
    \* @type: Int;
    masterId,
    \* 0 = never elected; +1 on every applied ElectMaster event, "no candidate" included.
    \* @type: Int;
    masterEpoch,
    \* Ids in sync with the master.
    \* @type: Set(Int);
    syncStateSet,
    \* +1 on every applied set change (alter or elect).
    \* @type: Int;
    syncStateSetEpoch,
    \* Soft liveness table of the controller leader: id -> what its last heartbeat reported.
    \* @type: Int -> $liveInfo;
    alive,
    \* Tries left of the controller leader's running election trigger, 0 = none (CtlElectScan).
    \* @type: Int;
    electTriesLeft

\* Each broker process: disk (survives a crash) ...
VARIABLES
    \* The meta file's brokerId, NoId (0) when there is none.
    \* @type: Str -> Int;
    metaFile,
    \* The temp file [brokerId, checkCode]; NoTempFile when there is none.
    \* @type: Str -> $tempFile;
    tempFile,
    \* The designs RIP-44 replaced (Designs.tla): the configured role,
    \* "NONE" in controller mode, 4.x's "MASTER" or "SLAVE", "DLEDGER" for a
    \* DLedger member (an operator's failover changes it) ...
    \* @type: Str -> Str;
    brokerRole,
    \* ... and DLedger's currentTerm (0 outside DLedger mode).
    \* @type: Str -> Int;
    term

\* ... and volatile memory (lost on a crash).
VARIABLES
    \* Registration state (DOWN while crashed).
    \* @type: Str -> Str;
    regState,
    \* The address the process runs under (kept across a crash, changed by Restart).
    \* @type: Str -> Str;
    addr,
    \* NONE, MASTER or SLAVE as last confirmed by the controller.
    \* @type: Str -> Str;
    role,
    \* The local view of the master epoch and of the syncStateSet epoch.
    \* @type: Str -> Int;
    localMasterEpoch,
    \* @type: Str -> Int;
    localSyncStateSetEpoch

\* The data path of each process (MODEL.md §5): disk ...
VARIABLES
    \* The commit log: <<msg, epoch>> entries, offset o at index o + 1.
    \* @type: Str -> Seq($entry);
    log,
    \* How many entries of the log are durable (all of them with synchronous flush).
    \* @type: Str -> Int;
    flushed,
    \* The epoch file: <<epoch, startOffset>> entries.
    \* @type: Str -> Seq($entry);
    epochFile,
    \* The confirmOffset checkpoint: consumers see the messages below it.
    \* @type: Str -> Int;
    confirmOffset

\* ... and volatile memory.
VARIABLES
    \* The master the process follows (or is), NoMaster (-1) when none.
    \* @type: Str -> Int;
    localMasterId,
    \* A master's local view of the syncStateSet ({} on a slave).
    \* @type: Str -> Set(Int);
    localSyncStateSet,
    \* A slave's HA connection: READY, TRANSFER; HA_NONE otherwise.
    \* @type: Str -> Str;
    haState,
    \* A master's connected slaves: brokerId -> acked offset (key present = connected).
    \* @type: Str -> (Int -> Int);
    acks,
    \* A master's AlterSyncStateSet whose answer is still on its way (NoPending: none).
    \* @type: Str -> $pending;
    pendingAlter

\* The environment: sources of fresh values, not state of the protocol.
VARIABLES
    \* Timestamp source for fresh checkCodes (the real one is the wall clock).
    \* @type: Int;
    clock,
    \* Source of unique message ids (the producers).
    \* @type: Int;
    nextMsg

\* Ghosts: what the properties read; no step of the protocol depends on them
\* (Consume reads `seen` only to skip a read that would change nothing).
VARIABLES
    \* Every <<masterEpoch, process>> in which a process became master.
    \* @type: Set(<<Int, Str>>);
    masterHistory,
    \* Messages acknowledged to producers.
    \* @type: Set(Int);
    acked,
    \* Messages consumers have read.
    \* @type: Set(Int);
    seen

\* The network (MODEL.md §9): what the faults of the budget leave behind.
VARIABLES
    \* The replication links cut (PartitionLink), each a 2-set of processes.
    \* @type: Set(Set(Str));
    partitions,
    \* A process's controller request computed on its view and not delivered
    \* yet (SendLate): a controller-level action record (the raw action's tag
    \* and parameters, padded as `action`), over the processes with one.
    \* @type: Str -> $action;
    late

\* The fault budget's count (AutoSwitch.tla, Fault): the budgeted faults
\* taken so far.  Bookkeeping of the model checkers, not a trace variable
\* (reference/variables.py does not have it; System.faults).
VARIABLES
    \* @type: Int;
    faults

\* The trace: the step just taken (not part of the model's state, modelVars).
VARIABLES
    \* The step (trace vocabulary: tag + parameters), "Init" in Init.
    \* @type: $action;
    action,
    \* Its response code (or "OK") and the values the response carries.
    \* @type: $outcome;
    outcome

ctlVars == <<replicas, nextBrokerId, masterId, masterEpoch, syncStateSet, syncStateSetEpoch, alive, electTriesLeft>>
\* The designs' process variables (Designs.tla): on disk, as the identity files.
designVars == <<brokerRole, term>>
diskVars == <<metaFile, tempFile, designVars>>
procVars == <<regState, addr, role, localMasterEpoch, localSyncStateSetEpoch>>
\* The checkCode clock (environment) and the master history (ghost): what the
\* registration and role changes touch beside the groups above.
envVars == <<clock>>
ghostVars == <<masterHistory>>
dataDiskVars == <<log, flushed, epochFile, confirmOffset>>
dataProcVars == <<localMasterId, localSyncStateSet, haState, acks, pendingAlter>>
\* The producers and consumers: nextMsg (environment) and the ghosts acked, seen.
msgVars == <<nextMsg, acked, seen>>
dataVars == <<dataDiskVars, dataProcVars, msgVars>>
\* What a role change may touch (AdoptRole), for the branches that do not adopt.
roleVars == <<role, localMasterEpoch, localSyncStateSetEpoch, masterHistory,
              localMasterId, localSyncStateSet, haState, acks, pendingAlter, epochFile, confirmOffset, acked>>
\* The network: every action but the faults' own leaves it unchanged.
netVars == <<partitions, late>>
\* The model's state proper: what a trace of the reference model has
\* (action/outcome and the budget's count `faults` excluded).
modelVars == <<ctlVars, diskVars, procVars, envVars, ghostVars, dataVars, netVars>>
vars == <<modelVars, faults, action, outcome>>

-----------------------------------------------------------------------------
(***************************************************************************)
(* Helpers: the controller variables as a record and back, action records, *)
(* the id a process works under.                                           *)
(***************************************************************************)

\* @type: $ctl;
Ctl == [replicas |-> replicas, nextBrokerId |-> nextBrokerId, masterId |-> masterId,
        masterEpoch |-> masterEpoch, syncStateSet |-> syncStateSet,
        syncStateSetEpoch |-> syncStateSetEpoch, alive |-> alive, electTriesLeft |-> electTriesLeft]

\* @type: $ctl => Bool;
SetCtl(c) ==
    /\ replicas' = c.replicas
    /\ nextBrokerId' = c.nextBrokerId
    /\ masterId' = c.masterId
    /\ masterEpoch' = c.masterEpoch
    /\ syncStateSet' = c.syncStateSet
    /\ syncStateSetEpoch' = c.syncStateSetEpoch
    /\ alive' = c.alive
    /\ electTriesLeft' = c.electTriesLeft

\* An action record with every parameter at its "absent" value; a step sets
\* the tag and its own parameters.  spec/README.md lists which fields belong
\* to which tag (the others are padding for Apalache's single record type).
\* @type: Str => $action;
Act(tag) ==
    [tag |-> tag, process |-> "", lost |-> FALSE, addr |-> "", newSyncStateSet |-> {},
     brokerId |-> -1, checkCode |-> NoCheckCode, trigger |-> "", masterId |-> -1,
     masterEpoch |-> -1, syncStateSetEpoch |-> -1, epoch |-> -1, maxOffset |-> -1,
     priority |-> -1, brokerIds |-> {}, cleanLiving |-> FALSE, peer |-> "", request |-> ""]

\* @type: (Str, Str) => $action;
PAct(tag, p) == [Act(tag) EXCEPT !.process = p]

\* @type: (Str, Str, Bool) => $action;
PActLost(tag, p, lost) == [Act(tag) EXCEPT !.process = p, !.lost = lost]

\* Process.broker_id: the meta file's id, else the temp file's, else NoId.
\* @type: Str => Int;
BrokerIdOf(p) ==
    IF metaFile[p] # NoId THEN metaFile[p] ELSE tempFile[p].brokerId

=============================================================================
