"""`OfflineTextModel`: extractive summaries and subject titles (`chats.text.offline_title`), with no network
and no key.

A summary is chosen, not written: the conversation is cut into sentences, each sentence is scored for
the facts a later conversation needs (names, numbers, dates, decisions, commitments, preferences,
open questions) and for how central it is (it holds the text's YAKE keyphrases), and the best ones that
fit the budget are kept in their original order, each under the label of who said it. Sentences of an
earlier summary turn are consolidated truth: they score highest and are kept as written.

Everything here is deterministic and pure except `OfflineTextModel`, which runs the work off the event
loop. The cue words, YAKE's stop words and the keyphrases are the conversation's language's
(`chats.text.offline_cues`; English, Italian, Spanish, French, German), found by `chats.language.words.detect`. In
German every noun has a capital, so capitals tell no names there: its sentences score no name bonus.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from segtok.segmenter import split_single

from chats.errors import TextModelError
from chats.language.words import detect
from chats.models import Role, Turn
from chats.text.offline_cues import CUES, ENGLISH, Cues
from chats.text.offline_title import subject_title
from chats.text.offline_words import (
    ASSISTANT_LABEL,
    LABEL_AT_START,
    OPEN_ASSISTANT_LABEL,
    OPEN_USER_LABEL,
    USER_LABEL,
    canonical_label,
    stopwords,
)
from chats.text.text_budget import cut_at_word
from languages.registry import is_supported

NAME = "offline-extractive"
KEYPHRASES = 12
"""How many YAKE keyphrases of the whole text count towards a sentence's centrality."""
MIN_SALIENCE = 1.0
"""Below this a sentence (greetings, "ok", "thanks") is only kept when nothing scores higher."""
SUMMARY_BONUS = 6.0
"""Earlier summary sentences were chosen once already and stand for many turns: they outrank most."""
OPEN_QUESTION_BONUS = 4.5
"""An unanswered question is exactly what the next conversation must not lose."""
DUPLICATE_OVERLAP = 0.8
"""Share of the shorter sentence's content words that, found in a kept one, make it a repeat."""
RESTATEMENT_OVERLAP = 0.5
"""The same, for a sentence that brings no new number, name or date (an assistant's "So, ...")."""

_NUMBER = re.compile(r"\d")
_SPACE_BEFORE_PUNCTUATION = re.compile(r"\s+([!?;:»])")
_WORD = re.compile(r"\w+")
_NAME_WORD = re.compile(r"^(?:[A-Z][a-z]+(?:['\u2019-][A-Za-z]+)*|[A-Z]{2,})$")
_QUOTES = "\"'\u201c\u201d\u2018\u2019\u00ab\u00bb`"


class _NoTextInLogs(logging.Filter):
    """YAKE logs the first 100 characters of a text it fails on; transcripts stay out of log text."""

    def filter(self, record: logging.LogRecord) -> bool:
        if "text preview" in str(record.msg):
            record.msg, record.args = "YAKE keyword extraction failed", ()
        return True


logging.getLogger("yake.core.yake").addFilter(_NoTextInLogs())


@dataclass(frozen=True, slots=True)
class Sentence:
    """One sentence of the conversation, in its original place."""

    position: int
    """Reading order: 0 is the first sentence of the first turn."""
    role: Role
    text: str
    """The sentence, whitespace collapsed, without any label."""
    label: str
    """Who said it, as the summary shows it ("User:", ...); "" for unlabelled summary prose."""
    from_summary: bool = False
    """Taken from an earlier summary turn: consolidated truth, kept as written."""
    open_question: bool = False
    """A question that no later turn of these turns answers."""


class OfflineTextModel:
    """A `TextModel` that never leaves the machine and always answers the same way."""

    def __init__(self, language: str | None = None) -> None:
        """`language`: the user's (a code; None or "auto" for none), assumed for a text too short to tell."""
        self._language = language if is_supported(language) else None

    @property
    def name(self) -> str:
        return NAME

    async def summarize(self, turns: Sequence[Turn], max_chars: int) -> str:
        # YAKE takes tens of milliseconds on a 30-turn window: too long to hold the event loop.
        try:
            return await asyncio.to_thread(summarize_extractively, tuple(turns), max_chars, self._language)
        except Exception as error:
            raise TextModelError("the offline summariser failed") from error

    async def title(self, text: str) -> str:
        try:
            return await asyncio.to_thread(subject_title, text, self._language)
        except Exception as error:
            raise TextModelError("the offline title maker failed") from error


