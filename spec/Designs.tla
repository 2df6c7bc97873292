------------------------------ MODULE Designs ------------------------------
(***************************************************************************)
(* The designs RIP-44 replaced, beside controller mode (reference/         *)
(* designs.py): RocketMQ 4.x master-slave HA (MasterSlave.tla) and DLedger *)
(* mode (DLedger.tla), chosen by the constant Design.  This module holds   *)
(* what they share: their initial state (DesignInit) and which actions     *)
(* their Next has (AutoSwitch.tla dispatches on Design; controller mode's  *)
(* Next is unchanged).  Visible, what consumers read, is in               *)
(* Replication.tla beside Consume; MasterProcs, the processes the          *)
(* invariants hold to the master's duties, in Properties.tla.              *)
(*                                                                         *)
(* Every design runs on the same variables: metaFile holds a process's     *)
(* configured id (1..n in name order), regState is REGISTERED while it     *)
(* runs and DOWN while it is down, role is MASTER (4.x master, DLedger     *)
(* leader), SLAVE (4.x slave, DLedger follower) or NONE (down); the log    *)
(* holds <<msg, epoch>> with epoch 0 in 4.x and the entry's term in        *)
(* DLedger; confirmOffset is what consumers may read on a DLedger member   *)
(* (its commit index) and, on a 4.x master, the end of the writes answered. *)
(* The controller's variables keep their Init values.  Besides their own   *)
(* actions the designs' Next has Crash, Flush and Consume                  *)
(* (reference/actions.py, ActionDef.designs).                              *)
(***************************************************************************)
EXTENDS MasterSlave, DLedger

\* brokerRole of a DLedger member (reference/designs.py CONFIGURED_DLEDGER).
CONFIGURED_DLEDGER == "DLEDGER"
BrokerRoles == {NONE, MASTER, SLAVE, CONFIGURED_DLEDGER}

(***************************************************************************)
(* DesignInit(ids) (reference/designs.py initial_design): every process    *)
(* runs (REGISTERED) with its id ids[p] in its meta file.  4.x: the        *)
(* process of id 1 is the MASTER, the others its SLAVEs (following id 1,   *)
(* not connected yet); DLedger: every member a follower of term 0 with no  *)
(* leader known.  The reference gives the processes ids 1..n in name order; *)
(* TLA+ cannot order strings, so the MC module passes that map (MC_designs *)
(* defines InitDesign == DesignInit(MC_Ids)).                              *)
(***************************************************************************)
\* @type: (Str -> Int) => Bool;
DesignInit(ids) ==
    LET isMaster(p) == Design = MASTER_SLAVE /\ ids[p] = 1 IN
    /\ replicas = NoReplicas
    /\ nextBrokerId = 1
    /\ masterId = NoMaster
    /\ masterEpoch = 0
    /\ syncStateSet = {}
    /\ syncStateSetEpoch = 0
    /\ alive = NoAlive
    /\ electTriesLeft = 0
    /\ metaFile = ids
    /\ tempFile = [p \in Processes |-> NoTempFile]
    /\ brokerRole = [p \in Processes |-> IF Design = DLEDGER THEN CONFIGURED_DLEDGER
                                         ELSE IF isMaster(p) THEN MASTER ELSE SLAVE]
    /\ term = [p \in Processes |-> 0]
    /\ regState = [p \in Processes |-> REGISTERED]
    /\ addr \in [Processes -> AllAddrs]
    /\ \A p \in Processes : addr[p] \in Addrs[p]
    /\ role = [p \in Processes |-> IF isMaster(p) THEN MASTER ELSE SLAVE]
    /\ localMasterEpoch = [p \in Processes |-> 0]
    /\ localSyncStateSetEpoch = [p \in Processes |-> 0]
    /\ clock = 0
    /\ masterHistory = {}
    /\ log = [p \in Processes |-> <<>>]
    /\ flushed = [p \in Processes |-> 0]
    /\ epochFile = [p \in Processes |-> <<>>]
    /\ confirmOffset = [p \in Processes |-> 0]
    /\ localMasterId = [p \in Processes |-> IF Design = MASTER_SLAVE /\ ~isMaster(p) THEN 1 ELSE NoMaster]
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

-----------------------------------------------------------------------------
(***************************************************************************)
(* The designs' Next (AutoSwitch.tla takes it when Design is not          *)
(* "controller"): per process, its design's process actions and Crash,     *)
(* then, with DataPath, its writes (bounded by MaxMsgs in AutoSwitch.tla),  *)
(* its design's data path, Flush and Consume.  No fault of Faults.tla is   *)
(* in it (ActionDef.designs: controller mode's only).                      *)
(***************************************************************************)
DesignProcessNext(p) ==
    \/ Crash(p)
    \/ Design = MASTER_SLAVE /\ (MsRestart(p) \/ OperatorFailover(p))
    \/ Design = DLEDGER /\ (DlElect(p) \/ DlRestart(p))

\* A producer's write (reference/actions.py WRITE_TAGS).
DesignWrite(p) ==
    \/ Design = MASTER_SLAVE /\ MsWrite(p)
    \/ Design = DLEDGER /\ DlWrite(p)

DesignDataNext(p) ==
    \/ Design = MASTER_SLAVE /\ (MsConnect(p) \/ MsTransfer(p) \/ MsAck(p) \/ MsSlaveTimeout(p))
    \/ Design = DLEDGER /\ \E peer \in Processes : DlPush(p, peer)
    \/ Flush(p)
    \/ Consume(p)

=============================================================================
