----------------------------- MODULE MC_designs3 ----------------------------
(***************************************************************************)
(* DLedger mode (Designs.tla) with THREE processes, one address each       *)
(* (MC_dledger3.cfg, MC_live_dledger3.cfg): a majority survives one crash. *)
(* The processes get their ids in name order (MC_Ids).  ConstInit          *)
(* (Apalache) is the setting of MC_dledger3.                               *)
(***************************************************************************)
EXTENDS Liveness

MC_Processes == {"p1", "p2", "p3"}
MC_Addrs == [p \in MC_Processes |-> IF p = "p1" THEN {"a1"} ELSE IF p = "p2" THEN {"a2"} ELSE {"a3"}]
MC_BrokerIds == 1..3
MC_Ids == [p \in MC_Processes |-> IF p = "p1" THEN 1 ELSE IF p = "p2" THEN 2 ELSE 3]

InitDesign == DesignInit(MC_Ids)
LiveSpecDesign == InitDesign /\ [][Next]_vars /\ Fairness

ConstInit ==
    /\ EnableElectUncleanMaster = FALSE
    /\ Processes = MC_Processes
    /\ Addrs = MC_Addrs
    /\ BrokerIds = MC_BrokerIds
    /\ AllowCleanBrokerData = FALSE
    /\ MaxEpoch = 2
    /\ MaxClock = 0
    /\ MaxNextBrokerId = 1
    /\ MaxMsgs = 1
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
