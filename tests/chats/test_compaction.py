"""Compaction planning: pure, so tested without I/O."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from chats.compaction import (
    SUMMARY_WINDOW_SIZE,
    TAIL_SIZE,
    apply_plan,
    plan_compaction,
    summary_turn,
)
from chats.models import Turn

AT = datetime(2026, 3, 1, tzinfo=UTC)


def history(count: int, first_summary: bool = False) -> list[Turn]:
    turns = [Turn(role="user" if i % 2 == 0 else "model", text=f"turn {i:03d} " + "x" * i) for i in range(count)]
    if first_summary:
        turns[0] = summary_turn("an earlier summary", AT)
    return turns


def test_nothing_happens_within_the_window() -> None:
    assert plan_compaction(history(SUMMARY_WINDOW_SIZE)) is None
    assert plan_compaction([]) is None


def test_past_the_window_all_but_the_tail_are_replaced() -> None:
    turns = history(SUMMARY_WINDOW_SIZE + 1, first_summary=True)
    plan = plan_compaction(turns)
    assert plan is not None
    assert plan.replaced == tuple(turns[:-TAIL_SIZE])
    assert plan.replaced[0].summary
    assert plan.kept == tuple(turns[-TAIL_SIZE:])
    assert plan.max_summary_chars == sum(len(t.text) for t in plan.replaced) // 4


def test_applying_a_plan_gives_summary_plus_tail() -> None:
    turns = history(31)
    plan = plan_compaction(turns)
    assert plan is not None
    summary = summary_turn("s", AT)
    assert apply_plan(plan, turns, summary) == (summary, *turns[-TAIL_SIZE:])


def test_turns_appended_after_planning_follow_the_tail() -> None:
    turns = history(31)
    plan = plan_compaction(turns)
    assert plan is not None
    grown = [*turns, *history(3)]
    summary = summary_turn("s", AT)
    assert apply_plan(plan, grown, summary) == (summary, *turns[-TAIL_SIZE:], *history(3))


def test_a_stale_plan_applies_to_nothing() -> None:
    turns = history(31)
    plan = plan_compaction(turns)
    assert plan is not None
    already_compacted = [summary_turn("someone else's", AT), *turns[-TAIL_SIZE:]]
    assert apply_plan(plan, already_compacted, summary_turn("s", AT)) is None


def test_summary_turns_have_the_ordinary_turn_shape() -> None:
    assert summary_turn("gist", AT).to_json() == {
        "role": "model",
        "parts": [{"text": "gist"}],
        "at": AT.isoformat(),
        "summary": True,
    }


@given(st.integers(0, 200))
def test_a_plan_keeps_every_turn_once(count: int) -> None:
    turns = history(count)
    plan = plan_compaction(turns)
    if count <= SUMMARY_WINDOW_SIZE:
        assert plan is None
    else:
        assert plan is not None
        assert (*plan.replaced, *plan.kept) == tuple(turns)
        assert len(plan.kept) == TAIL_SIZE
