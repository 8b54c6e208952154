"""Text between the parts of the offline voice. Pure functions.

- What Whisper is told before it listens: who the user speaks to (`whisper_prompt`).
- What Whisper heard, cleaned: the wake phrase the pre-roll carries ("Hey Jarvis, what's...") cut off.
- What the chat model writes, made speakable and cut into sentences as it streams, so the first
  sentence is spoken while the rest is still being generated.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import PurePath

_WORD = re.compile(r"[a-z0-9']+")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_MARKUP = re.compile(r"[*_`#>|~]+")
_LIST_MARK = re.compile("^\\s*(?:[-\u2022\u2013]|\\d{1,2}[.)])\\s+")
"""A list item's mark ("- ", a bullet, "2. "): said aloud, a "dash" or a number that means nothing."""
_URL = re.compile(r"\(?\bhttps?://\S+|\bwww\.\S+")
_EMOJI = re.compile("[\U0001f000-\U0001faff\u2600-\u27bf\ufe0f]")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+|\n+")
_CLAUSE_END = re.compile(r"(?<=[,;:])\s+")
_SPACES = re.compile(r"\s+")
_HALLUCINATIONS = frozenset({"you", "thank you", "thanks for watching", "bye"})
"""What Whisper says on near-silence or noise: not a user turn."""


def wake_phrase_of(wake_word: str) -> str:
    """The words of a wake word model's name: "hey_jarvis" -> "hey jarvis"; a custom model's file stem too
    ("models/ok_computer.onnx" -> "ok computer")."""
    return " ".join(_WORD.findall(PurePath(wake_word).stem.lower().replace("_", " ")))


def whisper_prompt(wake_phrase: str | None) -> str | None:
    """Text Whisper reads as said before the utterance: that a user speaks to an assistant called by the
    wake phrase's last word ("hey jarvis" -> "A user speaks to Jarvis, a voice assistant."). Generic on
    purpose: it names the assistant, never anything a user might ask. On the fixtures it turned "Hey,
    Thomas" and "Hey, novice" back into "Hey Jarvis"; prompts that quote the whole wake phrase made Whisper
    leave it out of the transcript instead (bench/offline.py)."""
    words = _WORD.findall(wake_phrase.lower()) if wake_phrase else []
    return f"A user speaks to {words[-1].capitalize()}, a voice assistant." if words else None


def without_wake_phrase(text: str, wake_phrase: str | None) -> str:
    """`text` without a leading wake phrase (all of it, or its last word: the pre-roll may start mid-phrase),
    nor the punctuation after it; the next word capitalised."""
    text = text.strip()
    if not wake_phrase:
        return text
    phrase = _WORD.findall(wake_phrase.lower())
    for words in (phrase, phrase[-1:]):
        pattern = r"^\W*" + r"\W+".join(re.escape(word) for word in words) + r"\b[\s,.!?;:-]*"
        match = re.match(pattern, text, flags=re.IGNORECASE)
        if match:
            rest = text[match.end() :]
            return rest[:1].upper() + rest[1:]
    return text


def is_noise(text: str) -> bool:
    """Whisper's words for silence, a cough or a click: nothing the user meant."""
    words = " ".join(_WORD.findall(text.lower()))
    return not words or words in _HALLUCINATIONS


def speakable(text: str) -> str:
    """Model text as something to say aloud: no markdown, list marks, links, emoji or line breaks."""
    text = _MARKUP.sub("", _URL.sub("", _LINK.sub(r"\1", _LIST_MARK.sub("", text))))
    return _SPACES.sub(" ", _EMOJI.sub("", text)).strip()


REPEAT_MIN_WORDS = 4
"""A sentence this long or longer is not said again ("Sounds good." may be)."""


def said_before(sentence: str, earlier: Sequence[str]) -> bool:
    """Whether `sentence` (of `REPEAT_MIN_WORDS` words or more) is, word for word, in one of the `earlier`
    answers: the small model answers a new question with an old answer when it has none."""
    words = _WORD.findall(sentence.lower())
    if len(words) < REPEAT_MIN_WORDS:
        return False
    said = f" {' '.join(words)} "
    return any(said in f" {' '.join(_WORD.findall(answer.lower()))} " for answer in earlier)


MAX_WORDS = 24
FIRST_MAX_WORDS = 6


@dataclass
class SentenceSplitter:
    """Collects streamed text and hands out whole sentences as soon as they end.

    A sentence ends at ., ! or ? followed by a space, or at a line break. A sentence running past
    `max_words` is cut after a comma; the first one already past `first_max_words`, since the first audio
    waits for it ("The weather in Rome is quite pleasant," is heard while ", with a mild Mediterranean
    climate." is still being written: about 0.15 s sooner at 50 tokens a second)."""

    max_words: int = MAX_WORDS
    first_max_words: int = FIRST_MAX_WORDS
    _pending: str = field(default="", repr=False)
    _started: bool = field(default=False, repr=False)

    def push(self, piece: str) -> list[str]:
        """Add streamed text; the sentences it completes, speakable and non-empty."""
        self._pending += piece
        sentences: list[str] = []
        while True:
            match = _SENTENCE_END.search(self._pending)
            if match is None:
                match = self._long_clause()
            if match is None:
                break
            sentence, self._pending = self._pending[: match.start()], self._pending[match.end() :]
            if said := speakable(sentence):
                sentences.append(said)
                self._started = True
        return sentences

    def _long_clause(self) -> re.Match[str] | None:
        if len(self._pending.split()) <= (self.max_words if self._started else self.first_max_words):
            return None
        clauses = list(_CLAUSE_END.finditer(self._pending))
        return clauses[-1] if clauses else None

    def flush(self) -> list[str]:
        """The rest, once the stream has ended."""
        rest, self._pending = speakable(self._pending), ""
        return [rest] if rest else []
