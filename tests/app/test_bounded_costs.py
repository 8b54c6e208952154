"""Costs a user can cause stay bounded: a pasted document as a search request is cut to its first
`QUERY_MAX` characters (said in one line), and a chat database another program holds locked is said to be
busy, in one line, with nothing changed. (The recording read a block at a time: tests/voice/test_wav.py;
the times and the memory: bench/costs.py.)"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from uuid import uuid4

import pytest

from app.tools.memory_tools import MemoryCallContext, MemoryTools
from chats.embedders.minilm import MiniLMEmbedder
from chats.memory.service import MemoryService
from chats.models import QUERY_MAX, utc_now
from chats.search import ChatFinder
from chats.sqlite.memories import SqliteMemoryStore
from chats.sqlite.store import SqliteChatStore
from tests.app.conftest import Parley

CUT = f"parley: the query was cut to its first {QUERY_MAX:,} characters\n"
BUSY = "is busy: another program is using it; try again"


def pasted(start: str, tail_word: str) -> str:
    """A request of `start` padded to exactly `QUERY_MAX` characters, then 130,000 characters of
    `tail_word` over and over: what is past the cut would change the answer if it were read."""
    head = (start + " please" * QUERY_MAX)[:QUERY_MAX]
    return head + f" {tail_word}" * (130_000 // (len(tail_word) + 1))


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder()


def test_a_pasted_memory_search_is_cut_and_said_in_one_line(parley: Parley) -> None:
    assert parley("memories", "add", "User drinks green tea every morning")[0] == 0
    saved = parley.json("memories", "list")

    code, out = parley("memories", "search", pasted("what does the user drink in the morning", "coffee"))

    assert code == 0
    assert parley.err == CUT
    assert "User drinks green tea every morning" in out
    assert parley.json("memories", "list") == saved


def test_a_pasted_chat_search_is_cut_and_said_in_one_line(parley: Parley) -> None:
    assert parley("chats", "new", "--title", "Kitchen renovation")[0] == 0
    chats = parley.json("chats", "list")

    code, _ = parley("chats", "search", pasted("the kitchen renovation", "garden"))

    assert code == 0
    assert parley.err == CUT
    assert parley.json("chats", "list") == chats


def test_a_short_search_says_nothing_of_a_cut(parley: Parley) -> None:
    assert parley("memories", "search", "tea")[0] == 0
    assert parley.err == ""


async def test_the_memory_tool_reads_the_same_first_characters(tmp_path: Path, minilm: MiniLMEmbedder) -> None:
    store = await SqliteMemoryStore.open(tmp_path / "chats.sqlite3", "alice")
    tools = MemoryTools(MemoryService(store, minilm))
    context = MemoryCallContext(chat_id=uuid4(), project_id=None, user_said=("I drink green tea every morning.",))
    await tools.call("add_memory", {"content": "User drinks green tea every morning"}, context)
    request = pasted("what does the user drink", "tea")

    long = await tools.call("search_memories", {"query": request}, context)
    first = await tools.call("search_memories", {"query": request[:QUERY_MAX]}, context)

    assert long["success"] is True
    assert [hit["score"] for hit in long["results"]] == [hit["score"] for hit in first["results"]]
    await store.close()


async def test_the_chat_finder_reads_the_same_first_characters(tmp_path: Path, minilm: MiniLMEmbedder) -> None:
    store = await SqliteChatStore.open(tmp_path / "chats.sqlite3", "alice")
    await store.create(title="Kitchen renovation")
    await store.create(title="Garden beds")
    finder = ChatFinder(store, minilm)
    request = pasted("the kitchen renovation", "garden")

    now = utc_now()
    long, first = await finder.ranked(request, now=now), await finder.ranked(request[:QUERY_MAX], now=now)

    assert [(chat.chat_id, chat.score) for chat in long] == [(chat.chat_id, chat.score) for chat in first]
    await store.close()


@pytest.fixture
def held(parley: Parley) -> Iterator[Path]:
    """The chat database with one chat, its write lock held by another connection (as a database browser
    with changes not yet saved holds it) until the test ends."""
    assert parley("chats", "new", "--title", "Kept")[0] == 0
    path = parley.data_dir / "chats.sqlite3"
    other = sqlite3.connect(path, isolation_level=None, timeout=0)
    other.execute("BEGIN EXCLUSIVE")
    try:
        yield path
    finally:
        other.execute("ROLLBACK")
        other.close()


def test_a_locked_store_is_busy_in_one_line_and_unchanged(parley: Parley, held: Path) -> None:
    # Reading needs no write lock (WAL): the list answers while the other program writes.
    code, out = parley("chats", "list")
    assert (code, parley.err) == (0, "")
    assert "Kept" in out

    code, out = parley("chats", "new", "--title", "X")
    assert (code, out) == (1, "")
    assert parley.err == f"parley: the chat database {held} {BUSY}\n"

    code, _ = parley("memories", "add", "User likes long walks")
    assert code == 1
    assert parley.err == f"parley: the memory database {held} {BUSY}\n"

    with closing(sqlite3.connect(f"file:{held}?mode=ro", uri=True)) as db:
        titles = [title for (title,) in db.execute("SELECT title FROM chats")]
        memories = db.execute("SELECT count(*) FROM memories").fetchone()[0]
    assert (titles, memories) == (["Kept"], 0)
