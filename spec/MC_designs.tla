----------------------------- MODULE MC_designs -----------------------------
(***************************************************************************)
(* The designs RIP-44 replaced (Designs.tla) with two processes, one       *)
(* address each: RocketMQ 4.x master-slave (MC_ms_async.cfg,               *)
(* MC_ms_sync.cfg, MC_live_ms.cfg) and DLedger mode (MC_dledger2.cfg,      *)
(* MC_live_dledger2.cfg); spec/README.md, "The designs RIP-44 replaced".   *)
(* The processes get their ids in name order (MC_Ids, as                   *)
(* reference/designs.py initial_design): p1 is 4.x's MASTER.  ConstInit    *)
(* (Apalache) is the setting of MC_dledger2.                               *)
(***************************************************************************)
EXTENDS Liveness

MC_Processes == {"p1", "p2"}
MC_Addrs == [p \in MC_Processes |-> IF p = "p1" THEN {"a1"} ELSE {"a2"}]
MC_BrokerIds == 1..2
MC_Ids == [p \in MC_Processes |-> IF p = "p1" THEN 1 ELSE 2]

InitDesign == DesignInit(MC_Ids)
LiveSpecDesign == InitDesign /\ [][Next]_vars /\ Fairness

ConstInit ==
    /\ EnableElectUncleanMaster = FALSE
    /\ Processes = MC_Processes
    /\ Addrs = MC_Addrs
    /\ BrokerIds = MC_BrokerIds
    /\ AllowCleanBrokerData = FALSE
    /\ MaxEpoch = 3
    /\ MaxClock = 0
    /\ MaxNextBrokerId = 1
    /\ MaxMsgs = 2
    /\ DataPath = TRUE
    /\ AnySetAlter = FALSE
    /\ Policy = "rocketmq"
    /\ KafkaLeaderEpochOnElection = FALSE
    /\ AllAckInSyncStateSet = TRUE
    /\ MinInSyncReplicas = 1
    /\ InSyncReplicas = 1
    /\ AsyncFlush = FALSE
    /\ AsyncLearners = {}
    /\ UnionAckFix = TRUE
    /\ ConfirmFreezeFix = TRUE
    /\ ConfirmShortcutFix = TRUE
    /\ ConfirmZeroAckFix = TRUE
    /\ EpochReentryFix = TRUE
    /\ ReelectScan = TRUE
    /\ RegisterRetry = TRUE
    /\ Design = "dledger"
    /\ SyncMaster = TRUE
    /\ SlaveNotAvailableOk = TRUE
    /\ HaMaxGap = 2
    /\ Faults = {}
    /\ MaxFaults = 0
    /\ BoundAllFaults = FALSE

\* States are told apart by the model's variables and the budget's count.
MC_View == <<modelVars, faults>>
=============================================================================
