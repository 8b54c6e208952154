"""Turn vectors for recall: embedded by maintenance after appends, and backfilled in the background,
through the real SQLite store and the real local embedder."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import pytest

from chats.embedders.embedding import Matrix
from chats.embedders.minilm import MiniLMEmbedder
from chats.errors import EmbeddingError
from chats.maintenance import TURN_BATCH, ChatMaintainer, MaintenanceWorker, TurnIndexer
from chats.models import Turn
from chats.sqlite.store import SqliteChatStore
from chats.store import RecallQuery
from tests.fakes.text_models import ScriptedTextModel


class RecordingEmbedder:
    """The real embedder, under a name of its choosing, noting every batch it is given."""

    def __init__(self, inner: MiniLMEmbedder, model_name: str | None = None) -> None:
        self._inner = inner
        self._name = model_name or inner.model_name
        self.batches: list[list[str]] = []

    @property
    def model_name(self) -> str:
        return self._name

    @property
    def dimensions(self) -> int:
        return self._inner.dimensions

    async def embed(self, texts: Sequence[str]) -> Matrix:
        self.batches.append(list(texts))
        return await self._inner.embed(texts)

    def turn_batches(self) -> list[list[str]]:
        """The batches of turn texts. Maintenance also embeds a young chat's topic, always alone; these
        tests only ever embed two turns or more at a time."""
        return [batch for batch in self.batches if len(batch) > 1]


class BrokenEmbedder:
    """An embedding service that is down."""

    def __init__(self) -> None:
        self.calls = 0

    @property
    def model_name(self) -> str:
        return "broken"

    @property
    def dimensions(self) -> int:
        return 384

    async def embed(self, texts: Sequence[str]) -> Matrix:
        self.calls += 1
        raise EmbeddingError("the embedding service is down")


def talk(count: int, topic: str) -> list[Turn]:
    return [
        Turn(role="user" if i % 2 == 0 else "model", text=f"{topic}: remark number {i} about {topic}.")
        for i in range(count)
    ]


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqliteChatStore]:
    opened = await SqliteChatStore.open(tmp_path / "chats.sqlite3", "alice")
    yield opened
    await opened.close()


async def test_maintenance_embeds_each_new_turn_once(store: SqliteChatStore, minilm: MiniLMEmbedder) -> None:
    embedder = RecordingEmbedder(minilm)
    maintainer = ChatMaintainer(store, embedder, ScriptedTextModel())
    chat = await store.create(turns=talk(3, "tiles"))
    assert (await maintainer.maintain(chat.id)).turns_embedded == 3
    await store.append(chat.id, talk(2, "grout"))
    assert (await maintainer.maintain(chat.id)).turns_embedded == 2
    assert (await maintainer.maintain(chat.id)).turns_embedded == 0
    assert embedder.turn_batches() == [[t.text for t in talk(3, "tiles")], [t.text for t in talk(2, "grout")]]
    assert await store.turns_without_vectors(chat.id, minilm.model_name) == []
    query = (await minilm.embed(["grout: remark number 1 about grout."]))[0]
    found = await store.recall_candidates(RecallQuery(query, minilm.model_name, "", context=0))
    best = max(found, key=lambda c: c.similarity or 0.0)
    assert (best.chat_id, best.index) == (chat.id, 4)
    assert best.similarity == pytest.approx(1.0, abs=1e-4)


async def test_compacted_turns_keep_their_vectors(store: SqliteChatStore, minilm: MiniLMEmbedder) -> None:
    maintainer = ChatMaintainer(store, minilm, ScriptedTextModel())
    turns = talk(40, "kitchen")
    chat = await store.create(turns=turns)
    report = await maintainer.maintain(chat.id)
    assert report.compactions == 1 and report.turns_embedded == 40
    assert await store.chats_without_turn_vectors(minilm.model_name) == []


async def test_backfill_embeds_every_chat_in_batches(store: SqliteChatStore, minilm: MiniLMEmbedder) -> None:
    embedder = RecordingEmbedder(minilm)
    big = await store.create(turns=talk(TURN_BATCH + 3, "kitchen"))
    small = await store.create(turns=talk(2, "garden"))
    await store.create()
    indexer = TurnIndexer(store, embedder)
    assert set(await indexer.chats_to_backfill()) == {big.id, small.id}
    assert await indexer.backfill() == TURN_BATCH + 5
    assert sorted(len(batch) for batch in embedder.batches) == [2, 3, TURN_BATCH]
    assert await indexer.backfill() == 0
    # Vectors are per model: another model's backfill starts again from nothing.
    other = RecordingEmbedder(minilm, model_name="all-MiniLM-L6-v2 (copy)")
    assert await TurnIndexer(store, other).backfill() == TURN_BATCH + 5
    assert await indexer.chats_to_backfill() == []


async def test_the_worker_maintains_requested_chats_before_the_backfill(
    store: SqliteChatStore, minilm: MiniLMEmbedder
) -> None:
    embedder = RecordingEmbedder(minilm)
    old = [await store.create(turns=talk(2, f"old chat {i}")) for i in range(3)]
    async with MaintenanceWorker(ChatMaintainer(store, embedder, ScriptedTextModel())) as worker:
        worker.request_backfill()
        fresh = await store.create(turns=talk(2, "just spoken"))
        worker.request(fresh.id)
        await worker.idle()
    assert [batch[0].split(":")[0] for batch in embedder.turn_batches()] == [
        "just spoken",
        *(f"old chat {i}" for i in reversed(range(len(old)))),  # most recent first
    ]
    assert await store.chats_without_turn_vectors(minilm.model_name) == []


async def test_leaving_the_worker_finishes_requested_chats_and_drops_the_backfill(
    store: SqliteChatStore, minilm: MiniLMEmbedder
) -> None:
    embedder = RecordingEmbedder(minilm)
    old = [await store.create(turns=talk(2, f"old chat {i}")) for i in range(3)]
    fresh = await store.create(turns=talk(2, "just spoken"))
    async with MaintenanceWorker(ChatMaintainer(store, embedder, ScriptedTextModel())) as worker:
        worker.request_backfill()
        worker.request(fresh.id)
    assert [batch[0].split(":")[0] for batch in embedder.turn_batches()] == ["just spoken"]
    assert set(await store.chats_without_turn_vectors(minilm.model_name)) == {chat.id for chat in old}


async def test_a_broken_embedder_stops_the_backfill_with_one_warning(
    store: SqliteChatStore, caplog: pytest.LogCaptureFixture
) -> None:
    embedder = BrokenEmbedder()
    chats = [await store.create(turns=talk(2, f"lighthouse {i}")) for i in range(3)]
    with caplog.at_level(logging.WARNING, logger="chats.maintenance"):
        async with MaintenanceWorker(ChatMaintainer(store, embedder, ScriptedTextModel())) as worker:
            worker.request_backfill()
            await worker.idle()
    assert embedder.calls == 1
    assert len([r for r in caplog.records if r.levelno == logging.WARNING]) == 1
    assert "down" in caplog.text and "lighthouse" not in caplog.text  # ids in the log, never words
    assert set(await store.chats_without_turn_vectors("broken")) == {chat.id for chat in chats}


async def test_the_backfill_maintains_a_chat_never_maintained(store: SqliteChatStore, minilm: MiniLMEmbedder) -> None:
    # An imported chat, or one `parley ask` spoke in: turns only, no title, topic or recall vectors yet.
    chat = await store.create(turns=talk(2, "lighthouse"))
    async with MaintenanceWorker(ChatMaintainer(store, minilm, ScriptedTextModel(titles=["The lighthouse"]))) as worker:
        worker.request_backfill()
        await worker.idle()
    context = await store.load_assistant_context(chat.id)
    assert context.title == "The lighthouse"
    assert context.topic is not None and context.topic.model == minilm.model_name
    assert await store.chats_without_turn_vectors(minilm.model_name) == []


async def test_a_worker_that_does_not_finish_leaves_requested_chats_to_the_next_backfill(
    store: SqliteChatStore, minilm: MiniLMEmbedder
) -> None:
    chat = await store.create(turns=talk(2, "just asked"))
    async with MaintenanceWorker(ChatMaintainer(store, minilm, ScriptedTextModel()), finish=False) as worker:
        worker.request(chat.id)
        await worker.idle()  # not begun either: nothing to wait for
        assert (await store.load_assistant_context(chat.id)).title is None
    assert (await store.load_assistant_context(chat.id)).title is None
    assert await store.chats_without_turn_vectors(minilm.model_name) == [chat.id]
