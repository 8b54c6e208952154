"""Tool intents for the offline voice: the small local model cannot choose tools, so the user's words are
compared with example phrasings of each tool the session declared, by embedding similarity (the app's
embedder). What to say about the tool's answer is `app.offline.replies`'s.

How a match is made (pure parts: `candidates`, `best_intent`, `arguments`):
- The utterance's leading words (1 to 8 of them) and the whole utterance are embedded and compared with
  every example. Leading words, because the intent is said first and what follows ("...the chat about the
  kitchen renovation", "...my daughter is called Mia") would dilute it.
- The best tool wins when its similarity reaches `THRESHOLD` and beats the next tool by `MARGIN`.
  Measured with all-MiniLM-L6-v2: the requests score 0.86-1.00; questions and chat ("what's the weather
  like in Rome tomorrow", "what should we do about the leaking tap", "I forgot my keys at home") 0.3-0.72.
- The words after the matched leading words are the argument: the chat to switch to, the facts to save or
  the note to add (in the third person, `chats.memory.text.third_person`; "A and B" as two when each is a
  statement of its own), the memory to look up or forget, what to look for in earlier chats.
- A request is understood in the language it was said in (detected, the user's `language` the hint), a
  request said as `app.offline.phrases` writes it word for word first; other wordings go to the
  embedder, which compares them with the English examples and those of the user's `language`. The answer
  is in the user's `language` (each utterance's own with "auto").
"""

from __future__ import annotations

import asyncio
import hashlib
import re
import uuid
from collections.abc import Callable, Collection, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from app.offline import chat_facts
from app.offline.phrases import EMBEDDER_LANGUAGE, PHRASES, leading_phrase, phrased_in, phrasings, without_openers
from app.offline.replies import SAY, remembered, supported, tool_answer
from app.offline.web_questions import needs_the_screen, needs_the_web
from app.timers.spoken import timer_call
from chats.embedders.embedding import Embedder, embed_named
from chats.errors import ChatsError, InvalidMemory
from chats.language.words import detect
from chats.memory.categories import guess_category
from chats.memory.preload import memories_in
from chats.memory.text import third_person
from chats.prepared_files import COMPLETE, mapped, prepared
from languages.registry import DEFAULT, table
from voice.live.connection import ToolCall
from voice.offline.router import FromChat, ToolAnswer

THRESHOLD = 0.8
MARGIN = 0.1
MAX_LEAD_WORDS = 8
REASONING = "The user asked to remember this."
EXAMPLE_VECTORS = "vectors.npy"
"""The examples' vectors, in their folder of the model cache (`OfflineIntents.prepare`)."""

EXAMPLES: Mapping[str, tuple[str, ...]] = phrasings(EMBEDDER_LANGUAGE)
"""Tool -> how a user asks for it, said first in the sentence (the argument follows), in the embedder's language."""

_WORD = re.compile(r"[\w']+")


@dataclass(frozen=True, slots=True)
class Candidate:
    text: str
    """Leading words of the utterance (or all of it)."""
    rest: str
    """What the utterance says after them."""


@dataclass(frozen=True, slots=True)
class Intent:
    tool: str
    score: float
    rest: str


def candidates(utterance: str) -> list[Candidate]:
    """The utterance's leading 1..`MAX_LEAD_WORDS` words, each with the rest, and the whole utterance."""
    spans = [match.span() for match in _WORD.finditer(utterance)]
    found = [
        Candidate(utterance[: spans[n - 1][1]], utterance[spans[n - 1][1] :].strip(" ,.;:!?"))
        for n in range(1, min(len(spans), MAX_LEAD_WORDS) + 1)
    ]
    return [*found, Candidate(utterance.strip(), "")]


def best_intent(
    similarity: npt.NDArray[np.floating[Any]], tools: Sequence[str], options: Sequence[Candidate]
) -> Intent | None:
    """The intent `similarity` (candidates x examples) supports, or None below `THRESHOLD` or `MARGIN`."""
    best: dict[str, tuple[float, int]] = {}
    for column, tool in enumerate(tools):
        row = int(np.argmax(similarity[:, column]))
        score = float(similarity[row, column])
        if score > best.get(tool, (-1.0, 0))[0]:
            best[tool] = (score, row)
    ranked = sorted(best.items(), key=lambda item: -item[1][0])
    if not ranked:
        return None
    tool, (score, row) = ranked[0]
    runner_up = ranked[1][1][0] if len(ranked) > 1 else -1.0
    if score < THRESHOLD or score - runner_up < MARGIN:
        return None
    return Intent(tool, score, options[row].rest)


