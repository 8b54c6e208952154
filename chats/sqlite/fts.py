"""Choosing which words of a query BM25 scores: the telling ones, within a budget of rows.

A word found in very many rows ("User" is in every memory) barely moves a BM25 ranking, yet scoring its
matches is what a search costs; the rarest words are the most telling. So a query keeps its rarest words
while the rows they match fit the budget, and drops any found in more than `common` rows.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from chats.search import fts_match_expression, fts_phrase


@dataclass(frozen=True, slots=True)
class TermBudget:
    common: int
    """A term found in more rows than this is left out: its inverse document frequency is low, so it
    barely moves the ranking, yet scoring its matches is what costs."""
    matched_rows: int
    """Rows BM25 may score per table and search, the rarest terms kept first."""


SEARCH_TERMS = TermBudget(common=500, matched_rows=1500)
"""For chat and memory search. In a store of 400,000 turns, scoring every match of a question's terms
took 90 ms; within this budget a search takes a few."""
SEARCH_ROWS = 500
"""Best-ranked matching rows a search reads per table; enough to find every chat a query names."""


def telling_match(db: sqlite3.Connection, table: str, terms: Sequence[str], budget: TermBudget) -> str | None:
    """The FTS5 MATCH expression of the telling `terms` in `table` (a trusted name); None when none is."""
    return fts_match_expression(_discriminating_terms(db, table, terms, budget))


def _discriminating_terms(db: sqlite3.Connection, table: str, terms: Sequence[str], budget: TermBudget) -> list[str]:
    """The rarest of `terms` in `table`, while the rows they match fit the budget; none found in more
    than `budget.common` rows, nor in none."""
    counted = []
    for term in terms:
        (found,) = db.execute(
            f"SELECT count(*) FROM (SELECT 1 FROM {table} WHERE {table} MATCH ? LIMIT ?)",
            (fts_phrase(term), budget.common + 1),
        ).fetchone()
        if 0 < found <= budget.common:
            counted.append((found, term))
    kept, rows = [], 0
    for found, term in sorted(counted):
        if rows + found > budget.matched_rows:
            break
        kept.append(term)
        rows += found
    return kept
