"""Writing turns into `turns`: each as its JSON body and its searchable text, once per turn id.

Turns pass `storable_text` on their way in: a transcript can hold a lone surrogate (a surrogate pair split
between two streamed messages), which sqlite3 cannot encode; such a turn is stored with U+FFFD in its
place, and the log says so (with the chat's id, never the text).
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Sequence
from uuid import UUID

from chats.models import Turn
from chats.storable_text import storable_turn

log = logging.getLogger(__name__)


def storable_turns(chat_id: UUID, turns: Sequence[Turn]) -> tuple[Turn, ...]:
    """`turns`, each as the store can hold it."""
    kept = tuple(storable_turn(turn) for turn in turns)
    repaired = sum(new is not old for new, old in zip(kept, turns, strict=True))
    if repaired:
        log.warning("chat %s: %d turn(s) held lone surrogates and were stored with U+FFFD", chat_id, repaired)
    return kept


def turn_bodies(turns: Sequence[Turn]) -> list[str]:
    """Each turn's JSON, as `turns.body` holds it and `assistant_history` joins it."""
    return [json.dumps(turn.to_json()) for turn in turns]


def history_json(bodies: Sequence[str]) -> str:
    """The JSON list of turns whose bodies are `bodies`: what `json.dumps` of the list would give, without
    building every turn's dict a second time."""
    return "[" + ", ".join(bodies) + "]"


def insert_turns(
    db: sqlite3.Connection, chat_id: UUID, first_seq: int, turns: Sequence[Turn], bodies: Sequence[str]
) -> None:
    """Inside the caller's write transaction; rows are made as they are written, not held in a list."""
    db.executemany(
        "INSERT INTO turns (chat_id, seq, body, text, turn_id) VALUES (?, ?, ?, ?, ?)",
        (
            (str(chat_id), first_seq + i, body, t.searchable_text, None if t.id is None else str(t.id))
            for i, (t, body) in enumerate(zip(turns, bodies, strict=True))
        ),
    )


def unseen(db: sqlite3.Connection, chat_id: UUID, turns: Sequence[Turn]) -> list[Turn]:
    """`turns` without those whose id the chat already holds (or that repeat an id given earlier)."""
    ids = [str(t.id) for t in turns if t.id is not None]
    seen = {
        turn_id
        for (turn_id,) in db.execute(
            "SELECT turn_id FROM turns WHERE chat_id = ? AND turn_id IN (SELECT value FROM json_each(?))",
            (str(chat_id), json.dumps(ids)),
        )
    }
    kept = []
    for turn in turns:
        if turn.id is not None:
            if str(turn.id) in seen:
                continue
            seen.add(str(turn.id))
        kept.append(turn)
    return kept
