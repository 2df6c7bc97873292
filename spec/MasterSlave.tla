---------------------------- MODULE MasterSlave ----------------------------
(***************************************************************************)
(* RocketMQ 4.x master-slave HA, one of the designs RIP-44 replaced        *)
(* (Designs.tla): one action per function of reference/masterslave.py,    *)
(* with the same name.  A process's role is its configuration (brokerRole *)
(* MASTER or SLAVE; RocketMQ's brokerId 0 is the MASTER); there is no      *)
(* controller and no epoch (log entries carry epoch 0, the epoch files     *)
(* stay empty).  The code: 4.9's CommitLog.handleHA (a SYNC_MASTER waits   *)
(* for push2SlaveMaxOffset to pass the write, answers FLUSH_SLAVE_TIMEOUT  *)
(* after slaveTimeout and SLAVE_NOT_AVAILABLE at once when                  *)
(* HAService.isSlaveOK is false), HAService.HAClient (the slave reports    *)
(* its max offset and appends what the master streams) and HAConnection   *)
(* (the master streams from the slave's reported offset).                  *)
(*                                                                         *)
(* Differs from the code: the master streams from the slave's offset even  *)
(* for an empty slave (4.x starts at the master's last commit-log file,    *)
(* offset 0 while a log fits in one file, as every log of the model does); *)
(* push2SlaveMaxOffset is the largest offset a connected slave reported    *)
(* (MaxAck); the producer sends one message at a time (a SYNC_MASTER takes *)
(* a write only when the previous one is answered).  A slave whose log     *)
(* does not match the master's is never truncated: it appends what the    *)
(* master has at its offset.                                               *)
(***************************************************************************)
EXTENDS Faults

CONSTANTS
    \* 4.x brokerRole of the master: SYNC_MASTER (TRUE: a write waits for a
    \* slave) or ASYNC_MASTER (FALSE: acknowledged at once).
    \* @type: Bool;
    SyncMaster,
    \* Producers take SLAVE_NOT_AVAILABLE (no slave connected, or too far
    \* behind) for a success, as the code's client does (FALSE: a client that
    \* takes it for a failure).
    \* @type: Bool;
    SlaveNotAvailableOk,
    \* haMaxGapNotInSync, in messages: a slave further behind than this after
    \* the write is not available.
    \* @type: Int;
    HaMaxGap

SLAVE_NOT_AVAILABLE == "SLAVE_NOT_AVAILABLE"
FLUSH_SLAVE_TIMEOUT == "FLUSH_SLAVE_TIMEOUT"

\* push2SlaveMaxOffset: the largest offset a connected slave reported, -1
\* when none is connected.
\* @type: (Int -> Int) => Int;
MaxAck(ak) == IF DOMAIN ak = {} THEN -1 ELSE MaxOf({ak[b] : b \in DOMAIN ak})

\* _configured_master: the id of the process configured as MASTER (the name
\* server's master address), or NoMaster.
ConfiguredMaster ==
    IF \E q \in Processes : brokerRole[q] = MASTER
    THEN metaFile[CHOOSE q \in Processes : brokerRole[q] = MASTER]
    ELSE NoMaster

\* q is the process slave p follows, up and running as MASTER, over an uncut
\* link (process_of(localMasterId) and the guards of ms_connect and _link).
\* @type: (Str, Str) => Bool;
MsMasterOf(p, q) ==
    /\ localMasterId[p] # NoId /\ metaFile[q] = localMasterId[p]
    /\ regState[q] = REGISTERED /\ role[q] = MASTER
    /\ Linked(p, q)

\* _link: p is a connected slave and q its master (MsMasterOf).
\* @type: (Str, Str) => Bool;
MsLink(p, q) ==
    /\ regState[p] = REGISTERED /\ role[p] = SLAVE /\ haState[p] = TRANSFER
    /\ MsMasterOf(p, q)

\* _settle: master q, with confirmOffset co, log lg and acks ak, answers its
\* waiting write once a slave reported its end (GroupTransferService:
\* push2SlaveMaxOffset >= the request's next offset); the messages it
\* answers are acknowledged.
\* @type: (Str, Int, Seq($entry), Int -> Int) => Bool;
MsSettled(q, co, lg, ak) ==
    IF co < Len(lg) /\ MaxAck(ak) >= Len(lg)
    THEN /\ confirmOffset' = [confirmOffset EXCEPT ![q] = Len(lg)]
         /\ acked' = acked \cup {lg[i][1] : i \in (co + 1)..Len(lg)}
    ELSE UNCHANGED <<confirmOffset, acked>>

-----------------------------------------------------------------------------
(***************************************************************************)
(* The data path.                                                          *)
(***************************************************************************)

\* The master appends (epoch 0); an ASYNC_MASTER acks at once, a SYNC_MASTER
\* waits for a slave (MsSettled), or answers SLAVE_NOT_AVAILABLE (acked when
\* producers take it for a success) when no connected slave is within
\* HaMaxGap of the write's end.  confirmOffset marks the writes answered.
MsWrite(p) ==
    /\ regState[p] = REGISTERED
    /\ role[p] = MASTER
    /\ confirmOffset[p] = Len(log[p])
    /\ LET lg == Append(log[p], <<nextMsg, 0>>)
           unavailable == DOMAIN acks[p] = {} \/ Len(lg) - MaxAck(acks[p]) >= HaMaxGap
       IN
       /\ AppendDurably(p, lg)
       /\ nextMsg' = nextMsg + 1
       /\ IF ~SyncMaster
          THEN /\ confirmOffset' = [confirmOffset EXCEPT ![p] = Len(lg)]
               /\ acked' = acked \cup {nextMsg}
               /\ outcome' = [Out(SUCCESS) EXCEPT !.msg = nextMsg, !.offset = Len(log[p])]
          ELSE IF unavailable
          THEN /\ confirmOffset' = [confirmOffset EXCEPT ![p] = Len(lg)]
               /\ acked' = IF SlaveNotAvailableOk THEN acked \cup {nextMsg} ELSE acked
               /\ outcome' = [Out(SLAVE_NOT_AVAILABLE) EXCEPT !.msg = nextMsg, !.offset = Len(log[p])]
          ELSE /\ MsSettled(p, confirmOffset[p], lg, acks[p])
               /\ outcome' = [Out(SUCCESS) EXCEPT !.msg = nextMsg, !.offset = Len(log[p])]
    /\ action' = PAct("MsWrite", p)
    /\ UNCHANGED <<netVars, ctlVars, diskVars, procVars, envVars, ghostVars, epochFile, dataProcVars, seen>>

\* HAClient connects to the configured master and reports its max offset,
\* which the master takes as the slave's ack and the offset to stream from.
MsConnect(p) ==
    /\ regState[p] = REGISTERED
    /\ role[p] = SLAVE
    /\ haState[p] # TRANSFER
    /\ \E q \in Processes :
        /\ MsMasterOf(p, q)
        /\ LET ak == SetKey(acks[q], metaFile[p], Len(log[p])) IN
           /\ haState' = [haState EXCEPT ![p] = TRANSFER]
           /\ acks' = [acks EXCEPT ![q] = ak]
           /\ MsSettled(q, confirmOffset[q], log[q], ak)
    /\ action' = PAct("MsConnect", p)
    /\ outcome' = Out(OK)
    /\ UNCHANGED <<netVars, ctlVars, diskVars, procVars, envVars, ghostVars, log, flushed, epochFile,
                   localMasterId, localSyncStateSet, pendingAlter, nextMsg, seen>>

\* The master streams the entry at the slave's offset, which the slave
\* appends whatever it holds before it (no epoch, no truncation).
MsTransfer(p) ==
    /\ \E q \in Processes :
        /\ MsLink(p, q)
        /\ Len(log[p]) < Len(log[q])
        /\ AppendDurably(p, Append(log[p], log[q][Len(log[p]) + 1]))
    /\ action' = PAct("MsTransfer", p)
    /\ outcome' = Out(OK)
    /\ UNCHANGED <<netVars, ctlVars, diskVars, procVars, envVars, ghostVars, epochFile, confirmOffset,
                   dataProcVars, msgVars>>

\* The slave reports its max offset (when the master's record differs); the
\* master's waiting write may be acked.
MsAck(p) ==
    /\ \E q \in Processes :
        /\ MsLink(p, q)
        /\ ~(metaFile[p] \in DOMAIN acks[q] /\ acks[q][metaFile[p]] = Len(log[p]))
        /\ LET ak == SetKey(acks[q], metaFile[p], Len(log[p])) IN
           /\ acks' = [acks EXCEPT ![q] = ak]
           /\ MsSettled(q, confirmOffset[q], log[q], ak)
    /\ action' = PAct("MsAck", p)
    /\ outcome' = Out(OK)
    /\ UNCHANGED <<netVars, ctlVars, diskVars, procVars, envVars, ghostVars, log, flushed, epochFile,
                   localMasterId, localSyncStateSet, haState, pendingAlter, nextMsg, seen>>

\* The waiting write is answered FLUSH_SLAVE_TIMEOUT (not acked).
MsSlaveTimeout(p) ==
    /\ regState[p] = REGISTERED
    /\ role[p] = MASTER
    /\ confirmOffset[p] < Len(log[p])
    /\ confirmOffset' = [confirmOffset EXCEPT ![p] = Len(log[p])]
    /\ action' = PAct("MsSlaveTimeout", p)
    /\ outcome' = Out(FLUSH_SLAVE_TIMEOUT)
    /\ UNCHANGED <<netVars, ctlVars, diskVars, procVars, envVars, ghostVars, log, flushed, epochFile,
                   dataProcVars, msgVars>>

-----------------------------------------------------------------------------
(***************************************************************************)
(* The operator: restarts and failover (not fair: nothing makes an         *)
(* operator act, and 4.x has no automatic failover).                       *)
(***************************************************************************)

\* A down process starts in its configured role: a master with no write
\* waiting, a slave following the configured master (the name server's).
MsRestart(p) ==
    /\ regState[p] = DOWN
    /\ regState' = [regState EXCEPT ![p] = REGISTERED]
    /\ haState' = [haState EXCEPT ![p] = HA_NONE]
    /\ acks' = [acks EXCEPT ![p] = NoAcks]
    /\ IF brokerRole[p] = MASTER
       THEN /\ role' = [role EXCEPT ![p] = MASTER]
            /\ confirmOffset' = [confirmOffset EXCEPT ![p] = Len(log[p])]
            /\ localMasterId' = [localMasterId EXCEPT ![p] = NoMaster]
       ELSE /\ role' = [role EXCEPT ![p] = SLAVE]
            /\ localMasterId' = [localMasterId EXCEPT ![p] = ConfiguredMaster]
            /\ UNCHANGED confirmOffset
    /\ action' = PAct("MsRestart", p)
    /\ outcome' = Out(OK)
    /\ UNCHANGED <<netVars, ctlVars, diskVars, addr, localMasterEpoch, localSyncStateSetEpoch, envVars, ghostVars,
                   log, flushed, epochFile, localSyncStateSet, pendingAlter, msgVars>>

\* With every configured master down, an operator reconfigures the running
\* slave p as the master and restarts it so (nothing of its log is lost: a
\* clean shutdown flushes); every other process is configured SLAVE and
\* follows p (a running slave reconnects).
OperatorFailover(p) ==
    /\ regState[p] = REGISTERED
    /\ brokerRole[p] = SLAVE
    /\ ~\E q \in Processes : brokerRole[q] = MASTER /\ regState[q] # DOWN
    /\ brokerRole' = [q \in Processes |-> IF q = p THEN MASTER ELSE SLAVE]
    /\ role' = [role EXCEPT ![p] = MASTER]
    /\ haState' = [q \in Processes |-> IF q = p \/ role[q] = SLAVE THEN HA_NONE ELSE haState[q]]
    /\ acks' = [acks EXCEPT ![p] = NoAcks]
    /\ confirmOffset' = [confirmOffset EXCEPT ![p] = Len(log[p])]
    \* the running slaves follow p; a down process learns its master when it restarts (MsRestart)
    /\ localMasterId' = [q \in Processes |-> IF q = p THEN NoMaster ELSE IF role[q] = SLAVE THEN metaFile[p] ELSE localMasterId[q]]
    /\ action' = PAct("OperatorFailover", p)
    /\ outcome' = Out(OK)
    /\ UNCHANGED <<netVars, ctlVars, metaFile, tempFile, term, regState, addr, localMasterEpoch, localSyncStateSetEpoch,
                   envVars, ghostVars, log, flushed, epochFile, localSyncStateSet, pendingAlter, msgVars>>

=============================================================================
