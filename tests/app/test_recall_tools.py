"""Recall over earlier chats and the chat's working memory, as the voice model calls them: the real
store, the real embedder and maintenance (which gives turns their recall vectors)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from app.tools.recall_tools import RecallTools, working_memory_block
from app.wiring import ChatServices, compose_services
from chats.embedders.minilm import MiniLMEmbedder
from chats.models import Role, Turn
from chats.sqlite.memories import SqliteMemoryStore
from chats.sqlite.store import SqliteChatStore
from chats.working_memory import MAX_BYTES
from tests.fakes.text_models import ScriptedTextModel

TILES: list[tuple[Role, str]] = [
    ("user", "For the kitchen backsplash, should we go with zellige or plain ceramic?"),
    ("model", "Zellige is handmade and uneven; ceramic is cheaper and regular."),
    ("user", "We decided on white zellige tiles, ten by ten centimetres, from the shop in Porto."),
    ("model", "Good choice. Order fifteen percent extra for breakage."),
    ("user", "And the grout will be light grey."),
]
TRIP: list[tuple[Role, str]] = [
    ("user", "We're flying to Tokyo on April 3rd."),
    ("model", "Cherry blossoms should be near their peak then."),
]


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder()


@pytest.fixture
async def services(tmp_path: Path, minilm: MiniLMEmbedder) -> AsyncIterator[ChatServices]:
    path = tmp_path / "chats.sqlite3"
    store = await SqliteChatStore.open(path, "alice")
    memories = await SqliteMemoryStore.open(path, "alice")
    yield compose_services(store, memories, minilm, ScriptedTextModel())
    await memories.close()
    await store.close()


async def test_recall_finds_what_was_decided_in_another_chat(services: ChatServices) -> None:
    tiles = await services.store.create(turns=[Turn(role=r, text=t) for r, t in TILES])
    trip = await services.store.create(turns=[Turn(role=r, text=t) for r, t in TRIP])
    for chat in (tiles, trip):
        await services.maintainer.maintain(chat.id)
    here = await services.store.create()
    tools = RecallTools(services.recaller, services.working_memory)
    answer = await tools.call("recall_conversations", {"query": "what did we decide about the tiles?"}, here.id)
    assert answer["success"] is True
    best = answer["results"][0]
    assert best["chatId"] == str(tiles.id)
    said = [best["text"], *(turn["text"] for turn in best["before"] + best["after"])]
    assert TILES[2][1] in said  # the decision, as the hit or beside it
    nothing = await tools.call("recall_conversations", {"query": "quantum chromodynamics lecture notes"}, here.id)
    assert nothing == {"success": True, "results": [], "message": "Nothing in earlier chats matches that."}


async def test_working_memory_merges_updates_and_shows_in_the_prompt(services: ChatServices) -> None:
    chat = await services.store.create()
    tools = RecallTools(services.recaller, services.working_memory)
    first = await tools.call("update_working_memory", {"patch": '{"budget_eur": 18500, "tiles": "zellige"}'}, chat.id)
    assert first == {"success": True, "workingMemory": {"budget_eur": 18500, "tiles": "zellige"}}
    second = await tools.call("update_working_memory", {"patch": '{"tiles": null, "grout": "light grey"}'}, chat.id)
    assert second["workingMemory"] == {"budget_eur": 18500, "grout": "light grey"}
    block = working_memory_block(await services.working_memory.get(chat.id))
    assert block.splitlines()[1] == json.dumps({"budget_eur": 18500, "grout": "light grey"}, sort_keys=True)
    assert working_memory_block({}) == ""


@pytest.mark.parametrize(
    ("patch", "fragment"),
    [("not json", "not JSON"), ("[1, 2]", "JSON object"), (json.dumps({"notes": "x" * MAX_BYTES}), "")],
)
async def test_a_bad_working_memory_update_is_refused_and_changes_nothing(
    services: ChatServices, patch: str, fragment: str
) -> None:
    chat = await services.store.create()
    tools = RecallTools(services.recaller, services.working_memory)
    answer = await tools.call("update_working_memory", {"patch": patch}, chat.id)
    assert answer["success"] is False and fragment in answer["error"]
    assert await services.working_memory.get(chat.id) == {}
