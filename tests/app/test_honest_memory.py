"""What the offline voice and memory search claim, from the user's side (issue 34): the offline voice's
intents and answers over a real SQLite store and the real local embedder, and `parley memories search`."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from uuid import uuid4

import pytest

from app.offline.intents import EXAMPLES, OfflineIntents
from app.tools.memory_tools import MemoryCallContext, MemoryTools
from chats.embedders.minilm import MiniLMEmbedder
from chats.memory.service import MemoryService
from chats.sqlite.memories import SqliteMemoryStore
from tests.app.conftest import Parley
from voice.live.connection import ToolCall

EVERY_TOOL = frozenset(EXAMPLES)


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder()


async def said_to(
    intents: OfflineIntents, tools: MemoryTools, said: str
) -> tuple[tuple[ToolCall, ...], list[dict[str, Any]], str]:
    """The calls `said` becomes, the tools' answers, and what the offline voice says about them."""
    calls = await intents.match(said, EVERY_TOOL)
    context = MemoryCallContext(chat_id=uuid4(), project_id=None, user_said=(said,))
    results = [await tools.call(call.name, call.args, context) for call in calls]
    return calls, results, intents.reply(list(zip(calls, results, strict=True))).template if calls else ""


async def test_remember_a_and_b_saves_both(tmp_path: Path, minilm: MiniLMEmbedder) -> None:
    store = await SqliteMemoryStore.open(tmp_path / "m.sqlite3", "alice")
    try:
        tools = MemoryTools(MemoryService(store, minilm))
        intents = OfflineIntents(minilm, language="en")
        calls, results, said = await said_to(intents, tools, "Remember that I live in Turin and I'm vegetarian")
        assert [call.args["content"] for call in calls] == ["User lives in Turin", "User is vegetarian"]
        assert all(result["success"] for result in results)
        assert "you live in Turin" in said and "you are vegetarian" in said, said
    finally:
        await store.close()


@pytest.mark.parametrize(
    ("setting", "said", "content"),
    [
        ("en", "Ricordati che mi piace il caffè senza zucchero", "All'utente piace il caffè senza zucchero"),
        ("en", "Souviens-toi que j'habite à Lyon.", "L'utilisateur habite à Lyon"),
        ("it", "Remember that my daughter is called Mia.", "User's daughter is called Mia"),
    ],
)
async def test_a_request_is_understood_in_the_language_it_was_said_in(
    tmp_path: Path, minilm: MiniLMEmbedder, setting: str, said: str, content: str
) -> None:
    store = await SqliteMemoryStore.open(tmp_path / "m.sqlite3", "alice")
    try:
        intents = OfflineIntents(minilm, language=setting)
        calls, results, _ = await said_to(intents, MemoryTools(MemoryService(store, minilm)), said)
        assert [(call.name, call.args["content"]) for call in calls] == [("save_memory", content)]
        assert results[0]["success"]
        assert intents.heard_in == setting  # the setting chooses the answer's language
    finally:
        await store.close()


async def test_an_answer_keeps_to_one_language(tmp_path: Path, minilm: MiniLMEmbedder) -> None:
    """Memories saved in another language are not put into the reply's sentence frame."""
    store = await SqliteMemoryStore.open(tmp_path / "m.sqlite3", "alice")
    try:
        service = MemoryService(store, minilm)
        for fact, category in [
            ("User is vegetarian", "preference"),
            ("All'utente piace il caffè senza zucchero", "preference"),
        ]:
            await service.save(fact, category, "The user said so.", project_id=None)
        intents = OfflineIntents(minilm, language="en")
        _, _, said = await said_to(intents, MemoryTools(service), "What do you know about me?")
        frame, _, rest = said.partition(".")
        assert "you are vegetarian" in frame and "caffè" not in frame, said
        assert "Ti piace il caffè senza zucchero" in rest, said  # said as saved, to the user, on its own
    finally:
        await store.close()


def test_a_search_returns_no_unrelated_memory(parley: Parley) -> None:
    parley.json("memories", "add", "I live in Turin", "--category", "identity")
    parley.json("memories", "add", "I prefer green tea to coffee", "--category", "preference")
    found = parley.json("memories", "search", "coffee")
    assert [memory["content"] for memory in found] == ["User prefers green tea to coffee"]
    assert parley("memories", "search", "submarine periscope")[1].startswith("No memory matches")
