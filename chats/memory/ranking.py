"""Ranking memories for a query: pure functions over the signals a store reads.

Each memory gets `similarity + lexical_weight * bm25 / best_bm25`: meaning first, with the query's
rarer words as a second opinion (names, places, "pottery"). Three refinements follow, each measured
(bench/memory.py on LoCoMo's facts, recall@5 of evidence turns; vector only 0.545, fused 0.586):

- *same-chat neighbours* (0.593): memories said in the same chat as a strong match are likely about
  the same thing, so each memory also gets `chat_weight *` the best fused score among the memories of
  its source chat (itself included);
- *dates* (0.611): a query naming a date ("on 7 July 2023", "in May 2023") lifts the memories saved on
  that day or in that month, plus `date_grace_days` after it, by `date_weight`;
- *diversity* (0.617, the default): the results are picked by maximal marginal relevance among the best
  `pool`, so restatements of one fact do not crowd out the second fact a question needs.

Tried and dropped: stripping the question words before embedding (0.605 with everything else on, in the
bench); with an exploratory script on the same data, reciprocal-rank fusion (0.559 against 0.592 for
the weighted sum there), pseudo-relevance feedback on the query vector (0.588), per-query z-scored
signals (0.590), a saturating BM25 (0.591) and a second embedding of long facts' first clause (0.592).
Tried later with the store's own search (recall@5 over all ten conversations): a second query
vector of the question without its question words, averaged or maxed with the first (0.610-0.617), or of
its telling words only (0.610-0.618); a lift for memories whose subject the query names (0.607-0.616);
a chat's mean of its best 2 or 3 scores in place of its best (0.612-0.616); weights re-tuned on
conversations 1-5 (best 0.617 there, 0.613 on 6-10, where the defaults score 0.625); and as a reranker
of the best 30, late interaction over MiniLM's token states (each query token's best cosine among a
fact's tokens, averaged, added to the score: 0.619-0.623, for a model pass over 30 facts per search).
The issue's goal of 0.70 is not reached with all-MiniLM-L6-v2: the best any 5 facts could do is 0.804,
and the fused ranking (before diversity) holds 0.669 of the evidence in its best 10, 0.709 in 20, 0.732 in 30, so only a
reranker much sharper than these signals (none ships on PyPI with its weights) could close the gap.
"""

from __future__ import annotations

import calendar
import functools
import re
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

import numpy as np
import numpy.typing as npt

from chats.embedders.minilm import MODEL_NAME as MINILM_MODEL_NAME
from chats.embedders.use_multilingual import MODEL_NAME as USE_MODEL_NAME
from chats.search import query_terms
from languages.registry import SUPPORTED, table

Floats = npt.NDArray[np.float32]
Ints = npt.NDArray[np.int64]
Seconds = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class Ranking:
    """The weights of `fuse` and `diversify`; the defaults are the best measured."""

    lexical_weight: float = 0.2
    """Weight of BM25 relative to the best BM25 of the search (0..1), added to the cosine."""
    chat_weight: float = 0.3
    """Weight of the best score among memories of the same source chat."""
    date_weight: float = 0.2
    """Added to memories saved within a date the query names."""
    date_grace_days: float = 3.0
    """Days after the named date that still count (a fact is often saved a few days after)."""
    diversity: float = 0.2
    """Maximal marginal relevance: 0 ranks by score alone; the share given to being unlike the results
    already picked (cosine between memories)."""
    pool: int = 30
    """How many of the best-scored memories `diversify` chooses from."""
    min_similarity: float = 0.15
    """A memory less similar than this to the query is left out, unless it shares a word with it:
    unrelated MiniLM sentences score about 0 to 0.15."""


VECTOR_ONLY = Ranking(lexical_weight=0.0, chat_weight=0.0, date_weight=0.0, diversity=0.0, min_similarity=-1.0)
FUSED = Ranking(chat_weight=0.0, date_weight=0.0, diversity=0.0)


