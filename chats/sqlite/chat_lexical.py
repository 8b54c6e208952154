"""Chat search's word side: per chat, the BM25 relevance of its best-matching turn plus that of its title,
summary and topic, and the share of the request's telling words it holds.

The two relevances are added, not the better one kept: a chat whose description and whose own turns both
match a query is about it more surely than one where only either does. On LoCoMo with Parley's own
maintenance that lifts switching hit@1 from 0.64 to 0.67 and hit@3 from 0.841 to 0.850 (bench/chats.py).
Summing more of a chat's turns did no better (its best two 0.852, three 0.848, all 0.772): one turn is the
simplest. The share of words held (`chats.search.words_held`) is what tells one stray word from the subject.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from chats.search import fts_phrase, query_terms, words_held
from chats.sqlite.fts import SEARCH_ROWS, SEARCH_TERMS, telling_match


@dataclass(frozen=True, slots=True)
class WordMatch:
    relevance: float
    """BM25, higher is better."""
    held: float
    """The share of the request's telling words the chat holds (`SearchCandidate.words_held`)."""


NO_MATCH = WordMatch(0.0, 0.0)


def chat_relevance(db: sqlite3.Connection, user_id: str, text: str) -> dict[str, WordMatch]:
    """By chat id, for the user's chats that match `text` at all."""
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
    held = chats_holding(db, user_id, terms)
    return {
        chat_id: WordMatch(
            in_turns.get(chat_id, 0.0) + described.get(chat_id, 0.0),
            1.0 if held is None else held.get(chat_id, 0.0),
        )
        for chat_id in in_turns | described
    }


def chats_holding(db: sqlite3.Connection, user_id: str, terms: Sequence[str]) -> dict[str, float] | None:
    """`chats.search.words_held` of the user's chats holding each of `terms` in its turns or description; a
    term in more than `SEARCH_TERMS.common` turns or descriptions does not tell (and the rows a search reads
    stay bounded)."""
    (chats,) = db.execute("SELECT count(*) FROM chats WHERE user_id = ?", (user_id,)).fetchone()
    return words_held((_holders(db, user_id, fts_phrase(term)) for term in terms), chats)


def _holders(db: sqlite3.Connection, user_id: str, phrase: str) -> set[str] | None:
    turn_rows = _owners(db, _TURN_OWNERS, phrase)
    described = _owners(db, _DESCRIPTION_OWNERS, phrase) if turn_rows is not None else None
    if turn_rows is None or described is None:
        return None
    return {chat_id for chat_id, owner in turn_rows + described if owner == user_id}


_TURN_OWNERS = (
    "SELECT t.chat_id, c.user_id FROM (SELECT rowid FROM turns_fts WHERE turns_fts MATCH ? LIMIT ?) m"
    " JOIN turns t ON t.id = m.rowid JOIN chats c ON c.id = t.chat_id"
)
_DESCRIPTION_OWNERS = (
    "SELECT c.id, c.user_id FROM (SELECT rowid FROM chats_fts WHERE chats_fts MATCH ? LIMIT ?) m"
    " JOIN chats c ON c.rowid = m.rowid"
)


def _owners(db: sqlite3.Connection, query: str, phrase: str) -> list[tuple[str, str]] | None:
    """(chat id, user id) of each row `query` (`_TURN_OWNERS`, `_DESCRIPTION_OWNERS`) matches for `phrase`;
    None when more than `SEARCH_TERMS.common` rows do (the word does not tell, and is not read further)."""
    rows = db.execute(query, (phrase, SEARCH_TERMS.common + 1)).fetchall()
    return None if len(rows) > SEARCH_TERMS.common else rows
