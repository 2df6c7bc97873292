"""z3 checks of the controller (reference/controller.py) for a fixed set of broker ids: every request,
from every state satisfying the invariants, leads to a state satisfying them (Apalache's inductive
check, done with z3 directly), under both settings of ``enableElectUncleanMaster``.

The encoding. Broker ids are 1..N: ``replicas`` is a presence flag, an address and a checkCode per id,
``syncStateSet`` a flag per id; ``alive`` is a flag and an (epoch, maxOffset, priority) per id 0..N (a
heartbeat may name id 0, which can never be registered). A checkCode ``"<addr>;<ts>"`` is the pair
(addr, ts) as in the spec, addresses and timestamps are integers (only equality matters). Every request
of controller.py is a function from the symbolic state and symbolic parameters to the post-state and the
response code, plus its enabling condition (HeartbeatExpire, ControllerElectScan). Parameters range over
all integers except where a value would leave the id range: ApplyBrokerId names an id <= N, heartbeats
name ids 0..N with natural numbers (TypeOK of the request), set parameters are subsets of 0..N plus a
flag "some id above N".

The invariants: the controller part of TypeOK, MasterInSyncStateSet, SyncStateSetRegistered (MODEL.md
§6) and the action property EpochsMonotonic. The three state invariants are inductive, alone and
together; EpochsMonotonic is not implied by them: a state with an unknown broker set and masterEpoch 3
satisfies them, and ApplyBrokerId(1) there starts the set at epoch 0. The strengthening that makes it
inductive is UnknownSetIsFresh: a controller without replicas has both epochs 0 (Init starts so,
CleanBrokerData of the whole set resets to it; it is inductive on its own too). IndInv is the
conjunction of the four state predicates; every model z3 returns is decoded into a reference
``Controller`` and action record, so a counterexample can be replayed on the reference.
"""


from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import attrs
import z3
from attrs import evolve, frozen
from frozendict import frozendict

from autoswitch.reference import codes
from autoswitch.reference.actions import ACTIONS, BOOL, CONTROLLER, SCAN, TRIGGERS, tags
from autoswitch.reference.controller import addr_of_check_code
from autoswitch.reference.state import (
    ELECT_MASTER_MAX_RETRY_COUNT,
    NO_MASTER,
    Controller,
    LiveInfo,
    Replica,
)

Bool = z3.BoolRef
Int = z3.ArithRef

CODES = tuple(sorted(v for k, v in vars(codes).items() if k.isupper()))
TRUE, FALSE = z3.BoolVal(True), z3.BoolVal(False)


def code(name: str) -> Int:
    return z3.IntVal(CODES.index(name))


@frozen(eq=False)
class Ctl:
    """A controller whose fields are z3 terms. Values of absent entries are junk nobody reads."""

    present: dict[int, Bool]  # ids 1..N
    addr: dict[int, Int]
    cc_addr: dict[int, Int]
    cc_ts: dict[int, Int]
    next_id: Int
    master: Int
    master_epoch: Int
    sss: dict[int, Bool]  # ids 1..N
    sss_epoch: Int
    alive: dict[int, Bool]  # ids 0..N
    a_epoch: dict[int, Int]
    a_offset: dict[int, Int]
    a_priority: dict[int, Int]
    tries: Int  # electTriesLeft

    @property
    def ids(self) -> list[int]:
        return sorted(self.present)

    @property
    def known(self) -> Bool:
        return z3.Or(list(self.present.values()))

    def fields(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in attrs.fields(Ctl)}


def symbolic_controller(name: str, n: int) -> Ctl:
    """A controller of fresh z3 constants over ids 1..n (alive over 0..n)."""
    ids, alive_ids = range(1, n + 1), range(0, n + 1)

    def ints(f: str, keys: Iterable[int]) -> dict[int, Int]:
        return {b: z3.Int(f"{name}_{f}_{b}") for b in keys}

    def bools(f: str, keys: Iterable[int]) -> dict[int, Bool]:
        return {b: z3.Bool(f"{name}_{f}_{b}") for b in keys}

    return Ctl(bools("present", ids), ints("addr", ids), ints("ccAddr", ids), ints("ccTs", ids), z3.Int(f"{name}_next"),
               z3.Int(f"{name}_master"), z3.Int(f"{name}_masterEpoch"), bools("sss", ids), z3.Int(f"{name}_sssEpoch"),
               bools("alive", alive_ids), ints("aEpoch", alive_ids), ints("aOffset", alive_ids), ints("aPriority", alive_ids),
               z3.Int(f"{name}_triesLeft"))


