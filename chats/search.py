"""Finding a chat from a spoken description: "the chat about the kitchen renovation".

Semantic first: the query's embedding against each chat's summary (or, before its first compaction,
its topic text). Fused with BM25 over the chat's own words, because a question about a detail the
summary dropped still names words the chat holds; on LoCoMo that fusion lifts hit@3 from 0.56
(summary similarity alone) to above 0.8 (see bench/chats.py). A title that holds every word of the request
lifts its chat (`TITLE_WEIGHT`): the best turn's BM25 favours a short turn that names the words once (a
trivia question, a passing mention) over the chat that is about them. No keyword rules decide anything:
both signals only rank. The words are read in the query's language (`query_terms`, `chats.language.words`),
and what counts as similar enough depends on the embedding model (`floors_for`): bench/languages.py.

`rank` and `decide` are pure; `ChatFinder` is the thin async shell around the store and embedder.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal
from uuid import UUID

from chats.embedders.embedding import Embedder, embed_named
from chats.embedders.use_multilingual import MODEL_NAME as USE_MODEL_NAME
from chats.language.words import MIN_STEM_CHARS, resolve, split_elisions, stem, stems, stop_words, words
from chats.models import search_query, utc_now
from chats.store import ChatStore, SearchCandidate, SearchQuery

LEXICAL_WEIGHT = 0.5
"""Weight of BM25 relative to the best BM25 of the search (0..1), by the share of the request's words the chat
holds (`WORDS_HELD_POWER`), added to the cosine similarity."""
COMMON_SHARE = 0.5
"""A request word found in more than this share of the user's chats ("Caroline" in every chat between two
people) does not tell them apart: it is left out of the share of words a chat holds (`SearchCandidate.words_held`)."""
WORDS_HELD_FLOOR = 0.1
WORDS_HELD_POWER = 1.25
"""A chat's BM25 counts by `WORDS_HELD_FLOOR + (1 - WORDS_HELD_FLOOR) * words_held ** WORDS_HELD_POWER`: one
stray word of a request does not carry a chat past the one its meaning points to. On the paraphrase set
(bench/paraphrase.py, requests sharing no content word with their chat) English hit@1 went from 0.19 to 0.44
on the tuning part and from 0.31 to 0.81 on the test part (goal 0.75); LoCoMo switching with Parley's own
maintenance keeps hit@3 0.850 (bench/chats.py). Chosen on the paraphrase set's tuning part, under LoCoMo's
goal (hit@3 >= 0.85 over its ten conversations): the share alone (no floor, power 1) gave 0.848 there, and
a higher power more paraphrases and less LoCoMo (1.5: tuning 37 of 80 against 27, LoCoMo 0.842)."""
STEMMED_LANGUAGES_SHARE = 1 / 4
"""In the languages other than English, the words (BM25, a title or a summary naming them) and recency count
this share of their English weight beside the meaning: their words are matched by Snowball stems read as
prefixes ("casa*" finds "casale"), which join more chats than the words mean, and the multilingual encoder's
vectors find a paraphrase better than a stray stem does. Chosen on the tuning parts (bench/paraphrase.py,
bench/languages.py), with the multilingual encoder reading a chat's topic whole (`reads_whole_texts`): the
paraphrase set's Italian, Spanish, French and German hit@1 was 36 of 64 at a third, 39 at a quarter and at a
sixth, 40 with no words at all, where the languages set's tuning part kept every first place down to a sixth
and lost three with no words. English keeps its weights: LoCoMo switching needs its words."""
TITLE_WEIGHT = 0.4
"""Added for a title that holds every word of the request: a chat named after its subject ("Sourdough
baking") is about it, more surely than one whose turns mention the word once. A title holding some of a
longer request's words gets nothing: a question about a detail names a person or a place that many titles
hold. LoCoMo switching with Parley's own maintenance is the same with it and without (hit@1 0.668, hit@3
0.850; a lift in proportion to the share of words held gave 0.840 on two of its conversations); the
language set's switching is unchanged too (bench/languages.py)."""
SUMMARY_WEIGHT = 0.4
"""Added for a summary that holds every word of the request, as for a title (`TITLE_WEIGHT`): a chat whose
compaction summary names the subject is about it, though its title may not (issue 23, part 5)."""
STEMMED_KEPT = 4096
"""Titles and summaries whose stems are kept (a few MB at most)."""
RECENCY_WEIGHT = 0.05
"""Weight of recency (1 now, halving every half-life): a tie-breaker between chats that match alike."""
RECENCY_HALF_LIFE_DAYS = 30.0
MIN_SIMILARITY = 0.30
"""all-MiniLM-L6-v2 cosine below which a chat is not about the query, whatever its words."""
MIN_SIMILARITY_WITH_WORDS = 0.15
"""A chat that shares words with the query may be a little less similar and still count."""


