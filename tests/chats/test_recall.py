"""Recall over past messages: the pure ranking and planning, then real chats, SQLite and MiniLM."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path
from uuid import UUID, uuid4

import numpy as np
import pytest

from chats.compaction import summary_turn
from chats.embedders.minilm import MiniLMEmbedder
from chats.errors import InvalidRecallQuery
from chats.maintenance import TurnIndexer
from chats.models import NO_FOLDER, EmbeddedText, Turn
from chats.recall import (
    MIN_SIMILARITY,
    MIN_SIMILARITY_WITH_WORDS,
    TEXT_MAX_CHARS,
    PlannedHit,
    RankedTurn,
    Recaller,
    hit_from_excerpt,
    is_relevant,
    plan_hits,
    rank_turns,
    seen_turns_of,
)
from chats.sqlite import SqliteChatStore
from chats.sqlite.connection import connect
from chats.sqlite.int8_rows import CHUNK_ROWS, Int8Rows
from chats.sqlite.recall import chats_without_turn_vectors
from chats.sqlite.turn_index import ModelTurnIndex
from chats.store import ChatExcerpt, TurnCandidate, TurnSpan, TurnVector
from tests.chats.test_sqlite_store import database_at_version

CHAT = UUID(int=1)
OTHER = UUID(int=2)
AT = datetime(2026, 2, 3, 10, 0, tzinfo=UTC)


def candidate(index: int, similarity: float | None = 0.0, lexical: float = 0.0, chat: UUID = CHAT) -> TurnCandidate:
    return TurnCandidate(chat, index, similarity, lexical)


def ranked(index: int, chat: UUID = CHAT, score: float = 1.0) -> RankedTurn:
    return RankedTurn(chat, index, score, 0.5, 1.0)


def test_similarity_and_scaled_bm25_add_up() -> None:
    turns = rank_turns(
        [candidate(0, 0.2, lexical=8.0), candidate(10, 0.5, lexical=0.0), candidate(20, None, lexical=4.0)],
        vector_weight=1.5,
        neighbour_weights=(),
    )
    assert [(t.index, round(t.score, 3)) for t in turns] == [(0, 1.3), (10, 0.75), (20, 0.5)]


def test_a_turn_gains_a_share_of_its_neighbours_in_the_same_chat_only() -> None:
    lone = candidate(0, 0.6)
    answer = candidate(11, 0.5)
    question = candidate(10, 0.4)
    elsewhere = candidate(12, 0.9, chat=OTHER)  # the same position in another chat is no neighbour
    two_away = candidate(13, 0.2)
    turns = {
        t.index: t.score
        for t in rank_turns([lone, answer, question, elsewhere, two_away], neighbour_weights=(0.3, 0.1))
        if t.chat_id == CHAT
    }
    assert turns[0] == pytest.approx(1.5 * 0.6)
    assert turns[11] == pytest.approx(1.5 * (0.5 + 0.3 * 0.4 + 0.1 * 0.2))
    assert turns[10] == pytest.approx(1.5 * (0.4 + 0.3 * 0.5))
    assert turns[11] > turns[0]


def test_ties_rank_in_a_repeatable_order() -> None:
    turns = rank_turns([candidate(3, 0.5, chat=OTHER), candidate(2, 0.5), candidate(1, 0.5)], neighbour_weights=())
    assert [(t.chat_id, t.index) for t in turns] == [(CHAT, 1), (CHAT, 2), (OTHER, 3)]
    assert rank_turns([]) == []


def test_relevance_needs_similarity_or_shared_words() -> None:
    def turn(similarity: float | None, lexical: float) -> RankedTurn:
        return RankedTurn(CHAT, 0, 1.0, similarity, lexical)

    assert is_relevant(turn(MIN_SIMILARITY, 0.0))
    assert not is_relevant(turn(MIN_SIMILARITY - 0.01, 0.0))
    assert is_relevant(turn(MIN_SIMILARITY_WITH_WORDS, 2.0))
    assert not is_relevant(turn(MIN_SIMILARITY_WITH_WORDS - 0.01, 2.0))
    assert is_relevant(turn(None, 2.0))  # words found before the turn had a vector
    assert not is_relevant(turn(None, 0.0))


def test_hits_never_show_a_turn_twice() -> None:
    order = [ranked(10), ranked(11), ranked(14), ranked(3), ranked(0, chat=OTHER), ranked(7)]
    planned = plan_hits(order, limit=4, neighbours=2)
    assert [(p.turn.chat_id, p.turn.index) for p in planned] == [(CHAT, 10), (CHAT, 14), (CHAT, 3), (OTHER, 0)]
    assert [(p.span.first, p.span.last) for p in planned] == [(8, 12), (13, 16), (1, 5), (0, 2)]


def test_a_hit_between_two_others_keeps_only_its_own_turns() -> None:
    planned = plan_hits([ranked(10), ranked(20), ranked(15)], limit=3, neighbours=3)
    assert [(p.span.first, p.span.last) for p in planned] == [(7, 13), (17, 23), (14, 16)]
    assert plan_hits([ranked(1)], limit=3, neighbours=0)[0].span == TurnSpan(CHAT, 1, 1)
    assert len(plan_hits([ranked(i * 10) for i in range(9)], limit=3, neighbours=2)) == 3


def test_a_hit_is_read_from_its_excerpt() -> None:
    turns = tuple(Turn(role="user" if i % 2 else "model", text=f"turn {i}", at=AT) for i in range(4))
    long = Turn(role="model", text="word " * 400)
    excerpt = ChatExcerpt(CHAT, "Tiles", 5, (*turns[:2], long, *turns[2:]))
    hit = hit_from_excerpt(PlannedHit(ranked(7, score=2.5), TurnSpan(CHAT, 5, 9)), excerpt)
    assert hit is not None
    assert (hit.chat_title, hit.turn.index, hit.score) == ("Tiles", 7, 2.5)
    assert len(hit.turn.text) <= TEXT_MAX_CHARS and hit.turn.text.endswith("…")
    assert [t.index for t in hit.before] == [5, 6] and [t.index for t in hit.after] == [8, 9]
    assert hit.before[0].to_json() == {"role": "model", "text": "turn 0"}
    assert hit.to_json()["chatTitle"] == "Tiles" and hit.to_json()["at"] is None
    assert hit_from_excerpt(PlannedHit(ranked(11), TurnSpan(CHAT, 9, 13)), excerpt) is None


def test_the_model_sees_its_assistant_history_without_the_summary() -> None:
    history = [summary_turn("They chose tiles.", AT), Turn(role="user", text="a"), Turn(role="model", text="b")]
    assert seen_turns_of(history) == 2
    assert seen_turns_of([]) == 0


# Real chats, the real store and the real embedder.

KITCHEN = [
    ("user", "Let's plan the kitchen renovation, we have a budget of 18,500 euros."),
    ("model", "Good. What style of cabinets are you thinking of?"),
    ("user", "Oak cabinets, and for the floor we need to pick tiles."),
    ("model", "Terracotta or grey porcelain tiles would both suit oak."),
    ("user", "We decided on the terracotta tiles, 60 by 60, from the shop in town."),
    ("model", "Terracotta it is. I'll note 60 by 60 terracotta tiles."),
    ("user", "The plumber comes on Tuesday to move the sink."),
    ("model", "Noted: plumber on Tuesday for the sink."),
]
GARDEN = [
    ("user", "The tomatoes in the garden need more sun."),
    ("model", "Move the pots to the south side of the house."),
    ("user", "And the roses keep getting aphids."),
    ("model", "Try spraying them with soapy water every few days."),
]
HOLIDAY = [
    ("user", "We are flying to Lisbon in May for a week."),
    ("model", "Lisbon in May is lovely: try the pastel de nata in Belém."),
]


def dialogue(lines: list[tuple[str, str]]) -> list[Turn]:
    return [Turn(role="user" if role == "user" else "model", text=text, at=AT) for role, text in lines]


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqliteChatStore]:
    opened = await SqliteChatStore.open(tmp_path / "chats.sqlite3", "alice")
    yield opened
    await opened.close()


async def embedded_chat(
    store: SqliteChatStore,
    minilm: MiniLMEmbedder,
    lines: list[tuple[str, str]],
    title: str | None = None,
    project_id: str | None = None,
) -> UUID:
    chat = await store.create(turns=dialogue(lines), title=title, project_id=project_id)
    await TurnIndexer(store, minilm).embed_chat(chat.id)
    return chat.id


async def test_the_decision_is_recalled_with_its_neighbours(store: SqliteChatStore, minilm: MiniLMEmbedder) -> None:
    kitchen = await embedded_chat(store, minilm, KITCHEN, title="Kitchen renovation")
    await embedded_chat(store, minilm, GARDEN)
    await embedded_chat(store, minilm, HOLIDAY)
    hits = await Recaller(store, minilm).recall("what did we decide about the tiles?", current_chat=None, seen_turns=0)
    assert 1 <= len(hits) <= 3
    best = hits[0]
    assert (best.chat_id, best.chat_title, best.turn.index) == (kitchen, "Kitchen renovation", 4)
    assert best.turn.text == KITCHEN[4][1] and best.turn.role == "user" and best.turn.at == AT
    assert [t.text for t in best.before] == [text for _, text in KITCHEN[2:4]]
    assert [t.text for t in best.after] == [text for _, text in KITCHEN[5:7]]
    shown = [(h.chat_id, t.index) for h in hits for t in (*h.before, h.turn, *h.after)]
    assert len(shown) == len(set(shown))
    assert best.to_json()["chatId"] == str(kitchen)


async def test_what_the_model_sees_is_not_recalled_but_older_turns_are(
    store: SqliteChatStore, minilm: MiniLMEmbedder
) -> None:
    kitchen = await embedded_chat(store, minilm, KITCHEN)
    recaller = Recaller(store, minilm)
    # The model has the last four turns verbatim (a summary stands for the first four).
    assistant_history = [summary_turn("They planned the kitchen.", AT), *dialogue(KITCHEN[4:])]
    seen = seen_turns_of(assistant_history)
    hits = await recaller.recall("tiles for the kitchen floor", current_chat=kitchen, seen_turns=seen, neighbours=2)
    shown = {t.index for h in hits for t in (*h.before, h.turn, *h.after) if h.chat_id == kitchen}
    assert shown and max(shown) < len(KITCHEN) - seen
    assert 2 in {h.turn.index for h in hits}  # "we need to pick tiles", folded into the summary
    everything = await recaller.recall("tiles", current_chat=kitchen, seen_turns=len(KITCHEN))
    assert everything == []
    # Another chat's id changes nothing about the kitchen's turns.
    anywhere = await recaller.recall("terracotta tiles decided", current_chat=uuid4(), seen_turns=8)
    assert anywhere[0].turn.index == 4


async def test_by_default_what_the_assistant_history_holds_now_is_left_out(
    store: SqliteChatStore, minilm: MiniLMEmbedder
) -> None:
    kitchen = await embedded_chat(store, minilm, KITCHEN)
    context = await store.load_assistant_context(kitchen)
    await store.replace_assistant_history(
        kitchen,
        expected_version=context.version,
        assistant_history=[summary_turn("They planned the kitchen.", AT), *dialogue(KITCHEN[2:])],
        summary=None,
    )
    recaller = Recaller(store, minilm)

    async def shown(query: str) -> set[int]:
        hits = await recaller.recall(query, current_chat=kitchen, limit=10)
        return {t.index for h in hits for t in (*h.before, h.turn, *h.after)}

    assert await shown("kitchen renovation budget and oak cabinets") == {0, 1}
    # The live session's turns reach the store as they are spoken: the model has them, so they stay out.
    await store.append(kitchen, dialogue([("user", "Actually, make the tiles slate instead.")]))
    assert all(index < 2 for index in await shown("slate tiles instead"))
    await store.delete(kitchen)
    assert await recaller.recall("slate tiles", current_chat=kitchen) == []


async def test_recall_keeps_to_a_folder(store: SqliteChatStore, minilm: MiniLMEmbedder) -> None:
    house = await store.create_folder("House")
    kitchen = await embedded_chat(store, minilm, KITCHEN, project_id=house.id)
    garden = await embedded_chat(store, minilm, GARDEN)
    recaller = Recaller(store, minilm)
    query = "what should we do about the garden and the tiles?"
    inside = await recaller.recall(query, current_chat=None, seen_turns=0, project_id=house.id)
    outside = await recaller.recall(query, current_chat=None, seen_turns=0, project_id=NO_FOLDER)
    assert inside and {h.chat_id for h in inside} == {kitchen}
    assert outside and {h.chat_id for h in outside} == {garden}


async def test_nothing_relevant_recalls_nothing(store: SqliteChatStore, minilm: MiniLMEmbedder) -> None:
    await embedded_chat(store, minilm, GARDEN)
    recaller = Recaller(store, minilm)
    assert await recaller.recall("the wifi password of the office", current_chat=None, seen_turns=0) == []
    assert await recaller.recall("   ", current_chat=None, seen_turns=0) == []


async def test_turns_not_yet_embedded_are_found_by_their_words(store: SqliteChatStore, minilm: MiniLMEmbedder) -> None:
    chat = await store.create(turns=dialogue(KITCHEN))
    hits = await Recaller(store, minilm).recall("terracotta tiles", current_chat=None, seen_turns=0, limit=1)
    # "Terracotta it is. I'll note 60 by 60 terracotta tiles." says both words, terracotta twice.
    assert [(h.chat_id, h.turn.index) for h in hits] == [(chat.id, 5)]
    assert KITCHEN[4][1] in [t.text for t in hits[0].before]


async def test_another_users_turns_are_never_recalled(tmp_path: Path, minilm: MiniLMEmbedder) -> None:
    path = tmp_path / "chats.sqlite3"
    alice = await SqliteChatStore.open(path, "alice")
    bob = await SqliteChatStore.open(path, "bob")
    secret = await embedded_chat(alice, minilm, KITCHEN)
    bobs = await embedded_chat(bob, minilm, HOLIDAY)
    folder = await bob.create_folder("Bob's")
    recaller = Recaller(bob, minilm)
    query = "what did we decide about the terracotta tiles?"
    for hits in (
        await recaller.recall(query, current_chat=None, seen_turns=0, limit=10, neighbours=5),
        await recaller.recall(query, current_chat=secret, seen_turns=1, limit=10),
        await recaller.recall(query, current_chat=bobs, seen_turns=1, limit=10),
        await recaller.recall(query, current_chat=None, seen_turns=0, project_id=folder.id),
        await recaller.recall(query, current_chat=None, seen_turns=0, project_id=NO_FOLDER),
    ):
        assert all(h.chat_id == bobs for h in hits)
        assert not any("terracotta" in t.text for h in hits for t in (*h.before, h.turn, *h.after))
    assert (await Recaller(alice, minilm).recall(query, current_chat=None, seen_turns=0))[0].chat_id == secret
    await alice.close()
    await bob.close()


async def test_limits_are_checked(store: SqliteChatStore, minilm: MiniLMEmbedder) -> None:
    recaller = Recaller(store, minilm)
    for limit, neighbours in ((0, 2), (11, 2), (3, -1), (3, 6)):
        with pytest.raises(InvalidRecallQuery):
            await recaller.recall("tiles", current_chat=None, seen_turns=0, limit=limit, neighbours=neighbours)


async def test_the_chats_needing_vectors_stay_exact_through_rewrites_appends_and_deletes(
    store: SqliteChatStore, minilm: MiniLMEmbedder
) -> None:
    model = minilm.model_name
    done = await embedded_chat(store, minilm, KITCHEN)
    waiting = (await store.create(turns=dialogue(GARDEN))).id
    assert await store.chats_without_turn_vectors(model) == [waiting]
    # A re-embedded turn replaces its row (INSERT OR REPLACE): the chat is not counted twice as done.
    text = KITCHEN[0][1]
    again = EmbeddedText(text, (await minilm.embed([text]))[0], model)
    await store.set_turn_vectors([TurnVector(done, 0, again), TurnVector(done, 0, again)])
    assert await store.chats_without_turn_vectors(model) == [waiting]
    await store.append(done, dialogue([("user", "One more thing: the grout should be dark grey.")]))
    assert await store.chats_without_turn_vectors(model) == [done, waiting]  # most recent activity first
    await TurnIndexer(store, minilm).embed_chat(done)
    assert await store.chats_without_turn_vectors(model) == [waiting]
    assert set(await store.chats_without_turn_vectors("another model")) == {done, waiting}
    await store.delete(waiting)
    await store.delete(done)
    assert await store.chats_without_turn_vectors(model) == []


def test_the_chats_needing_vectors_are_found_without_reading_chat_rows(tmp_path: Path) -> None:
    """A chat row holds its assistant_history: reading 10,000 of them took over 100 ms at start-up."""
    asked: list[str] = []
    with closing(connect(tmp_path / "chats.sqlite3")) as db:
        db.set_trace_callback(asked.append)
        assert chats_without_turn_vectors(db, "alice", "all-MiniLM-L6-v2") == []
        db.set_trace_callback(None)
        (query,) = [sql for sql in asked if sql.lstrip().upper().startswith("SELECT")]
        plan = " | ".join(row[3] for row in db.execute("EXPLAIN QUERY PLAN " + query))  # values come bound
    assert "USING COVERING INDEX chats_by_user_activity" in plan, plan
    assert "turn_vectors" not in plan.replace("turn_vector_counts", ""), plan


async def test_int8_rows_score_like_the_float32_vectors(minilm: MiniLMEmbedder) -> None:
    texts = [text for _, text in (*KITCHEN, *GARDEN, *HOLIDAY)]
    vectors = await minilm.embed(texts)
    rows = Int8Rows(minilm.dimensions, capacity=2)
    rows.resize(len(texts) + 1, keep=0)
    rows.put(np.arange(len(texts)), vectors)
    rows.put(np.array([len(texts)]), np.zeros((1, minilm.dimensions), dtype=np.float32))
    assert rows.nbytes < vectors.nbytes / 3
    query = (await minilm.embed(["terracotta floor tiles"]))[0]
    exact = vectors @ query
    approximate = rows.dot(query, len(texts) + 1)
    assert np.abs(approximate[:-1] - exact).max() < 0.01
    assert approximate[-1] == 0.0
    assert list(np.argsort(-approximate[:-1])[:3]) == list(np.argsort(-exact)[:3])
    # Growing keeps what was written; a search over more rows than one chunk gives the same scores.
    rows.resize(CHUNK_ROWS * 2 + 5, keep=len(texts) + 1)
    rows.put(np.arange(CHUNK_ROWS, CHUNK_ROWS + len(texts)), vectors)
    grown = rows.dot(query, CHUNK_ROWS * 2 + 5)
    assert np.allclose(grown[: len(texts)], approximate[:-1], atol=1e-6)
    assert np.allclose(grown[CHUNK_ROWS : CHUNK_ROWS + len(texts)], approximate[:-1], atol=1e-6)


def test_the_turn_index_replaces_a_re_embedded_turn_and_forgets_a_deleted_chat() -> None:
    def blob(*values: float) -> bytes:
        return np.array(values, dtype="<f4").tobytes()

    index = ModelTurnIndex(dimensions=2, capacity=1)
    index.add([(1, "a", 0, blob(1, 0)), (2, "a", 1, blob(0, 1)), (3, "b", 5, blob(1, 0)), (4, "b", 6, b"short")])
    assert (index.size, index.live_rows, index.high_water) == (3, 3, 4)  # the damaged blob is left out
    assert [index.row_of(("a", 0)), index.row_of(("b", 5)), index.row_of(("b", 4)), index.row_of(("c", 0))] == [
        0,
        2,
        None,
        None,
    ]
    index.add([(7, "a", 1, blob(1, 0))])  # turn a/1 embedded again: same row, new vector and rowid
    assert (index.size, index.live_rows, int(index.rowid[1])) == (3, 3, 7)
    assert index.vectors.dot(np.array([1, 0], dtype=np.float32), index.size).tolist() == pytest.approx([1, 1, 1])
    assert index.rows_of("a").tolist() == [0, 1] and index.rows_of("a", first=1).tolist() == [1]
    index.forget_chat("a")
    assert (index.live_rows, index.dead, index.rows_of("a").tolist(), index.row_of(("a", 0))) == (1, {0, 1}, [], None)
    index.add([(9, "a", 0, blob(0, 1))])  # a chat of that id again: a new row
    assert (index.row_of(("a", 0)), index.live_rows) == (3, 2)


async def test_a_version_6_database_counts_the_vectors_it_already_holds(tmp_path: Path) -> None:
    path = tmp_path / "chats.sqlite3"
    database_at_version(path, 6)
    done, half, bobs = UUID(int=10), UUID(int=11), UUID(int=12)
    vector = np.ones(4, dtype="<f4").tobytes()
    with closing(sqlite3.connect(path)) as db:
        for chat_id, user, at, embedded in ((done, "alice", "2025-01-01", 2), (half, "alice", "2025-01-02", 1),
                                            (bobs, "bob", "2025-01-03", 0)):  # fmt: skip
            db.execute(
                "INSERT INTO chats (id, user_id, assistant_history, turn_count, last_activity_at, created_at)"
                " VALUES (?, ?, '[]', 2, ?, ?)",
                (str(chat_id), user, at, at),
            )
            for seq in range(2):
                turn = db.execute(
                    "INSERT INTO turns (chat_id, seq, body, text) VALUES (?, ?, '{}', 'words')", (str(chat_id), seq)
                ).lastrowid
                if seq < embedded:
                    db.execute(
                        "INSERT INTO turn_vectors (turn_id, model, user_id, chat_id, seq, text, embedding)"
                        " VALUES (?, 'm', ?, ?, ?, 'words', ?)",
                        (turn, user, str(chat_id), seq, vector),
                    )
        db.commit()
    with closing(connect(path)) as db:  # applies migration 0007, which counts the vectors already there
        assert chats_without_turn_vectors(db, "alice", "m") == [half]
        assert chats_without_turn_vectors(db, "alice", "other") == [half, done]
        assert chats_without_turn_vectors(db, "bob", "m") == [bobs]