def ite(cond: Bool, a: Ctl, b: Ctl) -> Ctl:
    """Field by field ``If(cond, a, b)``."""
    def pick(x: Any, y: Any) -> Any:
        if isinstance(x, dict):
            return {k: pick(x[k], y[k]) for k in x}
        return z3.If(cond, x, y)

    fa, fb = a.fields(), b.fields()
    return Ctl(**{f: pick(fa[f], fb[f]) for f in fa})


def member(x: Int, flags: Mapping[int, Bool]) -> Bool:
    """``x`` is one of the ids whose flag is set."""
    return z3.Or([z3.And(x == b, v) for b, v in flags.items()])


def select(x: Int, values: Mapping[int, Int]) -> Int:
    """``values[x]`` (the first value if ``x`` is none of the keys: junk)."""
    keys = sorted(values)
    result = values[keys[0]]
    for b in keys[1:]:
        result = z3.If(x == b, values[b], result)
    return result


def at(x: Int, new: Any, old: Mapping[int, Any]) -> dict[int, Any]:
    """``old`` with the entry of id ``x`` replaced by ``new``."""
    return {b: z3.If(x == b, new, v) for b, v in old.items()}


@frozen(eq=False)
class Step:
    """A request's effect: enabled when ``enabled``; then the post-state and the response code."""

    enabled: Bool
    post: Ctl
    code: Int


Request = dict[str, Any]  # parameter name -> z3 term, or id -> z3 flag for a set parameter
Transition = Callable[[Ctl, Request, bool], Step]


def _get_next(c: Ctl, r: Request, unclean: bool) -> Step:
    return Step(TRUE, c, code(codes.SUCCESS))


def _apply(c: Ctl, r: Request, unclean: bool) -> Step:
    bid, ca, ct = r["brokerId"], r["ccAddr"], r["ccTs"]
    bound = member(bid, c.present)
    same = z3.And(select(bid, c.cc_addr) == ca, select(bid, c.cc_ts) == ct)
    invalid = z3.Or(bid < 1, z3.And(z3.Not(c.known), bid != 1), z3.And(c.known, bound, z3.Not(same)))
    created = evolve(c, present={b: z3.BoolVal(b == 1) for b in c.present}, addr=at(z3.IntVal(1), ca, c.addr),
                     cc_addr=at(z3.IntVal(1), ca, c.cc_addr), cc_ts=at(z3.IntVal(1), ct, c.cc_ts), next_id=z3.IntVal(2),
                     master=z3.IntVal(NO_MASTER), master_epoch=z3.IntVal(0), sss={b: FALSE for b in c.sss}, sss_epoch=z3.IntVal(0))
    added = evolve(c, present=at(bid, TRUE, c.present), addr=at(bid, ca, c.addr), cc_addr=at(bid, ca, c.cc_addr),
                   cc_ts=at(bid, ct, c.cc_ts), next_id=c.next_id + 1)
    post = ite(invalid, c, ite(z3.Not(c.known), created, ite(bound, c, added)))
    return Step(TRUE, post, z3.If(invalid, code(codes.CONTROLLER_BROKER_ID_INVALID), code(codes.SUCCESS)))


def _register(c: Ctl, r: Request, unclean: bool) -> Step:
    bid = r["brokerId"]
    ok = member(bid, c.present)
    post = evolve(c, addr={b: z3.If(z3.And(ok, bid == b), r["addr"], a) for b, a in c.addr.items()})
    return Step(TRUE, post, z3.If(ok, code(codes.SUCCESS), code(codes.CONTROLLER_BROKER_NEED_TO_BE_REGISTERED)))


def _better(c: Ctl, a: int, b: int) -> Bool:
    """Election order: higher reported epoch, higher maxOffset, lower priority value, lower id."""
    ea, eb, oa, ob, pa, pb = c.a_epoch[a], c.a_epoch[b], c.a_offset[a], c.a_offset[b], c.a_priority[a], c.a_priority[b]
    return z3.Or(ea > eb, z3.And(ea == eb, z3.Or(oa > ob, z3.And(oa == ob, z3.Or(pa < pb, z3.And(pa == pb, a < b))))))


