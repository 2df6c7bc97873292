----------------------------- MODULE Controller -----------------------------
(***************************************************************************)
(* The controller of ONE broker set (MODEL.md §2, §3), as pure operators.  *)
(*                                                                         *)
(* The controller is a replicated state machine: every request is one      *)
(* atomic step that checks its preconditions in a fixed order and then     *)
(* applies its events.  So each request is written here as an operator     *)
(* from a controller record (type $ctl) and the request's parameters to a  *)
(* record [ctl |-> new controller, out |-> response].  The same operator   *)
(* serves a raw controller action (an admin, a tool) and a broker action   *)
(* that sends the request (Broker.tla): the caller copies `ctl` into the   *)
(* controller variables and decides what the process does with `out`.      *)
(*                                                                         *)
(* Mirrors reference/controller.py function for function:                  *)
(*   get_next_broker_id   -> CtlGetNextBrokerId                            *)
(*   apply_broker_id      -> CtlApplyBrokerId                              *)
(*   register_broker      -> CtlRegisterBroker                             *)
(*   elect_master         -> CtlElectMaster (elect_policy, _try_elect)     *)
(*   alter_sync_state_set -> CtlAlterSyncStateSet                          *)
(*   get_replica_info     -> CtlGetReplicaInfo                             *)
(*   broker_heartbeat     -> CtlBrokerHeartbeat                            *)
(*   heartbeat_expire     -> CtlHeartbeatExpire (enabled iff id alive)     *)
(*   controller_failover  -> CtlControllerFailover                         *)
(*   clean_broker_data    -> CtlCleanBrokerData                            *)
(*   needs_reelect        -> NeedsReelect                                  *)
(*   elect_scan           -> CtlElectScan                                  *)
(*                                                                         *)
(* Requests are always enabled: a refusal is a response code, not a       *)
(* disabled action (except HeartbeatExpire, which needs a live entry).     *)
(***************************************************************************)
EXTENDS Integers, FiniteSets

CONSTANT
    \* MODEL.md §3 option: when no member of the syncStateSet is alive, elect among
    \* all alive registered ids (may lose acknowledged messages). Default FALSE.
    \* @type: Bool;
    EnableElectUncleanMaster,
    \* The controller leader's periodic re-elect scan (scanNeedReelectBrokerSets,
    \* RocketMQ 5.1.1+, #6383).  FALSE: before it (or JRaft with #8380's
    \* negated predicate): only the expiry of the master's heartbeat starts the
    \* election trigger (onBrokerInactive).  Options.reelect_scan.
    \* @type: Bool;
    ReelectScan

(***************************************************************************)
(* Representation.                                                         *)
(*                                                                         *)
(* A checkCode is the string "<addr>;<timestamp>" in RocketMQ and in the   *)
(* Python reference.  TLA+ cannot concatenate strings, so a checkCode is   *)
(* the record [addr |-> a, ts |-> t]; NoCheckCode stands for the empty     *)
(* string "" (no temp file).  The address part of a checkCode is `.addr`   *)
(* (addr_of_check_code in the reference).                                  *)
(*                                                                         *)
(* `replicas` with an empty domain means the broker set is unknown.        *)
(*                                                                         *)
(* A response is a record with ALL the fields any response can carry       *)
(* (Apalache needs one record type per variable); a field the Python       *)
(* response does not carry holds its "absent" value (-1, "" or {}).  See   *)
(* spec/README.md for which fields each response really carries.           *)
(***************************************************************************)

\* @typeAlias: checkCode = {addr: Str, ts: Int};
\* @typeAlias: replica = {addr: Str, checkCode: $checkCode};
\* @typeAlias: liveInfo = {epoch: Int, maxOffset: Int, priority: Int};
\* @typeAlias: ctl = {replicas: Int -> $replica, nextBrokerId: Int, masterId: Int, masterEpoch: Int, syncStateSet: Set(Int), syncStateSetEpoch: Int, alive: Int -> $liveInfo, electTriesLeft: Int};
\* @typeAlias: outcome = {code: Str, nextBrokerId: Int, masterId: Int, masterAddr: Str, masterEpoch: Int, syncStateSetEpoch: Int, syncStateSet: Set(Int), msg: Int, offset: Int, truncateOffset: Int, term: Int};
\* @typeAlias: result = {ctl: $ctl, out: $outcome};
Controller_typedefs == TRUE

