"""Whether a short phrase was said in a transcript: whole words, in order, case, accents and punctuation aside.
Pure, and light to import (a ringing timer asks it before any model loads)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection


def matching(text: str, phrases: Collection[str]) -> str | None:
    """The first of `phrases` whose words occur, in order and whole, in `text`; None for none."""
    heard = _words(text)
    for phrase in phrases:
        wanted = _words(phrase)
        if wanted and any(heard[i : i + len(wanted)] == wanted for i in range(len(heard) - len(wanted) + 1)):
            return phrase
    return None


def _words(text: str) -> list[str]:
    plain = unicodedata.normalize("NFKD", text.casefold())
    return re.findall(r"\w+", "".join(c for c in plain if not unicodedata.combining(c)))