@dataclass(frozen=True, slots=True)
class Floors:
    """The cosines below which a chat is not about the query: each model spreads its cosines its own way."""

    alone: float
    """For a chat that shares no word with the query."""
    with_words: float
    """For a chat that shares words with the query."""


MINILM_FLOORS = Floors(MIN_SIMILARITY, MIN_SIMILARITY_WITH_WORDS)
FLOORS_BY_MODEL: dict[str, Floors] = {
    # The cosines that as large a share of LoCoMo's question-summary pairs reach as reach MiniLM's floors
    # (54% reach 0.30 with MiniLM, 0.153 with USE; 89% reach 0.15 and 0.047).
    USE_MODEL_NAME: Floors(alone=0.15, with_words=0.05),
}
"""Other models (MiniLM, the Gemini and OpenAI embeddings) use `MINILM_FLOORS`, as before."""


def floors_for(model_name: str) -> Floors:
    return FLOORS_BY_MODEL.get(model_name, MINILM_FLOORS)


CLOSE_RATIO = 0.8
"""A relevant chat scoring at least this share of the best one's score is a real alternative: ask."""
MAX_OPTIONS = 3

# Words that carry no topic: function words, and the ways people ask for a chat (`chats.language.words`).
_STOP_WORDS = stop_words("en")
_WORD = re.compile(r"\w+", re.UNICODE)
PREFIX = "*"
"""Ends a query term that stands for every word beginning with it (a Snowball stem). Stores that cannot
match prefixes read the stem as a word: Postgres's `plainto_tsquery` drops the mark."""


def query_terms(text: str, language: str | None = None, *, prefixes: bool = True) -> list[str]:
    """The words of a query worth matching, lower-cased, in order, without repeats.

    `language` is an ISO 639-1 code (`chats.language.words.SUPPORTED`); None, "auto" or another code: detected
    from the text. English words are matched as said (the index stems them with Porter). In the other
    languages a word becomes its Snowball stem marked as a prefix (`stem*`, see `PREFIX`), so that
    "ristrutturazione" finds "ristrutturare" in an index that Porter cannot stem for Italian. Without
    `prefixes` (for a store that cannot match them), the words as said, less the language's stop words."""
    lang = resolve(text, language)
    if lang == "en":
        return _english_terms(text)
    stop = stop_words(lang)
    seen: dict[str, None] = {}
    for word in words(split_elisions(text)):
        if word in stop or word in seen or (len(word) <= 1 and not word.isdigit()):
            continue
        root = stem(word, lang) if prefixes else word
        seen[root + PREFIX if prefixes and len(root) >= MIN_STEM_CHARS else word] = None
    return list(seen)


def _english_terms(text: str) -> list[str]:
    seen: dict[str, None] = {}
    for word in _WORD.findall(text.lower()):
        # Lone letters are left over from contractions ("let's", "I'm"); lone digits still count.
        if word not in _STOP_WORDS and word not in seen and (len(word) > 1 or word.isdigit()):
            seen[word] = None
    return list(seen)


def fts_phrase(term: str) -> str:
    """A term quoted for an SQLite FTS5 MATCH expression, so that no word is query syntax; a term ending in
    `PREFIX` matches every word that begins with it."""
    if term.endswith(PREFIX) and len(term) > len(PREFIX):
        return '"' + term[: -len(PREFIX)].replace('"', '""') + '" *'
    return '"' + term.replace('"', '""') + '"'


def words_held(holders: Iterable[set[str] | None], chats: int) -> dict[str, float] | None:
    """By chat id, the share of a request's telling words each chat holds (`SearchCandidate.words_held`),
    from the chats holding each word (None: it is in too many rows to tell). A word held by more than
    `COMMON_SHARE` of the user's `chats` does not tell either. None when no word tells: every chat counts as
    holding them all. The SQLite store computes it here; Postgres in `search_chats_semantic` (migration 0011),
    in the one round trip of a search, rather than sending every word's holders over the network."""
    telling = [held for held in holders if held is not None and len(held) <= COMMON_SHARE * chats]
    counts = Counter(chat_id for held in telling for chat_id in held)
    return {chat_id: count / len(telling) for chat_id, count in counts.items()} if telling else None


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
    words_held: float
    """`SearchCandidate.words_held`."""


