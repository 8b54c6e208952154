"""Whether a fact to remember comes from what the user said, and whether they asked for it to be kept.

A memory tool call carries the model's third-person rephrasing ("User's daughter is named Mia"), and
the user's own words are at hand ("my daughter Mia starts school"). The fact is grounded when its
content words are found among the user's: names and numbers exactly, other words by their stem (the
Snowball stem of the user's language cut to its first `STEM` letters, so "prefers" matches "prefer",
"works" matches "work" and "daughter's" matches "daughter"). Words the
rephrasing adds ("user", "is", "named"; the offline voice's "Der Nutzer ist", "L'utente è", written in the
fact's language) are not content words. The check refuses what the model read in
its instructions, in a recalled memory or wrote itself, without judging the fact's wording.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from chats.language.words import detect, stem
from languages.registry import SUPPORTED, Language, table, words

STEM = 5
"""Letters two words must share at the start to count as the same word."""
MIN_COVERAGE = 0.6
"""Share of the fact's content words the user must have said (names and numbers: all of them)."""
ANCHORED_COVERAGE = 0.34
"""The share when the fact names someone, somewhere or a number the user said: the name anchors it, and
the verb is often the rephrasing's ("I moved to Berlin" kept as "User lives in Berlin")."""

_WORD = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)*")
_GROUNDING = {code: table(code)["memory_grounding"] for code in SUPPORTED}
"""Each language's `[memory_grounding]` (`languages/<code>/memory.toml`)."""
_REPHRASING = {code: words(section["rephrasing"]) for code, section in _GROUNDING.items()}
_MODELS_LANGUAGE = "en"
"""The language the conversation's model writes a memory's rephrasing in: its words are never content words,
whatever the language of the fact (the offline voice writes it in the user's)."""
_ASKED = re.compile("|".join(f"(?:{section['asked']})" for section in _GROUNDING.values()), re.IGNORECASE)


def _words(text: str) -> list[str]:
    return [word.replace("\u2019", "'") for word in _WORD.findall(text)]


def _stem(word: str, language: Language) -> str:
    word = word.lower().removesuffix("'s")
    return word if word.isdigit() else stem(word, language)[:STEM]


def _content(text: str, language: Language) -> list[str]:
    """The words of `text` (a fact in `language`) that its rephrasing did not add."""
    added = _REPHRASING[language] | _REPHRASING[_MODELS_LANGUAGE]
    return [word for word in _words(text) if word.lower() not in added]


def names_and_numbers(text: str, language: Language | None = None) -> list[str]:
    """The words of `text` that must be said exactly: names (capitalised, past its first content word) and
    numbers. `language`: the text's (None: detected)."""
    content = _content(text, language or detect(text))
    return [word for word in content[1:] if word[0].isupper() or word.isdigit()] + (
        [content[0]] if content and content[0].isdigit() else []
    )


def grounded(fact: str, user_said: Sequence[str]) -> bool:
    """Whether the user said what `fact` states: every name and number in it, and most of its other words."""
    language = detect(" ".join(user_said))
    said = {_stem(word, language) for text in user_said for word in _words(text)}
    fact_language = detect(fact, hint=language)
    content = _content(fact, fact_language)
    if not content or not said:
        return False
    exact = names_and_numbers(fact, fact_language)
    if any(_stem(word, language) not in said for word in exact):
        return False
    found = sum(_stem(word, language) in said for word in content)
    return found / len(content) >= (ANCHORED_COVERAGE if exact else MIN_COVERAGE)


def asked_to_remember(user_said: str) -> bool:
    """Whether the user explicitly asked for something to be kept ("remember that...", "it's important")."""
    return _ASKED.search(user_said) is not None
