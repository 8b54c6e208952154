"""Chat search's BM25 side: per chat, the relevance of its best-matching turn, title, summary or topic."""

from __future__ import annotations

import sqlite3

from chats.search import query_terms
from chats.sqlite.fts import SEARCH_ROWS, SEARCH_TERMS, telling_match


def chat_relevance(db: sqlite3.Connection, user_id: str, text: str) -> dict[str, float]:
    """BM25 relevance (higher is better) by chat id, for the user's chats that match `text` at all."""
    terms = query_terms(text)
    best: dict[str, float] = {}
    turn_terms = telling_match(db, "turns_fts", terms, SEARCH_TERMS)
    if turn_terms is not None:
        rows = db.execute(
            "SELECT t.chat_id, -m.rank FROM (SELECT rowid, rank FROM turns_fts WHERE turns_fts MATCH ?"
            " ORDER BY rank LIMIT ?) m JOIN turns t ON t.id = m.rowid JOIN chats c ON c.id = t.chat_id"
            " WHERE c.user_id = ?",
            (turn_terms, SEARCH_ROWS, user_id),
        )
        for chat_id, score in rows:
            best[chat_id] = max(best.get(chat_id, 0.0), float(score))
    chat_terms = telling_match(db, "chats_fts", terms, SEARCH_TERMS)
    if chat_terms is not None:
        rows = db.execute(
            "SELECT c.id, -chats_fts.rank FROM chats_fts JOIN chats c ON c.rowid = chats_fts.rowid"
            " WHERE chats_fts MATCH ? AND c.user_id = ? ORDER BY chats_fts.rank LIMIT ?",
            (chat_terms, user_id, SEARCH_ROWS),
        )
        for chat_id, score in rows:
            best[chat_id] = max(best.get(chat_id, 0.0), float(score))
    return best