Outcome = Literal["switch", "ask", "none", "here"]


@dataclass(frozen=True, slots=True)
class ChatMatch:
    outcome: Outcome
    """`switch`: one clear match (the first option); `ask`: several close ones; `none`: nothing fits; `here`:
    the chat the request was said in is the best match."""
    options: tuple[RankedChat, ...]


def rank(candidates: Sequence[SearchCandidate], now: datetime, query: str = "") -> list[RankedChat]:
    """Best first. `query`: the request's words, which a chat's title is read for (empty: titles do not count)."""
    best_lexical = max((c.lexical for c in candidates), default=0.0)
    language = resolve(query, None) if query.strip() else "en"
    wanted = set(stems(query, language))
    beside_meaning = 1.0 if language == "en" else STEMMED_LANGUAGES_SHARE
    ranked = []
    for c in candidates:
        similarity = c.similarity if c.similarity is not None else 0.0
        held = WORDS_HELD_FLOOR + (1 - WORDS_HELD_FLOOR) * c.words_held**WORDS_HELD_POWER
        lexical = held * c.lexical / best_lexical if best_lexical > 0 else 0.0
        age_days = max((now - c.last_activity_at).total_seconds(), 0.0) / 86_400
        recency = math.pow(0.5, age_days / RECENCY_HALF_LIFE_DAYS)
        named = names_all(wanted, c.title, language)
        summarised = names_all(wanted, c.summary, language)
        about = TITLE_WEIGHT * named + SUMMARY_WEIGHT * summarised
        score = similarity + beside_meaning * (LEXICAL_WEIGHT * lexical + about + RECENCY_WEIGHT * recency)
        ranked.append(RankedChat(c.chat_id, c.title, score, c.similarity, c.lexical, c.last_activity_at, c.words_held))
    return sorted(ranked, key=lambda r: (-r.score, str(r.chat_id)))


def names_all(wanted: set[str], text: str | None, language: str) -> bool:
    """Whether `text` (a title, a summary) holds every one of the request's word stems (`wanted`, at least one)."""
    return bool(wanted) and text is not None and wanted <= stem_set(text, language)


@functools.lru_cache(maxsize=STEMMED_KEPT)
def stem_set(text: str, language: str) -> frozenset[str]:
    """The word stems of a title or a summary, kept: a search as the user types meets the same chats again
    and again, and stemming their summaries made each search half as slow again (bench/window.py)."""
    return frozenset(stems(text, language))


def decide(ranked: Sequence[RankedChat], *, current: UUID | None = None, floors: Floors = MINILM_FLOORS) -> ChatMatch:
    """The outcome of a search ranked best first, by the embedding model's `floors`. The `current` chat is
    the answer only as the best match ("here"); it is never offered beside others nor switched to."""
    relevant = [r for r in ranked if _is_relevant(r, floors)]
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


def _is_relevant(chat: RankedChat, floors: Floors) -> bool:
    """Similar enough by the embedding model's `floors`, or holding every telling word of the request: a
    detail said once ("the one where I mentioned the scarf") leaves the chat's summary far from the request."""
    similarity = chat.similarity if chat.similarity is not None else 0.0
    if chat.lexical > 0:
        return similarity >= floors.with_words or chat.similarity is None or chat.words_held >= 1.0
    return similarity >= floors.alone


class ChatFinder:
    def __init__(self, store: ChatStore, embedder: Embedder) -> None:
        self._store = store
        self._embedder = embedder

    async def ranked(self, query: str, *, limit: int = 50, now: datetime | None = None) -> list[RankedChat]:
        return (await self._ranked(query, limit=limit, now=now))[0]

    async def _ranked(self, query: str, *, limit: int, now: datetime | None) -> tuple[list[RankedChat], str]:
        """The chats ranked, and the model the query was embedded with: the embedder's, or its local twin's
        when the service cannot answer (`embed_named`), whose vectors meet only the stored vectors it made,
        while the words find the rest."""
        query = search_query(query)
        embedded = await embed_named(self._embedder, [query])
        candidates = await self._store.search(
            SearchQuery(vector=embedded.matrix[0], model=embedded.model, text=query, limit=limit)
        )
        return rank(candidates, now or utc_now(), query), embedded.model

    async def find_chats(self, query: str, *, now: datetime | None = None, current: UUID | None = None) -> ChatMatch:
        """Which chat the user means: one clear match, several to choose from, none, or `current` (the chat
        the request is said in) when it is the best match."""
        ranked, model = await self._ranked(query, limit=50, now=now)
        return decide(ranked, current=current, floors=floors_for(model))
