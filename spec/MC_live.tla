------------------------------- MODULE MC_live -------------------------------
(***************************************************************************)
(* The liveness and fault configurations (spec/README.md, "Liveness" and   *)
(* "Faults"): two processes with one address each, two ids.  The           *)
(* MC_live_*.cfg check the properties of Liveness.tla under LiveSpec or    *)
(* LiveSpecRegistered with every fault bounded (BoundAllFaults); the       *)
(* MC_live_neg_*.cfg switch one option to a known-bad retry behaviour and  *)
(* must violate the property they name.  ConstInit (Apalache) is the safe  *)
(* setting of MC_live_reg (Apalache checks no temporal property).          *)
(***************************************************************************)
EXTENDS Liveness

MC_Processes == {"p1", "p2"}
MC_Addrs == [p \in MC_Processes |-> IF p = "p1" THEN {"a1"} ELSE {"a2"}]
MC_BrokerIds == 1..2

ConstInit ==
    /\ EnableElectUncleanMaster = FALSE
    /\ Processes = MC_Processes
    /\ Addrs = MC_Addrs
    /\ BrokerIds = MC_BrokerIds
    /\ AllowCleanBrokerData = FALSE
    /\ MaxEpoch = 3
    /\ MaxClock = 3
    /\ MaxNextBrokerId = 3
    /\ MaxMsgs = 0
    /\ DataPath = FALSE
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
    /\ MaxFaults = 1
    /\ BoundAllFaults = TRUE

\* States are told apart by the model's variables and the budget's count
\* (`action` and `outcome` label the step that reached a state; no action
\* reads them, so the view is exact for the liveness properties too).
MC_View == <<modelVars, faults>>
=============================================================================
