"""Chat search's BM25 side: per chat, the relevance of its best-matching turn plus that of its title,
summary and topic.

The two are added, not the better one kept: a chat whose description and whose own turns both match a
query is about it more surely than one where only either does. On LoCoMo with Parley's own maintenance
that lifts switching hit@1 from 0.64 to 0.67 and hit@3 from 0.841 to 0.850 (bench/chats.py). Summing more
of a chat's turns did no better (its best two 0.852, three 0.848, all 0.772): one turn is the simplest.
"""

from __future__ import annotations

import sqlite3

from chats.search import query_terms
from chats.sqlite.fts import SEARCH_ROWS, SEARCH_TERMS, telling_match


def chat_relevance(db: sqlite3.Connection, user_id: str, text: str) -> dict[str, float]:
    """BM25 relevance (higher is better) by chat id, for the user's chats that match `text` at all."""
    terms = query_terms(text)
    in_turns: dict[str, float] = {}
    turn_terms = telling_match(db, "turns_fts", terms, SEARCH_TERMS)
    if turn_terms is not None:
        rows = db.execute(
            "SELECT t.chat_id, -m.rank FROM (SELECT rowid, rank FROM turns_fts WHERE turns_fts MATCH ?"
            " ORDER BY rank LIMIT ?) m JOIN turns t ON t.id = m.rowid JOIN chats c ON c.id = t.chat_id"
            " WHERE c.user_id = ?",
            (turn_terms, SEARCH_ROWS, user_id),
        )
        for chat_id, score in rows:
            in_turns[chat_id] = max(in_turns.get(chat_id, 0.0), float(score))
    described: dict[str, float] = {}
    chat_terms = telling_match(db, "chats_fts", terms, SEARCH_TERMS)
    if chat_terms is not None:
        rows = db.execute(
            "SELECT c.id, -chats_fts.rank FROM chats_fts JOIN chats c ON c.rowid = chats_fts.rowid"
            " WHERE chats_fts MATCH ? AND c.user_id = ? ORDER BY chats_fts.rank LIMIT ?",
            (chat_terms, user_id, SEARCH_ROWS),
        )
        described = {chat_id: float(score) for chat_id, score in rows}
    return {chat_id: in_turns.get(chat_id, 0.0) + described.get(chat_id, 0.0) for chat_id in in_turns | described}
