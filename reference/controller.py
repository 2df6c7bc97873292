"""Controller requests (MODEL.md §3), one pure function per spec action of ``spec/Controller.tla``.

Each request checks its preconditions in the documented order; the first failed check returns its code
and leaves the state unchanged. A request returns ``(controller', outcome)``; ``outcome`` holds ``code``
and the values the response carries. Requests are always enabled: refusals are outcomes, not errors.
"""

from __future__ import annotations

from attrs import evolve
from frozendict import frozendict

from . import codes
from .precondition import require
from .state import ELECT_MASTER_MAX_RETRY_COUNT, NO_MASTER, Controller, LiveInfo, Options, Replica

Outcome = frozendict


def _outcome(code: str, **values) -> Outcome:
    return frozendict(code=code, **values)


def addr_of_check_code(check_code: str) -> str:
    """The address part of a ``"<addr>;<timestamp>"`` checkCode."""
    return check_code.split(";", 1)[0]


def master_alive(c: Controller) -> bool:
    return c.master_id != NO_MASTER and c.master_id in c.alive


def get_next_broker_id(c: Controller) -> tuple[Controller, Outcome]:
    """GetNextBrokerId: read only; 1 for an unknown set."""
    return c, _outcome(codes.SUCCESS, nextBrokerId=c.next_broker_id)


def apply_broker_id(c: Controller, broker_id: int, check_code: str) -> tuple[Controller, Outcome]:
    """ApplyBrokerId: an unknown set accepts only id 1 and is created with an empty sync state; a known
    set accepts a free id (counting it in nextBrokerId) or the same (id, checkCode) again (no change).
    Ids start at 1: an id below 1 is refused (refinement: the code has no range check)."""
    entry = Replica(addr_of_check_code(check_code), check_code)
    if broker_id < 1:
        return c, _outcome(codes.CONTROLLER_BROKER_ID_INVALID)
    if not c.known:
        if broker_id != 1:
            return c, _outcome(codes.CONTROLLER_BROKER_ID_INVALID)
        created = Controller(replicas=frozendict({1: entry}), next_broker_id=2, alive=c.alive, elect_tries_left=c.elect_tries_left)
        return created, _outcome(codes.SUCCESS)
    bound = c.replicas.get(broker_id)
    if bound is None:
        return evolve(c, replicas=c.replicas.set(broker_id, entry), next_broker_id=c.next_broker_id + 1), _outcome(codes.SUCCESS)
    if bound.check_code == check_code:
        return c, _outcome(codes.SUCCESS)
    return c, _outcome(codes.CONTROLLER_BROKER_ID_INVALID)


def register_broker(c: Controller, broker_id: int, addr: str) -> tuple[Controller, Outcome]:
    """RegisterBrokerToController: returns the master only if it is alive, and the syncStateSet always;
    the answer is built before the address update (ReplicasInfoManager.registerBroker), so a master
    registering under a new address hears its old one. Never elects."""
    if not c.known or broker_id not in c.replicas:
        return c, _outcome(codes.CONTROLLER_BROKER_NEED_TO_BE_REGISTERED)
    answer = _outcome(codes.SUCCESS, **_master_view(c, live_only=True), syncStateSet=c.sync_state_set)
    if c.replicas[broker_id].addr != addr:
        c = evolve(c, replicas=c.replicas.set(broker_id, evolve(c.replicas[broker_id], addr=addr)))
    return c, answer


def _master_view(c: Controller, live_only: bool) -> dict:
    """The master fields a response carries; -1 / "" when there is none (or, if asked, none alive)."""
    if c.master_id == NO_MASTER or (live_only and not master_alive(c)):
        return dict(masterId=NO_MASTER, masterAddr="", masterEpoch=-1, syncStateSetEpoch=-1)
    return dict(
        masterId=c.master_id,
        masterAddr=c.replicas[c.master_id].addr,
        masterEpoch=c.master_epoch,
        syncStateSetEpoch=c.sync_state_set_epoch,
    )


def _replica_info_view(c: Controller) -> dict:
    """GetReplicaInfo's fields: the master (-1 / "" when none) and both epochs, master or not."""
    has_master = c.master_id != NO_MASTER
    return dict(
        masterId=c.master_id,
        masterAddr=c.replicas[c.master_id].addr if has_master else "",
        masterEpoch=c.master_epoch,
        syncStateSetEpoch=c.sync_state_set_epoch,
    )


def _rank(c: Controller, broker_id: int) -> tuple:
    """Election order: higher reported epoch, higher maxOffset, lower priority value, lower id."""
    info = c.alive[broker_id]
    return (-info.epoch, -info.max_offset, info.priority, broker_id)


