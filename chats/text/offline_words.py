"""What the offline summariser and the offline title maker both read: the speaker labels an offline
summary files its sentences under, and the stop-words of each language."""

from __future__ import annotations

import re
from functools import cache
from importlib.util import find_spec
from pathlib import Path

from chats.language.words import stop_words
from languages.registry import is_supported

USER_LABEL = "User:"
ASSISTANT_LABEL = "Assistant:"
OPEN_USER_LABEL = "Open question from the user:"
OPEN_ASSISTANT_LABEL = "Open question from the assistant:"
LABELS = (OPEN_USER_LABEL, OPEN_ASSISTANT_LABEL, USER_LABEL, ASSISTANT_LABEL)
LABEL_AT_START = re.compile(r"^\s*(" + "|".join(re.escape(label) for label in LABELS) + r")\s*", re.IGNORECASE)
"""A label opening a line of a transcript (`chats.maintenance.transcript`) or of an offline summary."""


def canonical_label(found: str) -> str:
    """The label as written above, for one `LABEL_AT_START` found in any case."""
    return next(label for label in LABELS if label.lower() == found.lower())


@cache
def stopwords(language: str = "en") -> frozenset[str]:
    """YAKE's own list for `language` (a code), plus the role labels that transcripts and summaries carry on
    every line; in other languages than English, also `chats.language.words`'s function words and the ways
    people ask for a chat."""
    words = yake_stopwords(language) | {"user", "assistant"}
    if language != "en" and is_supported(language):
        words |= stop_words(language)
    return words


def yake_stopwords(language: str) -> frozenset[str]:
    """YAKE's own stop-word list for `language`, read from its package as `yake.KeywordExtractor` reads it, without
    importing yake: its import brings networkx (a quarter of a second), which a title, needing only the list, would
    pay (`parley ask` titles its chat before it exits)."""
    spec = find_spec("yake")
    assert spec is not None and spec.submodule_search_locations is not None, "yake is a dependency"
    lists = Path(next(iter(spec.submodule_search_locations))) / "core" / "StopwordsList"
    path = lists / f"stopwords_{language[:2].lower()}.txt"
    if not path.exists():
        path = lists / "stopwords_noLang.txt"
    return frozenset(path.read_text(encoding="utf-8").lower().split("\n"))
