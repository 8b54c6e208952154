"""Word error rate as bench/offline.py counts it. Pure functions.

Both texts are normalised alike before words are compared, after the convention of Whisper's English
normaliser (a simplified form of it, stated in `NORMALISATION`): case, punctuation and hyphens do not
count ("out-of-bye" is three words), contractions are spelled out ("that's" = "that is", "let's" =
"let us") and number words are digits ("ten" = "10", "twenty five" = "25"). Errors are the word-level
Levenshtein distance: substitutions, deletions and insertions, over the reference's word count.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

NORMALISATION = (
    "Whisper's English normaliser convention, simplified: lower case; punctuation and hyphens dropped; "
    "contractions spelled out (won't, can't, let's, n't, 're, 's, 'd, 'll, 've, 'm); number words from "
    "zero to ninety-nine as digits"
)

_CONTRACTIONS = (
    (re.compile(r"\bwon't\b"), "will not"),
    (re.compile(r"\bcan't\b"), "can not"),
    (re.compile(r"\blet's\b"), "let us"),
    (re.compile(r"n't\b"), " not"),
    (re.compile(r"'re\b"), " are"),
    (re.compile(r"'s\b"), " is"),
    (re.compile(r"'d\b"), " would"),
    (re.compile(r"'ll\b"), " will"),
    (re.compile(r"'ve\b"), " have"),
    (re.compile(r"'m\b"), " am"),
)
_UNITS = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen".split()
_UNITS += "sixteen seventeen eighteen nineteen".split()
_TENS = {word: 10 * n for n, word in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split(), 2)}
_NUMBERS = {word: n for n, word in enumerate(_UNITS)} | _TENS
_WORD = re.compile(r"[a-z0-9']+")


def normalised_words(text: str) -> list[str]:
    """`text` as the words that are compared (see `NORMALISATION`)."""
    text = text.lower().replace("\u2019", "'").replace("-", " ")
    for pattern, spelled in _CONTRACTIONS:
        text = pattern.sub(spelled, text)
    words = [word.strip("'") for word in _WORD.findall(text)]
    return _digits([word for word in words if word])


def _digits(words: list[str]) -> list[str]:
    out: list[str] = []
    for word in words:
        value = _NUMBERS.get(word)
        if value is None:
            out.append(word)
        elif out and 0 < value < 10 and out[-1].isdigit() and int(out[-1]) in _TENS.values():
            out[-1] = str(int(out[-1]) + value)  # "twenty five" -> 25
        else:
            out.append(str(value))
    return out


def word_errors(reference: Sequence[str], hypothesis: Sequence[str]) -> int:
    """Levenshtein distance over words: substitutions, deletions and insertions."""
    row = list(range(len(hypothesis) + 1))
    for i, ref in enumerate(reference, 1):
        previous, row[0] = row[0], i
        for j, hyp in enumerate(hypothesis, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (ref != hyp))
    return row[-1]


@dataclass(frozen=True, slots=True)
class Scored:
    name: str
    said: str
    heard: str
    words: int
    """Words in the reference, normalised."""
    errors: int

    def to_json(self) -> dict[str, object]:
        return {"name": self.name, "said": self.said, "heard": self.heard, "words": self.words, "errors": self.errors}


def scored(name: str, said: str, heard: str) -> Scored:
    reference = normalised_words(said)
    return Scored(name, said, heard, len(reference), word_errors(reference, normalised_words(heard)))


def rate(rows: Sequence[Scored]) -> float:
    """Errors over reference words, all rows pooled."""
    return round(sum(row.errors for row in rows) / sum(row.words for row in rows), 4)
