"""A chat's text read word by word for its title (`chats.text.offline_title`): clauses of words, each with its
lemma, its parts of speech in the text's language (`chats.text.offline_grammar`) and its place."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from chats.text.offline_grammar import ADJ, NOUN, VERB, Grammar, lexicon

_CLAUSE_BREAK = re.compile(r"[,;:!?()\[\]{}\"\u201c\u201d\u00ab\u00bb\u2026\u2013\u2014/]|\s-\s|\.(?=\s|$)")
_WORD = re.compile(r"[^\W_](?:[\w'\u2019+#&.-]*[\w+#])?")
_POSSESSIVE = re.compile(r"['\u2019]s$", re.IGNORECASE)
_ELIDED = re.compile(r"^((?:[a-z]|[a-z]{2,4}[lt]|qu|un)['\u2019])(\w.*)$", re.IGNORECASE)
"""Italian and French elided articles and prepositions glued to the next word ("dell'isola", "l'été")."""


@dataclass(frozen=True, slots=True)
class Word:
    """A word of a clause, read for a title."""

    text: str
    """As written, less a possessive "'s"."""
    lower: str
    lemma: str
    readings: frozenset[str]
    """The lexicon's parts of speech for the word; empty when it does not know it."""
    initial: bool
    """Opens its sentence, where any word has a capital."""
    weight: float
    previous: str
    """The word before it in its sentence, lower case; "" at a sentence start."""
    possessive: bool
    first_turn: bool = False
    """Said in the user's first turn that says something ("Hi!" aside)."""


def read_clauses(sentence: str, weight: float, g: Grammar) -> list[tuple[Word, ...]]:
    found: list[tuple[Word, ...]] = []
    previous = ""
    # German typed all in lower case ("ich will das wohnzimmer streichen") marks no noun by its capital.
    uncased = g.capital_nouns and not any(c.isupper() for c in sentence)
    for piece in _CLAUSE_BREAK.split(sentence):
        clause: list[Word] = []
        for raw in raw_words(piece, g):
            possessive = g.language == "en" and bool(_POSSESSIVE.search(raw)) and raw.lower() not in g.verb_cues
            text = _POSSESSIVE.sub("", raw) if possessive else raw
            lower = text.lower()
            lemma, readings = lexicon(text if g.capital_nouns else lower, g.language)
            if uncased:
                lemma, readings = _uncased_german(lower, lemma, readings)
            elif g.capital_nouns and previous and text[:1].isupper() and lower not in g.not_names:
                readings = frozenset({NOUN})  # German: a capital inside a sentence is a noun's (or a name's)
            elif g.capital_nouns and text[:1].islower() and NOUN in readings:
                readings = frozenset({ADJ})  # German: a word without a capital is no noun
            elif previous in g.noun_after and readings == {VERB} and lemma != lower:
                lemma, readings = lower, frozenset({NOUN, ADJ})  # "il trasloco": a noun, not "io trasloco"
            clause.append(Word(text, lower, lemma, readings, not previous, weight, previous, possessive))
            previous = lower
        found.append(tuple(clause))
    return found


def _uncased_german(lower: str, lemma: str, readings: frozenset[str]) -> tuple[str, frozenset[str]]:
    """A German word written in lower case where no word has a capital: the lexicon's reading of it, but
    an inflected form it takes for a verb's is the noun its capital names ("wände" is "Wände", not
    "winden"); an infinitive stays a verb ("streichen")."""
    if readings == {VERB} and lemma != lower:
        noun_lemma, noun_readings = lexicon(lower.capitalize(), "de")
        if NOUN in noun_readings:
            return noun_lemma, noun_readings
    return lemma, readings


def raw_words(piece: str, g: Grammar) -> Iterator[str]:
    """The words of a clause as written; in Italian and French an elided article or preposition is a
    word of its own ("dell'isola" -> "dell'", "isola")."""
    for match in _WORD.finditer(piece):
        raw = match.group()
        elided = _ELIDED.match(raw) if g.elides else None
        if elided:
            yield elided.group(1).replace("\u2019", "'")
            yield elided.group(2)
        else:
            yield raw
