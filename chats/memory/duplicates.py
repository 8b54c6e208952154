"""Is a new memory a duplicate of one already kept? A pure decision on two texts and their cosine.

Spec 001 rejects a new memory whose cosine similarity to an existing one is above 0.95. With
all-MiniLM-L6-v2 that line alone is both too strict and too loose: true restatements score 0.85-0.93
("User likes TypeScript" / "User prefers using TypeScript": 0.87), while facts that differ in one detail
score above it ("User's daughter was born in 2019" / "... in 2021": 0.96; "Caroline gave Melanie a
book" / "Melanie gave Caroline a book": 0.99). So the rule here is:

1. the same text once normalised (case, punctuation, whitespace, a leading "User"/"The user") is a
   duplicate, whatever the vectors say;
2. from `CANDIDATE_SIMILARITY` (0.85) up, a pair is a duplicate when its details agree: the same
   numbers and dates, the same named people and places with the same first one (the subject), and no
   word of negation, dislike or kinship in one text only ("son"/"daughter", "likes"/"does not like");
3. above `CERTAIN_SIMILARITY` (0.95, the spec's line) the details check still applies: it only ever
   vetoes on a concrete disagreement, which is exactly what MiniLM cannot see.

Limits: a paraphrase that names its people in another order ("Melanie got a book from Caroline") is
missed (two memories are kept rather than one lost); facts that differ only in a common noun outside the
kinship list ("User prefers tea" / "User prefers coffee") rely on their cosine staying under 0.85.
bench/memory.py measures precision and recall on a labelled paraphrase set.
"""

from __future__ import annotations

from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Literal

from chats.memory.text import comparison_key, names, numbers, words
from languages import registry

CERTAIN_SIMILARITY = 0.95
"""Spec 001's line: above it, two memories are the same fact unless their details disagree."""
CANDIDATE_SIMILARITY = 0.85
"""From here up, a pair whose details agree is the same fact (MiniLM restatements score 0.85-0.93)."""

_DETAILS = registry.table("en")["memory_details"]
_NEGATIONS = registry.words(_DETAILS["negations"])
"""Negation and dislike: a text holding one of these says the opposite of one holding none."""
_CONTRAST_WORDS = registry.words(_DETAILS["contrast"])
"""Words that change who a fact is about when one text has them and the other does not."""

Reason = Literal["same text", "same details", "same fact", "details differ", "not similar"]


@dataclass(frozen=True, slots=True)
class DuplicateVerdict:
    duplicate: bool
    reason: Reason


def details_agree(new: str, old: str) -> bool:
    """Same numbers, dates and named things, not the same names with their roles swapped, and no
    contrast word in one text only."""
    if numbers(new) != numbers(old):
        return False
    new_names, old_names = _reliable_names(new, old), _reliable_names(old, new)
    if set(new_names) != set(old_names):
        return False
    if new_names != old_names and _masked_alike(new, old):
        return False  # "Caroline gave Melanie a book" / "Melanie gave Caroline a book"
    new_words = {w.replace("'", "") for w in words(new)}
    old_words = {w.replace("'", "") for w in words(old)}
    if bool(new_words & _NEGATIONS) != bool(old_words & _NEGATIONS):
        return False
    return not ((new_words ^ old_words) & _CONTRAST_WORDS)


def _reliable_names(text: str, other: str) -> list[str]:
    """`names(text)`, keeping a sentence-opening word only when `other` names it too."""
    others = {name.lstrip("^") for name in names(other)}
    return [name.lstrip("^") for name in names(text) if not name.startswith("^") or name[1:] in others]


SWAP_SIMILARITY = 0.8
"""Share of words two texts keep in the same order once their names are masked, from which a
different order of the names means they swapped roles rather than the sentence being rephrased."""


def _masked_alike(new: str, old: str) -> bool:
    return SequenceMatcher(None, masked_words(new), masked_words(old), autojunk=False).ratio() >= SWAP_SIMILARITY


def masked_words(text: str) -> list[str]:
    """`words(text)` with each named thing as "<name>": what a fact says, whoever it says it of."""
    named = {name.lstrip("^") for name in names(text)}
    return ["<name>" if word in named else word for word in words(text)]


def judge_duplicate(new: str, old: str, similarity: float) -> DuplicateVerdict:
    """Whether `new` repeats `old`, given the cosine similarity of their embeddings."""
    if comparison_key(new) == comparison_key(old):
        return DuplicateVerdict(True, "same text")
    if similarity < CANDIDATE_SIMILARITY:
        return DuplicateVerdict(False, "not similar")
    if details_agree(new, old):
        return DuplicateVerdict(True, "same details")
    return DuplicateVerdict(False, "details differ")