@functools.cache
def _memory_stop_words() -> frozenset[str]:
    """Every language's `[search]` `memory_stop_words`: the words every memory or every question about memories
    holds ("User ...", "do you remember ..."). Read at the first memory search, not with the memory store that
    every command opens (every language's tables: 0.06 s)."""
    return frozenset(word for code in SUPPORTED for word in table(code)["search"].get("memory_stop_words", "").split())


def memory_terms(text: str, *, prefixes: bool = True) -> list[str]:
    """The words of a memory query worth matching: `chats.search.query_terms` (`prefixes` as there) without
    the words every memory or every question about memories holds ("User ...", "do you remember ...")."""
    stop_words = _memory_stop_words()
    return [term for term in query_terms(text, prefixes=prefixes) if term not in stop_words]


@dataclass(frozen=True, slots=True)
class DateWindow:
    start: datetime
    """UTC, inclusive."""
    end: datetime
    """UTC, exclusive."""


_MONTHS = {name.lower(): number for number, name in enumerate(calendar.month_name) if name}
_MONTH = "|".join(_MONTHS)
_DATE = re.compile(
    rf"\b(?:(?P<d1>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<m1>{_MONTH}),?\s+(?P<y1>\d{{4}})"
    rf"|(?P<m2>{_MONTH})\s+(?P<d2>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<y2>\d{{4}})"
    rf"|(?P<m3>{_MONTH}),?\s+(?P<y3>\d{{4}})"
    rf"|(?<![\d:/.-])(?P<y4>(?:19|20)\d\d)(?![\d:/.-]))\b",
    re.IGNORECASE,
)


