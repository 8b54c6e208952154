"""What the offline title maker (`chats.text.offline_title`) knows of each language: a word's lemma and what
it can be (noun, adjective, verb), and the small words its rules look for.

- English: lemminflect's lexicon, which lists every reading of a word ("plan" is a noun and a verb).
- Italian, Spanish, French, German: simplemma's lemmatiser (dictionaries for 50 languages, no model, no
  dependency), which gives one lemma per word. A word whose lemma is an infinitive other than itself
  ("parlato" -> "parlare", "hablamos" -> "hablar", "gesprochen" -> "sprechen"), or an infinitive, is read
  as a verb; any other word as a noun or an adjective: in these languages the lemmatiser's choice already
  tells a noun's form ("lavoro", "viaggio") from the verb's. German writes every noun with a capital,
  which the title maker reads itself (`capital_nouns`).
- The noun phrases of Italian, Spanish, French and German put what a thing is for or of after it, joined
  by a preposition ("piastrelle per la cucina", "viaje a Lisboa", "Reise nach Lissabon"): `links` keep
  the phrase in that order, where English turns it into a compound ("kitchen tiles", "Lisbon trip").

The words are data, in `languages/<code>/words.toml` (`[grammar]`).
Pure apart from loading the lexicons once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Final

import lemminflect
import simplemma

from chats.text.offline_words import stopwords
from languages.registry import SUPPORTED, table, words

NOUN, ADJ, VERB = "NOUN", "ADJ", "VERB"


@dataclass(frozen=True, slots=True)
class Grammar:
    language: str
    stopwords: frozenset[str]
    not_names: frozenset[str]
    """Capitalised words that are no names ("Ciao", "Grazie", the days and months)."""
    weak: frozenset[str]
    """Words that never say what a chat is about ("idea", "cosa", "bene"): they end a noun phrase."""
    greetings: frozenset[str]
    """Before a name, these make it the one spoken to ("Ciao Marta")."""
    determiners: frozenset[str]
    """Between a link and the phrase it joins ("per *la* cucina")."""
    links: frozenset[str]
    """Prepositions that join two noun phrases into one subject. English: turned into a compound
    ("tiles for the kitchen wall" -> "kitchen wall tiles"); others: kept in order ("piastrelle per la cucina")."""
    place_links: frozenset[str]
    """The same when the second phrase is a name: "trip to Lisbon", "viaggio a Lisbona"."""
    with_word: str
    """Said before a companion: "with Ana", "con Ana"."""
    and_word: str
    me_words: frozenset[str]
    """"Ana and *I*": the words for the speaker after "and"."""
    about_chat: tuple[str, str]
    """A lone word made a title: "X chat" in English, "Chat su X" in Italian (words before, after)."""
    compounds_reversed: bool = False
    """English: "A for B" reads "B A"."""
    capital_nouns: bool = False
    """German: a capital mid-sentence marks a noun, not a name."""
    elides: bool = False
    """Italian, French: an article or a preposition is glued to the next word by an apostrophe ("dell'isola")."""
    adverb_endings: tuple[str, ...] = ()
    """How an adverb or a superlative ends ("finalmente", "muchísimo"): such a word names no subject."""
    verb_cues: frozenset[str] = field(default_factory=frozenset)
    """After these a word that can be a verb is one (English: "we want to *migrate*")."""
    aim_verbs: frozenset[str] = field(default_factory=frozenset)
    """The verb of learning, its forms: a chat opened to learn to swim is titled by the skill (`title_aims`)."""
    aim_title: tuple[str, str] = ("", "")
    """Words before and after the skill's infinitive in such a title: "learning to" + "swim"."""
    want_verbs: frozenset[str] = field(default_factory=frozenset)
    """Forms of the verbs of wanting and planning: what follows names what the chat is about ("I want to
    build *a garden shed*")."""
    people_nouns: frozenset[str] = field(default_factory=frozenset)
    """Lemmas of the people close to someone ("doctor", "sister"): "*my GP* says my cholesterol is high" is
    about the cholesterol, though the user opens on what is theirs (`offline_title`'s owned phrase)."""
    linking: frozenset[str] = field(default_factory=frozenset)
    """English: between a phrase and its adjective ("loaves keep coming out *flat*" give "flat loaves")."""
    noun_after: frozenset[str] = field(default_factory=frozenset)
    """Articles that are never pronouns: after one, a form the lemmatiser takes for a verb's is a noun
    ("il *trasloco*", not "io trasloco")."""


