"""The export formats are a true round trip: for any history, export, import into an empty store, export gives
the same files, chats and memories. Real SQLite stores, the real importers; the histories are drawn by
hypothesis."""

from __future__ import annotations

import asyncio
import io
import json
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from uuid import UUID, uuid5

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.account.sync import StampClock
from app.controller import ChatController
from app.memory_controller import MemoryController
from app.wiring import ChatServices, compose_services
from chats.embedders.minilm import MiniLMEmbedder
from chats.import_reader import ImportedFolder, read_import
from chats.memory.export import read_export
from chats.memory.models import CATEGORIES, Category
from chats.memory.store import MemoryChanges, NewMemory
from chats.models import CONTROLS, ROLES, EmbeddedText, Source, Turn
from chats.sqlite.memories import SqliteMemoryStore
from chats.sqlite.store import SqliteChatStore
from chats.transfer import export_json
from tests.fakes.text_models import ScriptedTextModel

FOLDERS = ("Kitchen", "Travel", "Work")
MOMENTS = st.datetimes(min_value=datetime(2020, 1, 1), max_value=datetime(2030, 1, 1), timezones=st.just(UTC))
TEXT = st.text(st.characters(codec="utf-8"), min_size=1, max_size=24)
TITLES = TEXT.filter(lambda text: CONTROLS.search(text) is None)
"""A chat's title: one line without control characters, as `chats.models.chat_title` and imports keep them."""
WEB_SOURCES = st.lists(
    st.builds(Source, title=st.just("") | TEXT, uri=TEXT.map("https://example.org/".__add__)), max_size=2
).map(tuple)
"""An answer's web pages (a model turn's)."""
SEARCHES = st.lists(TEXT, max_size=2).map(tuple)
NOTES = st.dictionaries(
    st.text("abcdefgh", min_size=1, max_size=6), st.one_of(st.integers(-99, 99), st.booleans(), TEXT), max_size=3
)


@dataclass(frozen=True)
class DrawnChat:
    title: str | None
    folder: str | None
    turns: list[Turn]
    compacted_tail: int | None
    """None: not compacted; else how many of the last turns follow the summary turn."""
    memory_enabled: bool
    notes: dict[str, Any]
    created_at: datetime
    last_activity_at: datetime
    vector_seed: int


@st.composite
def turns(draw: st.DrawFn, chat: int) -> list[Turn]:
    drawn = draw(
        st.lists(
            st.tuples(TEXT, st.booleans(), st.none() | MOMENTS, st.booleans(), st.booleans(), WEB_SOURCES, SEARCHES),
            max_size=6,
        )
    )
    return [
        Turn(
            role=ROLES[i % 2],
            text=text,
            id=uuid5(UUID(int=chat), str(i)) if with_id else None,
            at=at,
            interrupted=interrupted and i % 2 == 1,
            navigation=navigation,
            sources=sources if i % 2 == 1 else (),
            searches=searches if i % 2 == 1 else (),
        )
        for i, (text, with_id, at, interrupted, navigation, sources, searches) in enumerate(drawn)
    ]


@st.composite
def chats(draw: st.DrawFn) -> list[DrawnChat]:
    drawn = []
    for number in range(draw(st.integers(0, 4))):
        history = draw(turns(number))
        created, later = sorted((draw(MOMENTS), draw(MOMENTS)))
        drawn.append(
            DrawnChat(
                title=draw(st.none() | TITLES),
                folder=draw(st.none() | st.sampled_from(FOLDERS)),
                turns=history,
                compacted_tail=draw(st.none() | st.integers(0, len(history))) if history else None,
                memory_enabled=draw(st.booleans()),
                notes=draw(NOTES),
                created_at=created,
                last_activity_at=later,
                vector_seed=draw(st.integers(0, 2**16)),
            )
        )
    return drawn


@dataclass(frozen=True)
class DrawnMemory:
    content: str
    title: str | None
    category: Category
    tags: list[str]
    importance: int
    folder: str | None
    said_in: int | None
    """The position of the drawn chat it was said in (None, or one past the chats drawn: in none)."""
    supersedes: int | None
    """The position of an earlier drawn memory it replaces, when that one is not replaced already."""
    created_at: datetime
    updated_at: datetime
    """Later than `created_at` when it was edited."""


@st.composite
def memories(draw: st.DrawFn) -> list[DrawnMemory]:
    drawn: list[DrawnMemory] = []
    for number in range(draw(st.integers(0, 4))):
        current = [i for i in range(number) if all(m.supersedes != i for m in drawn)]
        # Times drawn apart from the order they are said in: a newer fact may carry an older time.
        created = draw(MOMENTS)
        drawn.append(
            DrawnMemory(
                content=f"Fact number {number}: {draw(TEXT)}".strip(),
                title=draw(st.none() | TEXT),
                category=draw(st.sampled_from(CATEGORIES)),
                tags=draw(st.lists(st.text("abc xyz", min_size=1, max_size=8), max_size=3)),
                importance=draw(st.integers(1, 10)),
                folder=draw(st.none() | st.sampled_from(FOLDERS)),
                said_in=draw(st.none() | st.integers(0, 4)),
                supersedes=draw(st.none() | st.sampled_from(current)) if current else None,
                created_at=created,
                updated_at=max(created, draw(st.none() | MOMENTS) or created),
            )
        )
    return drawn


