"""64-bit fingerprints of the reference model's states (``System``), the same in every process.

Python salts the hash of ``str`` (and ``bytes``) per process (PYTHONHASHSEED), and before 3.12 the hash of ``None`` is
its address: ``hash(system)`` differs between two processes, which partition states by fingerprint (``--workers``,
Spark). A fingerprint here is Python's hash of a compact encoding made only of ints, tuples and frozensets of them,
whose hashes are fixed functions of their values (the same for every process of one Python build): each string is
read as the int of its UTF-8 bytes, a missing record as ``()``. The encoding is injective, so that, but for hash
collisions (64 bits, as TLC's fingerprints), two states share a fingerprint exactly when they are equal.

The encoding is computed incrementally: successors share unchanged ``Process`` and ``Controller`` objects (and
often the ``procs`` mapping) with their parent, so each object's hash is kept by identity for a while.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from autoswitch.reference.state import Controller, Process, System

KEEP = 1 << 15  # objects whose hash is kept (by identity) before the memo starts afresh


class Fingerprints:
    """``fingerprints(s)``: the fingerprint of ``s``. Picklable: the memos stay behind (they are per process)."""

    def __init__(self) -> None:
        self._words: dict[str, int] = {}
        self._memo: dict[int, tuple[object, Any]] = {}  # id(object) -> (the object, kept alive; its hash or encoding)

    def __getstate__(self) -> dict[str, Any]:
        return {}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__()  # type: ignore[misc]

    def _word(self, x: str) -> int:
        """``x`` as an int, the same in every process (its UTF-8 bytes; no string here has a NUL)."""
        w = self._words.get(x)
        if w is None:
            w = self._words[x] = int.from_bytes(x.encode(), "little")
        return w

    def _value(self, x: Any) -> Any:
        """A value of a late request's record (faults.late_request): an int, a string or a set of them."""
        if isinstance(x, int):
            return x
        if isinstance(x, str):
            return self._word(x)
        if isinstance(x, frozenset):
            return frozenset(self._value(y) for y in x)
        raise TypeError(f"no fingerprint encoding for {type(x).__name__} {x!r}")

    def _kept(self, x: object) -> int | None:
        hit = self._memo.get(id(x))
        return hit[1] if hit is not None and hit[0] is x else None

    def _keep(self, x: object, h: int) -> int:
        if len(self._memo) >= KEEP:
            self._memo.clear()
        self._memo[id(x)] = (x, h)
        return h

    def _process(self, x: Process) -> int:
        if (h := self._kept(x)) is not None:
            return h
        w, t, a = self._word, x.temp_file, x.pending_alter
        return self._keep(x, hash((
            w(x.addr), x.meta_file, () if t is None else (t.broker_id, w(t.check_code)), x.log, x.flushed, x.epoch_file,
            x.confirm_offset, w(x.reg_state), w(x.role), x.local_master_epoch, x.local_sync_state_set_epoch,
            x.local_master_id, x.local_sync_state_set, w(x.ha_state), frozenset(x.acks.items()),
            () if a is None else (a.new_set, w(a.code), a.sync_state_set_epoch, a.delivered), w(x.broker_role), x.term)))

    def _processes(self, procs: Mapping[str, Process]) -> int:
        if (h := self._kept(procs)) is not None:
            return h
        return self._keep(procs, hash(tuple(sorted((self._word(p), self._process(x)) for p, x in procs.items()))))

    def _controller(self, c: Controller) -> int:
        if (h := self._kept(c)) is not None:
            return h
        w = self._word
        return self._keep(c, hash((
            frozenset((b, w(r.addr), w(r.check_code)) for b, r in c.replicas.items()), c.next_broker_id, c.master_id,
            c.master_epoch, c.sync_state_set, c.sync_state_set_epoch,
            frozenset((b, e.epoch, e.max_offset, e.priority) for b, e in c.alive.items()), c.elect_tries_left)))

    def _history(self, history: frozenset[tuple[int, str]]) -> int:
        if (h := self._kept(history)) is not None:
            return h
        return self._keep(history, hash(frozenset((e, self._word(p)) for e, p in history)))

    def _encoded(self, x: object, encode: Any) -> Any:
        """``encode(x)``, kept by identity: a frozenset, whose hash Python keeps with it."""
        hit = self._memo.get(id(x))
        if hit is not None and hit[0] is x:
            return hit[1]
        if len(self._memo) >= KEEP:
            self._memo.clear()
        value = encode(x)
        self._memo[id(x)] = (x, value)
        return value

    def _partitions(self, partitions: frozenset[frozenset[str]]) -> frozenset[frozenset[int]]:
        return frozenset(frozenset(map(self._word, link)) for link in partitions)

    def _late(self, late: Mapping[str, Mapping[str, Any]]) -> frozenset[tuple[int, frozenset[tuple[int, Any]]]]:
        w = self._word
        return frozenset((w(p), frozenset((w(k), self._value(v)) for k, v in r.items())) for p, r in late.items())

    def __call__(self, s: System) -> int:
        partitions, late = s.partitions, s.late  # mostly empty: () then (a non-empty one is a frozenset)
        return hash((
            self._controller(s.controller), self._processes(s.procs), s.clock, s.next_msg, self._history(s.master_history),
            s.acked, s.seen, self._encoded(partitions, self._partitions) if partitions else (),
            self._encoded(late, self._late) if late else (), s.faults))
