"""Offline, in a long chat, `parley ask` answers from the chat's own facts and the memories, says it does
not know what nobody said, and never answers a new question with an earlier answer: the real offline
voice (SmolLM2 on CTranslate2, greedy), the real intents on MiniLM, the real SQLite store (issue 23 part 6;
its bench is `bench/offline_voice.py`)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from uuid import UUID

import pytest

from app.cli.main import main
from app.offline.replies import SAY
from chats.models import Turn
from chats.sqlite.store import SqliteChatStore

SAID = [
    ("user", "We're finally redoing the kitchen. I want terracotta tiles on the floor."),
    ("model", "Terracotta is warm and hard-wearing. Seal it well, since it stains easily."),
    ("user", "For the cabinets we settled on sage green, with brass handles."),
    ("model", "Sage green with brass is a lovely pairing, calm and a little classic."),
    ("user", "Our builder is called Tomasz and he starts on 3 March."),
    ("model", "Good to have a date. Ask Tomasz for a written schedule for each stage."),
    ("user", "Should the worktop be oak or quartz?"),
    ("model", "Oak is warmer but needs oiling; quartz shrugs off heat and stains."),
    ("user", "Let's go with quartz. Changing subject, Biscuit keeps scratching his ears."),
    ("model", "Ear scratching in dogs is often an allergy or mites. A vet can look inside the ear quickly."),
    ("user", "I booked the vet for Thursday at 4 pm."),
    ("model", "Good. Note when the scratching got worse, and any change in his food."),
    ("user", "He started a new salmon kibble two weeks ago."),
    ("model", "That's worth mentioning: a new food is a common trigger for itchy ears."),
    ("user", "Also, Saturday I'm hosting dinner. Eight guests are coming."),
    ("model", "Eight is a nice size. A dish that waits well in the oven takes the pressure off."),
    ("user", "I'm thinking a big spinach lasagne."),
    ("model", "Spinach lasagne feeds eight easily and can be made the day before."),
    ("user", "What should I serve before it?"),
    ("model", "Something light: a fennel and orange salad, or bruschetta with tomatoes."),
    ("user", "Fennel salad it is. Lots to do this week."),
    ("model", "You've got a good plan. One thing at a time."),
]


async def parley(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    capsys.readouterr()
    code = await asyncio.to_thread(main, list(args))
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


async def test_a_long_chat_is_answered_from_its_facts_and_memories_never_with_an_earlier_answer(
    offline: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    await parley(capsys, "memories", "add", "My daughter is called Mia.")
    chat_id = json.loads(await parley(capsys, "chats", "new", "--json"))["id"]
    store = await SqliteChatStore.open(offline / "data" / "chats.sqlite3", "local")
    try:
        await store.append(UUID(chat_id), [Turn(role=role, text=text) for role, text in SAID])  # type: ignore[arg-type]
    finally:
        await store.close()

    async def ask(question: str) -> str:
        answer: str = json.loads(await parley(capsys, "ask", question, "--chat", chat_id, "--json"))["model"]
        return answer

    cabinets = await ask("What colour did we pick for the cabinets?")
    start = await ask("When does the builder start?")
    sister = await ask("What's my sister's name?")
    daughter = await ask("What is my daughter called?")
    assert "sage green" in cabinets.lower()
    assert "3 March" in start or "March 3" in start
    assert sister == SAY["en"]["not_known"]
    assert "Mia" in daughter
    answers = [cabinets, start, sister, daughter]
    assert len(set(answers)) == len(answers), answers
    assert not {text for role, text in SAID if role == "model"} & set(answers)
