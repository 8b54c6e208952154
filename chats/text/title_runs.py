"""The noun phrases of a clause, read for a chat's title (`chats.text.offline_title`): runs of words that can be
nouns or adjectives (or are names, or unknown to the lexicon), each ending on one that can be a noun. Pure."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from chats.text.offline_grammar import ADJ, NOUN, VERB, Grammar, lexicon
from chats.text.title_words import Word

MAX_PHRASE_WORDS = 4
"""A phrase leaves room for "with Ana" within the title's five words."""


def noun_runs(
    clause: Sequence[Word], names: dict[str, str], persons: frozenset[str], g: Grammar
) -> Iterator[list[Word]]:
    """The noun phrases of one clause, in order."""
    run: list[Word] = []
    for word in clause:
        if run and VERB in word.readings and not word.readings & {NOUN, ADJ}:
            # A gerund modifies the noun after it ("billing service") but follows none: "kids *taking*".
            if trimmed := _trim(run, names):
                yield trimmed
            run = []
        if _nominal(word, names, persons, g) and not (run and _french_verb_after_noun(run[-1], word, names, g)):
            run.append(word)
            if not word.possessive:
                continue
        if trimmed := _trim(run, names):
            yield trimmed
        run = []
    if trimmed := _trim(run, names):
        yield trimmed


def _nominal(word: Word, names: dict[str, str], persons: frozenset[str], g: Grammar) -> bool:
    if word.lower in names:
        return True
    if word.lower in g.stopwords or {word.lower, word.lemma} & g.weak or any(c.isdigit() for c in word.lower):
        return False
    if word.lower.endswith(g.adverb_endings) and len(word.lower) > 7:
        return False  # an Italian or Spanish adverb or superlative: "finalmente", "muchísimo"
    if g.language != "en" and word.previous in names and word.text.islower() and word.lemma != word.lower:
        return False  # an inflected word after a name is its verb: "Rocky *continua* a grattarsi"
    if not word.readings:
        return len(word.lower) > 2  # unknown to the lexicon: a rare noun or a name, rarely a verb
    if VERB in word.readings and (word.previous in g.verb_cues or word.previous in persons):
        return False
    english_gerund = g.language == "en" and word.lower.endswith("ing") and VERB in word.readings
    return bool(word.readings & {NOUN, ADJ}) or english_gerund


def _trim(run: list[Word], names: dict[str, str]) -> list[Word]:
    """The run ended on a word that can be a noun, at most `MAX_PHRASE_WORDS` long."""
    end = len(run)
    while end and not _head(run[end - 1], names):
        end -= 1
    return run[max(0, end - MAX_PHRASE_WORDS) : end]


def _head(word: Word, names: dict[str, str]) -> bool:
    return word.lower in names or not word.readings or NOUN in word.readings


def _french_verb_after_noun(noun: Word, word: Word, names: dict[str, str], g: Grammar) -> bool:
    """A French word right after a singular noun that is a verb's present as well as a noun: "le congélateur
    *marche* encore", "le robinet *coule*"; not after a plural, whose verb would not end so ("pneus neige")."""
    if g.language != "fr" or word.lower in names or word.lemma != word.lower or not word.lower.endswith("e"):
        return False
    if noun.lower.endswith(("s", "x")) and noun.lemma != noun.lower:
        return False
    return lexicon(word.lower + "r", "fr")[1] == {VERB}
