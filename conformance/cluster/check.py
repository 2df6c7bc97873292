"""The history check (Jepsen style): every acknowledged send is read back after healing (NoAckedMessageLost, MODEL.md,
as a client sees it); losses and duplicates listed with the faults around them."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from attrs import frozen

OK, FAIL, UNKNOWN, INVOKE = "ok", "fail", "unknown", "invoke"
AROUND_BEFORE, AROUND_AFTER = 10_000, 30_000  # ms around a lost message's send in which a fault is "around" it


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The JSON lines of ``path``; a last line cut short (the writer was killed mid-line) is dropped."""
    if not path.exists():
        return []
    rows = []
    lines = path.read_text(errors="replace").splitlines()
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except ValueError:
            if number == len(lines):
                break
            raise
    return rows


@frozen
class Send:
    """One message's history: its invocation and how it completed (None: the producer stopped before it did)."""

    id: str
    invoked: int  # ms
    outcome: str | None
    completed: int | None
    detail: dict[str, Any]


@frozen
class Verdict:
    sends: tuple[Send, ...]
    read: int  # messages read back (with repeats)
    lost: tuple[Send, ...]  # acknowledged, not read back
    duplicated: tuple[tuple[str, int], ...]  # read back more than once: id, times
    unknown_read: int  # unknown (or unfinished) sends read back
    failed_read: tuple[str, ...]  # sends that failed but were read back
    phantom: tuple[str, ...]  # read back, never sent
    unread: bool = False  # the cluster never healed and nothing could be read back: no verdict on the sends

    def count(self, outcome: str | None) -> int:
        return sum(1 for s in self.sends if s.outcome == outcome)

    @property
    def holds(self) -> bool:
        return not self.lost and not self.unread

    def counts(self) -> dict[str, int]:
        return {"sent": len(self.sends), "acked": self.count(OK), "failed": self.count(FAIL),
                "unknown": self.count(UNKNOWN) + self.count(None), "read back": self.read,
                "read back (distinct)": self.read - sum(n - 1 for _, n in self.duplicated), "lost": len(self.lost),
                "duplicated": len(self.duplicated), "unknown read back": self.unknown_read,
                "failed but read back": len(self.failed_read), "read, never sent": len(self.phantom)}


def sends(history: Iterable[dict[str, Any]]) -> tuple[Send, ...]:
    invoked: dict[str, int] = {}
    done: dict[str, dict[str, Any]] = {}
    for row in history:
        if row.get("op") == INVOKE:
            invoked[row["id"]] = int(row["t"])
        elif row.get("op") in (OK, FAIL, UNKNOWN):
            done[row["id"]] = row
    return tuple(Send(i, t, done[i]["op"] if i in done else None, int(done[i]["t"]) if i in done else None,
                      done.get(i, {})) for i, t in invoked.items())


def check(history: Sequence[dict[str, Any]], reads: Sequence[dict[str, Any]]) -> Verdict:
    sent = sends(history)
    times = Counter(str(r.get("id")) for r in reads)
    by_id = {s.id: s for s in sent}
    lost = tuple(s for s in sent if s.outcome == OK and times[s.id] == 0)
    duplicated = tuple(sorted((i, n) for i, n in times.items() if n > 1))
    unknown_read = sum(1 for s in sent if s.outcome in (UNKNOWN, None) and times[s.id] > 0)
    failed_read = tuple(s.id for s in sent if s.outcome == FAIL and times[s.id] > 0)
    phantom = tuple(sorted(i for i in times if i not in by_id))
    return Verdict(sent, len(reads), lost, duplicated, unknown_read, failed_read, phantom)


def unread(history: Sequence[dict[str, Any]]) -> Verdict:
    """The verdict of a run whose cluster never healed and could not be read back: the sends, nothing read, nothing
    known lost (whether the acknowledged ones survive is not known)."""
    return Verdict(sends(history), 0, (), (), 0, (), (), unread=True)


def faults_around(t: int, faults: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The fault events within [t - 10 s, t + 30 s], else the first one after ``t``."""
    near = [f for f in faults if t - AROUND_BEFORE <= int(f["t"]) <= t + AROUND_AFTER]
    if near:
        return near
    later = [f for f in faults if int(f["t"]) > t]
    return later[:1]


def describe_fault(event: dict[str, Any], start: int) -> str:
    role = f" ({event['role']})" if event.get("role") else ""
    return f"{(int(event['t']) - start) / 1000:+.1f} s {event['event']} {event.get('node', '')}{role}"
