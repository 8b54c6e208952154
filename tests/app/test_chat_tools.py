"""The chat tools as the voice model calls them, on the real store and the real local embedder."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from uuid import UUID, uuid4

import pytest

from app.tools.chat_tools import LIST_RECENT_CHATS, NEW_CHAT, SWITCH_CHAT, ChatTools, invalid_arguments
from app.wiring import compose_services
from chats.embedders.minilm import MiniLMEmbedder
from chats.models import Turn
from chats.sqlite.memories import SqliteMemoryStore
from chats.sqlite.store import SqliteChatStore
from tests.fakes.text_models import ScriptedTextModel

NOW = datetime(2026, 6, 1, 12, tzinfo=UTC)
TOPICS = {
    "Kitchen renovation": ["We are renovating the kitchen.", "Oak cabinets, budget 18,500 euros."],
    "Marathon training": ["I'm training for the Berlin marathon.", "How many long runs a week?"],
    "Half marathon": ["I signed up for a half marathon.", "What pace for my long runs?"],
}


class Ticking:
    """A clock that moves on a minute each time it is read: every write happens at its own time."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        self.now += timedelta(minutes=1)
        return self.now


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder()


@pytest.fixture
async def setup(tmp_path: Path, minilm: MiniLMEmbedder) -> AsyncIterator[tuple[ChatTools, dict[str, UUID], Path]]:
    path = tmp_path / "chats.sqlite3"
    store = await SqliteChatStore.open(
        path, "alice", clock=Ticking(NOW - timedelta(days=3, hours=1)), busy_timeout_ms=0
    )
    memories = await SqliteMemoryStore.open(path, "alice")
    services = compose_services(store, memories, minilm, ScriptedTextModel(titles=list(TOPICS)))
    ids = {}
    for title, said in TOPICS.items():
        chat = await store.create(turns=[Turn(role="user", text=text) for text in said])
        await services.maintainer.maintain(chat.id)
        ids[title] = chat.id
    yield ChatTools(services, clock=lambda: NOW), ids, path
    await memories.close()
    await store.close()


async def test_a_clear_match_switches(setup: tuple[ChatTools, dict[str, UUID], Path]) -> None:
    tools, ids, _ = setup
    outcome = await tools.call("switch_chat", {"query": "remodeling the kitchen"}, current_chat=uuid4())
    assert outcome.switch_to == ids["Kitchen renovation"]
    assert outcome.result == {
        "outcome": "switched",
        "chat_id": str(ids["Kitchen renovation"]),
        "title": "Kitchen renovation",
    }


async def test_switching_to_the_current_chat_stays(setup: tuple[ChatTools, dict[str, UUID], Path]) -> None:
    tools, ids, _ = setup
    outcome = await tools.call("switch_chat", {"query": "kitchen renovation"}, ids["Kitchen renovation"])
    assert outcome.switch_to is None
    assert outcome.result["outcome"] == "already_here"


async def test_close_matches_are_offered_then_chosen_by_id(setup: tuple[ChatTools, dict[str, UUID], Path]) -> None:
    tools, ids, _ = setup
    asked = await tools.call("switch_chat", {"query": "my running"}, current_chat=uuid4())
    assert asked.switch_to is None and asked.result["outcome"] == "ask"
    options = {option["title"]: option for option in asked.result["options"]}
    assert set(options) == {"Marathon training", "Half marathon"}
    assert options["Half marathon"]["last_active"] == "3 days ago"
    chosen = await tools.call("switch_chat", {"chat_id": options["Half marathon"]["chat_id"]}, uuid4())
    assert chosen.switch_to == ids["Half marathon"]


async def test_nothing_matching_is_said_plainly(setup: tuple[ChatTools, dict[str, UUID], Path]) -> None:
    tools, _, _ = setup
    outcome = await tools.call("switch_chat", {"query": "quantum chromodynamics"}, uuid4())
    assert (outcome.result["outcome"], outcome.switch_to) == ("none", None)


async def test_new_chat_starts_an_empty_chat(setup: tuple[ChatTools, dict[str, UUID], Path]) -> None:
    tools, ids, _ = setup
    outcome = await tools.call("new_chat", {}, ids["Kitchen renovation"])
    assert outcome.switch_to is not None and outcome.switch_to not in ids.values()
    assert outcome.result["chat_id"] == str(outcome.switch_to)


async def test_recent_chats_are_listed_newest_first(setup: tuple[ChatTools, dict[str, UUID], Path]) -> None:
    tools, ids, _ = setup
    outcome = await tools.call("list_recent_chats", {"limit": 2}, ids["Half marathon"])
    listed = outcome.result["chats"]
    assert [c["title"] for c in listed] == ["Half marathon", "Marathon training"]
    assert [c["current"] for c in listed] == [True, False]


