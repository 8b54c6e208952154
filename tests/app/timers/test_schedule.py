from __future__ import annotations

from datetime import timedelta

from app.core.timer import Timer
from app.timers.schedule import GRACE, matching, plan
from tests.app.timers.clock import START


def timer(name: str, due_in_s: float, state: str = "pending", kind: str = "timer") -> Timer:
    made = Timer(name, "timer" if kind == "timer" else "reminder", name, START + timedelta(seconds=due_in_s), START)
    return made.with_state("pending" if state == "pending" else "rung")


def test_due_timers_ring_late_ones_are_missed_and_the_next_is_when_to_wake() -> None:
    timers = [
        timer("soon", 30),
        timer("now", 0),
        timer("just", -GRACE.total_seconds()),
        timer("long_ago", -GRACE.total_seconds() - 1),
        timer("done", -5, state="rung"),
        timer("later", 90),
    ]
    decided = plan(timers, START)
    assert [t.id for t in decided.ring] == ["just", "now"]
    assert [t.id for t in decided.missed] == ["long_ago"]
    assert decided.next_due == START + timedelta(seconds=30)


def test_nothing_pending_means_nothing_to_wake_for() -> None:
    assert plan([timer("done", -5, state="rung")], START).next_due is None


def test_a_timer_is_named_by_id_by_words_of_its_label_or_all() -> None:
    timers = [timer("pasta", 60), timer("eggs", 30), Timer("a1b2c3", "reminder", "call the plumber", START, START)]
    assert [t.id for t in matching(timers, "the pasta timer")] == ["pasta"]
    assert [t.id for t in matching(timers, "A1B2C3")] == ["a1b2c3"]
    assert [t.id for t in matching(timers, "plumber")] == ["a1b2c3"]
    assert [t.id for t in matching(timers, "all")] == ["a1b2c3", "eggs", "pasta"]  # soonest first
    assert matching(timers, "rice") == []
    assert len(matching(timers, "")) == 3  # "cancel the timer": the one there is, else a choice


def test_seconds_left_round_up_and_stop_at_zero() -> None:
    pasta = timer("pasta", 8.2)
    assert pasta.seconds_left(START) == 9
    assert pasta.seconds_left(START + timedelta(seconds=20)) == 0