def _try_elect(c: Ctl, candidates: Mapping[int, Bool], has_designated: Bool, designated: Int) -> tuple[Bool, Int]:
    """DefaultElectPolicy.tryElect: (a winner exists, the winner)."""
    live = {b: z3.And(v, c.alive[b]) for b, v in candidates.items()}
    best = {b: z3.And(live[b], *[z3.Implies(live[o], _better(c, b, o)) for o in live if o != b]) for b in live}
    best_id: Int = z3.IntVal(NO_MASTER)
    for b in sorted(live, reverse=True):
        best_id = z3.If(best[b], z3.IntVal(b), best_id)
    keep_master = z3.And(member(c.master, live), z3.Or(z3.Not(has_designated), designated == c.master))
    found = z3.And(z3.Or(list(live.values())), z3.Or(keep_master, z3.Not(has_designated), member(designated, live)))
    return found, z3.If(keep_master, c.master, z3.If(has_designated, designated, best_id))


def _elect_policy(c: Ctl, has_designated: Bool, designated: Int, unclean: bool) -> tuple[Bool, Int]:
    """First among the alive syncStateSet, then (unclean election) among all registered ids."""
    found, winner = _try_elect(c, c.sss, has_designated, designated)
    if not unclean:
        return found, winner
    found2, winner2 = _try_elect(c, c.present, has_designated, designated)
    return z3.Or(found, found2), z3.If(found, winner, winner2)


def _elect_with(c: Ctl, trigger: Int, bid: Int, unclean: bool) -> Step:
    by_controller, by_admin = trigger == TRIGGERS.index("controller"), trigger == TRIGGERS.index("admin")
    first = z3.And(c.master_epoch == 0, z3.Not(by_controller), member(bid, c.present))
    found, winner = _elect_policy(c, by_admin, bid, unclean)
    found, winner = z3.Or(first, found), z3.If(first, bid, winner)
    still = z3.And(found, winner == c.master)
    elected = evolve(c, master=winner, master_epoch=c.master_epoch + 1, sss={b: winner == b for b in c.sss},
                     sss_epoch=c.sss_epoch + 1)
    dropped = evolve(c, master=z3.IntVal(NO_MASTER), master_epoch=c.master_epoch + 1)
    post = ite(z3.Not(c.known), c, ite(still, c, ite(found, elected, ite(by_controller, dropped, c))))
    outcome = z3.If(z3.Not(c.known), code(codes.CONTROLLER_BROKER_NEED_TO_BE_REGISTERED),
                    z3.If(still, code(codes.CONTROLLER_MASTER_STILL_EXIST),
                          z3.If(found, code(codes.SUCCESS),
                                z3.If(by_controller, code(codes.CONTROLLER_MASTER_NOT_AVAILABLE),
                                      code(codes.CONTROLLER_ELECT_MASTER_FAILED)))))
    return Step(TRUE, post, outcome)


def _elect(c: Ctl, r: Request, unclean: bool) -> Step:
    return _elect_with(c, r["trigger"], r["brokerId"], unclean)


def needs_reelect(c: Ctl) -> Bool:
    """NeedsReelect: an election trigger is running, or a master exists and is not alive while some registered id is."""
    some_alive = z3.Or(*[z3.And(c.present[b], c.alive[b]) for b in c.ids])
    return z3.Or(c.tries > 0, z3.And(c.master != NO_MASTER, z3.Not(member(c.master, c.alive)), some_alive))


def _scan(c: Ctl, r: Request, unclean: bool) -> Step:
    """CtlElectScan: one try; SUCCESS ends the trigger, any other code leaves one try fewer."""
    s = _elect_with(c, z3.IntVal(TRIGGERS.index("controller")), z3.IntVal(NO_MASTER), unclean)
    left = z3.If(c.tries > 0, c.tries, z3.IntVal(ELECT_MASTER_MAX_RETRY_COUNT))
    tries = z3.If(s.code == code(codes.SUCCESS), z3.IntVal(0), left - 1)
    return Step(needs_reelect(c), evolve(s.post, tries=tries), s.code)