def _every_language(key: str) -> frozenset[str]:
    """The words of `key` in `[grammar]` gathered from every language: a title in one language may hold
    another's ("user", "dell'", "fünfzig")."""
    return frozenset().union(*(words(table(code)["grammar"].get(key, "")) for code in SUPPORTED))


POSSESSIVES = _every_language("possessives")
"""Dropped from the middle of a title: "Foglie delle mie piante" -> "Foglie delle piante"."""


_ADVERB_ENDINGS = tuple(
    dict.fromkeys(ending for code in SUPPORTED for ending in table(code)["grammar"].get("adverb_endings", []))
)
"""Every language's `adverb_endings`, for every language simplemma reads (a word of one in a chat in another)."""


def _grammar(language: str) -> Grammar:
    """`language`'s `[grammar]`: the flags `elided_stopwords` and `shared_weak` add every language's
    `elided_forms`, and `common_weak` and `number_words`; its
    `calendar` (days and months: when a chat happens, never what it is about) is weak; its `nouns_to_search`
    (words search takes for a request's, "le chat", that are a subject's too: the cat) are no stop words."""
    found = table(language)["grammar"]
    elided = _every_language("elided_forms") if found.get("elided_stopwords") else frozenset()
    weak = words(found["weak"]) | words(found.get("calendar", ""))
    if found.get("shared_weak"):
        weak |= _every_language("common_weak") | _every_language("number_words")
    return Grammar(
        language=language,
        stopwords=(stopwords(language) | elided) - words(found.get("nouns_to_search", "")),
        not_names=words(found["not_names"]),
        weak=weak,
        greetings=words(found["greetings"]),
        determiners=words(found["determiners"]),
        links=words(found["links"]),
        place_links=words(found["place_links"]),
        with_word=found["with_word"],
        and_word=found["and_word"],
        me_words=words(found["me_words"]),
        about_chat=(found["about_chat"][0], found["about_chat"][1]),
        compounds_reversed=found.get("compounds_reversed", False),
        capital_nouns=found.get("capital_nouns", False),
        elides=found.get("elided_stopwords", False),
        adverb_endings=_ADVERB_ENDINGS if "infinitives" in table(language) else (),
        verb_cues=words(found.get("verb_cues", "")),
        noun_after=words(found.get("noun_after", "")),
        linking=words(found.get("linking", "")),
        people_nouns=words(found.get("people_nouns", "")),
        want_verbs=words(found.get("want_verbs", "")),
        aim_verbs=words(found.get("aim_verbs", "")),
        aim_title=(found.get("aim_title", ["", ""])[0], found.get("aim_title", ["", ""])[1]),
    )


GRAMMARS: Final[dict[str, Grammar]] = {code: _grammar(code) for code in SUPPORTED}

_INFINITIVES: Final[dict[str, tuple[str, ...]]] = {
    code: tuple(found["infinitives"]) for code in SUPPORTED if "infinitives" in (found := table(code))
}
"""How an infinitive ends in the languages simplemma reads (all but English)."""


def grammar(language: str) -> Grammar:
    """The grammar of `language` (a code); English for a language it has none of."""
    return GRAMMARS.get(language, GRAMMARS["en"])


@cache
def lexicon(word: str, language: str) -> tuple[str, frozenset[str]]:
    """(lemma, readings) of a word: what it can be among NOUN, ADJ and VERB; no readings when the lexicon
    does not know it (a rare noun, a name). German words (`capital_nouns`) are looked up as written (its lexicon tells
    "Fliesen", the noun, from "fliesen"); the others in lower case."""
    lower = word.lower()
    if language not in _INFINITIVES:
        readings = lemminflect.getAllLemmas(lower)
        lemma = next(iter(readings.get(NOUN, ())), lower)
        return str(lemma).lower(), frozenset(readings)
    looked_up = word if grammar(language).capital_nouns else lower
    if not simplemma.is_known(looked_up, lang=language):
        return lower, frozenset()
    lemma = str(simplemma.lemmatize(looked_up, lang=language)).lower()
    if lemma.endswith(_INFINITIVES[language]) and len(lemma) >= 4:
        return lemma, frozenset({VERB})
    return lemma, frozenset({NOUN, ADJ})