NoMaster == -1      \* masterId when there is no master (reference NO_MASTER)
NoId == 0           \* "no broker id" in a process's files: ids start at 1 (reference NO_ID)

\* @type: $checkCode;
NoCheckCode == [addr |-> "", ts |-> -1]

\* The empty functions, typed for Apalache.
\* @type: Int -> $replica;
NoReplicas == [b \in {} |-> [addr |-> "", checkCode |-> NoCheckCode]]
\* @type: Int -> $liveInfo;
NoAlive == [b \in {} |-> [epoch |-> 0, maxOffset |-> 0, priority |-> 0]]

\* ControllerConfig.electMasterMaxRetryCount (default 3): the tries of one
\* controller-triggered election (ControllerManager.triggerElectMaster).
ElectMasterMaxRetryCount == 3

\* Response codes (RocketMQ ResponseCode names, reference/codes.py).
SUCCESS == "SUCCESS"
OK == "OK"   \* outcome of an action that is not a controller request
CONTROLLER_FENCED_MASTER_EPOCH == "CONTROLLER_FENCED_MASTER_EPOCH"
CONTROLLER_FENCED_SYNC_STATE_SET_EPOCH == "CONTROLLER_FENCED_SYNC_STATE_SET_EPOCH"
CONTROLLER_INVALID_MASTER == "CONTROLLER_INVALID_MASTER"
CONTROLLER_INVALID_REPLICAS == "CONTROLLER_INVALID_REPLICAS"
CONTROLLER_MASTER_NOT_AVAILABLE == "CONTROLLER_MASTER_NOT_AVAILABLE"
CONTROLLER_BROKER_NOT_ALIVE == "CONTROLLER_BROKER_NOT_ALIVE"
CONTROLLER_BROKER_METADATA_NOT_EXIST == "CONTROLLER_BROKER_METADATA_NOT_EXIST"
CONTROLLER_INVALID_CLEAN_BROKER_METADATA == "CONTROLLER_INVALID_CLEAN_BROKER_METADATA"
CONTROLLER_BROKER_NEED_TO_BE_REGISTERED == "CONTROLLER_BROKER_NEED_TO_BE_REGISTERED"
CONTROLLER_MASTER_STILL_EXIST == "CONTROLLER_MASTER_STILL_EXIST"
CONTROLLER_ELECT_MASTER_FAILED == "CONTROLLER_ELECT_MASTER_FAILED"
CONTROLLER_ALTER_SYNC_STATE_SET_FAILED == "CONTROLLER_ALTER_SYNC_STATE_SET_FAILED"
CONTROLLER_BROKER_ID_INVALID == "CONTROLLER_BROKER_ID_INVALID"

(***************************************************************************)
(* Controller records.                                                     *)
(***************************************************************************)

\* The state of an unknown broker set, keeping the leader-local part of c:
\* the liveness table and a running election trigger are soft state of the
\* controller leader and do not belong to the set.
\* @type: $ctl => $ctl;
EmptyCtl(c) ==
    [replicas |-> NoReplicas, nextBrokerId |-> 1, masterId |-> NoMaster, masterEpoch |-> 0,
     syncStateSet |-> {}, syncStateSetEpoch |-> 0, alive |-> c.alive, electTriesLeft |-> c.electTriesLeft]

\* The controller of Init, and of a leader that lost its metadata
\* (ControllerMetadataLoss): nothing known, nothing alive, no trigger.
\* @type: $ctl;
InitCtl ==
    [replicas |-> NoReplicas, nextBrokerId |-> 1, masterId |-> NoMaster, masterEpoch |-> 0,
     syncStateSet |-> {}, syncStateSetEpoch |-> 0, alive |-> NoAlive, electTriesLeft |-> 0]

\* @type: $ctl => Bool;
Known(c) == DOMAIN c.replicas # {}

\* @type: $ctl => Bool;
MasterAlive(c) == c.masterId # NoMaster /\ c.masterId \in DOMAIN c.alive

\* @type: (Str) => $outcome;
Out(code) ==
    [code |-> code, nextBrokerId |-> -1, masterId |-> NoMaster, masterAddr |-> "",
     masterEpoch |-> -1, syncStateSetEpoch |-> -1, syncStateSet |-> {},
     msg |-> -1, offset |-> -1, truncateOffset |-> -1,  \* the data path's (Replication.tla)
     term |-> -1]  \* DLedger's (DLedger.tla)

