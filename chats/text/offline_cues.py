"""The cue words of the offline summariser (`chats.text.offline_text`), per language: what makes a sentence
worth keeping (a date, an amount, a decision, a commitment, a preference, an open question's deferral)
and what makes it filler. English as the summariser had it; Italian, Spanish, French and German written
to the same plan, each in its everyday forms, in `languages/<code>/words.toml` (`[cues]`). Pure."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from languages.registry import SUPPORTED, table

_NUMBERS_AND_UNITS = (
    r"\d\s?(?:%|k\b|kg\b|g\b|km\b|m\b|cm\b|mm\b|m2\b|m²|sqm\b|ft\b|h\b|hrs?\b|mins?\b|l\b|ml\b|°c?)"
    r"|\b\d{1,2}[:.]\d{2}\b|\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}/\d{1,2}(?:/\d{2,4})?\b"
)
"""Clock times, dates and units written the same way in every language."""


@dataclass(frozen=True, slots=True)
class Cues:
    language: str
    """Its ISO 639-1 code."""
    month: re.Pattern[str]
    """A month's name (English and German: case-sensitive, "may" and "march" are also verbs)."""
    date_or_time: re.Pattern[str]
    relative_day: re.Pattern[str]
    money_or_unit: re.Pattern[str]
    decision: re.Pattern[str]
    commitment: re.Pattern[str]
    preference: re.Pattern[str]
    filler: re.Pattern[str]
    """Matched at a sentence's start: greetings, thanks, "ok"."""
    deferral: re.Pattern[str]
    """An answer that puts a question off ("not sure", "I'll check"): the question stays open."""
    not_names: frozenset[str]
    """Capitalised words that are no names ("I", "OK")."""
    capital_nouns: bool
    """German (its `[grammar]`): every noun has a capital, so a capital names no one."""
    space_before_punctuation: bool
    """French: "Bonjour ! Ça va ?", a space the sentence splitter reads as no sentence's end."""


def _cues(language: str) -> Cues:
    """`language`'s `[cues]`. A pattern written as a list is its pieces joined end to end; with
    `shared_numbers`, dates and amounts also match `_NUMBERS_AND_UNITS`."""
    file = table(language)
    found = file["cues"]

    def pattern(name: str) -> re.Pattern[str]:
        written = found[name]
        text = written if isinstance(written, str) else "".join(written)
        if name in ("date_or_time", "money_or_unit") and found.get("shared_numbers"):
            text = f"{text}|{_NUMBERS_AND_UNITS}"
        case_sensitive = name == "month" and found.get("month_case_sensitive", False)
        return re.compile(text, 0 if case_sensitive else re.IGNORECASE)

    return Cues(
        language=language,
        month=pattern("month"),
        date_or_time=pattern("date_or_time"),
        relative_day=pattern("relative_day"),
        money_or_unit=pattern("money_or_unit"),
        decision=pattern("decision"),
        commitment=pattern("commitment"),
        preference=pattern("preference"),
        filler=pattern("filler"),
        deferral=pattern("deferral"),
        not_names=frozenset(found["not_names"]),
        capital_nouns=file["grammar"].get("capital_nouns", False),
        space_before_punctuation=found.get("space_before_punctuation", False),
    )


CUES: Final[dict[str, Cues]] = {code: _cues(code) for code in SUPPORTED}
"""Language code -> its cues."""
ENGLISH: Final = CUES["en"]