def _try_elect(c: Controller, candidates: frozenset[int], designated: int | None) -> int | None:
    """DefaultElectPolicy.tryElect over the alive part of ``candidates``."""
    live = frozenset(b for b in candidates if b in c.alive)
    if not live:
        return None
    if c.master_id in live and (designated is None or designated == c.master_id):
        return c.master_id
    if designated is not None:
        return designated if designated in live else None
    return min(live, key=lambda b: _rank(c, b))


def elect_policy(c: Controller, designated: int | None, opts: Options) -> int | None:
    """The winner: first among the alive syncStateSet, then (unclean election) among all registered ids."""
    winner = _try_elect(c, c.sync_state_set, designated)
    if winner is None and opts.enable_elect_unclean_master:
        winner = _try_elect(c, frozenset(c.replicas), designated)
    return winner


def elect_master(c: Controller, trigger: str, broker_id: int, opts: Options) -> tuple[Controller, Outcome]:
    """ElectMaster(trigger): ``broker(id)``, ``controller`` (id -1) or ``admin(id)`` which designates.

    The first election of a set (masterEpoch 0) lets the broker/admin id win without alive or
    membership check, provided the id is registered (refinement, spec/README.md). SUCCESS and
    MASTER_STILL_EXIST carry the master and the syncStateSet (ReplicasInfoManager.electMaster's header
    and body); a failure carries neither (an empty header, no body: absent values here)."""
    if not c.known:
        return c, _no_master_elected(codes.CONTROLLER_BROKER_NEED_TO_BE_REGISTERED)
    winner = None
    if c.master_epoch == 0 and trigger != "controller" and broker_id in c.replicas:
        winner = broker_id
    if winner is None:
        winner = elect_policy(c, broker_id if trigger == "admin" else None, opts)
    if winner is not None and winner == c.master_id:
        return c, _outcome(codes.CONTROLLER_MASTER_STILL_EXIST, **_master_view(c, live_only=False), syncStateSet=c.sync_state_set)
    if winner is not None:
        c = evolve(
            c,
            master_id=winner,
            master_epoch=c.master_epoch + 1,
            sync_state_set=frozenset({winner}),
            sync_state_set_epoch=c.sync_state_set_epoch + 1,
        )
        return c, _outcome(codes.SUCCESS, **_master_view(c, live_only=False), syncStateSet=c.sync_state_set)
    if trigger == "controller":
        c = evolve(c, master_id=NO_MASTER, master_epoch=c.master_epoch + 1)
        return c, _no_master_elected(codes.CONTROLLER_MASTER_NOT_AVAILABLE)
    return c, _no_master_elected(codes.CONTROLLER_ELECT_MASTER_FAILED)


def _no_master_elected(code: str) -> Outcome:
    """A failed ElectMaster's answer: no master fields, no syncStateSet."""
    return _outcome(code, masterId=NO_MASTER, masterAddr="", masterEpoch=-1, syncStateSetEpoch=-1, syncStateSet=frozenset())


def alter_sync_state_set(
    c: Controller, master_id: int, master_epoch: int, new_set: frozenset[int], sync_state_set_epoch: int
) -> tuple[Controller, Outcome]:
    """AlterSyncStateSet: checks in the order of MODEL.md §3; SUCCESS sets the set and bumps its epoch."""
    refuse = None
    if not c.known or new_set == c.sync_state_set:
        refuse = codes.CONTROLLER_ALTER_SYNC_STATE_SET_FAILED
    elif c.master_id == NO_MASTER or c.master_id != master_id:
        refuse = codes.CONTROLLER_INVALID_MASTER
    elif master_epoch != c.master_epoch:
        refuse = codes.CONTROLLER_FENCED_MASTER_EPOCH
    elif sync_state_set_epoch != c.sync_state_set_epoch:
        refuse = codes.CONTROLLER_FENCED_SYNC_STATE_SET_EPOCH
    else:
        for member in sorted(new_set):
            if member not in c.replicas:
                refuse = codes.CONTROLLER_INVALID_REPLICAS
                break
            if member not in c.alive:
                refuse = codes.CONTROLLER_BROKER_NOT_ALIVE
                break
        else:
            if c.master_id not in new_set:
                refuse = codes.CONTROLLER_ALTER_SYNC_STATE_SET_FAILED
    if refuse is not None:
        return c, _outcome(refuse, syncStateSetEpoch=-1)
    c = evolve(c, sync_state_set=frozenset(new_set), sync_state_set_epoch=c.sync_state_set_epoch + 1)
    return c, _outcome(codes.SUCCESS, syncStateSetEpoch=c.sync_state_set_epoch)


