"""The multilingual local embedder, and chats and memories found across languages with it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from chats.embedders.embedding import embed_one, pieces
from chats.embedders.local_models import local_model_for
from chats.embedders.use_multilingual import DIMENSIONS, MODEL_NAME, MultilingualEmbedder
from chats.memory.ranking import Ranking, memory_ranking_for
from chats.memory.service import MemoryService
from chats.memory.store import NewMemory
from chats.models import EmbeddedText, Turn
from chats.recall import floors_for as recall_floors_for
from chats.search import MINILM_FLOORS, ChatFinder, floors_for
from chats.sqlite.memories import SqliteMemoryStore
from chats.sqlite.store import SqliteChatStore

NOW = datetime(2026, 6, 1, tzinfo=UTC)


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture(scope="module")
def use() -> MultilingualEmbedder:
    return MultilingualEmbedder()


async def test_vectors_are_normalised_and_an_empty_text_matches_nothing(use: MultilingualEmbedder) -> None:
    vectors = await use.embed(["Il mio cane si gratta le orecchie.", "", "My dog keeps scratching his ears."])
    assert vectors.shape == (3, DIMENSIONS) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors[[0, 2]], axis=1), 1.0, atol=1e-5)
    assert not vectors[1].any()
    unrelated = (await use.embed(["The budget for the kitchen worktops."]))[0]
    assert float(vectors[0] @ vectors[2]) > float(vectors[0] @ unrelated) + 0.3


async def test_a_long_text_is_read_whole_not_as_the_mean_of_its_pieces(use: MultilingualEmbedder) -> None:
    # The encoder reads a text of any length, and a chat's topic read whole is found better (bench/paraphrase.py).
    text = " ".join(f"Frase numero {n}: parliamo della ristrutturazione della cucina e del budget." for n in range(20))
    assert len(pieces(text)) > 1
    embedded = await embed_one(use, text)
    [whole] = await use.embed([text])
    assert embedded.model == MODEL_NAME and np.allclose(embedded.vector, whole, atol=1e-6)


def test_the_local_model_follows_the_language_and_sets_its_own_floors() -> None:
    assert local_model_for("en") == "all-MiniLM-L6-v2"
    assert local_model_for("it") == local_model_for("auto") == local_model_for(None) == MODEL_NAME
    assert floors_for("all-MiniLM-L6-v2") == floors_for("gemini-embedding-001") == MINILM_FLOORS
    assert floors_for(MODEL_NAME).alone < MINILM_FLOORS.alone
    assert recall_floors_for(MODEL_NAME).alone < recall_floors_for("all-MiniLM-L6-v2").alone
    assert memory_ranking_for("gemini-embedding-001") == Ranking()
    assert memory_ranking_for("all-MiniLM-L6-v2").min_similarity > Ranking().min_similarity  # short queries
    assert memory_ranking_for(MODEL_NAME).min_similarity < Ranking().min_similarity


async def test_an_italian_request_switches_to_the_italian_chat(tmp_path: Path, use: MultilingualEmbedder) -> None:
    clock = Clock(NOW - timedelta(days=10))
    store = await SqliteChatStore.open(tmp_path / "chats.sqlite3", "u", clock=clock)
    chats = {
        "kitchen": "Rifacciamo la cucina: il preventivo per i piani di lavoro è troppo alto.",
        "dog": "Il mio cane Rocky si gratta sempre le orecchie, il veterinario ha dato delle gocce.",
        "trip": "Sto organizzando due settimane in Giappone ad aprile, prima Tokyo e poi Kyoto.",
    }
    ids = {}
    for topic, text in chats.items():
        clock.now += timedelta(days=1)
        chat = await store.create(turns=[Turn(role="user", text=text), Turn(role="model", text="Va bene.")])
        await store.set_embedding(chat.id, "topic", EmbeddedText(text, (await use.embed([text]))[0], use.model_name))
        ids[chat.id] = topic
    try:
        match = await ChatFinder(store, use).find_chats("Riportami alla chat sulle orecchie del mio cane", now=NOW)
    finally:
        await store.close()
    assert match.outcome == "switch"
    assert ids[match.options[0].chat_id] == "dog"


async def test_a_memory_said_in_english_is_found_by_an_italian_question(
    tmp_path: Path, use: MultilingualEmbedder
) -> None:
    store = await SqliteMemoryStore.open(tmp_path / "m.sqlite3", "u", ranking=memory_ranking_for(use.model_name))
    facts = [
        "The user is allergic to peanuts.",
        "The user has a grey cat called Pepe.",
        "The user is saving money to buy a small house by the sea.",
        "The user plays bass in a rock band at the weekend.",
    ]
    for fact, vector in zip(facts, await use.embed(facts), strict=True):
        await store.add(NewMemory(content=EmbeddedText(fact, vector, use.model_name), category="context", importance=5))
    try:
        hits = await MemoryService(store, use).search("Che strumento suono?", scope=None, limit=2)
    finally:
        await store.close()
    assert hits and hits[0].memory.content == facts[3]