@pytest.mark.parametrize(
    ("name", "args", "code", "fragment"),
    [
        ("switch_chat", {}, "invalid_arguments", "is not valid under any of the given schemas"),
        ("switch_chat", {"query": 42}, "invalid_arguments", "query: 42 is not of type 'string'"),
        ("switch_chat", {"query": ""}, "invalid_arguments", "query: '' should be non-empty"),
        ("switch_chat", {"chat_id": "nope"}, "invalid_arguments", "chat_id: 'nope' is not a 'uuid'"),
        ("switch_chat", {"query": "x", "extra": 1}, "invalid_arguments", "'extra' was unexpected"),
        ("list_recent_chats", {"limit": 0}, "invalid_arguments", "limit: 0 is less than the minimum of 1"),
        ("list_recent_chats", {"limit": "5"}, "invalid_arguments", "limit: '5' is not of type 'integer'"),
        ("delete_everything", {}, "unknown_tool", "no tool named 'delete_everything'"),
        ("switch_chat", {"chat_id": str(UUID(int=7))}, "not_found", "no chat has that id"),
    ],
)
async def test_wrong_calls_get_an_error_object(
    setup: tuple[ChatTools, dict[str, UUID], Path], name: str, args: dict[str, Any], code: str, fragment: str
) -> None:
    tools, _, _ = setup
    outcome = await tools.call(name, args, uuid4())
    assert outcome.switch_to is None
    assert outcome.result["error"]["code"] == code
    assert fragment in outcome.result["error"]["message"]


async def test_a_store_that_is_down_is_an_answer_not_a_crash(setup: tuple[ChatTools, dict[str, UUID], Path]) -> None:
    tools, ids, path = setup
    blocker = sqlite3.connect(path, timeout=0)
    blocker.execute("BEGIN EXCLUSIVE")
    try:
        outcome = await tools.call("new_chat", {}, ids["Half marathon"])
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    assert outcome.result["error"]["code"] == "unavailable"
    assert outcome.switch_to is None


def test_every_declared_schema_accepts_a_good_call() -> None:
    assert invalid_arguments(SWITCH_CHAT, {"query": "the kitchen"}) is None
    assert invalid_arguments(SWITCH_CHAT, {"chat_id": str(uuid4())}) is None
    assert invalid_arguments(NEW_CHAT, {}) is None
    assert invalid_arguments(LIST_RECENT_CHATS, {}) is None


async def test_every_option_read_out_can_be_named_back(tmp_path: Path, minilm: MiniLMEmbedder) -> None:
    path = tmp_path / "chats.sqlite3"
    store = await SqliteChatStore.open(path, "alice")
    memories = await SqliteMemoryStore.open(path, "alice")
    try:
        tools = ChatTools(compose_services(store, memories, minilm, ScriptedTextModel(titles=[])), clock=lambda: NOW)
        said = [
            "Marathon training with the club on Sundays in the park.",
            "Marathon training with Ana on Tuesdays by the river.",
        ]
        for text in said:  # chats not yet titled: nothing has maintained them
            await store.create(turns=[Turn(role="user", text=text), Turn(role="model", text="Noted.")])
        await store.create()  # an empty one
        asked = await tools.call("switch_chat", {"query": "marathon training"}, current_chat=uuid4())
        assert asked.result["outcome"] == "ask"
        assert {option["title"] for option in asked.result["options"]} == {
            "the chat that began “Marathon training with the club on Sundays in…”",
            "the chat that began “Marathon training with Ana on Tuesdays by the…”",
        }
        listed = await tools.call("list_recent_chats", {}, current_chat=uuid4())
        assert "a chat with nothing said in it yet" in {chat["title"] for chat in listed.result["chats"]}
    finally:
        await memories.close()
        await store.close()


async def test_options_of_the_same_title_are_told_apart_when_read_out(tmp_path: Path, minilm: MiniLMEmbedder) -> None:
    clock = Ticking(NOW - timedelta(days=9))
    store = await SqliteChatStore.open(tmp_path / "chats.sqlite3", "alice", clock=clock)
    memories = await SqliteMemoryStore.open(tmp_path / "chats.sqlite3", "alice")
    try:
        tools = ChatTools(compose_services(store, memories, minilm, ScriptedTextModel(titles=[])), clock=lambda: NOW)
        said = {
            timedelta(days=8): "The wedding venue by the lake, and the guest list.",
            timedelta(days=2, hours=3): "The wedding menu and the cake for the reception.",
            timedelta(days=2, hours=1): "The wedding music: a band or a DJ for the evening.",
        }
        for ago, text in said.items():
            clock.now = NOW - ago
            turns = [Turn(role="user", text=text), Turn(role="model", text="Noted.")]
            await store.create(title="Wedding plans", turns=turns)
        asked = await tools.call("switch_chat", {"query": "the wedding plans"}, current_chat=uuid4())
        assert asked.result["outcome"] == "ask"
        assert sorted(option["title"] for option in asked.result["options"]) == [
            "Wedding plans, last used 1 week ago",
            "Wedding plans, last used 2 days ago, where you said “The wedding menu and the cake for the…”",
            "Wedding plans, last used 2 days ago, where you said “The wedding music: a band or a DJ…”",
        ]
    finally:
        await memories.close()
        await store.close()