\* The master fields a response carries; -1 / "" when there is none (or, with
\* liveOnly, none alive).  The reference reads replicas[masterId] unguarded;
\* masterId is always registered (CleanBrokerData clears a removed master), the
\* guard only keeps TLC from failing if that ever broke.
\* @type: ($outcome, $ctl, Bool) => $outcome;
WithMasterView(o, c, liveOnly) ==
    IF c.masterId = NoMaster \/ (liveOnly /\ ~MasterAlive(c))
    THEN [o EXCEPT !.masterId = NoMaster, !.masterAddr = "", !.masterEpoch = -1, !.syncStateSetEpoch = -1]
    ELSE [o EXCEPT !.masterId = c.masterId,
                   !.masterAddr = IF c.masterId \in DOMAIN c.replicas
                                  THEN c.replicas[c.masterId].addr ELSE "",
                   !.masterEpoch = c.masterEpoch,
                   !.syncStateSetEpoch = c.syncStateSetEpoch]

\* @type: ($ctl, $outcome) => $result;
Result(c, o) == [ctl |-> c, out |-> o]

(***************************************************************************)
(* GetNextBrokerId: read only; 1 for an unknown set (its nextBrokerId is 1 *)
(* by construction).                                                       *)
(***************************************************************************)
\* @type: $ctl => $result;
CtlGetNextBrokerId(c) == Result(c, [Out(SUCCESS) EXCEPT !.nextBrokerId = c.nextBrokerId])

(***************************************************************************)
(* ApplyBrokerId(id, checkCode): an unknown set accepts only id 1 and is   *)
(* created with an empty sync state; a known set accepts a free id         *)
(* (counting it in nextBrokerId) or the same (id, checkCode) again, with   *)
(* no change.  This comparison of checkCodes is what keeps two processes   *)
(* that both asked for the same next id from both getting it.              *)
(***************************************************************************)
\* @type: ($ctl, Int, $checkCode) => $result;
CtlApplyBrokerId(c, id, cc) ==
    LET entry == [addr |-> cc.addr, checkCode |-> cc] IN
    IF id < 1  \* ids start at 1 (refinement: the code has no range check)
    THEN Result(c, Out(CONTROLLER_BROKER_ID_INVALID))
    ELSE IF ~Known(c)
    THEN IF id # 1
         THEN Result(c, Out(CONTROLLER_BROKER_ID_INVALID))
         ELSE Result([EmptyCtl(c) EXCEPT !.replicas = [b \in {1} |-> entry], !.nextBrokerId = 2],
                     Out(SUCCESS))
    ELSE IF id \notin DOMAIN c.replicas
    THEN Result([c EXCEPT !.replicas = [b \in DOMAIN c.replicas \cup {id} |->
                                          IF b = id THEN entry ELSE c.replicas[b]],
                          !.nextBrokerId = c.nextBrokerId + 1],
                Out(SUCCESS))
    ELSE IF c.replicas[id].checkCode = cc
    THEN Result(c, Out(SUCCESS))
    ELSE Result(c, Out(CONTROLLER_BROKER_ID_INVALID))

(***************************************************************************)
(* RegisterBrokerToController(id, addr): updates the stored address (not   *)
(* the checkCode); answers the master only if it is alive, and the         *)
(* syncStateSet always.  The answer is built BEFORE the address update     *)
(* (ReplicasInfoManager.registerBroker), so a master registering under a   *)
(* new address hears its old one.  It never elects: a broker that hears    *)
(* "no master" asks ElectMaster itself.                                    *)
(***************************************************************************)
\* @type: ($ctl, Int, Str) => $result;
CtlRegisterBroker(c, id, a) ==
    IF ~Known(c) \/ id \notin DOMAIN c.replicas
    THEN Result(c, Out(CONTROLLER_BROKER_NEED_TO_BE_REGISTERED))
    ELSE LET c2 == IF c.replicas[id].addr # a
                   THEN [c EXCEPT !.replicas[id].addr = a]
                   ELSE c
         IN Result(c2, [WithMasterView(Out(SUCCESS), c, TRUE) EXCEPT !.syncStateSet = c.syncStateSet])

(***************************************************************************)
(* The elect policy (DefaultElectPolicy).                                  *)
(***************************************************************************)