def _alter(c: Ctl, r: Request, unclean: bool) -> Step:
    new, beyond = r["newSyncStateSet"], r["beyond"]
    same = z3.And(z3.Not(new[0]), z3.Not(beyond), *[new[b] == c.sss[b] for b in c.sss])
    members = z3.If(beyond, code(codes.CONTROLLER_INVALID_REPLICAS),  # checked in id order, ids above N last
                    z3.If(member(c.master, new), code(codes.SUCCESS), code(codes.CONTROLLER_ALTER_SYNC_STATE_SET_FAILED)))
    for b in sorted(c.present, reverse=True):
        members = z3.If(new[b], z3.If(z3.Not(c.present[b]), code(codes.CONTROLLER_INVALID_REPLICAS),
                                      z3.If(z3.Not(c.alive[b]), code(codes.CONTROLLER_BROKER_NOT_ALIVE), members)), members)
    members = z3.If(new[0], code(codes.CONTROLLER_INVALID_REPLICAS), members)
    outcome = z3.If(z3.Or(z3.Not(c.known), same), code(codes.CONTROLLER_ALTER_SYNC_STATE_SET_FAILED),
                    z3.If(z3.Or(c.master == NO_MASTER, c.master != r["masterId"]), code(codes.CONTROLLER_INVALID_MASTER),
                          z3.If(r["masterEpoch"] != c.master_epoch, code(codes.CONTROLLER_FENCED_MASTER_EPOCH),
                                z3.If(r["syncStateSetEpoch"] != c.sss_epoch, code(codes.CONTROLLER_FENCED_SYNC_STATE_SET_EPOCH),
                                      members))))
    altered = evolve(c, sss={b: new[b] for b in c.sss}, sss_epoch=c.sss_epoch + 1)
    return Step(TRUE, ite(outcome == code(codes.SUCCESS), altered, c), outcome)


def _info(c: Ctl, r: Request, unclean: bool) -> Step:
    return Step(TRUE, c, z3.If(c.known, code(codes.SUCCESS), code(codes.CONTROLLER_BROKER_METADATA_NOT_EXIST)))


def _heartbeat(c: Ctl, r: Request, unclean: bool) -> Step:
    bid, e, o = r["brokerId"], r["epoch"], r["maxOffset"]
    pe, po = select(bid, c.a_epoch), select(bid, c.a_offset)
    keep = z3.And(member(bid, c.alive), z3.Or(e < pe, z3.And(e == pe, o <= po)))
    post = evolve(c, alive=at(bid, TRUE, c.alive), a_epoch=at(bid, z3.If(keep, pe, e), c.a_epoch),
                  a_offset=at(bid, z3.If(keep, po, o), c.a_offset), a_priority=at(bid, r["priority"], c.a_priority))
    return Step(TRUE, post, code(codes.SUCCESS))


def _expire(c: Ctl, r: Request, unclean: bool) -> Step:
    """CtlHeartbeatExpire: the master's expiry starts the election trigger."""
    bid = r["brokerId"]
    tries = z3.If(bid == c.master, z3.IntVal(ELECT_MASTER_MAX_RETRY_COUNT), c.tries)
    return Step(member(bid, c.alive), evolve(c, alive=at(bid, FALSE, c.alive), tries=tries), code(codes.OK))


def _failover(c: Ctl, r: Request, unclean: bool) -> Step:
    return Step(TRUE, evolve(c, alive={b: FALSE for b in c.alive}, tries=z3.IntVal(0)), code(codes.OK))