def arguments(intent: Intent, utterance: str, language: str | None = None) -> list[dict[str, Any]]:
    """The arguments of each call of the tool the words after the intent ask for: one call, or one per
    memory for "remember A and B"; none when the tool cannot be called. `language`: the one the user spoke,
    for a memory put in the third person."""
    rest = intent.rest.strip()
    if intent.tool in ("switch_chat", "recall_conversations", "forget_memory"):
        return [{"query": rest or utterance.strip()}]
    if intent.tool == "search_memories":
        return [{"query": rest or utterance.strip(), "limit": 3}]
    if intent.tool in ("save_memory", "add_memory"):
        return [_memory(intent.tool, content, said) for content, said in _memories(rest, language or DEFAULT)]
    return [{}]


def _memories(rest: str, language: str) -> list[tuple[str, str]]:
    """What "remember A and B" keeps, in the third person, each with the words it was said in: A and B apart
    when each is a statement of its own (the third person rewrites each: "I live in Turin and I'm
    vegetarian"), else the whole ("I like bread and butter"); none when it cannot be kept."""
    turn = table(language).get("remember_to")
    if turn is not None and rest.lower().startswith(turn["opening"]):
        rest = turn["memory"].format(rest=rest)
    parts = re.split(rf"\s+{re.escape(table(language)['grammar']['and_word'])}\s+", rest, flags=re.IGNORECASE)
    kept = [_third_person(part, language) for part in parts]
    if len(parts) > 1 and all(said not in (None, part) for said, part in zip(kept, parts, strict=True)):
        return [(said, part) for said, part in zip(kept, parts, strict=True) if said is not None]
    whole = _third_person(rest, language)
    return [] if whole is None else [(whole, rest)]


def _third_person(text: str, language: str) -> str | None:
    try:
        return third_person(text, language)
    except InvalidMemory:
        return None


def _memory(tool: str, content: str, said: str) -> dict[str, Any]:
    category = guess_category(said)
    if tool == "add_memory":
        return {"content": content, "metadata": {"category": category}}
    return {"content": content, "category": category, "reasoning": REASONING}


def _call(tool: str, args: dict[str, Any]) -> ToolCall:
    return ToolCall(id=f"intent-{uuid.uuid4().hex[:8]}", name=tool, args=args)


