"""Recall over past messages: "what did we decide about the tiles?" answered from every chat's turns.

Spec 003's semantic recall (topK 3, messageRange 2): the best turns of all the user's chats
(`full_history`, so turns compaction folded into a summary still count), each with the two turns on
either side, leaving out what the model already has verbatim.

How a turn is scored, and why (figures: turns recall@5 on LoCoMo with all-MiniLM-L6-v2, strict: the
evidence among the 5 best turns; bench/recall.py):
- Two signals: the cosine similarity of the query to the turn, and BM25 over the turn's words, scaled
  by the best BM25 of the query (0..1). Fused as `VECTOR_WEIGHT * similarity + bm25`. Alone they reach
  0.37 and 0.53; fused by reciprocal rank 0.49; fused by score 0.58. BM25 is the stronger signal
  because a question names the people and things that the answer's turn names too.
- Then each turn gains a share of its neighbours' scores (`NEIGHBOUR_WEIGHTS`, by distance): a turn is
  rarely the answer alone: the question is often asked of the turn before, and its words spread over
  the exchange. 0.58 -> 0.63.
- Tried and left out: embedding each turn together with the one before it (0.57 fused, 0.61 with the
  neighbours: the neighbours' scores already carry that context, at no extra embedding); embedding
  the query with its question words stripped (0.61 instead of 0.63); adding the chat's summary
  similarity (+0.007 at best) or a bonus per name of the query found in the turn (-0.008 to +0.001).
The weights were tuned on all ten LoCoMo conversations; tuned on either half alone, they score 0.61
and 0.64 on the other half, so they are not fitted to the test.

Which turns are left out: the model already sees its chat's `assistant_history`, which is an optional
summary turn plus the chat's last turns verbatim. Those last turns are left out, as hits and as
neighbours: by default as many as the current chat's `assistant_history` holds verbatim when recall
runs, which also covers turns the live session appended since it began (they went to both histories);
or an explicit `seen_turns` count. Turns folded into the summary stay recallable, since the summary
keeps only their gist.

Hits never repeat a turn: a turn already shown as a neighbour of a better hit is not a hit of its own,
and a hit's neighbours stop where another hit's begin.

`rank_turns`, `is_relevant` and `plan_hits` are pure; `Recaller` is the thin async shell.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

from chats.embedders.embedding import Embedder, embed_named
from chats.embedders.use_multilingual import MODEL_NAME as USE_MODEL_NAME
from chats.errors import ChatNotFound, InvalidRecallQuery
from chats.models import FolderFilter, Role, Turn, Vector
from chats.search import Floors
from chats.store import ChatExcerpt, ChatStore, HiddenTurns, RecallQuery, TurnCandidate, TurnSpan
from chats.text.text_budget import cut_at_word

DEFAULT_LIMIT = 3
"""Spec 003's topK."""
DEFAULT_NEIGHBOURS = 2
"""Spec 003's messageRange: turns shown on each side of a hit."""
MAX_LIMIT = 10
MAX_NEIGHBOURS = 5
VECTOR_WEIGHT = 1.5
"""Weight of cosine similarity against BM25 scaled to 0..1."""
NEIGHBOUR_WEIGHTS = (0.3, 0.1)
"""Share of the score of the turn 1 (2) positions away, in the same chat, that a turn gains."""
CANDIDATES_PER_SIGNAL = 50
"""Turns the store takes by each signal before adding their neighbours. On LoCoMo, ranking 20 or 50 per
signal (and their neighbours) comes within 0.003 of ranking every turn."""
MIN_SIMILARITY = 0.45
"""all-MiniLM-L6-v2 cosine a hit needs when it shares no word with the query. Half of LoCoMo's answer
turns reach it; the best turn for a question about another conversation rarely does (95th percentile
0.48, median 0.34)."""
MIN_SIMILARITY_WITH_WORDS = 0.15
"""A hit that shares words with the query may be less similar: nearly all LoCoMo answer turns that
share a word with their question (99% of them) are at least this similar (5th percentile 0.22)."""
USE_MIN_SIMILARITY = 0.37
USE_MIN_SIMILARITY_WITH_WORDS = 0.13
"""The multilingual model's floors: the cosines that as large a share of LoCoMo's question-turn pairs
reach as reach MiniLM's (3% reach 0.45 with MiniLM, 0.373 with USE; 44% reach 0.15 and 0.13)."""
TEXT_MAX_CHARS = 600
"""A recalled turn's text is cut (at a word, marked "…") past this: results go back to the model."""


