"""Choosing which words of a query BM25 scores: the telling ones, within a budget of rows.

A word found in very many rows ("User" is in every memory) barely moves a BM25 ranking, yet scoring its
matches is what a search costs; the rarest words are the most telling. So a query keeps its rarest words
while the rows they match fit the budget, and drops any found in more than `common` rows.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from chats.search import fts_phrase


def discriminating_terms(
    db: sqlite3.Connection, table: str, terms: Sequence[str], *, common: int, budget: int
) -> list[str]:
    """The rarest of `terms` in the FTS5 `table` (a trusted name), while the rows they match fit `budget`;
    none found in more than `common` rows, nor in none."""
    counted = []
    for term in terms:
        (found,) = db.execute(
            f"SELECT count(*) FROM (SELECT 1 FROM {table} WHERE {table} MATCH ? LIMIT ?)",
            (fts_phrase(term), common + 1),
        ).fetchone()
        if 0 < found <= common:
            counted.append((found, term))
    kept, rows = [], 0
    for found, term in sorted(counted):
        if rows + found > budget:
            break
        kept.append(term)
        rows += found
    return kept
