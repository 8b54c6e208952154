"""Timers say only what was done: a request for a timer of zero, negative or absurd length, or a reminder in the
past or years ahead, is claimed by the timer tools and refused in a sentence, nothing set; a confirmation, and
a missed timer's announcement, give the date when it is not today; a long list is summarised, to the offline
voice and to the model alike. From the user's side: the offline voice's words (`app.timers.spoken`, a fixed
clock), the tool kit on a real timers file, and the sentence said (`app.timers.sayings`)."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta
from pathlib import Path
from uuid import uuid4
from zoneinfo import ZoneInfo

import pytest

from app.core.events import FrontEvent, TimersMissed
from app.core.timer import Timer
from app.timers.declarations import TIMER_TOOL_NAMES
from app.timers.ringing import SoundRinger
from app.timers.sayings import SAY, tool_reply
from app.timers.spoken import timer_call
from app.timers.store import TimerFile
from app.timers.toolkit import TimerKit
from tests.app.timers.clock import START, ManualClock

ROME = ZoneInfo("Europe/Rome")
CHAT = uuid4()
WAIT_S = 10.0
"""A guard against a hang: the scheduler looks at the file as the kit is entered."""


async def said(text: str, folder: Path, language: str = "en", clock: ManualClock | None = None) -> str:
    """What the offline voice answers to `text`: the timer tool its words stand for, called on the kit."""
    clock = clock or ManualClock()
    call = timer_call(text, TIMER_TOOL_NAMES, language, now=clock(), zone=ROME)
    assert call is not None, f"{text!r} went past the timers (to a chat model that may say it was done)"
    kit = TimerKit(TimerFile(folder), clock=clock, zone=ROME, language=language)
    return tool_reply(call[0], await kit.call(call[0], call[1], CHAT), language)


def kept(folder: Path) -> list[Timer]:
    return TimerFile(folder).read()


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Set a timer for minus 5 minutes", "en"),
        ("Set a timer for -5 minutes", "en"),
        ("Set a timer for 0 seconds", "en"),
        ("Set a timer for zero seconds", "en"),
        ("Metti un timer di meno cinque minuti", "it"),
        ("Metti un timer di zero secondi", "it"),
    ],
)
async def test_a_timer_of_zero_or_negative_length_is_refused_in_a_sentence(
    tmp_path: Path, text: str, language: str
) -> None:
    assert await said(text, tmp_path, language) == SAY[language]["too_short"]
    assert kept(tmp_path) == []


async def test_a_timer_of_absurd_length_is_refused_and_a_reminder_years_ahead_too(tmp_path: Path) -> None:
    assert await said("Set a timer for 10 years", tmp_path) == SAY["en"]["too_long"]
    assert await said("Remind me in 10 years to call mum", tmp_path) == SAY["en"]["too_far"]
    assert kept(tmp_path) == []
    assert SAY["en"]["too_long"] != SAY["en"]["failed"] != SAY["en"]["too_far"]


async def test_a_reminder_in_the_past_is_refused_not_passed_to_the_chat_model(tmp_path: Path) -> None:
    assert await said("Remind me 5 minutes ago to call mum", tmp_path) == SAY["en"]["past"]
    assert await said("Remind me minus 5 minutes to call mum", tmp_path) == SAY["en"]["past"]
    assert kept(tmp_path) == []


async def test_the_model_s_calls_are_refused_with_the_reason_said(tmp_path: Path) -> None:
    kit = TimerKit(TimerFile(tmp_path), clock=ManualClock(), zone=ROME, language="en")
    for args, reason in (
        ({"seconds": 0}, "too_short"),
        ({"seconds": -300}, "too_short"),
        ({"seconds": 10**9}, "too_long"),
    ):
        result = await kit.call("set_timer", args, CHAT)
        assert result["success"] is False and tool_reply("set_timer", result, "en") == SAY["en"][reason]
    result = await kit.call("set_reminder", {"when": "2036-11-27T17:00:00", "text": "call mum"}, CHAT)
    assert result["success"] is False and tool_reply("set_reminder", result, "de") == SAY["de"]["too_far"]
    assert kept(tmp_path) == []


async def test_a_reminder_s_confirmation_gives_its_date_when_it_is_not_today(tmp_path: Path) -> None:
    assert await said("Remind me at 19:32 to call mum", tmp_path) == "Okay, I'll remind you at 19:32: call mum."
    assert await said("Remind me tomorrow at 9 to call the plumber", tmp_path) == (
        "Okay, I'll remind you at 09:00 on 28 November: call the plumber."
    )
    assert await said("Remind me on 3 December at 9 to water the plants", tmp_path) == (
        "Okay, I'll remind you at 09:00 on 3 December: water the plants."
    )
    assert await said("Ricordami domani alle 9 di chiamare l'idraulico", tmp_path, "it") == (
        "Va bene, te lo ricorderò alle 09:00 del 28 novembre: chiamare l'idraulico."
    )
    assert len(kept(tmp_path)) == 4  # each confirmed one exists
    listed = await said("What timers do I have", tmp_path)
    assert listed == (
        "You have: call mum at 19:32, call the plumber at 09:00 on 28 November, "
        "chiamare l'idraulico at 09:00 on 28 November and water the plants at 09:00 on 3 December."
    )


async def test_a_long_list_of_timers_is_summarised_to_the_user_and_to_the_model(tmp_path: Path) -> None:
    kit = TimerKit(TimerFile(tmp_path), clock=ManualClock(), zone=ROME, language="en")
    for minutes in range(500, 0, -1):  # the soonest set last: the list is said soonest first
        await kit.call("set_timer", {"seconds": minutes * 60, "label": f"t{minutes}"}, CHAT)
    to_the_model = await kit.call("list_timers", {}, CHAT)  # what Gemini Live's call is answered
    assert (to_the_model["count"], [t["label"] for t in to_the_model["timers"]]) == (500, ["t1", "t2", "t3"])
    assert len(json.dumps(to_the_model)) < 600  # bytes: not the 500 timers (about 60 KB)
    answer = await said("What timers do I have?", tmp_path)
    assert answer == (
        "You have 500 timers and reminders; the next three: t1 timer, 1 minute left, t2 timer, 2 minutes left "
        "and t3 timer, 3 minutes left."
    )
    assert len(answer.split()) < 30  # a few seconds spoken, not 19


async def test_a_short_list_is_said_in_full_soonest_first(tmp_path: Path) -> None:
    clock = ManualClock()
    kit = TimerKit(TimerFile(tmp_path), clock=clock, zone=ROME, language="en")
    for minutes in (9, 5, 7):
        await kit.call("set_timer", {"seconds": minutes * 60, "label": f"t{minutes}"}, CHAT)
    assert await said("What timers do I have?", tmp_path, clock=clock) == (
        "You have: t5 timer, 5 minutes left, t7 timer, 7 minutes left and t9 timer, 9 minutes left."
    )
    assert (await kit.call("list_timers", {}, CHAT))["count"] == 3


async def test_a_timer_missed_while_parley_was_off_is_said_with_its_date_when_not_today(tmp_path: Path) -> None:
    clock, file = ManualClock(), TimerFile(tmp_path)  # 17:00 in Rome, 27 November
    file.add(Timer("a1b2c3", "reminder", "call mum", START - timedelta(days=1), START - timedelta(days=2)))
    file.add(Timer("d4e5f6", "timer", "pasta", START - timedelta(hours=1), START - timedelta(hours=2)))
    said = asyncio.Queue[FrontEvent]()
    ringer = SoundRinger(post=said.put_nowait, language="en", zone=ROME, pause=clock.pause)
    async with TimerKit(file, clock=clock, zone=ROME, language="en", ringer=ringer, pause=clock.pause):
        async with asyncio.timeout(WAIT_S):
            missed = await said.get()
    assert missed == TimersMissed(
        "While Parley was not running, you missed: call mum at 17:00 on 26 November and pasta at 16:00.",
        ("a1b2c3", "d4e5f6"),
    )
    assert {t.state for t in file.read()} == {"missed"}
