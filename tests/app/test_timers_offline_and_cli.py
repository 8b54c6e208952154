"""Timers without a key: the offline voice sets one from "set a timer for five minutes" in English and in
Italian (`parley ask`, the real embedder, chat model and tools), and `parley timers` lists and cancels
them."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from app.cli.main import main


async def parley(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = await asyncio.to_thread(main, list(args))
    out, err = capsys.readouterr()
    return code, out, err


async def asked(capsys: pytest.CaptureFixture[str], text: str) -> dict[str, Any]:
    code, out, err = await parley(capsys, "ask", text, "--json")
    assert code == 0, err
    answer: dict[str, Any] = json.loads(out)
    return answer


async def test_offline_a_timer_is_set_in_english_and_in_italian_then_listed_and_cancelled(
    offline: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PARLEY_LANGUAGE", "en")
    english = await asked(capsys, "Set a timer for five minutes.")
    [tool] = english["tool_calls"]
    assert (tool["name"], tool["args"]) == ("set_timer", {"seconds": 300, "label": ""})
    assert english["model"] == "Okay, timer for 5 minutes."

    monkeypatch.setenv("PARLEY_LANGUAGE", "it")
    italian = await asked(capsys, "Metti un timer di cinque minuti per la pasta.")
    [tool] = italian["tool_calls"]
    assert (tool["name"], tool["args"]) == ("set_timer", {"seconds": 300, "label": "pasta"})
    assert italian["model"] == "Va bene, timer pasta di 5 minuti."

    code, out, _ = await parley(capsys, "timers", "--json")
    assert code == 0
    listed = json.loads(out)
    assert [(t["kind"], t["label"]) for t in listed] == [("timer", ""), ("timer", "pasta")]
    assert all(240 < t["seconds_left"] <= 300 for t in listed)

    code, out, _ = await parley(capsys, "timers", "list")
    assert code == 0 and out.count("timer") == 2 and "left)" in out
    code, out, _ = await parley(capsys, "timers", "cancel", listed[0]["id"])
    assert code == 0 and out.startswith(f"cancelled {listed[0]['id']}")
    code, out, _ = await parley(capsys, "timers", "list", "--json")
    assert [t["id"] for t in json.loads(out)] == [listed[1]["id"]]


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("en", "Hi, set a timer for five minutes."),
        ("en", "Hey Jarvis, could you please set a timer for five minutes?"),
        ("es", "Hola, pon un temporizador de cinco minutos."),
        ("it", "Ciao Jarvis, per favore metti un timer di cinque minuti."),
    ],
)
async def test_a_greeting_or_please_before_a_timer_request_still_sets_it(
    offline: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, language: str, said: str
) -> None:
    """Before, the request was only matched at the start of what was said: "Hi, set a timer..." set none,
    and the small model answered "Set a timer for nine minutes." as if it had."""
    monkeypatch.setenv("PARLEY_LANGUAGE", language)
    answer = await asked(capsys, said)
    [tool] = answer["tool_calls"]
    assert (tool["name"], tool["args"]["seconds"]) == ("set_timer", 300)
    code, out, _ = await parley(capsys, "timers", "--json")
    assert code == 0 and [t["kind"] for t in json.loads(out)] == ["timer"]


async def test_the_timers_command_says_what_is_wrong_in_one_line(
    offline: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = await parley(capsys, "timers")
    assert (code, out) == (0, "No timers or reminders.\n")
    code, _, err = await parley(capsys, "timers", "cancel", "abc123")
    assert code == 1 and err == "parley: no timer or reminder with the id 'abc123': `parley timers` lists them\n"
    (offline / "data" / "timers.json").write_text("{", encoding="utf-8")
    code, _, err = await parley(capsys, "timers")
    assert code == 1 and err.count("\n") == 1 and "the timers file is damaged" in err