@dataclass(frozen=True, slots=True)
class RankedTurn:
    chat_id: UUID
    index: int
    score: float
    """Own fused score plus the neighbours' shares; comparable within one recall only."""
    similarity: float | None
    lexical: float


@dataclass(frozen=True, slots=True)
class PlannedHit:
    turn: RankedTurn
    span: TurnSpan
    """The hit and the neighbours it may show: never a turn another hit shows."""


@dataclass(frozen=True, slots=True)
class RecalledTurn:
    index: int
    """Position in the chat's `full_history`."""
    role: Role
    text: str
    """Cut to `TEXT_MAX_CHARS`."""
    at: datetime | None
    """When the turn ended (UTC), when known."""

    def to_json(self) -> dict[str, Any]:
        return {"role": self.role, "text": self.text}


@dataclass(frozen=True, slots=True)
class RecallHit:
    chat_id: UUID
    chat_title: str | None
    turn: RecalledTurn
    before: tuple[RecalledTurn, ...]
    """Up to `neighbours` turns just before the hit, oldest first."""
    after: tuple[RecalledTurn, ...]
    score: float

    def to_json(self) -> dict[str, Any]:
        """The compact shape a tool answers with."""
        return {
            "chatId": str(self.chat_id),
            "chatTitle": self.chat_title,
            "at": self.turn.at.isoformat() if self.turn.at else None,
            "role": self.turn.role,
            "text": self.turn.text,
            "before": [turn.to_json() for turn in self.before],
            "after": [turn.to_json() for turn in self.after],
        }


def seen_turns_of(assistant_history: Sequence[Turn]) -> int:
    """How many of the chat's last turns the model has verbatim: `assistant_history` without its summary."""
    return sum(1 for turn in assistant_history if not turn.summary)


def rank_turns(
    candidates: Sequence[TurnCandidate],
    *,
    vector_weight: float = VECTOR_WEIGHT,
    neighbour_weights: Sequence[float] = NEIGHBOUR_WEIGHTS,
) -> list[RankedTurn]:
    """Best first; ties by chat and position, so that a ranking is repeatable."""
    best_lexical = max((c.lexical for c in candidates), default=0.0)
    own = {
        (c.chat_id, c.index): vector_weight * (c.similarity or 0.0)
        + (c.lexical / best_lexical if best_lexical > 0 else 0.0)
        for c in candidates
    }
    ranked = []
    for c in candidates:
        score = own[(c.chat_id, c.index)]
        for distance, weight in enumerate(neighbour_weights, start=1):
            score += weight * (
                own.get((c.chat_id, c.index - distance), 0.0) + own.get((c.chat_id, c.index + distance), 0.0)
            )
        ranked.append(RankedTurn(c.chat_id, c.index, score, c.similarity, c.lexical))
    return sorted(ranked, key=lambda r: (-r.score, str(r.chat_id), r.index))


MINILM_FLOORS = Floors(alone=MIN_SIMILARITY, with_words=MIN_SIMILARITY_WITH_WORDS)
USE_FLOORS = Floors(alone=USE_MIN_SIMILARITY, with_words=USE_MIN_SIMILARITY_WITH_WORDS)


def floors_for(model_name: str) -> Floors:
    """The cosines a hit needs with this embedding model; MiniLM's for the models not calibrated apart."""
    return USE_FLOORS if model_name == USE_MODEL_NAME else MINILM_FLOORS


def is_relevant(turn: RankedTurn, floors: Floors = MINILM_FLOORS) -> bool:
    """Whether a turn is about the query at all: similar enough, or sharing words and a little similar."""
    similarity = turn.similarity if turn.similarity is not None else 0.0
    if turn.lexical > 0:
        return turn.similarity is None or similarity >= floors.with_words
    return similarity >= floors.alone


def plan_hits(ranked: Sequence[RankedTurn], *, limit: int, neighbours: int) -> list[PlannedHit]:
    """The best `limit` turns whose windows do not overlap: a turn inside a better hit's window is shown
    there already; a window is cut where a better hit's window begins."""
    planned: list[PlannedHit] = []
    for turn in ranked:
        if len(planned) >= limit:
            break
        taken = [p.span for p in planned if p.span.chat_id == turn.chat_id]
        if any(span.first <= turn.index <= span.last for span in taken):
            continue
        first, last = max(turn.index - neighbours, 0), turn.index + neighbours
        for span in taken:
            if span.last < turn.index:
                first = max(first, span.last + 1)
            else:
                last = min(last, span.first - 1)
        planned.append(PlannedHit(turn, TurnSpan(turn.chat_id, first, last)))
    return planned


