"""The memory tools as the voice model calls them: the spec's argument and answer shapes, grounding in
what the user said, folder scope, forgetting, and failures as answers. Real SQLite, the real embedder."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from uuid import uuid4

import pytest

from app.tools.memory_tools import MEMORY_TOOLS, MemoryCallContext, MemoryTools
from chats.embedders.minilm import MiniLMEmbedder
from chats.memory.service import MemoryService
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
    assert hit["metadata"] == {"title": None, "category": "identity", "tags": [], "addedAt": hit["createdAt"]}


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
    ("name", "args", "sentence"),
    [
        (
            "save_memory",
            {"content": "short", "category": "identity", "reasoning": "It matters a lot."},
            "Content too short (minimum 10 characters)",
        ),
        (
            "save_memory",
            {"content": "User prefers green tea " * 40, "category": "preference", "reasoning": "It matters a lot."},
            "Content too long (maximum 500 characters, got 920)",
        ),
        (
            "save_memory",
            {"content": "User prefers green tea", "category": "mood", "reasoning": "Useful later."},
            "Category must be one of identity, preference, relationship, project, context",
        ),
        ("save_memory", {"content": "User prefers green tea", "category": "preference"}, "Missing reasoning"),
        (
            "save_memory",
            {"content": "User prefers green tea", "category": "preference", "reasoning": "Tea."},
            "Reasoning too short (minimum 10 characters)",
        ),
        ("add_memory", {"content": ""}, "Content too short (minimum 10 characters)"),
        ("search_memories", {"query": "tea", "limit": 11}, "Limit must be at most 10"),
        ("search_memories", {"query": "tea", "colour": "green"}, "Unknown argument colour"),
        ("forget_memory", {}, "Missing query or memory_id"),
        ("forget_memory", {"memory_id": "not-a-uuid"}, "Memory id must be a uuid"),
    ],
)
async def test_wrong_arguments_are_answered_in_the_specs_sentences_without_the_value(
    tools: tuple[MemoryTools, SqliteMemoryStore], name: str, args: dict[str, object], sentence: str
) -> None:
    memory, _ = tools
    answer = await memory.call(name, args, context())
    assert answer == {"success": False, "error": sentence}


async def test_add_and_search_take_any_category_name_as_spec_000_scopes(
    tools: tuple[MemoryTools, SqliteMemoryStore],
) -> None:
    memory, _ = tools
    said = ("The staging database went down on Friday because the disk filled up.",)
    outage = "User's staging database went down on Friday because the disk filled up"
    added = await memory.call(
        "add_memory", {"content": outage, "metadata": {"category": "incident", "tags": ["ops"]}}, context(said=said)
    )
    assert added["success"] is True
    incidents = await memory.call("search_memories", {"query": "database outage", "category": "incident"}, context())
    [hit] = incidents["results"]
    assert hit["memoryId"] == added["memoryId"]
    assert hit["metadata"] == {"title": None, "category": "incident", "tags": ["ops"], "addedAt": hit["createdAt"]}
    for other in ("postmortem", "project"):  # another name, or a kind, finds nothing of it
        found = await memory.call("search_memories", {"query": "database outage", "category": other}, context())
        assert found["results"] == []


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