def _clean(c: Ctl, r: Request, unclean: bool) -> Step:
    ids, beyond, living = r["brokerIds"], r["beyond"], r["cleanLiving"]
    empty = z3.And(z3.Not(beyond), *[z3.Not(v) for v in ids.values()])
    refused = z3.Or(z3.And(z3.Not(living), z3.Or(z3.And(empty, c.master != NO_MASTER),
                                                  z3.Or([z3.And(ids[b], c.alive[b]) for b in c.alive]))),
                    z3.Not(c.known))
    removed = {b: z3.If(z3.Or(living, empty), c.present[b], ids[b]) for b in c.present}  # cleanLiving: the whole set
    remaining = {b: z3.And(c.present[b], z3.Not(removed[b])) for b in c.present}
    reset = evolve(c, present={b: FALSE for b in c.present}, next_id=z3.IntVal(1), master=z3.IntVal(NO_MASTER),
                   master_epoch=z3.IntVal(0), sss={b: FALSE for b in c.sss}, sss_epoch=z3.IntVal(0))
    cleaned = evolve(c, present=remaining, sss={b: z3.And(c.sss[b], z3.Not(removed[b])) for b in c.sss},
                     master=z3.If(member(c.master, removed), z3.IntVal(NO_MASTER), c.master))
    post = ite(refused, c, ite(z3.Not(z3.Or(list(remaining.values()))), reset, cleaned))
    return Step(TRUE, post, z3.If(refused, code(codes.CONTROLLER_INVALID_CLEAN_BROKER_METADATA), code(codes.SUCCESS)))


TRANSITIONS: dict[str, Transition] = {
    "GetNextBrokerId": _get_next,
    "ApplyBrokerId": _apply,
    "RegisterBrokerToController": _register,
    "ElectMaster": _elect,
    "AlterSyncStateSet": _alter,
    "GetReplicaInfo": _info,
    "BrokerHeartbeat": _heartbeat,
    "HeartbeatExpire": _expire,
    "ControllerFailover": _failover,
    "CleanBrokerData": _clean,
    "ControllerElectScan": _scan,
}
CONTROLLER_TAGS = tags(SCAN, CONTROLLER)
assert set(TRANSITIONS) == set(CONTROLLER_TAGS)


def symbolic_request(tag: str, n: int, name: str = "r") -> tuple[Request, list[Bool]]:
    """Fresh z3 parameters of ``tag`` and their domain (see the module docstring)."""
    r: Request = {}
    domain: list[Bool] = []
    for param, kind in ACTIONS[tag].params.items():
        if param == "checkCode":
            r["ccAddr"], r["ccTs"] = z3.Int(f"{name}_ccAddr"), z3.Int(f"{name}_ccTs")
        elif param in ("newSyncStateSet", "brokerIds"):
            r[param] = {b: z3.Bool(f"{name}_{param}_{b}") for b in range(0, n + 1)}
            r["beyond"] = z3.Bool(f"{name}_beyond")
        elif kind.type == BOOL:
            r[param] = z3.Bool(f"{name}_{param}")
        else:
            r[param] = z3.Int(f"{name}_{param}")
    if tag == "ElectMaster":
        domain += [r["trigger"] >= 0, r["trigger"] < len(TRIGGERS)]
    if tag == "ApplyBrokerId":
        domain.append(r["brokerId"] <= n)
    if tag in ("BrokerHeartbeat", "HeartbeatExpire"):
        domain += [r["brokerId"] >= 0, r["brokerId"] <= n]
    if tag == "BrokerHeartbeat":
        domain += [r[p] >= 0 for p in ("epoch", "maxOffset", "priority")]
    return r, domain


# ---- the invariants ---------------------------------------------------------------------------------

def type_ok(c: Ctl) -> Bool:
    """TypeOK, controller part (ids and addresses are typed by the encoding)."""
    return z3.And(c.next_id >= 1, z3.Or(c.master == NO_MASTER, c.master >= 1), c.master_epoch >= 0, c.sss_epoch >= 0,
                  c.tries >= 0, c.tries <= ELECT_MASTER_MAX_RETRY_COUNT,
                  *[z3.Implies(c.alive[b], z3.And(c.a_epoch[b] >= 0, c.a_offset[b] >= 0, c.a_priority[b] >= 0)) for b in c.alive])


def master_in_sync_state_set(c: Ctl) -> Bool:
    return z3.Or(c.master == NO_MASTER, member(c.master, c.sss))


def sync_state_set_registered(c: Ctl) -> Bool:
    return z3.And([z3.Implies(c.sss[b], c.present[b]) for b in c.sss])


def unknown_set_is_fresh(c: Ctl) -> Bool:
    """The strengthening: a controller without replicas has both epochs 0."""
    return z3.Implies(z3.Not(c.known), z3.And(c.master_epoch == 0, c.sss_epoch == 0))


