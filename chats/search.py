"""Finding a chat from a spoken description: "the chat about the kitchen renovation".

Semantic first: the query's embedding against each chat's summary (or, before its first compaction,
its topic text). Fused with BM25 over the chat's own words, because a question about a detail the
summary dropped still names words the chat holds; on LoCoMo that fusion lifts hit@3 from 0.56
(summary similarity alone) to above 0.8 (see bench/chats.py). No keyword rules decide anything:
both signals only rank.

`rank` and `decide` are pure; `ChatFinder` is the thin async shell around the store and embedder.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal
from uuid import UUID

from chats.embedding import Embedder
from chats.models import utc_now
from chats.store import ChatStore, SearchCandidate, SearchQuery

LEXICAL_WEIGHT = 0.5
"""Weight of BM25 relative to the best BM25 of the search (0..1), added to the cosine similarity."""
RECENCY_WEIGHT = 0.05
"""Weight of recency (1 now, halving every half-life): a tie-breaker between chats that match alike."""
RECENCY_HALF_LIFE_DAYS = 30.0
MIN_SIMILARITY = 0.30
"""all-MiniLM-L6-v2 cosine below which a chat is not about the query, whatever its words."""
MIN_SIMILARITY_WITH_WORDS = 0.15
"""A chat that shares words with the query may be a little less similar and still count."""
CLOSE_RATIO = 0.8
"""A relevant chat scoring at least this share of the best one's score is a real alternative: ask."""
MAX_OPTIONS = 3

# Words that carry no topic: function words, and the ways people ask for a chat.
_STOP_WORDS = frozenset(
    (
        "a about again all an and any are as at back be been before but by can chat chats conversation "
        "could did do does earlier for from go going had has have he her him his how i if in into is it "
        "its last let lets me my of on one or our please previous she so some switch talk talked talking "
        "that the their them then there these they this those time to us was we were what when where "
        "which who why will with would you your"
    ).split()
)
_WORD = re.compile(r"\w+", re.UNICODE)


def query_terms(text: str) -> list[str]:
    """The words of a query worth matching, lower-cased, in order, without repeats."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(text.lower()):
        # Lone letters are left over from contractions ("let's", "I'm"); lone digits still count.
        if word not in _STOP_WORDS and word not in seen and (len(word) > 1 or word.isdigit()):
            seen[word] = None
    return list(seen)


def fts_phrase(term: str) -> str:
    """A term quoted for an SQLite FTS5 MATCH expression, so that no word is query syntax."""
    return '"' + term.replace('"', '""') + '"'


def fts_match_expression(terms: Sequence[str]) -> str | None:
    """An SQLite FTS5 MATCH expression for any of `terms`."""
    return " OR ".join(fts_phrase(term) for term in terms) if terms else None


@dataclass(frozen=True, slots=True)
class RankedChat:
    chat_id: UUID
    title: str | None
    score: float
    """Similarity + weighted relative BM25 + weighted recency. Comparable within one search only."""
    similarity: float | None
    lexical: float
    last_activity_at: datetime


Outcome = Literal["switch", "ask", "none", "here"]


@dataclass(frozen=True, slots=True)
class ChatMatch:
    outcome: Outcome
    """`switch`: one clear match (the first option); `ask`: several close ones; `none`: nothing fits; `here`:
    the chat the request was said in is the best match."""
    options: tuple[RankedChat, ...]


def rank(candidates: Sequence[SearchCandidate], now: datetime) -> list[RankedChat]:
    """Best first."""
    best_lexical = max((c.lexical for c in candidates), default=0.0)
    ranked = []
    for c in candidates:
        similarity = c.similarity if c.similarity is not None else 0.0
        lexical = c.lexical / best_lexical if best_lexical > 0 else 0.0
        age_days = max((now - c.last_activity_at).total_seconds(), 0.0) / 86_400
        recency = math.pow(0.5, age_days / RECENCY_HALF_LIFE_DAYS)
        score = similarity + LEXICAL_WEIGHT * lexical + RECENCY_WEIGHT * recency
        ranked.append(RankedChat(c.chat_id, c.title, score, c.similarity, c.lexical, c.last_activity_at))
    return sorted(ranked, key=lambda r: (-r.score, str(r.chat_id)))


def decide(ranked: Sequence[RankedChat], *, current: UUID | None = None) -> ChatMatch:
    """The outcome of a search ranked best first. The `current` chat is the answer only as the best match
    ("here"); it is never offered beside others nor switched to."""
    relevant = [r for r in ranked if _is_relevant(r)]
    if relevant and relevant[0].chat_id == current:
        return ChatMatch("here", (relevant[0],))
    relevant = [r for r in relevant if r.chat_id != current]
    if not relevant:
        return ChatMatch("none", ())
    best = relevant[0]
    close = [r for r in relevant[1:MAX_OPTIONS] if r.score >= CLOSE_RATIO * best.score]
    if not close:
        return ChatMatch("switch", (best,))
    return ChatMatch("ask", (best, *close))


def _is_relevant(chat: RankedChat) -> bool:
    similarity = chat.similarity if chat.similarity is not None else 0.0
    if chat.lexical > 0:
        return similarity >= MIN_SIMILARITY_WITH_WORDS or chat.similarity is None
    return similarity >= MIN_SIMILARITY


class ChatFinder:
    def __init__(self, store: ChatStore, embedder: Embedder) -> None:
        self._store = store
        self._embedder = embedder

    async def ranked(self, query: str, *, limit: int = 50, now: datetime | None = None) -> list[RankedChat]:
        vector = (await self._embedder.embed([query]))[0]
        candidates = await self._store.search(
            SearchQuery(vector=vector, model=self._embedder.model_name, text=query, limit=limit)
        )
        return rank(candidates, now or utc_now())

    async def find_chats(self, query: str, *, now: datetime | None = None, current: UUID | None = None) -> ChatMatch:
        """Which chat the user means: one clear match, several to choose from, none, or `current` (the chat
        the request is said in) when it is the best match."""
        return decide(await self.ranked(query, now=now), current=current)
