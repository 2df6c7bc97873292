----------------------------- MODULE MC_medium ------------------------------
(***************************************************************************)
(* A larger configuration, not run in CI: like MC_small, but three ids in  *)
(* the parameter space (admin elections, expiries, proposed sets), two     *)
(* orphaned ids possible, four elections/alters and four checkCodes.       *)
(* TLC: MC_medium.cfg (about 13 minutes on 2 cores, see spec/README.md).   *)
(***************************************************************************)
EXTENDS AutoSwitch

MC_Processes == {"p1", "p2"}
MC_Addrs == [p \in MC_Processes |-> IF p = "p1" THEN {"a1"} ELSE {"a2", "a3"}]
MC_BrokerIds == 1..3

\* Constant initialisation for Apalache (apalache-mc check --cinit=ConstInit).
ConstInit ==
    /\ EnableElectUncleanMaster = FALSE
    /\ Processes = MC_Processes
    /\ Addrs = MC_Addrs
    /\ BrokerIds = MC_BrokerIds
    /\ AllowCleanBrokerData = FALSE
    /\ MaxEpoch = 3
    /\ MaxClock = 3
    /\ MaxNextBrokerId = 4
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

\* TLC fingerprints states by the model's variables only (see MC_small).
MC_View == <<modelVars, faults>>
=============================================================================