def vector(seed: int, dimensions: int) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal(dimensions).astype(np.float32)
    return v / np.linalg.norm(v)


async def open_services(path: Path, clock: StampClock, embedder: MiniLMEmbedder) -> ChatServices:
    store = await SqliteChatStore.open(path, "local", clock=clock)
    memories = await SqliteMemoryStore.open(path, "local", clock=clock)
    return compose_services(store, memories, embedder, ScriptedTextModel())


async def make(
    services: ChatServices, clock: StampClock, drawn: list[DrawnChat], said: Sequence[DrawnMemory] = ()
) -> None:
    """The drawn chats, written as the app writes them (a summary and topic of this embedder's model, as
    maintenance makes them), then the drawn memories."""
    store, embedder = services.store, services.embedder
    folders, chat_ids = {}, []
    for number, name in enumerate(FOLDERS):
        with clock.at(datetime(2021, 1, 1 + number, tzinfo=UTC)):
            folders[name] = (await store.create_folder(name)).id
    for chat in drawn:
        with clock.at(chat.created_at):
            made = await store.create(title=chat.title, project_id=folders.get(chat.folder or ""))
        chat_ids.append(made.id)
        version = made.version
        if chat.turns:
            with clock.at(chat.last_activity_at):
                version = (await store.append(made.id, chat.turns)).version
        summary = EmbeddedText("What came before.", vector(chat.vector_seed, embedder.dimensions), embedder.model_name)
        if chat.compacted_tail is not None:
            tail = chat.turns[len(chat.turns) - chat.compacted_tail :]
            history = [Turn(role="model", text=summary.text, summary=True), *tail]
            await store.replace_assistant_history(
                made.id, expected_version=version, assistant_history=history, summary=summary
            )
        if chat.turns:
            topic = EmbeddedText(
                chat.turns[0].text, vector(chat.vector_seed + 1, embedder.dimensions), embedder.model_name
            )
            await store.set_embedding(made.id, "topic", topic)
        await store.set_memory_enabled(made.id, chat.memory_enabled)
        if chat.notes:
            await store.put_working_memory(made.id, chat.notes, expected_version=0)
    memory_ids: list[UUID] = []
    for number, memory in enumerate(said):
        with clock.at(memory.created_at):
            kept = await services.memory.store.add(
                NewMemory(
                    content=EmbeddedText(memory.content, vector(number, embedder.dimensions), embedder.model_name),
                    category=memory.category,
                    importance=memory.importance,
                    title=memory.title,
                    tags=memory.tags,
                    project_id=folders.get(memory.folder or ""),
                    source_chat_id=None if memory.said_in is None else dict(enumerate(chat_ids)).get(memory.said_in),
                    supersedes=[] if memory.supersedes is None else [memory_ids[memory.supersedes]],
                )
            )
        memory_ids.append(kept.id)
        if memory.updated_at != memory.created_at:
            with clock.at(memory.updated_at):
                await services.memory.store.update(kept.id, MemoryChanges(importance=memory.importance))


async def exported(services: ChatServices) -> str:
    return json.dumps(export_json(*await ChatController(services).export_chats()), indent=2, ensure_ascii=False)


async def exported_memories(services: ChatServices) -> str:
    return (await MemoryController(services).export("json"))[0]


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    """Its name and dimensions, and the memories' contents, which an import embeds again (an export holds no
    vectors)."""
    return MiniLMEmbedder()


@settings(max_examples=30, deadline=None, derandomize=True)
@given(drawn=chats(), said=memories())
def test_export_import_export_gives_the_same_files(
    minilm: MiniLMEmbedder, drawn: list[DrawnChat], said: list[DrawnMemory]
) -> None:
    async def scenario(folder: Path) -> None:
        made_clock, import_clock = StampClock(), StampClock()
        source = await open_services(folder / "source.sqlite3", made_clock, minilm)
        target = await open_services(folder / "target.sqlite3", import_clock, minilm)
        await make(source, made_clock, drawn, said)
        first, first_memories = await exported(source), await exported_memories(source)
        importer = ChatController(target).importer(import_clock)
        folders: list[ImportedFolder] = []
        chats = list(read_import(io.BytesIO(first.encode()), folders))
        await importer.import_folders(folders)
        for chat in chats:
            await importer.import_chat(chat)
        memory = MemoryController(target, import_clock)
        for _ in range(2):  # the second import finds every memory: it changes nothing
            await memory.import_memories(read_export(json.loads(first_memories), target.store.user_id))
        assert await exported(target) == first
        assert await exported_memories(target) == first_memories
        for services in (source, target):
            await services.store.close()
            await services.memory.store.close()

    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(scenario(Path(folder)))