def summarize_extractively(turns: Sequence[Turn], max_chars: int, language: str | None = None) -> str:
    """The most salient sentences of `turns` that fit in `max_chars`, labelled, in original order. The
    turns' language is detected (`language`, the user's, when the text is too short to tell)."""
    if max_chars <= 0:
        return ""
    written_in = detect(" ".join(turn.text for turn in turns), hint=language)
    cues = CUES[written_in]
    sentences = split_turns(turns, cues)
    if not sentences:
        return ""
    phrases = keyphrases("\n".join(sentence.text for sentence in sentences), language=written_in)
    scores = [salience(sentence, phrases, cues) for sentence in sentences]
    chosen = choose(sentences, scores, max_chars, cues)
    if chosen:
        return render(chosen)
    best = max(range(len(sentences)), key=lambda i: (scores[i], -i))
    return cut_at_word(render([sentences[best]]), max_chars)


def split_turns(turns: Sequence[Turn], cues: Cues = ENGLISH) -> list[Sentence]:
    """Every sentence of `turns`, labelled; user and model questions nobody answered are marked open."""
    sentences: list[Sentence] = []
    for index, turn in enumerate(turns):
        unanswered = not turn.summary and _unanswered(turns, index, cues)
        open_label = OPEN_USER_LABEL if turn.role == "user" else OPEN_ASSISTANT_LABEL
        for line in turn.text.splitlines():
            label, body = _default_label(turn), line
            if turn.summary and (match := LABEL_AT_START.match(line)):
                # An earlier offline summary: its sentences keep the speaker they were filed under.
                label, body = canonical_label(match.group(1)), line[match.end() :]
            if cues.space_before_punctuation:
                body = _SPACE_BEFORE_PUNCTUATION.sub(r"\1", body)  # segtok ends no sentence at "Ça va ?"
            for piece in split_single(body):
                text = " ".join(piece.split())
                if not _WORD.search(text):
                    continue
                is_open = unanswered and text.endswith("?")
                sentences.append(
                    Sentence(
                        position=len(sentences),
                        role=turn.role,
                        text=text,
                        label=open_label if is_open else label,
                        from_summary=turn.summary,
                        open_question=is_open,
                    )
                )
    return sentences


def salience(sentence: Sentence, phrases: Sequence[str], cues: Cues = ENGLISH) -> float:
    """How much a later conversation would miss `sentence`; `phrases` are keyphrases, best first; `cues`:
    the cue words of its language."""
    text = sentence.text
    words = _WORD.findall(text)
    score = min(len(words), 15) * 0.1
    if _NUMBER.search(text):
        score += 2.0
    if cues.month.search(text) or cues.date_or_time.search(text):
        score += 2.0
    elif cues.relative_day.search(text):
        score += 1.0
    if cues.money_or_unit.search(text):
        score += 1.5
    score += 1.5 * min(len(_names(text, cues)), 2)
    if cues.decision.search(text):
        score += 2.5
    if cues.commitment.search(text):
        score += 2.0
    if cues.preference.search(text):
        score += 2.0
    if sentence.open_question:
        score += OPEN_QUESTION_BONUS
    elif text.endswith("?"):
        score += 0.5
    if cues.filler.match(text) and len(words) <= 4:
        score -= 2.0
    score += _centrality(text, phrases)
    if sentence.from_summary:
        score += SUMMARY_BONUS
    return score


def choose(
    sentences: Sequence[Sentence], scores: Sequence[float], max_chars: int, cues: Cues = ENGLISH
) -> list[Sentence]:
    """Greedily, best first: every sentence that is no repeat and still fits; in original order."""
    ranked = sorted(range(len(sentences)), key=lambda i: (-scores[i], i))
    eligible = [i for i in ranked if scores[i] >= MIN_SALIENCE] or ranked
    chosen: list[int] = []
    facts: set[str] = set()
    for i in eligible:
        if any(_repeats(sentences[i].text, sentences[j].text, facts, cues) for j in chosen):
            continue
        trial = sorted([*chosen, i])
        if len(render([sentences[j] for j in trial])) <= max_chars:
            chosen = trial
            facts |= _facts(sentences[i].text, cues)
    return [sentences[j] for j in chosen]


