"""`OfflineTextModel`: extractive summaries and subject titles (`chats.offline_title`), with no network
and no key.

A summary is chosen, not written: the conversation is cut into sentences, each sentence is scored for
the facts a later conversation needs (names, numbers, dates, decisions, commitments, preferences,
open questions) and for how central it is (it holds the text's YAKE keyphrases), and the best ones that
fit the budget are kept in their original order, each under the label of who said it. Sentences of an
earlier summary turn are consolidated truth: they score highest and are kept as written.

Everything here is deterministic and pure except `OfflineTextModel`, which runs the work off the event
loop. The cue words are English; other languages still get numbers, names, dates and keyphrases.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

import yake
from segtok.segmenter import split_single

from chats.errors import TextModelError
from chats.models import Role, Turn
from chats.offline_title import subject_title
from chats.offline_words import (
    ASSISTANT_LABEL,
    LABEL_AT_START,
    OPEN_ASSISTANT_LABEL,
    OPEN_USER_LABEL,
    USER_LABEL,
    canonical_label,
    stopwords,
)
from chats.text_budget import cut_at_word

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

_MONTH = re.compile(
    r"\b(?:January|February|March|April|May|June|July|August|September|October|November|December"
    r"|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)\b"
)
"""Case-sensitive: "may" and "march" are also verbs."""
_DATE_OR_TIME = re.compile(
    r"\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|o'clock|noon|midnight)\b"
    r"|\b\d{1,2}(?:st|nd|rd|th)\b|\b\d{1,2}[:.]\d{2}\b|\b\d{1,2}\s?(?:am|pm|a\.m\.|p\.m\.)"
    r"|\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}/\d{1,2}(?:/\d{2,4})?\b",
    re.IGNORECASE,
)
_RELATIVE_DAY = re.compile(
    r"\b(?:today|tonight|tomorrow|yesterday|weekend|(?:next|this|last) (?:week|month|year))\b",
    re.IGNORECASE,
)
_MONEY_OR_UNIT = re.compile(
    r"[€$£¥]|\b(?:euros?|eur|dollars?|usd|pounds?|gbp|cents?|percent|budget|price|cost|costs|quote[ds]?)\b"
    r"|\d\s?(?:%|k\b|kg\b|g\b|km\b|m\b|cm\b|mm\b|m2\b|m²|sqm\b|ft\b|hours?\b|hrs?\b|minutes?\b"
    r"|mins?\b|days?\b|weeks?\b|months?\b|years?\b|litres?\b|liters?\b)",
    re.IGNORECASE,
)
_DECISION = re.compile(
    r"\b(?:decided|decide|decision|agreed|agree|settled on|chose|chosen|go(?:ing)? with|final|confirmed)\b",
    re.IGNORECASE,
)
_COMMITMENT = re.compile(
    r"\b(?:will|won't|shall|going to|let's|let us|promise[ds]?|plan(?:ning)? to|need to|have to|must"
    r"|remind(?:er)?|deadline|due|schedule[ds]?|book(?:ed)?|appointment)\b|\w'll\b",
    re.IGNORECASE,
)
_PREFERENCE = re.compile(
    r"\b(?:prefer(?:s|red)?|i (?:really )?(?:like|love|hate|want|need)|i'd (?:like|rather|love)"
    r"|(?:don't|do not) (?:like|want)|dislike|favou?rite|rather|allergic|can't stand)\b",
    re.IGNORECASE,
)
_FILLER = re.compile(
    r"^(?:hi|hello|hey|thanks|thank you|ok|okay|sure|great|cool|nice|perfect|bye|yes|no|yeah|right"
    r"|good (?:morning|evening|night)|you're welcome|sounds good)\b",
    re.IGNORECASE,
)
_DEFERRAL = re.compile(
    r"\b(?:not sure|don't know|do not know|no idea|can't tell|find out|look into|get back to you"
    r"|let me check|i'll check|depends on)\b",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"\d")
_WORD = re.compile(r"\w+")
_NAME_WORD = re.compile(r"^(?:[A-Z][a-z]+(?:['\u2019-][A-Za-z]+)*|[A-Z]{2,})$")
_NOT_NAMES = frozenset({"I", "I'm", "I'll", "I've", "I'd", "OK", "AM", "PM"})
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

    @property
    def name(self) -> str:
        return NAME

    async def summarize(self, turns: Sequence[Turn], max_chars: int) -> str:
        # YAKE takes tens of milliseconds on a 30-turn window: too long to hold the event loop.
        try:
            return await asyncio.to_thread(summarize_extractively, tuple(turns), max_chars)
        except Exception as error:
            raise TextModelError("the offline summariser failed") from error

    async def title(self, text: str) -> str:
        try:
            return await asyncio.to_thread(subject_title, text)
        except Exception as error:
            raise TextModelError("the offline title maker failed") from error


def summarize_extractively(turns: Sequence[Turn], max_chars: int) -> str:
    """The most salient sentences of `turns` that fit in `max_chars`, labelled, in original order."""
    if max_chars <= 0:
        return ""
    sentences = split_turns(turns)
    if not sentences:
        return ""
    phrases = keyphrases("\n".join(sentence.text for sentence in sentences))
    scores = [salience(sentence, phrases) for sentence in sentences]
    chosen = choose(sentences, scores, max_chars)
    if chosen:
        return render(chosen)
    best = max(range(len(sentences)), key=lambda i: (scores[i], -i))
    return cut_at_word(render([sentences[best]]), max_chars)


def split_turns(turns: Sequence[Turn]) -> list[Sentence]:
    """Every sentence of `turns`, labelled; user and model questions nobody answered are marked open."""
    sentences: list[Sentence] = []
    for index, turn in enumerate(turns):
        unanswered = not turn.summary and _unanswered(turns, index)
        open_label = OPEN_USER_LABEL if turn.role == "user" else OPEN_ASSISTANT_LABEL
        for line in turn.text.splitlines():
            label, body = _default_label(turn), line
            if turn.summary and (match := LABEL_AT_START.match(line)):
                # An earlier offline summary: its sentences keep the speaker they were filed under.
                label, body = canonical_label(match.group(1)), line[match.end() :]
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


def salience(sentence: Sentence, phrases: Sequence[str]) -> float:
    """How much a later conversation would miss `sentence`; `phrases` are keyphrases, best first."""
    text = sentence.text
    words = _WORD.findall(text)
    score = min(len(words), 15) * 0.1
    if _NUMBER.search(text):
        score += 2.0
    if _MONTH.search(text) or _DATE_OR_TIME.search(text):
        score += 2.0
    elif _RELATIVE_DAY.search(text):
        score += 1.0
    if _MONEY_OR_UNIT.search(text):
        score += 1.5
    score += 1.5 * min(len(_names(text)), 2)
    if _DECISION.search(text):
        score += 2.5
    if _COMMITMENT.search(text):
        score += 2.0
    if _PREFERENCE.search(text):
        score += 2.0
    if sentence.open_question:
        score += OPEN_QUESTION_BONUS
    elif text.endswith("?"):
        score += 0.5
    if _FILLER.match(text) and len(words) <= 4:
        score -= 2.0
    score += _centrality(text, phrases)
    if sentence.from_summary:
        score += SUMMARY_BONUS
    return score


def choose(sentences: Sequence[Sentence], scores: Sequence[float], max_chars: int) -> list[Sentence]:
    """Greedily, best first: every sentence that is no repeat and still fits; in original order."""
    ranked = sorted(range(len(sentences)), key=lambda i: (-scores[i], i))
    eligible = [i for i in ranked if scores[i] >= MIN_SALIENCE] or ranked
    chosen: list[int] = []
    facts: set[str] = set()
    for i in eligible:
        if any(_repeats(sentences[i].text, sentences[j].text, facts) for j in chosen):
            continue
        trial = sorted([*chosen, i])
        if len(render([sentences[j] for j in trial])) <= max_chars:
            chosen = trial
            facts |= _facts(sentences[i].text)
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


def keyphrases(text: str, top: int = KEYPHRASES) -> list[str]:
    """YAKE keyphrases (1 to 3 words) of `text`, best first, role labels ignored."""
    if not _WORD.search(text):
        return []
    extractor = yake.KeywordExtractor(lan="en", n=3, top=top, stopwords=stopwords())
    return [str(phrase) for phrase, _score in extractor.extract_keywords(text)]


def _centrality(text: str, phrases: Sequence[str]) -> float:
    lowered = text.lower()
    bonus = 0.0
    for rank, phrase in enumerate(phrases):
        if re.search(r"(?<!\w)" + re.escape(phrase.lower()) + r"(?!\w)", lowered):
            bonus += 1.5 * (len(phrases) - rank) / len(phrases)
    return min(bonus, 4.0)


def _names(text: str) -> list[str]:
    """Capitalised words that do not start the sentence (or a clause after ":"), months aside."""
    names: list[str] = []
    tokens = text.split()
    for previous, token in pairwise(tokens):
        word = token.strip(_QUOTES + ".,;:!?()[]{}")
        if previous.endswith((":", ".", "!", "?")) or word in _NOT_NAMES or _MONTH.fullmatch(word):
            continue
        if _NAME_WORD.match(word):
            names.append(word)
    return names


def _repeats(candidate: str, kept: str, kept_facts: set[str]) -> bool:
    """True when `candidate` says nothing that `kept` (and the facts kept so far) do not already say."""
    a, b = _content_words(candidate), _content_words(kept)
    if not a or not b:
        return candidate.lower() == kept.lower()
    if min(len(a), len(b)) < 3:
        return False
    overlap = len(a & b) / min(len(a), len(b))
    if overlap >= DUPLICATE_OVERLAP:
        return True
    return overlap >= RESTATEMENT_OVERLAP and _facts(candidate) <= kept_facts


def _facts(text: str) -> frozenset[str]:
    """The numbers, names and months of `text`: what a restatement repeats and a new fact adds."""
    found = {match.rstrip(".,").lower() for match in re.findall(r"\d[\d.,]*\w*", text)}
    found |= {word.lower() for word in _names(text)}
    found |= {month.lower() for month in _MONTH.findall(text)}
    return frozenset(found)


def _content_words(text: str) -> frozenset[str]:
    return frozenset(word for word in _WORD.findall(text.lower()) if word not in stopwords())


def _unanswered(turns: Sequence[Turn], index: int) -> bool:
    """No later turn of the other side answers turn `index`, or the answer only put it off."""
    turn = turns[index]
    for later in turns[index + 1 :]:
        if later.role != turn.role and not later.summary:
            return turn.role == "user" and bool(_DEFERRAL.search(later.text))
    return True


def _default_label(turn: Turn) -> str:
    if turn.summary:
        return ""
    return USER_LABEL if turn.role == "user" else ASSISTANT_LABEL