def get_replica_info(c: Controller) -> tuple[Controller, Outcome]:
    """GetReplicaInfo: the master (whether alive or not), the master epoch and the syncStateSet with its
    epoch; with no master, masterId -1 and masterAddr "" but the real epochs
    (ReplicasInfoManager.getReplicaInfo)."""
    if not c.known:
        return c, _outcome(codes.CONTROLLER_BROKER_METADATA_NOT_EXIST)
    return c, _outcome(codes.SUCCESS, **_replica_info_view(c), syncStateSet=c.sync_state_set)


def broker_heartbeat(c: Controller, broker_id: int, epoch: int, max_offset: int, priority: int) -> tuple[Controller, Outcome]:
    """BrokerHeartbeat: marks the id alive; the reported (epoch, maxOffset) only moves forward while the
    entry lives; the priority is always the latest."""
    prev = c.alive.get(broker_id)
    if prev is not None and (epoch, max_offset) <= (prev.epoch, prev.max_offset):
        epoch, max_offset = prev.epoch, prev.max_offset
    return evolve(c, alive=c.alive.set(broker_id, LiveInfo(epoch, max_offset, priority))), _outcome(codes.SUCCESS)


def heartbeat_expire(c: Controller, broker_id: int) -> tuple[Controller, Outcome]:
    """HeartbeatExpire: the controller forgets a live entry (death, pause or partition)."""
    require(broker_id in c.alive, f"HeartbeatExpire: broker {broker_id} is not alive")
    return evolve(c, alive=c.alive.delete(broker_id)), _outcome(codes.OK)


def controller_failover(c: Controller) -> tuple[Controller, Outcome]:
    """ControllerFailover: a new controller leader starts with an empty liveness table and does not
    continue the old leader's election trigger."""
    return evolve(c, alive=frozendict(), elect_tries_left=0), _outcome(codes.OK)


def clean_broker_data(c: Controller, broker_ids: frozenset[int], clean_living: bool) -> tuple[Controller, Outcome]:
    """CleanBrokerData (admin): without ``cleanLiving`` refuses alive ids, or a set with a master when no
    ids are given. Removes the ids from ``replicas`` and the syncStateSet (no epoch change); removing the
    master clears it (refinement); the set is removed (reset) when its replicas empty. With
    ``cleanLiving`` the listed ids are ignored and the whole set is removed (the code leaves its id set
    null: ReplicasInfoManager.cleanBrokerData)."""
    if not clean_living:
        if not broker_ids and c.master_id != NO_MASTER:
            return c, _outcome(codes.CONTROLLER_INVALID_CLEAN_BROKER_METADATA)
        if any(b in c.alive for b in broker_ids):
            return c, _outcome(codes.CONTROLLER_INVALID_CLEAN_BROKER_METADATA)
    if not c.known:
        return c, _outcome(codes.CONTROLLER_INVALID_CLEAN_BROKER_METADATA)
    removed = frozenset(c.replicas) if clean_living or not broker_ids else broker_ids
    replicas = frozendict({b: r for b, r in c.replicas.items() if b not in removed})
    if not replicas:
        return Controller(alive=c.alive, elect_tries_left=c.elect_tries_left), _outcome(codes.SUCCESS)
    return (
        evolve(
            c,
            replicas=replicas,
            sync_state_set=c.sync_state_set - removed,
            master_id=NO_MASTER if c.master_id in removed else c.master_id,
        ),
        _outcome(codes.SUCCESS),
    )


def needs_reelect(c: Controller) -> bool:
    """NeedsReelect: an election trigger is running, or a master exists and is not alive (the master's
    expiry notice triggers whatever else is alive; the periodic scan when some id is)."""
    return c.elect_tries_left > 0 or (c.master_id != NO_MASTER and not master_alive(c))


def elect_scan(c: Controller, opts: Options) -> tuple[Controller, Outcome]:
    """CtlElectScan: one try of ControllerManager.triggerElectMaster, the first of a new trigger or the
    next of a running one; SUCCESS ends the trigger, any other code leaves one try fewer."""
    left = c.elect_tries_left or ELECT_MASTER_MAX_RETRY_COUNT
    c, outcome = elect_master(c, "controller", NO_MASTER, opts)
    return evolve(c, elect_tries_left=0 if outcome["code"] == codes.SUCCESS else left - 1), outcome