\* Election order of two alive ids: higher reported epoch, then higher
\* maxOffset, then lower priority value, then lower id.  The code breaks the
\* last tie by HashSet order; the model fixes it to the lowest id.
\* @type: ($ctl, Int, Int) => Bool;
RanksBefore(c, a, b) ==
    LET x == c.alive[a]
        y == c.alive[b]
    IN \/ x.epoch > y.epoch
       \/ x.epoch = y.epoch /\ x.maxOffset > y.maxOffset
       \/ x.epoch = y.epoch /\ x.maxOffset = y.maxOffset /\ x.priority < y.priority
       \/ x.epoch = y.epoch /\ x.maxOffset = y.maxOffset /\ x.priority = y.priority /\ a < b

\* _try_elect over the alive part of `candidates`.  hasDesignated/designated
\* encode the Python `designated: int | None` (an admin election names an id).
\* The result is the winner, or NoMaster for "no winner".
\* @type: ($ctl, Set(Int), Bool, Int) => Int;
TryElect(c, candidates, hasDesignated, designated) ==
    LET live == {b \in candidates : b \in DOMAIN c.alive} IN
    IF live = {} THEN NoMaster
    ELSE IF c.masterId \in live /\ (~hasDesignated \/ designated = c.masterId)
    THEN c.masterId     \* an alive old master is kept
    ELSE IF hasDesignated
    THEN IF designated \in live THEN designated ELSE NoMaster
    ELSE CHOOSE b \in live : \A o \in live \ {b} : RanksBefore(c, b, o)

\* elect_policy: first among the alive syncStateSet, then (unclean election)
\* among all alive registered ids.
\* @type: ($ctl, Bool, Int) => Int;
ElectPolicy(c, hasDesignated, designated) ==
    LET clean == TryElect(c, c.syncStateSet, hasDesignated, designated) IN
    IF clean = NoMaster /\ EnableElectUncleanMaster
    THEN TryElect(c, DOMAIN c.replicas, hasDesignated, designated)
    ELSE clean