def epochs_monotonic(v: Ctl, w: Ctl) -> Bool:
    """Controller epochs never decrease, except when the whole set is removed."""
    return z3.Or(z3.And(v.known, z3.Not(w.known)), z3.And(w.master_epoch >= v.master_epoch, w.sss_epoch >= v.sss_epoch))


INVARIANTS: dict[str, Callable[[Ctl], Bool]] = {
    "TypeOK": type_ok,
    "MasterInSyncStateSet": master_in_sync_state_set,
    "SyncStateSetRegistered": sync_state_set_registered,
}
STRENGTHENING: dict[str, Callable[[Ctl], Bool]] = {"UnknownSetIsFresh": unknown_set_is_fresh}
IND_INV = {**INVARIANTS, **STRENGTHENING}
ACTION_PROPERTY = "EpochsMonotonic"
PROPERTIES = (*IND_INV, ACTION_PROPERTY)


def holds_all(preds: Mapping[str, Callable[[Ctl], Bool]], c: Ctl) -> Bool:
    return z3.And([p(c) for p in preds.values()])


# ---- concrete values: reference Controller <-> z3 ------------------------------------------------

@frozen
class Names:
    """Addresses and checkCode timestamps as integers: the strings of one example, in sorted order.
    An integer without a string (a z3 model's choice) becomes ``addr<k>`` / ``;<k>``."""

    addrs: tuple[str, ...] = ()
    stamps: tuple[str, ...] = ()

    @staticmethod
    def split(check_code: str) -> tuple[str, str]:
        a = addr_of_check_code(check_code)
        return a, check_code[len(a):]

    @classmethod
    def of(cls, c: Controller, action: Mapping[str, Any]) -> Names:
        codes_ = [r.check_code for r in c.replicas.values()] + ([action["checkCode"]] if "checkCode" in action else [])
        addrs = {r.addr for r in c.replicas.values()} | {cls.split(cc)[0] for cc in codes_}
        if "addr" in action:
            addrs.add(action["addr"])
        return cls(tuple(sorted(addrs)), tuple(sorted({cls.split(cc)[1] for cc in codes_})))

    def addr(self, s: str) -> int:
        return self.addrs.index(s)

    def stamp(self, s: str) -> int:
        return self.stamps.index(s)

    def addr_str(self, k: int) -> str:
        return self.addrs[k] if 0 <= k < len(self.addrs) else f"addr{k}"

    def stamp_str(self, k: int) -> str:
        return self.stamps[k] if 0 <= k < len(self.stamps) else f";{k}"


def controller_values(c: Controller, n: int, names: Names) -> dict[str, Any]:
    """The values of a reference controller in the shape of :class:`Ctl` (absent entries: 0/False)."""
    rep = {b: c.replicas.get(b) for b in range(1, n + 1)}
    live = {b: c.alive.get(b) for b in range(0, n + 1)}
    return {
        "present": {b: r is not None for b, r in rep.items()},
        "addr": {b: names.addr(r.addr) if r else 0 for b, r in rep.items()},
        "cc_addr": {b: names.addr(Names.split(r.check_code)[0]) if r else 0 for b, r in rep.items()},
        "cc_ts": {b: names.stamp(Names.split(r.check_code)[1]) if r else 0 for b, r in rep.items()},
        "next_id": c.next_broker_id,
        "master": c.master_id,
        "master_epoch": c.master_epoch,
        "sss": {b: b in c.sync_state_set for b in rep},
        "sss_epoch": c.sync_state_set_epoch,
        "alive": {b: e is not None for b, e in live.items()},
        "a_epoch": {b: e.epoch if e else 0 for b, e in live.items()},
        "a_offset": {b: e.max_offset if e else 0 for b, e in live.items()},
        "a_priority": {b: e.priority if e else 0 for b, e in live.items()},
        "tries": c.elect_tries_left,
    }


def request_values(action: Mapping[str, Any], n: int, names: Names) -> dict[str, Any]:
    """The values of a controller action record in the shape of :func:`symbolic_request`."""
    r: dict[str, Any] = {}
    for param in ACTIONS[action["tag"]].params:
        value = action[param]
        if param == "checkCode":
            a, t = Names.split(value)
            r["ccAddr"], r["ccTs"] = names.addr(a), names.stamp(t)
        elif param in ("newSyncStateSet", "brokerIds"):
            r[param] = {b: b in value for b in range(0, n + 1)}
            r["beyond"] = any(b > n for b in value)
        elif param == "trigger":
            r[param] = TRIGGERS.index(value)
        elif param == "addr":
            r[param] = names.addr(value)
        else:
            r[param] = value
    return r


