------------------------------ MODULE MC_data3 ------------------------------
(***************************************************************************)
(* The data-path configuration with THREE processes (one address each,    *)
(* ids 1..3): a master and two slaves, so that an election can choose      *)
(* between two members and a slave can hand-shake with a master that a    *)
(* third process replaced.  MC_data3.cfg is the safe setting from          *)
(* InitRegistered (the brokers registered, 18 steps from Init).  Too large *)
(* for CI: run it by name.  ConstInit (Apalache) is the safe setting.     *)
(***************************************************************************)
EXTENDS AutoSwitch

MC_Processes == {"p1", "p2", "p3"}
MC_Addrs == [p \in MC_Processes |-> IF p = "p1" THEN {"a1"} ELSE IF p = "p2" THEN {"a2"} ELSE {"a3"}]
MC_BrokerIds == 1..3

ConstInit ==
    /\ EnableElectUncleanMaster = FALSE
    /\ Processes = MC_Processes
    /\ Addrs = MC_Addrs
    /\ BrokerIds = MC_BrokerIds
    /\ AllowCleanBrokerData = FALSE
    /\ MaxEpoch = 2
    /\ MaxClock = 3
    /\ MaxNextBrokerId = 4
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
    /\ Design = "controller"
    /\ SyncMaster = TRUE
    /\ SlaveNotAvailableOk = TRUE
    /\ HaMaxGap = 2
    /\ Faults = {}
    /\ MaxFaults = 0
    /\ BoundAllFaults = FALSE

MC_View == <<modelVars, faults>>
=============================================================================
