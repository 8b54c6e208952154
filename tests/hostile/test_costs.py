"""Costs a user can cause stay bounded: a pasted document as a search request is cut to its first
`QUERY_MAX` characters (said in one line); a chat database another program holds locked is said to be busy, in
one line, with nothing changed; an hour-long recording is read a block at a time. (A long list of timers:
test_timers.py; the times and the memory: bench/costs.py.)"""

from __future__ import annotations

import sqlite3
import tracemalloc
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from uuid import uuid4

import numpy as np
import pytest
import soundfile

from app.tools.memory_tools import MemoryCallContext, MemoryTools
from chats.embedders.minilm import MiniLMEmbedder
from chats.memory.service import MemoryService
from chats.models import QUERY_MAX, utc_now
from chats.search import ChatFinder
from chats.sqlite.memories import SqliteMemoryStore
from chats.sqlite.store import SqliteChatStore
from tests.hostile.conftest import User
from voice.audio.wav import WavFileSource

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


def test_a_pasted_memory_search_is_cut_and_said_in_one_line(user: User) -> None:
    assert user("memories", "add", "User drinks green tea every morning")[0] == 0
    out = user.looked_at("memories", "search", pasted("what does the user drink in the morning", "coffee"))
    assert user.err == CUT
    assert "User drinks green tea every morning" in out


def test_a_pasted_chat_search_is_cut_and_said_in_one_line(user: User) -> None:
    assert user("chats", "new", "--title", "Kitchen renovation")[0] == 0
    user.looked_at("chats", "search", pasted("the kitchen renovation", "garden"))
    assert user.err == CUT


def test_a_short_search_says_nothing_of_a_cut(user: User) -> None:
    assert user("memories", "search", "tea")[0] == 0  # the first command: it makes the store
    assert user.err == ""


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
def held(user: User) -> Iterator[Path]:
    """The chat database with one chat, its write lock held by another connection (as a database browser
    with changes not yet saved holds it) until the test ends."""
    assert user("chats", "new", "--title", "Kept")[0] == 0
    path = user.data_dir / "chats.sqlite3"
    other = sqlite3.connect(path, isolation_level=None, timeout=0)
    other.execute("BEGIN EXCLUSIVE")
    try:
        yield path
    finally:
        other.execute("ROLLBACK")
        other.close()


def test_a_locked_store_is_busy_in_one_line_and_unchanged(user: User, held: Path) -> None:
    # Reading needs no write lock (WAL): the list answers while the other program writes.
    assert "Kept" in user.looked_at("chats", "list")
    assert user.err == ""
    user.refused("chats", "new", "--title", "X", line=f"the chat database {held} {BUSY}")
    user.refused("memories", "add", "User likes long walks", line=f"the memory database {held} {BUSY}")
    with closing(sqlite3.connect(f"file:{held}?mode=ro", uri=True)) as db:
        titles = [title for (title,) in db.execute("SELECT title FROM chats")]
        memories = db.execute("SELECT count(*) FROM memories").fetchone()[0]
    assert (titles, memories) == (["Kept"], 0)


@pytest.mark.parametrize("rate", [16_000, 44_100])
async def test_a_long_recording_is_read_a_block_at_a_time(tmp_path: Path, rate: int) -> None:
    # Ten minutes: 19 MB of PCM16 at 16 kHz, and twice that as float32 on the way, were it read whole (an hour
    # of silence given to `parley listen --audio-in` peaked at 2.3 GB).
    path = tmp_path / "ten_minutes.wav"
    with soundfile.SoundFile(path, "w", samplerate=rate, channels=1, subtype="PCM_16") as file:
        for _ in range(600):
            file.write(np.zeros(rate, dtype=np.int16))
    tracemalloc.start()
    try:
        samples = 0
        async for chunk in WavFileSource(path, realtime=False).chunks():
            samples += len(chunk.pcm) // 2
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert samples == 600 * 16_000
    assert peak < 2_000_000  # bytes: a few seconds' blocks, whatever the length
