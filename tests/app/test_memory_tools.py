"""The memory tools as the voice model calls them: the spec's argument and answer shapes, grounding in
what the user said, folder scope, forgetting, and failures as answers. Real SQLite, the real embedder."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from uuid import uuid4

import pytest

from app.memory_tools import MEMORY_TOOLS, MemoryCallContext, MemoryTools
from chats.memory.service import MemoryService
from chats.minilm import MiniLMEmbedder
from chats.sqlite.memories import SqliteMemoryStore

SAID = (
    "I'm a nurse at the Charité in Berlin.",
    "I prefer tea to coffee, green tea mostly.",
    "For the garden project we chose lavender and rosemary for the south bed.",
)


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder()


@pytest.fixture
async def tools(tmp_path: Path, minilm: MiniLMEmbedder) -> AsyncIterator[tuple[MemoryTools, SqliteMemoryStore]]:
    store = await SqliteMemoryStore.open(tmp_path / "chats.sqlite3", "alice")
    yield MemoryTools(MemoryService(store, minilm)), store
    await store.close()


def context(project_id: str | None = None, said: tuple[str, ...] = SAID) -> MemoryCallContext:
    return MemoryCallContext(chat_id=uuid4(), project_id=project_id, user_said=said)


def save(content: str, category: str) -> dict[str, str]:
    return {"content": content, "category": category, "reasoning": "It will matter in later conversations."}


async def test_save_and_search_answer_in_the_specs_shapes(tools: tuple[MemoryTools, SqliteMemoryStore]) -> None:
    memory, _ = tools
    saved = await memory.call("save_memory", save("User is a nurse at the Charité in Berlin", "identity"), context())
    assert set(saved) == {"success", "message", "memoryId", "content", "category"}
    assert (saved["success"], saved["category"]) == (True, "identity")
    found = await memory.call("search_memories", {"query": "where does the user work?", "limit": 3}, context())
    assert found["success"] is True
    [hit] = found["results"]
    assert set(hit) == {"content", "score", "metadata", "memoryId", "createdAt"}
    assert hit["memoryId"] == saved["memoryId"]
    assert hit["metadata"] == {"title": None, "category": "identity", "tags": []}


async def test_add_memory_takes_null_metadata_and_keeps_to_the_folder(
    tools: tuple[MemoryTools, SqliteMemoryStore],
) -> None:
    memory, _ = tools
    garden = "User chose lavender and rosemary for the south bed of the garden"
    added = await memory.call(
        "add_memory",
        {"content": garden, "metadata": {"title": None, "category": "project", "tags": ["garden"]}},
        context("garden-folder"),
    )
    assert added["success"] is True and set(added) == {"success", "memoryId", "message"}
    here = await memory.call(
        "search_memories", {"query": "what did we plant?", "category": None}, context("garden-folder")
    )
    elsewhere = await memory.call("search_memories", {"query": "what did we plant?"}, context("work-folder"))
    assert [r["memoryId"] for r in here["results"]] == [added["memoryId"]]
    assert elsewhere["results"] == []


async def test_what_the_user_never_said_is_not_saved(tools: tuple[MemoryTools, SqliteMemoryStore]) -> None:
    memory, store = tools
    answer = await memory.call(
        "save_memory", save("User is married to a dentist named Paul", "relationship"), context()
    )
    assert answer == {
        "success": False,
        "error": "the user did not say this: save only what the user said about themselves",
    }
    assert await store.count() == 0


@pytest.mark.parametrize(
    ("name", "args", "fragment"),
    [
        ("save_memory", {"content": "short", "category": "identity", "reasoning": "It matters a lot."}, "content"),
        (
            "save_memory",
            {"content": "User prefers green tea", "category": "mood", "reasoning": "Useful later."},
            "category",
        ),
        ("save_memory", {"content": "User prefers green tea", "category": "preference"}, "reasoning"),
        ("search_memories", {"query": "tea", "limit": 11}, "limit"),
        ("forget_memory", {}, "valid"),
        ("forget_memory", {"memory_id": "not-a-uuid"}, "uuid"),
    ],
)
async def test_wrong_arguments_get_an_error_answer(
    tools: tuple[MemoryTools, SqliteMemoryStore], name: str, args: dict[str, object], fragment: str
) -> None:
    memory, _ = tools
    answer = await memory.call(name, args, context())
    assert answer["success"] is False
    assert fragment in answer["error"]


async def test_forget_by_words_by_id_and_when_unsure(tools: tuple[MemoryTools, SqliteMemoryStore]) -> None:
    memory, store = tools
    job = await memory.call("save_memory", save("User is a nurse at the Charité in Berlin", "identity"), context())
    tea = await memory.call("save_memory", save("User prefers green tea to coffee", "preference"), context())
    nothing = await memory.call("forget_memory", {"query": "the user's favourite football team"}, context())
    assert nothing == {"success": False, "message": "No saved memory is about that."}
    gone = await memory.call("forget_memory", {"query": "where the user works"}, context())
    assert (gone["success"], gone["memoryId"]) == (True, job["memoryId"])
    by_id = await memory.call("forget_memory", {"memory_id": tea["memoryId"]}, context())
    assert by_id["success"] is True
    assert await store.count() == 0
    missing = await memory.call("forget_memory", {"memory_id": tea["memoryId"]}, context())
    assert missing["success"] is False


async def test_a_store_that_is_down_is_an_answer_not_a_crash(tools: tuple[MemoryTools, SqliteMemoryStore]) -> None:
    memory, store = tools
    await store.close()
    answer = await memory.call("search_memories", {"query": "tea"}, context())
    assert answer == {"success": False, "error": "memory cannot be reached right now; say so and carry on"}


def test_every_tool_is_declared_once() -> None:
    assert [tool.name for tool in MEMORY_TOOLS] == ["save_memory", "add_memory", "search_memories", "forget_memory"]