def hit_from_excerpt(planned: PlannedHit, excerpt: ChatExcerpt) -> RecallHit | None:
    """The hit with its neighbours; None when the hit's own turn is not in the excerpt (hidden since)."""
    position = planned.turn.index - excerpt.first
    if not 0 <= position < len(excerpt.turns):
        return None
    recalled = [_recalled(excerpt.first + i, turn) for i, turn in enumerate(excerpt.turns)]
    return RecallHit(
        chat_id=excerpt.chat_id,
        chat_title=excerpt.title,
        turn=recalled[position],
        before=tuple(recalled[:position]),
        after=tuple(recalled[position + 1 :]),
        score=planned.turn.score,
    )


def _recalled(index: int, turn: Turn) -> RecalledTurn:
    return RecalledTurn(index, turn.role, cut_at_word(turn.text.strip(), TEXT_MAX_CHARS), turn.at)


class Recaller:
    def __init__(self, store: ChatStore, embedder: Embedder) -> None:
        self._store = store
        self._embedder = embedder

    async def recall(
        self,
        query: str,
        *,
        current_chat: UUID | None,
        seen_turns: int | None = None,
        limit: int = DEFAULT_LIMIT,
        neighbours: int = DEFAULT_NEIGHBOURS,
        project_id: FolderFilter = None,
        vector: Vector | None = None,
    ) -> list[RecallHit]:
        """The best `limit` turns of the user's chats for `query`, best first, each with up to
        `neighbours` turns on either side. The turns the model has verbatim are left out: the last
        `seen_turns` turns of `current_chat`, by default those its `assistant_history` holds now (see
        the module's docstring). With `project_id`, only that folder's chats (or with `NO_FOLDER` those
        in none) are searched. `vector` is the query already embedded by this recaller's embedder (a
        benchmark timing all but the embedding); None embeds it here, and a blank query finds nothing.
        Raises `InvalidRecallQuery` for a `limit` past 1..10 or `neighbours` past 0..5."""
        _check(limit, neighbours)
        model = self._embedder.model_name
        if vector is None:
            if not query.strip():
                return []
            # The local twin's vector when the service cannot answer: it meets the turn vectors it made.
            embedded = await embed_named(self._embedder, [query])
            vector, model = embedded.matrix[0], embedded.model
        hidden = await self._hidden(current_chat, seen_turns)
        candidates = await self._store.recall_candidates(
            RecallQuery(
                vector=vector,
                model=model,
                text=query,
                limit=CANDIDATES_PER_SIGNAL,
                context=len(NEIGHBOUR_WEIGHTS),
                hidden=hidden,
                project_id=project_id,
            )
        )
        floors = floors_for(model)
        relevant = [turn for turn in rank_turns(candidates) if is_relevant(turn, floors)]
        planned = plan_hits(relevant, limit=limit, neighbours=neighbours)
        if not planned:
            return []
        excerpts = await self._store.excerpts([p.span for p in planned], hidden=hidden)
        hits = []
        for p in planned:
            # Excerpts come in the order asked, less the chats gone meanwhile; spans never overlap.
            for excerpt in excerpts:
                if excerpt.chat_id == p.span.chat_id and (hit := hit_from_excerpt(p, excerpt)) is not None:
                    hits.append(hit)
                    break
        return hits

    async def _hidden(self, current_chat: UUID | None, seen_turns: int | None) -> HiddenTurns | None:
        if current_chat is None:
            return None
        if seen_turns is None:
            try:
                context = await self._store.load_assistant_context(current_chat)
            except ChatNotFound:
                return None  # deleted meanwhile: nothing of it is left to leave out
            seen_turns = seen_turns_of(context.assistant_history)
        return HiddenTurns(current_chat, seen_turns) if seen_turns > 0 else None


def _check(limit: int, neighbours: int) -> None:
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidRecallQuery(f"recall returns 1 to {MAX_LIMIT} hits, not {limit}")
    if not 0 <= neighbours <= MAX_NEIGHBOURS:
        raise InvalidRecallQuery(f"recall shows 0 to {MAX_NEIGHBOURS} neighbouring turns, not {neighbours}")