class OfflineIntents:
    """The offline connection's intent router (`voice.offline.router.IntentRouter`)."""

    def __init__(
        self,
        embedder: Embedder,
        *,
        language: str | None = "en",
        clock: Callable[[], datetime] | None = None,
        zone: tzinfo = UTC,
        instructions: Sequence[str] = (),
        cache: Path | None = None,
    ) -> None:
        """`language`: the code of the language the user speaks; None ("auto") to take each utterance's.
        `clock` and `zone`: the time now and the user's zone, for "in five minutes" and "tomorrow at 9".
        `instructions`: what the system prompt tells the model to do, never to be read out (`unfit`).
        `cache`: where the examples' vectors are kept once made (`prepare`); None: made at every start."""
        self._instructions = instructions
        self._embedder = embedder
        self._cache = cache
        self._clock = clock or (lambda: datetime.now(UTC))
        self._zone = zone
        self._language = language
        self.heard_in: str = language or DEFAULT
        """What the last request's answer is said in: the user's `language`, or with "auto" the request's."""
        examples = [(tool, phrase) for tool, phrases in EXAMPLES.items() for phrase in phrases]
        for language_phrases in PHRASES.values() if language is None else [PHRASES.get(language, {})]:
            examples += [(tool, phrase) for tool, phrases in language_phrases.items() for phrase in phrases]
        self._tools = [tool for tool, _ in examples]
        self._phrases = [phrase for _, phrase in examples]
        self._examples: npt.NDArray[np.float32] | None = None

    async def prepare(self) -> None:
        """Embed the examples now (about 1.5 s with the local model, 15 s at load 11), not in the first
        conversation; or read their vectors from the cache, where the first start keeps them (by model, and by
        the examples themselves: a change of either makes them again)."""
        if self._examples is not None:
            return
        digest = hashlib.sha256("\n".join([self._embedder.model_name, *self._phrases]).encode()).hexdigest()
        kept = None if self._cache is None else self._cache / f"intent-examples-{digest[:32]}"
        if kept is not None:
            self._examples = await asyncio.to_thread(_kept_vectors, kept)
        if self._examples is not None:
            return
        embedded = await embed_named(self._embedder, self._phrases)
        self._examples = embedded.matrix
        if kept is not None and embedded.model == self._embedder.model_name:  # not a fallen-back twin's
            await asyncio.to_thread(_keep_vectors, kept, embedded.matrix)

    async def match(self, text: str, tools: Collection[str]) -> tuple[ToolCall, ...]:
        # Understood in the language it was said in, whatever the setting: a user who set English and
        # says "ricordati che..." asked to remember. The answer is in the setting's language (`heard_in`).
        said_in = phrased_in(text, detect(text, hint=self._language or self.heard_in))
        self.heard_in = self._language or said_in
        text = without_openers(text, said_in)
        timer = timer_call(text, set(tools), said_in, now=self._clock(), zone=self._zone)
        if timer is not None:  # word for word, before any embedding (`app.timers.spoken`)
            return (_call(timer[0], timer[1]),)
        intent = self._said_as_written(text, tools, said_in)
        if intent is None:
            intent = await self._by_similarity(text, tools)
        if intent is None:
            return ()
        return tuple(_call(intent.tool, args) for args in arguments(intent, text, said_in))

    def _said_as_written(self, text: str, tools: Collection[str], language: str) -> Intent | None:
        found = leading_phrase(text, language)
        if found is None or found[0] not in tools:
            return None
        return Intent(found[0], 1.0, found[1])

    async def _by_similarity(self, text: str, tools: Collection[str]) -> Intent | None:
        options = candidates(text)
        try:
            await self.prepare()
            vectors = await self._embedder.embed([option.text for option in options])
        except ChatsError:
            return None  # no intents without the embedder: the chat model still answers
        assert self._examples is not None
        declared = [column for column, tool in enumerate(self._tools) if tool in tools]
        similarity = vectors @ self._examples[declared].T
        return best_intent(similarity, [self._tools[column] for column in declared], options)

    def reply(self, answered: Sequence[tuple[ToolCall, Mapping[str, Any]]]) -> ToolAnswer:
        if len(answered) > 1:  # "remember A and B": only saves come several at once
            return remembered([result for _, result in answered], self.heard_in)
        call, result = answered[0]
        return tool_answer(call.name, result, self.heard_in)

    def supported(self, sentence: str, findings: Sequence[str], question: str) -> bool:
        return supported(sentence, findings, question)

    def from_chat(self, question: str, history: Sequence[tuple[str, str]], system: str) -> FromChat:
        """`app.offline.chat_facts.from_chat`, in the language `question` was heard in (`match` first)."""
        say = SAY.get(self.heard_in, SAY[DEFAULT])
        return chat_facts.from_chat(question, history, memories_in(system), self.heard_in, say)

    def unfit(self, sentence: str, question: str, known: Sequence[str]) -> bool:
        return chat_facts.unfit(sentence, question, known, self._instructions)

    def no_answer(self) -> str:
        """The small voice's honest limit ("no_advice"), in the language the request was heard in (`match`
        first): its own words had nothing fit to say."""
        return SAY.get(self.heard_in, SAY[DEFAULT])["no_advice"]

    def beyond_offline(self, text: str) -> str | None:
        """One honest sentence, in the language `text` was heard in (`match` first), for a question only the
        web can answer, or one about the screen, which the offline voice cannot see."""
        if needs_the_web(text):
            return SAY.get(self.heard_in, SAY[DEFAULT])["no_web"]
        if needs_the_screen(text):
            return str(table(self.heard_in if self.heard_in in SAY else DEFAULT)["screen"]["offline"])
        return None


def _kept_vectors(folder: Path) -> npt.NDArray[np.float32] | None:
    """The examples' vectors kept in `folder`; None when there are none (or they cannot be read)."""
    if not (folder / COMPLETE).is_file():
        return None
    try:
        return mapped(folder / EXAMPLE_VECTORS)
    except (OSError, ValueError):
        return None


def _keep_vectors(folder: Path, vectors: npt.NDArray[np.float32]) -> None:
    with suppress(OSError):  # a read-only cache: made at each start, as before
        prepared(folder, lambda work: np.save(work / EXAMPLE_VECTORS, vectors))