def _pairs(sym: Any, val: Any) -> Iterable[Bool]:
    if isinstance(sym, dict):
        for k in sym:
            yield from _pairs(sym[k], val[k])
    else:
        yield sym == (z3.BoolVal(val) if z3.is_bool(sym) else z3.IntVal(val))


def fits(c: Controller, action: Mapping[str, Any], n: int) -> bool:
    """The example lies in the encoded domain (module docstring): the state's ids within 1..n (alive
    0..n), ApplyBrokerId naming an id <= n, heartbeats an id in 0..n with natural numbers, sets no
    negative id."""
    ok = (all(1 <= b <= n for b in [*c.replicas, *c.sync_state_set]) and all(0 <= b <= n for b in c.alive)
          and (c.master_id == NO_MASTER or 1 <= c.master_id <= n))
    a, tag = action, action["tag"]
    if tag == "ApplyBrokerId":
        ok = ok and a["brokerId"] <= n
    if tag in ("BrokerHeartbeat", "HeartbeatExpire"):
        ok = ok and 0 <= a["brokerId"] <= n
    if tag == "BrokerHeartbeat":
        ok = ok and min(a["epoch"], a["maxOffset"], a["priority"]) >= 0
    return ok and all(b >= 0 for b in a.get("newSyncStateSet", a.get("brokerIds", ())))


def smallest_n(c: Controller, action: Mapping[str, Any], at_least: int = 1) -> int:
    """The least id range that holds every id of the example."""
    ids = [*c.replicas, *c.alive, *([action["brokerId"]] if action["tag"] in ("ApplyBrokerId", "BrokerHeartbeat",
                                                                            "HeartbeatExpire") else [])]
    return max([at_least, *ids])


def controller_from_model(model: z3.ModelRef, c: Ctl, names: Names) -> Controller:
    """The reference controller a z3 model assigns to ``c``."""
    def num(x: Int) -> int:
        return model.eval(x, model_completion=True).as_long()

    def flag(x: Bool) -> bool:
        return z3.is_true(model.eval(x, model_completion=True))

    replicas = {b: Replica(names.addr_str(num(c.addr[b])), names.addr_str(num(c.cc_addr[b])) + names.stamp_str(num(c.cc_ts[b])))
                for b in c.ids if flag(c.present[b])}
    alive = {b: LiveInfo(num(c.a_epoch[b]), num(c.a_offset[b]), num(c.a_priority[b])) for b in sorted(c.alive) if flag(c.alive[b])}
    return Controller(replicas=frozendict(replicas), next_broker_id=num(c.next_id), master_id=num(c.master),
                      master_epoch=num(c.master_epoch), sync_state_set=frozenset(b for b in c.ids if flag(c.sss[b])),
                      sync_state_set_epoch=num(c.sss_epoch), alive=frozendict(alive), elect_tries_left=num(c.tries))


def request_from_model(model: z3.ModelRef, tag: str, r: Request, names: Names) -> dict[str, Any]:
    """The action record a z3 model assigns to the request ``r``; a set's "ids above N" flag becomes id N+1."""
    def val(x: Any) -> Any:
        v = model.eval(x, model_completion=True)
        return z3.is_true(v) if z3.is_bool(x) else v.as_long()

    action: dict[str, Any] = {"tag": tag}
    for param in ACTIONS[tag].params:
        if param == "checkCode":
            action[param] = names.addr_str(val(r["ccAddr"])) + names.stamp_str(val(r["ccTs"]))
        elif param in ("newSyncStateSet", "brokerIds"):
            ids = {b for b, x in r[param].items() if val(x)}
            action[param] = frozenset(ids | ({len(r[param])} if val(r["beyond"]) else set()))
        elif param == "trigger":
            action[param] = TRIGGERS[val(r[param])]
        elif param == "addr":
            action[param] = names.addr_str(val(r[param]))
        else:
            action[param] = val(r[param])
    return action