def date_window(text: str) -> DateWindow | None:
    """The first absolute date `text` names: a day, a month or a year. Relative dates ("last week")
    are not read: the query text alone does not say when "now" is."""
    match = _DATE.search(text)
    if match is None:
        return None
    found = match.groupdict()
    try:
        if found["y1"] or found["y2"]:
            day, month, year = (
                (found["d1"], found["m1"], found["y1"]) if found["y1"] else (found["d2"], found["m2"], found["y2"])
            )
            start = datetime(int(year), _MONTHS[month.lower()], int(day), tzinfo=UTC)
            return DateWindow(start, start + timedelta(days=1))
        if found["y3"]:
            year, month_number = int(found["y3"]), _MONTHS[found["m3"].lower()]
            start = datetime(year, month_number, 1, tzinfo=UTC)
            end = datetime(year + month_number // 12, month_number % 12 + 1, 1, tzinfo=UTC)
            return DateWindow(start, end)
        year = int(found["y4"])
        return DateWindow(datetime(year, 1, 1, tzinfo=UTC), datetime(year + 1, 1, 1, tzinfo=UTC))
    except ValueError:  # "31 February 2024"
        return None


def fuse(
    similarity: Floats,
    *,
    lexical: Floats,
    chat: Ints,
    created: Seconds,
    window: DateWindow | None,
    ranking: Ranking,
) -> Floats:
    """One score per memory (higher is better). `similarity` is the cosine to the query, `lexical` the
    BM25 relevance (0: no word matches), `chat` a number per source chat (-1: none), `created` the
    POSIX time each memory was saved."""
    scores = similarity.astype(np.float32, copy=True)
    best_lexical = float(lexical.max()) if lexical.size else 0.0
    if ranking.lexical_weight and best_lexical > 0:
        scores += np.float32(ranking.lexical_weight / best_lexical) * lexical
    if ranking.chat_weight and scores.size:
        scores += np.float32(ranking.chat_weight) * best_of_chat(scores, chat)
    if ranking.date_weight and window is not None:
        start = window.start.timestamp()
        end = (window.end + timedelta(days=ranking.date_grace_days)).timestamp()
        scores += np.float32(ranking.date_weight) * ((created >= start) & (created < end)).astype(np.float32)
    return scores


def relevant(similarity: Floats, lexical: Floats, ranking: Ranking) -> npt.NDArray[np.bool_]:
    """The memories worth returning at all: similar enough, or sharing a word with the query."""
    kept: npt.NDArray[np.bool_] = (similarity >= ranking.min_similarity) | (lexical > 0)
    return kept


def best_of_chat(scores: Floats, chat: Ints) -> Floats:
    """Per memory, the best score among the memories of its chat; its own for a memory of no chat."""
    in_chat = chat >= 0
    if not in_chat.any():
        return scores.copy()
    best = np.full(int(chat.max()) + 1, -np.inf, dtype=np.float32)
    np.maximum.at(best, chat[in_chat], scores[in_chat])
    out: Floats = np.where(in_chat, best[np.maximum(chat, 0)], scores).astype(np.float32)
    return out


def top(scores: Floats, count: int) -> list[int]:
    """Indices of the `count` best scores, best first (ties: lower index first)."""
    if count <= 0 or scores.size == 0:
        return []
    chosen = np.argpartition(-scores, count - 1)[:count] if scores.size > count else np.arange(scores.size)
    return sorted((int(i) for i in chosen), key=lambda i: (-float(scores[i]), i))


def diversify(relevance: Floats, vectors: Floats, limit: int, diversity: float) -> list[int]:
    """Pick `limit` of the candidates (`relevance` their scores, best first; `vectors` their embeddings)
    by maximal marginal relevance: each next pick maximises
    `(1 - diversity) * score - diversity * (its highest cosine to the picks so far)`.
    Returns positions in the candidate list."""
    count = min(limit, len(relevance))
    if diversity <= 0 or count <= 1:
        return list(range(count))
    similar = vectors @ vectors.T
    closest = np.zeros(len(relevance), dtype=np.float32)
    free = np.ones(len(relevance), dtype=bool)
    picked: list[int] = []
    while len(picked) < count:
        value = np.where(free, (1 - diversity) * relevance - diversity * closest, -np.inf)
        best = int(np.argmax(value))
        picked.append(best)
        free[best] = False
        closest = np.maximum(closest, similar[best]) if len(picked) > 1 else similar[best].copy()
    return picked


USE_MEMORY_MIN_SIMILARITY = 0.05
"""The multilingual model puts a question and the memory it asks about at cosines as low as 0.03 in
German and 0.12 in Italian ("Wofür lege ich Geld zurück?" / "Der Nutzer spart für ein kleines Haus am
Meer."), where MiniLM's 0.15 floor dropped 6 of 24 right answers; unrelated memories sit around 0.0, so at
0.0 half of them came back: `LABELLED`'s 27 short English queries (tests/app/test_honest_memory.py) against
its 10 memories in Italian kept 150 of the 247 unrelated pairs ("submarine periscope" / "All'utente piace il
caffè senza zucchero" 0.003). At 0.05 they keep 73 (65 in German), and still 22 of the 23 right ones (21);
on bench/language_set.json recall@5 goes from 0.979 to 0.938 in-language and 0.988 to 0.946 across (0.1:
23 unrelated pairs kept, recall@5 0.917 and 0.858). The test parts, not tuned on, lost more: in-language
recall@5 0.979 -> 0.875 and 0.938 -> 0.875, across 0.975 -> 0.929 and 0.896 -> 0.871 (bench/results/languages.json).
No floor of this model's tells related from unrelated as MiniLM's does for English."""


MINILM_MEMORY_MIN_SIMILARITY = 0.22
"""A short query ("coffee") sits at 0.15-0.21 from unrelated memories ("User lives in Turin", 0.21): at the
0.15 floor `parley memories search coffee` listed them. On a labelled set of 27 short queries against 10
memories (tests/hostile/test_memory.py's `LABELLED`), 0.22 keeps 21 of the 23 right pairs (as 0.15 did:
the two below, "how do I get around" / "User does not own a car" at 0.08, are below either) and 4 of the
247 unrelated ones, against 35 at 0.15."""


def memory_ranking_for(model_name: str, ranking: Ranking | None = None) -> Ranking:
    """The memory store's ranking for vectors of `model_name`: `ranking` (the store default when None)
    with that model's similarity floor."""
    base = ranking or Ranking()
    if model_name == USE_MODEL_NAME:
        return replace(base, min_similarity=USE_MEMORY_MIN_SIMILARITY)
    if model_name == MINILM_MODEL_NAME:
        return replace(base, min_similarity=MINILM_MEMORY_MIN_SIMILARITY)
    return base
