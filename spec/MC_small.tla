------------------------------ MODULE MC_small ------------------------------
(***************************************************************************)
(* The small model-checking configuration: two processes, p2 may restart   *)
(* under a second address.  TLC: MC_small.cfg.  Apalache: --cinit=ConstInit*)
(* (see spec/README.md for the commands and the measured figures).         *)
(***************************************************************************)
EXTENDS AutoSwitch

MC_Processes == {"p1", "p2"}
MC_Addrs == [p \in MC_Processes |-> IF p = "p1" THEN {"a1"} ELSE {"a2", "a3"}]
MC_BrokerIds == 1..2

\* Constant initialisation for Apalache (apalache-mc check --cinit=ConstInit).
ConstInit ==
    /\ EnableElectUncleanMaster = FALSE
    /\ Processes = MC_Processes
    /\ Addrs = MC_Addrs
    /\ BrokerIds = MC_BrokerIds
    /\ AllowCleanBrokerData = FALSE
    /\ MaxEpoch = 3
    /\ MaxClock = 2
    /\ MaxNextBrokerId = 3
    /\ MaxMsgs = 0
    /\ DataPath = FALSE
    /\ AnySetAlter = TRUE
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

\* TLC fingerprints states by the model's variables and the fault budget's
\* count only: `action` and `outcome` label the step that reached a state,
\* they are not state.
MC_View == <<modelVars, faults>>
=============================================================================
