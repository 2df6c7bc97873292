------------------------------- MODULE MC_data -------------------------------
(***************************************************************************)
(* The data-path configurations: two processes with one address each, two *)
(* ids, a few messages, every invariant of MODEL.md §6.  MC_data.cfg is the*)
(* safe setting (rocketmq truncation, acks from the whole syncStateSet, no *)
(* unclean election, synchronous flush, both fixes); MC_data_kip279.cfg    *)
(* the same with KIP-279; MC_neg_*.cfg switch one option to a known-bad    *)
(* setting and must produce a counterexample (spec/README.md).             *)
(* MC_neg_hw_logmatching.cfg, MC_neg_kip101.cfg and MC_data_registered.cfg *)
(* start from InitRegistered (AutoSwitch.tla: the brokers registered); the *)
(* two controls set the options of traces/kafka/K2, K3 and check only      *)
(* TypeOK and LogMatching.                                                 *)
(* ConstInit (Apalache) is the safe setting.                               *)
(***************************************************************************)
EXTENDS AutoSwitch

MC_Processes == {"p1", "p2"}
MC_Addrs == [p \in MC_Processes |-> IF p = "p1" THEN {"a1"} ELSE {"a2"}]
MC_BrokerIds == 1..2

ConstInit ==
    /\ EnableElectUncleanMaster = FALSE
    /\ Processes = MC_Processes
    /\ Addrs = MC_Addrs
    /\ BrokerIds = MC_BrokerIds
    /\ AllowCleanBrokerData = FALSE
    /\ MaxEpoch = 2
    /\ MaxClock = 2
    /\ MaxNextBrokerId = 3
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
