"""Controller requests (MODEL.md §3): one pure function per operator ``Ctl*`` of ``spec/Controller.tla`` (its
header lists the pairs). A request returns ``(controller', outcome)`` where the spec returns
``[ctl, out]``; ``outcome`` holds only the fields the response carries (the spec pads the others).
"""

from __future__ import annotations

from frozendict import frozendict

from . import codes
from .precondition import require
from .state import ELECT_MASTER_MAX_RETRY_COUNT, NO_MASTER, Controller, LiveInfo, Options, Replica, evolve

Outcome = frozendict


def _outcome(code: str, **values) -> Outcome:
    return frozendict(code=code, **values)


def addr_of_check_code(check_code: str) -> str:
    """The spec's ``cc.addr``: a checkCode is the string ``"<addr>;<timestamp>"`` here, a record there."""
    return check_code.split(";", 1)[0]


def master_alive(c: Controller) -> bool:
    """MasterAlive (spec/Controller.tla)."""
    return c.master_id != NO_MASTER and c.master_id in c.alive


def get_next_broker_id(c: Controller) -> tuple[Controller, Outcome]:
    """CtlGetNextBrokerId (spec/Controller.tla)."""
    return c, _outcome(codes.SUCCESS, nextBrokerId=c.next_broker_id)


def apply_broker_id(c: Controller, broker_id: int, check_code: str) -> tuple[Controller, Outcome]:
    """CtlApplyBrokerId (spec/Controller.tla)."""
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
    """CtlRegisterBroker (spec/Controller.tla)."""
    if not c.known or broker_id not in c.replicas:
        return c, _outcome(codes.CONTROLLER_BROKER_NEED_TO_BE_REGISTERED)
    answer = _outcome(codes.SUCCESS, **_master_view(c, live_only=True), syncStateSet=c.sync_state_set)
    if c.replicas[broker_id].addr != addr:
        c = evolve(c, replicas=c.replicas.set(broker_id, evolve(c.replicas[broker_id], addr=addr)))
    return c, answer


def _master_view(c: Controller, live_only: bool) -> dict:
    """WithMasterView (spec/Controller.tla), as the fields only."""
    if c.master_id == NO_MASTER or (live_only and not master_alive(c)):
        return dict(masterId=NO_MASTER, masterAddr="", masterEpoch=-1, syncStateSetEpoch=-1)
    return dict(
        masterId=c.master_id,
        masterAddr=c.replicas[c.master_id].addr,
        masterEpoch=c.master_epoch,
        syncStateSetEpoch=c.sync_state_set_epoch,
    )


def _replica_info_view(c: Controller) -> dict:
    """The master fields of CtlGetReplicaInfo (spec/Controller.tla)."""
    has_master = c.master_id != NO_MASTER
    return dict(
        masterId=c.master_id,
        masterAddr=c.replicas[c.master_id].addr if has_master else "",
        masterEpoch=c.master_epoch,
        syncStateSetEpoch=c.sync_state_set_epoch,
    )


def _rank(c: Controller, broker_id: int) -> tuple:
    """RanksBefore (spec/Controller.tla) as a sort key: ``a`` ranks before ``b`` iff its key is smaller."""
    info = c.alive[broker_id]
    return (-info.epoch, -info.max_offset, info.priority, broker_id)


def _try_elect(c: Controller, candidates: frozenset[int], designated: int | None) -> int | None:
    """TryElect (spec/Controller.tla); ``designated`` None is its ``hasDesignated = FALSE``, no winner is None (NoMaster)."""
    live = frozenset(b for b in candidates if b in c.alive)
    if not live:
        return None
    if c.master_id in live and (designated is None or designated == c.master_id):
        return c.master_id
    if designated is not None:
        return designated if designated in live else None
    return min(live, key=lambda b: _rank(c, b))


def elect_policy(c: Controller, designated: int | None, opts: Options) -> int | None:
    """ElectPolicy (spec/Controller.tla), with the same encoding as ``_try_elect``."""
    winner = _try_elect(c, c.sync_state_set, designated)
    if winner is None and opts.enable_elect_unclean_master:
        winner = _try_elect(c, frozenset(c.replicas), designated)
    return winner


def elect_master(c: Controller, trigger: str, broker_id: int, opts: Options) -> tuple[Controller, Outcome]:
    """CtlElectMaster (spec/Controller.tla)."""
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
    """A failed ElectMaster's answer: the absent values of the spec's ``Out``."""
    return _outcome(code, masterId=NO_MASTER, masterAddr="", masterEpoch=-1, syncStateSetEpoch=-1, syncStateSet=frozenset())


def alter_sync_state_set(
    c: Controller, master_id: int, master_epoch: int, new_set: frozenset[int], sync_state_set_epoch: int
) -> tuple[Controller, Outcome]:
    """CtlAlterSyncStateSet (spec/Controller.tla)."""
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
    """CtlGetReplicaInfo (spec/Controller.tla)."""
    if not c.known:
        return c, _outcome(codes.CONTROLLER_BROKER_METADATA_NOT_EXIST)
    return c, _outcome(codes.SUCCESS, **_replica_info_view(c), syncStateSet=c.sync_state_set)


def broker_heartbeat(c: Controller, broker_id: int, epoch: int, max_offset: int, priority: int) -> tuple[Controller, Outcome]:
    """CtlBrokerHeartbeat (spec/Controller.tla)."""
    prev = c.alive.get(broker_id)
    if prev is not None and (epoch, max_offset) <= (prev.epoch, prev.max_offset):
        epoch, max_offset = prev.epoch, prev.max_offset
    return evolve(c, alive=c.alive.set(broker_id, LiveInfo(epoch, max_offset, priority))), _outcome(codes.SUCCESS)


def heartbeat_expire(c: Controller, broker_id: int, opts: Options) -> tuple[Controller, Outcome]:
    """CtlHeartbeatExpire (spec/Controller.tla); its guard CanExpire raises ``NotEnabled``. The expiry of the master's
    entry starts the election trigger (onBrokerInactive of the master), in every version."""
    require(broker_id in c.alive, f"HeartbeatExpire: broker {broker_id} is not alive")
    c = evolve(c, alive=c.alive.delete(broker_id))
    if broker_id == c.master_id:
        c = evolve(c, elect_tries_left=ELECT_MASTER_MAX_RETRY_COUNT)
    return c, _outcome(codes.OK)


def controller_failover(c: Controller) -> tuple[Controller, Outcome]:
    """CtlControllerFailover (spec/Controller.tla)."""
    return evolve(c, alive=frozendict(), elect_tries_left=0), _outcome(codes.OK)


def clean_broker_data(c: Controller, broker_ids: frozenset[int], clean_living: bool) -> tuple[Controller, Outcome]:
    """CtlCleanBrokerData (spec/Controller.tla)."""
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


def needs_reelect(c: Controller, opts: Options) -> bool:
    """NeedsReelect (spec/Controller.tla): a running trigger, or with ReelectScan the periodic scan's
    (scanNeedReelectBrokerSets): a master that is not alive while some registered id is."""
    return c.elect_tries_left > 0 or (opts.reelect_scan and c.master_id != NO_MASTER and not master_alive(c)
                                      and any(b in c.alive for b in c.replicas))


def elect_scan(c: Controller, opts: Options) -> tuple[Controller, Outcome]:
    """CtlElectScan (spec/Controller.tla)."""
    left = c.elect_tries_left or ELECT_MASTER_MAX_RETRY_COUNT
    c, outcome = elect_master(c, "controller", NO_MASTER, opts)
    return evolve(c, elect_tries_left=0 if outcome["code"] == codes.SUCCESS else left - 1), outcome