def render(sentences: Sequence[Sentence]) -> str:
    """One line per run of sentences with the same label: "User: ... ", "Assistant: ...", ..."""
    lines: list[str] = []
    label: str | None = None
    for sentence in sentences:
        if sentence.label == label and lines:
            lines[-1] += " " + sentence.text
        else:
            label = sentence.label
            lines.append(f"{label} {sentence.text}" if label else sentence.text)
    return "\n".join(lines)


def keyphrases(text: str, top: int = KEYPHRASES, *, language: str = "en") -> list[str]:
    """YAKE keyphrases (1 to 3 words) of `text` in `language`, best first, role labels ignored."""
    if not _WORD.search(text):
        return []
    import yake  # here, not with the module: it brings networkx (0.25 s), which a title does not need

    extractor = yake.KeywordExtractor(lan=language, n=3, top=top, stopwords=stopwords(language))
    return [str(phrase) for phrase, _score in extractor.extract_keywords(text)]


def _centrality(text: str, phrases: Sequence[str]) -> float:
    lowered = text.lower()
    bonus = 0.0
    for rank, phrase in enumerate(phrases):
        if re.search(r"(?<!\w)" + re.escape(phrase.lower()) + r"(?!\w)", lowered):
            bonus += 1.5 * (len(phrases) - rank) / len(phrases)
    return min(bonus, 4.0)


def _names(text: str, cues: Cues = ENGLISH) -> list[str]:
    """Capitalised words that do not start the sentence (or a clause after ":"), months aside; none in
    German, where every noun has a capital."""
    names: list[str] = []
    if cues.capital_nouns:
        return names
    tokens = text.split()
    for previous, token in pairwise(tokens):
        word = token.strip(_QUOTES + ".,;:!?()[]{}")
        if previous.endswith((":", ".", "!", "?")) or word in cues.not_names or cues.month.fullmatch(word):
            continue
        if _NAME_WORD.match(word):
            names.append(word)
    return names


def _repeats(candidate: str, kept: str, kept_facts: set[str], cues: Cues = ENGLISH) -> bool:
    """True when `candidate` says nothing that `kept` (and the facts kept so far) do not already say."""
    a, b = _content_words(candidate, cues), _content_words(kept, cues)
    if not a or not b:
        return candidate.lower() == kept.lower()
    if min(len(a), len(b)) < 3:
        return False
    overlap = len(a & b) / min(len(a), len(b))
    if overlap >= DUPLICATE_OVERLAP:
        return True
    return overlap >= RESTATEMENT_OVERLAP and _facts(candidate, cues) <= kept_facts


def _facts(text: str, cues: Cues = ENGLISH) -> frozenset[str]:
    """The numbers, names and months of `text`: what a restatement repeats and a new fact adds."""
    found = {match.rstrip(".,").lower() for match in re.findall(r"\d[\d.,]*\w*", text)}
    found |= {word.lower() for word in _names(text, cues)}
    found |= {month.lower() for month in cues.month.findall(text)}
    return frozenset(found)


def _content_words(text: str, cues: Cues = ENGLISH) -> frozenset[str]:
    stop = stopwords(cues.language)
    return frozenset(word for word in _WORD.findall(text.lower()) if word not in stop)


def _unanswered(turns: Sequence[Turn], index: int, cues: Cues = ENGLISH) -> bool:
    """No later turn of the other side answers turn `index`, or the answer only put it off."""
    turn = turns[index]
    for later in turns[index + 1 :]:
        if later.role != turn.role and not later.summary:
            return turn.role == "user" and bool(cues.deferral.search(later.text))
    return True


def _default_label(turn: Turn) -> str:
    if turn.summary:
        return ""
    return USER_LABEL if turn.role == "user" else ASSISTANT_LABEL