(***************************************************************************)
(* ElectMaster(trigger, id): trigger "broker" (id asks), "controller" (the *)
(* re-elect scan, id -1) or "admin" (id designated).  The first election   *)
(* (masterEpoch 0) lets a broker/admin id win without alive or membership  *)
(* check, provided the id is registered (refinement of MODEL.md: an        *)
(* unregistered winner would break SyncStateSetRegistered).                *)
(* A winner bumps masterEpoch and syncStateSetEpoch and becomes the only   *)
(* member; no winner on a controller trigger clears the master and still  *)
(* bumps masterEpoch (so the old master is fenced).  SUCCESS and          *)
(* MASTER_STILL_EXIST carry the master view and the syncStateSet of the    *)
(* resulting state (header and body in ReplicasInfoManager.electMaster,    *)
(* which a broker that becomes master adopts); a failure carries neither   *)
(* (an empty header and no body: Out's absent values).                     *)
(***************************************************************************)
\* @type: ($ctl, Str, Int) => $result;
CtlElectMaster(c, trigger, id) ==
    IF ~Known(c)
    THEN Result(c, Out(CONTROLLER_BROKER_NEED_TO_BE_REGISTERED))
    ELSE
    LET first == c.masterEpoch = 0 /\ trigger # "controller" /\ id \in DOMAIN c.replicas
        winner == IF first THEN id ELSE ElectPolicy(c, trigger = "admin", id)
        elected == [c EXCEPT !.masterId = winner,
                             !.masterEpoch = c.masterEpoch + 1,
                             !.syncStateSet = {winner},
                             !.syncStateSetEpoch = c.syncStateSetEpoch + 1]
        cleared == [c EXCEPT !.masterId = NoMaster, !.masterEpoch = c.masterEpoch + 1]
    IN
    IF winner # NoMaster /\ winner = c.masterId
    THEN Result(c, [WithMasterView(Out(CONTROLLER_MASTER_STILL_EXIST), c, FALSE)
                        EXCEPT !.syncStateSet = c.syncStateSet])
    ELSE IF winner # NoMaster
    THEN Result(elected, [WithMasterView(Out(SUCCESS), elected, FALSE)
                              EXCEPT !.syncStateSet = elected.syncStateSet])
    ELSE IF trigger = "controller"
    THEN Result(cleared, Out(CONTROLLER_MASTER_NOT_AVAILABLE))
    ELSE Result(c, Out(CONTROLLER_ELECT_MASTER_FAILED))

(***************************************************************************)
(* AlterSyncStateSet(masterId, masterEpoch, newSet, syncStateSetEpoch):    *)
(* checks in the order of MODEL.md §3; the per-member checks run in        *)
(* ascending id order, so the smallest bad member decides the code.        *)
(***************************************************************************)
\* @type: ($ctl, Int, Int, Set(Int), Int) => $result;
CtlAlterSyncStateSet(c, mId, mEpoch, newSet, ssEpoch) ==
    LET bad == {m \in newSet : m \notin DOMAIN c.replicas \/ m \notin DOMAIN c.alive}
        firstBad == CHOOSE m \in bad : \A x \in bad : m <= x
        refuse ==
            IF ~Known(c) \/ newSet = c.syncStateSet THEN CONTROLLER_ALTER_SYNC_STATE_SET_FAILED
            ELSE IF c.masterId = NoMaster \/ c.masterId # mId THEN CONTROLLER_INVALID_MASTER
            ELSE IF mEpoch # c.masterEpoch THEN CONTROLLER_FENCED_MASTER_EPOCH
            ELSE IF ssEpoch # c.syncStateSetEpoch THEN CONTROLLER_FENCED_SYNC_STATE_SET_EPOCH
            ELSE IF bad # {}
                 THEN IF firstBad \notin DOMAIN c.replicas THEN CONTROLLER_INVALID_REPLICAS
                      ELSE CONTROLLER_BROKER_NOT_ALIVE
            ELSE IF c.masterId \notin newSet THEN CONTROLLER_ALTER_SYNC_STATE_SET_FAILED
            ELSE SUCCESS
        altered == [c EXCEPT !.syncStateSet = newSet, !.syncStateSetEpoch = c.syncStateSetEpoch + 1]
    IN
    IF refuse # SUCCESS
    THEN Result(c, Out(refuse))   \* syncStateSetEpoch -1 in the response
    ELSE Result(altered, [Out(SUCCESS) EXCEPT !.syncStateSetEpoch = altered.syncStateSetEpoch])

(***************************************************************************)
(* GetReplicaInfo: the master (alive or not; -1 / "" when none), the      *)
(* master epoch and the set with its epoch, master or not                  *)
(* (ReplicasInfoManager.getReplicaInfo).                                   *)
(***************************************************************************)
\* @type: $ctl => $result;
CtlGetReplicaInfo(c) ==
    IF ~Known(c)
    THEN Result(c, Out(CONTROLLER_BROKER_METADATA_NOT_EXIST))
    ELSE Result(c, [WithMasterView(Out(SUCCESS), c, FALSE)
                       EXCEPT !.masterEpoch = c.masterEpoch,
                              !.syncStateSetEpoch = c.syncStateSetEpoch,
                              !.syncStateSet = c.syncStateSet])

(***************************************************************************)
(* BrokerHeartbeat(id, epoch, maxOffset, priority): marks the id alive;    *)
(* the reported (epoch, maxOffset) only moves forward (lexicographically)  *)
(* while the entry lives; the priority is always the latest.  It does not  *)
(* check that the set or the id is known (neither does the reference).     *)
(***************************************************************************)
\* @type: ($ctl, Int, Int, Int, Int) => $result;
CtlBrokerHeartbeat(c, id, epoch, maxOffset, priority) ==
    LET keep == /\ id \in DOMAIN c.alive
                /\ \/ epoch < c.alive[id].epoch
                   \/ epoch = c.alive[id].epoch /\ maxOffset <= c.alive[id].maxOffset
        info == IF keep
                THEN [epoch |-> c.alive[id].epoch, maxOffset |-> c.alive[id].maxOffset, priority |-> priority]
                ELSE [epoch |-> epoch, maxOffset |-> maxOffset, priority |-> priority]
    IN Result([c EXCEPT !.alive = [b \in DOMAIN c.alive \cup {id} |-> IF b = id THEN info ELSE c.alive[b]]],
              Out(SUCCESS))

(***************************************************************************)
(* HeartbeatExpire(id): the controller forgets a live entry: a death, a    *)
(* pause or a partition look the same.  Enabled only for an alive id.      *)
(* The expiry of the master's entry starts the election trigger in every   *)
(* version (the heartbeat manager's onBrokerInactive of the master:        *)
(* ElectMasterMaxRetryCount tries, CtlElectScan), whether or not another   *)
(* id is alive.                                                            *)
(***************************************************************************)
\* @type: ($ctl, Int) => Bool;
CanExpire(c, id) == id \in DOMAIN c.alive

\* @type: ($ctl, Int) => $result;
CtlHeartbeatExpire(c, id) ==
    LET expired == [c EXCEPT !.alive = [b \in DOMAIN c.alive \ {id} |-> c.alive[b]]] IN
    IF id = c.masterId
    THEN Result([expired EXCEPT !.electTriesLeft = ElectMasterMaxRetryCount], Out(OK))
    ELSE Result(expired, Out(OK))

(***************************************************************************)
(* ControllerFailover: the liveness table and a running election trigger  *)
(* are leader-local: a new controller leader starts with no heartbeats and *)
(* does not continue the old leader's tries.                               *)
(***************************************************************************)
\* @type: $ctl => $result;
CtlControllerFailover(c) == Result([c EXCEPT !.alive = NoAlive, !.electTriesLeft = 0], Out(OK))

(***************************************************************************)
(* CleanBrokerData(ids, cleanLiving) (admin).  Without cleanLiving it      *)
(* refuses alive ids, or a set with a master when no ids are given.  It    *)
(* removes the ids ({} = all) from replicas and the syncStateSet with no   *)
(* epoch change; removing the master clears it (refinement: otherwise      *)
(* MasterInSyncStateSet breaks); the set is reset when its replicas empty, *)
(* so its epochs restart at 0 (EpochsMonotonic makes an exception).  With  *)
(* cleanLiving the ids are ignored and the whole set goes (the code leaves *)
(* its id set null: ReplicasInfoManager.cleanBrokerData).                  *)
(***************************************************************************)
\* @type: ($ctl, Set(Int), Bool) => $result;
CtlCleanBrokerData(c, ids, cleanLiving) ==
    LET removed == IF cleanLiving \/ ids = {} THEN DOMAIN c.replicas ELSE ids
        kept == DOMAIN c.replicas \ removed
    IN
    IF ~cleanLiving /\ ids = {} /\ c.masterId # NoMaster
    THEN Result(c, Out(CONTROLLER_INVALID_CLEAN_BROKER_METADATA))
    ELSE IF ~cleanLiving /\ \E b \in ids : b \in DOMAIN c.alive
    THEN Result(c, Out(CONTROLLER_INVALID_CLEAN_BROKER_METADATA))
    ELSE IF ~Known(c)
    THEN Result(c, Out(CONTROLLER_INVALID_CLEAN_BROKER_METADATA))
    ELSE IF kept = {}
    THEN Result(EmptyCtl(c), Out(SUCCESS))
    ELSE Result([c EXCEPT !.replicas = [b \in kept |-> c.replicas[b]],
                          !.syncStateSet = c.syncStateSet \ removed,
                          !.masterId = IF c.masterId \in removed THEN NoMaster ELSE c.masterId],
                Out(SUCCESS))

(***************************************************************************)
(* The controller's election trigger (ControllerManager.triggerElectMaster)*)
(* starts in two ways: the master's heartbeat-expiry notice                *)
(* (onBrokerInactive, CtlHeartbeatExpire) whatever else is alive, and,     *)
(* with ReelectScan, the periodic scan (scanNeedReelectBrokerSets) when a  *)
(* master exists, is not alive, and some registered id of the set is       *)
(* alive: so an empty liveness table (a new controller leader's) starts    *)
(* nothing until a heartbeat arrives.  A trigger is up to                  *)
(* ElectMasterMaxRetryCount tries of ElectMaster(controller), each one     *)
(* step (other requests interleave between tries), stopping at the first   *)
(* SUCCESS; any other code is retried, so a set with no candidate has its  *)
(* masterEpoch bumped on every try, also after the master was cleared.     *)
(* electTriesLeft counts the tries left, 0 = no trigger running.           *)
(***************************************************************************)
\* @type: $ctl => Bool;
NeedsReelect(c) ==
    \/ c.electTriesLeft > 0
    \/ /\ ReelectScan /\ c.masterId # NoMaster /\ ~MasterAlive(c)
       /\ \E b \in DOMAIN c.replicas : b \in DOMAIN c.alive

\* One try: the first of a new trigger, or the next of a running one.
\* @type: $ctl => $result;
CtlElectScan(c) ==
    LET left == IF c.electTriesLeft > 0 THEN c.electTriesLeft ELSE ElectMasterMaxRetryCount
        r == CtlElectMaster(c, "controller", NoMaster)
    IN Result([r.ctl EXCEPT !.electTriesLeft = IF r.out.code = SUCCESS THEN 0 ELSE left - 1], r.out)

=============================================================================
