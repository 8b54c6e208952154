"""The vectors recall searches: the chats still needing turn vectors found from an index alone (and counted by
migration 0007 in an older database), int8 rows that score like float32, the in-memory turn index."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path
from uuid import UUID

import numpy as np
import pytest

from chats.embedders.minilm import MiniLMEmbedder
from chats.sqlite.connection import connect
from chats.sqlite.int8_rows import CHUNK_ROWS, Int8Rows
from chats.sqlite.recall import chats_without_turn_vectors
from chats.sqlite.turn_index import ModelTurnIndex
from tests.chats.recall_chats import GARDEN, HOLIDAY, KITCHEN
from tests.chats.test_sqlite_store import database_at_version


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
