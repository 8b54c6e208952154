"""What the scheduler does next, decided from the timers and the time alone. Pure."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from app.core.timer import Timer
from languages.registry import SUPPORTED, table

GRACE = timedelta(seconds=60)
"""A timer found this late or less (Parley started just after it was due, the laptop woke from sleep) still
rings; one found later is announced as missed instead: a pasta timer ringing an hour late is noise."""


_NOT_NAMES = frozenset(
    word
    for code in SUPPORTED
    for word in (*table(code)["timers"]["nouns"], *table(code)["timers"]["label_articles"].split())
)
"""Words said around a timer's name ("cancel the pasta timer") that name none: every language's timer
nouns and `label_articles`."""


@dataclass(frozen=True, slots=True)
class Plan:
    ring: tuple[Timer, ...]
    """Due now: ring them, earliest first."""
    missed: tuple[Timer, ...]
    """Due more than `GRACE` ago: say they were missed."""
    next_due: datetime | None
    """When the next pending timer is due, if any is left."""


def plan(timers: Sequence[Timer], now: datetime) -> Plan:
    pending = sorted((t for t in timers if t.pending), key=lambda t: t.due_at)
    due = [t for t in pending if t.due_at <= now]
    return Plan(
        ring=tuple(t for t in due if now - t.due_at <= GRACE),
        missed=tuple(t for t in due if now - t.due_at > GRACE),
        next_due=next((t.due_at for t in pending if t.due_at > now), None),
    )


def running(timers: Sequence[Timer]) -> list[Timer]:
    """The pending timers, soonest first."""
    return sorted((t for t in timers if t.pending), key=lambda t: t.due_at)


def matching(timers: Sequence[Timer], which: str) -> list[Timer]:
    """The pending timers `which` names: by id, "all", or by words of its label ("pasta" finds "pasta",
    "the pasta timer" finds it too: every word of the label that is said counts). Nothing named ("cancel
    the timer"): every pending one, which is the one meant when there is one."""
    pending = running(timers)
    said = which.strip().lower()
    if said in ("all", "*", ""):
        return pending
    by_id = [t for t in pending if t.id == said]
    if by_id:
        return by_id
    words = set(said.replace(",", " ").split()) - _NOT_NAMES
    scored = [(len(words & set(t.label.lower().split())), t) for t in pending]
    best = max((score for score, _ in scored), default=0)
    return [t for score, t in scored if score and score == best]
