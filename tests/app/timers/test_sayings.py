from __future__ import annotations

from datetime import timedelta
from zoneinfo import ZoneInfo

import pytest

from app.core.timer import Timer
from app.timers.sayings import SAY, duration, missed, rang, tool_reply
from tests.app.timers.clock import START


@pytest.mark.parametrize(
    ("seconds", "said"),
    [(540, "9 minutes"), (60, "1 minute"), (3900, "1 hour and 5 minutes"), (45, "45 seconds"), (0, "0 seconds")],
)
def test_durations_in_words(seconds: int, said: str) -> None:
    assert duration(seconds, "en") == said


def test_every_language_says_every_message() -> None:
    for language, messages in SAY.items():
        assert messages.keys() == SAY["en"].keys(), language
        assert len(messages["units"].split()) == 6


def test_what_is_said_when_a_timer_rings_or_was_missed() -> None:
    pasta = Timer("a1b2c3", "timer", "pasta", START, START)
    plumber = Timer("d4e5f6", "reminder", "call the plumber", START + timedelta(hours=16), START)
    assert rang(pasta, "en") == "Your pasta timer is up."
    assert rang(plumber, "it") == "Promemoria: call the plumber."
    assert rang(Timer("0", "timer", "", START, START), "de") == "Dein Timer ist abgelaufen."
    rome, later = ZoneInfo("Europe/Rome"), plumber.due_at + timedelta(hours=2)
    assert (
        missed([plumber], rome, "en", later) == "While Parley was not running, you missed: call the plumber at 09:00."
    )
    assert missed([pasta, plumber], rome, "it", later) == (
        "Mentre Parley era spento, hai perso: pasta alle 17:00 del 27 novembre e call the plumber alle 09:00."
    )


def test_the_offline_voice_answers_the_timer_tools() -> None:
    set_ = {
        "success": True,
        "kind": "timer",
        "label": "pasta",
        "due_at": "2026-11-27T17:09:00+01:00",
        "seconds_left": 540,
    }
    assert tool_reply("set_timer", set_, "en") == "Okay, pasta timer for 9 minutes."
    assert tool_reply("set_timer", {**set_, "label": ""}, "it") == "Va bene, timer di 9 minuti."
    reminder = {**set_, "kind": "reminder", "label": "call the plumber", "due_at": "2026-11-28T09:00:00+01:00"}
    assert tool_reply("set_reminder", reminder, "en") == "Okay, I'll remind you at 09:00: call the plumber."
    assert tool_reply("list_timers", {"timers": [set_, reminder]}, "en") == (
        "You have: pasta timer, 9 minutes left and call the plumber at 09:00."
    )
    assert tool_reply("list_timers", {"timers": []}, "es") == "No tienes temporizadores ni recordatorios."
    assert tool_reply("cancel_timer", {"success": True, "cancelled": [set_]}, "fr") == "Annulé : pasta."
    assert tool_reply("cancel_timer", {"success": False, "error": "x"}, "en") == "I couldn't find that timer."
    assert tool_reply("set_timer", {"success": False, "error": "x"}, "en") == "Sorry, I couldn't set that."
