"""Sliding-summary compaction, decided by pure functions.

While `assistant_history` holds at most `SUMMARY_WINDOW_SIZE` turns nothing happens. Past that, the
oldest turns (an earlier summary turn among them) become one summary turn, so that exactly `TAIL_SIZE`
recent turns stay verbatim: `[summary] + last 12`. `full_history` is never touched.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from chats.models import Turn

SUMMARY_WINDOW_SIZE = 30
TAIL_SIZE = 12
SUMMARY_SHARE = 4
"""A summary is at most 1/SUMMARY_SHARE of the characters of the turns it replaces."""


@dataclass(frozen=True, slots=True)
class CompactionPlan:
    replaced: tuple[Turn, ...]
    """The oldest turns, an earlier summary turn included, that one summary turn will stand for."""
    kept: tuple[Turn, ...]
    """The `TAIL_SIZE` most recent turns, kept verbatim."""
    max_summary_chars: int


def plan_compaction(
    history: Sequence[Turn], window: int = SUMMARY_WINDOW_SIZE, tail: int = TAIL_SIZE
) -> CompactionPlan | None:
    """What to compact, or None while the history fits the window."""
    if len(history) <= window:
        return None
    replaced = tuple(history[:-tail])
    replaced_chars = sum(len(turn.text) for turn in replaced)
    return CompactionPlan(replaced, tuple(history[-tail:]), max(1, replaced_chars // SUMMARY_SHARE))


def summary_turn(text: str, at: datetime) -> Turn:
    """The spec's summary turn: an ordinary model turn, marked so the window can show it apart."""
    return Turn(role="model", text=text, at=at, summary=True)


def apply_plan(plan: CompactionPlan, current: Sequence[Turn], summary: Turn) -> tuple[Turn, ...] | None:
    """The compacted history for `current`, which may have grown since the plan was made.

    Turns appended meanwhile follow the kept tail, so none is lost. If `current` no longer starts with
    the planned turns (someone else compacted first), the plan is stale: None.
    """
    if tuple(current[: len(plan.replaced)]) != plan.replaced:
        return None
    return (summary, *current[len(plan.replaced) :])
