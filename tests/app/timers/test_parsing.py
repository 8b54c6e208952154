from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from app.timers.parsing import split_reminder, time_said
from app.timers.spoken import timer_call
from tests.app.timers.clock import START

ROME = ZoneInfo("Europe/Rome")
TOMORROW_9 = datetime(2026, 11, 28, 8, 0, tzinfo=UTC)
"""9:00 in Rome the day after `START` (17:00 there)."""


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("en", "tomorrow at 9"),
        ("en", "tomorrow at 9 o'clock"),
        ("en", "at 9"),
        ("it", "domani alle 9"),
        ("it", "domani alle ore 9"),
        ("es", "mañana a las 9"),
        ("fr", "demain à 9h"),
        ("fr", "demain à 9 heures"),
        ("de", "morgen um 9 Uhr"),
        ("de", "morgen um 9"),
    ],
)
def test_tomorrow_at_nine_is_nine_in_the_users_zone(language: str, said: str) -> None:
    assert time_said(said, START, ROME, language) == TOMORROW_9


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("en", "five minutes"),
        ("en", "in 5 minutes"),
        ("it", "cinque minuti"),
        ("it", "tra 5 minuti"),
        ("es", "cinco minutos"),
        ("es", "en 5 minutos"),
        ("fr", "cinq minutes"),
        ("de", "fünf Minuten"),
        ("de", "in fünf Minuten"),
    ],
)
def test_a_delay_is_counted_from_now(language: str, said: str) -> None:
    assert time_said(said, START, ROME, language) == START + timedelta(minutes=5)


def test_number_words_add_up_and_an_hour_is_one() -> None:
    assert time_said("twenty five minutes", START, ROME) == START + timedelta(minutes=25)
    assert time_said("an hour", START, ROME) == START + timedelta(hours=1)
    assert time_said("un minuto", START, ROME, "it") == START + timedelta(minutes=1)


def test_a_model_s_iso_time_is_local_unless_it_says_its_offset() -> None:
    assert time_said("2026-11-28T09:00:00", START, ROME) == TOMORROW_9
    assert time_said("2026-11-28T09:00:00+00:00", START, ROME) == TOMORROW_9 + timedelta(hours=1)


@pytest.mark.parametrize("said", ["call the plumber", ""])
def test_no_time_is_none(said: str) -> None:
    assert time_said(said, START, ROME) is None


@pytest.mark.parametrize("said", ["yesterday", "2026-11-27T09:00:00", "minus 5 minutes", "0 seconds", "zero minutes"])
def test_a_time_gone_is_read_for_the_tools_to_refuse(said: str) -> None:
    found = time_said(said, START, ROME)
    assert found is not None and found <= START


def test_the_zone_decides_what_nine_means() -> None:
    assert time_said("tomorrow at 9", START, ZoneInfo("America/New_York")) == datetime(2026, 11, 28, 14, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("language", "said", "what"),
    [
        ("en", "tomorrow at 9 to call the plumber", "call the plumber"),
        ("en", "call the plumber tomorrow at 9", "call the plumber"),
        ("it", "domani alle 9 di chiamare l'idraulico", "chiamare l'idraulico"),
        ("es", "mañana a las 9 de llamar al fontanero", "llamar al fontanero"),
        ("fr", "demain à 9h d'appeler le plombier", "appeler le plombier"),
        ("de", "morgen um 9 daran, den Klempner anzurufen", "den Klempner anzurufen"),
    ],
)
def test_a_reminder_said_in_one_go_splits_into_when_and_what(language: str, said: str, what: str) -> None:
    assert split_reminder(said, START, ROME, language) == (TOMORROW_9, what)


TIMER_TOOLS = {"set_timer", "set_reminder", "list_timers", "cancel_timer"}


@pytest.mark.parametrize(
    ("language", "said", "tool", "args"),
    [
        ("en", "Set a timer for five minutes.", "set_timer", {"seconds": 300, "label": ""}),
        ("en", "Set a pasta timer for nine minutes.", "set_timer", {"seconds": 540, "label": "pasta"}),
        ("en", "Set a timer for five minutes for the eggs", "set_timer", {"seconds": 300, "label": "eggs"}),
        ("it", "Metti un timer di cinque minuti per la pasta.", "set_timer", {"seconds": 300, "label": "pasta"}),
        ("es", "Pon un temporizador de cinco minutos", "set_timer", {"seconds": 300, "label": ""}),
        ("fr", "Mets un minuteur de cinq minutes", "set_timer", {"seconds": 300, "label": ""}),
        ("de", "Stell einen Nudel-Timer auf fünf Minuten", "set_timer", {"seconds": 300, "label": "nudel"}),
        (
            "en",
            "Remind me to call the plumber tomorrow at 9.",
            "set_reminder",
            {"when": "2026-11-28T09:00:00", "text": "call the plumber"},
        ),
        (
            "it",
            "Ricordami domani alle 9 di chiamare l'idraulico",
            "set_reminder",
            {"when": "2026-11-28T09:00:00", "text": "chiamare l'idraulico"},
        ),
        ("en", "What timers do I have?", "list_timers", {}),
        ("de", "Wie lange noch?", "list_timers", {}),
        ("en", "Cancel the pasta timer.", "cancel_timer", {"which": "pasta"}),
        ("es", "Cancela el temporizador del arroz", "cancel_timer", {"which": "del arroz"}),
    ],
)
def test_offline_requests_become_timer_calls(language: str, said: str, tool: str, args: dict[str, Any]) -> None:
    assert timer_call(said, TIMER_TOOLS, language, now=START, zone=ROME) == (tool, args)


@pytest.mark.parametrize(
    "said",
    [
        "Remind me what we discussed about the holiday.",  # no time: the recall intent's
        "Set a timer",  # no time to set
        "What did we decide about the timer?",
    ],
)
def test_words_that_set_no_timer_are_left_to_the_other_intents(said: str) -> None:
    assert timer_call(said, TIMER_TOOLS, "en", now=START, zone=ROME) is None


def test_only_declared_tools_are_called() -> None:
    assert timer_call("What timers do I have?", {"set_timer"}, "en", now=START, zone=ROME) is None
