"""The words of a memory: third-person content, comparison keys, and the details two facts must share;
and a memory said back to the user ("You live in Lyon").

Third person (spec 001: "User prefers TypeScript", never "I prefer TypeScript"). The rule chosen:
`third_person` *rewrites* the simple first-person forms the spec's table shows, at the start of each
sentence ("I am"/"I'm" -> "User is", "I have"/"I've" -> "User has", "I prefer" -> "User prefers",
"I moved" -> "User moved", "My wife" -> "User's wife"), and "my/me/myself/mine" inside a sentence
("their/them/themselves/theirs"). First-person words it cannot rewrite safely (an "I" in the middle of
a sentence, "we", "our", "us") raise `InvalidMemory` with a message the tool passes back, so the model
rephrases. Quoted text ("..." or “...”) is never touched nor checked.

Other languages (Italian, Spanish, French, German; the text's own, found by `chats.language.words.detect`, with
the caller's language as the hint for a text too short to tell): their simple forms are rewritten
(`chats.memory.person_forms`: "mi chiamo Marco" -> "L'utente si chiama Marco"), and a text that still
speaks in the first person keeps the user's words with a clear subject ('L'utente ha detto: “...”')
rather than being refused: the offline voice has no model to rephrase it, and Gemini writes its memories
in the third person already.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

from chats.errors import InvalidMemory
from chats.language.words import detect
from chats.memory import person_forms, said_to_user
from chats.memory.instructions import refuse_instructions
from chats.memory.models import CONTENT_MAX, CONTENT_MIN
from languages import registry

SUBJECT = "User"
"""How a memory names the user."""

_QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_ENGLISH = registry.table("en")["memory_text"]
"""`languages/en/memory.toml`'s `[memory_text]`: English's morphology and the words of a fact's details."""
_IRREGULAR_PAST = registry.words(_ENGLISH["irregular_past"])
_UNCHANGED = registry.words(_ENGLISH["modals"])
_ES_AFTER = tuple(_ENGLISH["es_after"])
_ES_DROPPED_AFTER = tuple(_ENGLISH["es_dropped_after"])
_LEADING: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), replacement) for pattern, replacement in _ENGLISH["leading"]
)
_ADVERBS = _ENGLISH["adverbs"]
_LEADING_VERB = re.compile(rf"^I ((?:{_ADVERBS}) )?([a-z]+)\b")
_INNER: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(rf"\b{mine}\b"), theirs) for mine, theirs in _ENGLISH["inner"].items()
)
_FIRST_PERSON = re.compile(_ENGLISH["first_person"])


def third_person(content: str, language: str | None = None) -> str:
    """`content` as a third-person memory, stripped and on one line; raise `InvalidMemory` when it
    is too short, too long, speaks to the assistant (`chats.memory.instructions`), or, in English, still
    speaks in the first person after the simple rewrites. `language`: the user's (a hint for short texts)."""
    text = " ".join(content.split())
    if not text:
        raise InvalidMemory(f"Content too short (minimum {CONTENT_MIN} characters)")
    # The bounds hold for what is kept, after the rewrites ("I'm vegan", 9 characters, is kept as "User is
    # vegan", 13). Checked before the rewrites too: a long text in the first person must hear that it is too long, not
    # how to rephrase what would then still be refused.
    _not_too_long(text)
    refuse_instructions(text)
    # A memory about "User" is English whatever its names make the detector think ("User's nonna Pina").
    written_in = "en" if _USER_ELSEWHERE.match(text) else detect(text, hint=language)
    if written_in != "en":
        result = _outside_quotes(text, lambda unquoted: _other_third_person(unquoted, text, written_in))
        return _within_bounds(result)

    def rewrite(unquoted: str) -> str:
        rewritten = " ".join(_rewrite_sentence(sentence) for sentence in _SENTENCE.split(unquoted))
        left = _FIRST_PERSON.search(rewritten)
        if left:
            raise InvalidMemory(
                f"Write the memory in the third person, e.g. 'User prefers TypeScript' (found {left.group(0)!r})"
            )
        return rewritten

    return _within_bounds(_outside_quotes(text, rewrite))  # "I" becomes "User": the rewrite lengthens it


def _within_bounds(kept: str) -> str:
    if len(kept) < CONTENT_MIN:
        raise InvalidMemory(f"Content too short (minimum {CONTENT_MIN} characters)")
    _not_too_long(kept)
    return kept


def _other_third_person(unquoted: str, whole: str, language: str) -> str:
    """`third_person` in a language other than English; the user's words, whole, with a subject when a
    sentence still speaks in the first person."""
    rewritten = " ".join(
        person_forms.third_person_sentence(sentence, language) for sentence in _SENTENCE.split(unquoted)
    )
    if person_forms.first_person_left(rewritten, language) is None:
        return rewritten
    return person_forms.said(whole, language)


def _not_too_long(text: str) -> None:
    if len(text) > CONTENT_MAX:
        raise InvalidMemory(f"Content too long (maximum {CONTENT_MAX} characters, got {len(text)})")


def _outside_quotes(text: str, rewrite: Callable[[str], str]) -> str:
    """`rewrite` applied to `text` with its quoted parts ("..." or “...”) hidden from it, then put back."""
    quotes: list[str] = []

    def hide(match: re.Match[str]) -> str:
        quotes.append(match.group(0))
        return f"\x00{len(quotes) - 1}\x00"

    rewritten = rewrite(_QUOTED.sub(hide, text))
    return re.sub("\x00(\\d+)\x00", lambda m: quotes[int(m.group(1))], rewritten)


def _rewrite_sentence(sentence: str) -> str:
    for pattern, replacement in _LEADING:
        new, count = pattern.subn(replacement, sentence, count=1)
        if count:
            sentence = new
            break
    else:
        verb = _LEADING_VERB.match(sentence)
        if verb:
            adverb = verb.group(1) or ""
            sentence = f"User {adverb}{_third_person_verb(verb.group(2))}{sentence[verb.end() :]}"
    for pattern, replacement in _INNER:
        sentence = pattern.sub(replacement, sentence)
    return sentence


def _third_person_verb(verb: str) -> str:
    """ "prefer" -> "prefers", "go" -> "goes", "try" -> "tries"; past tenses and modals stay."""
    if verb in _UNCHANGED or verb in _IRREGULAR_PAST or verb.endswith("ed"):
        return verb
    if verb == "have":
        return "has"
    if verb.endswith(_ES_AFTER):
        return verb + "es"
    if len(verb) > 1 and verb.endswith("y") and verb[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


_USER_POSSESSIVE = re.compile(r"\b(?:[Tt]he [Uu]ser|User)['\u2019]s\b")
_USER_SUBJECT = re.compile(rf"(^|, |,? and |; )(?:[Tt]he [Uu]ser|User)( (?:{_ADVERBS}))? ([a-z]+?(?:n['\u2019]t)?)\b")
_USER_ELSEWHERE = re.compile(r"\b(?:[Tt]he [Uu]ser|User)\b")
_THEIR_WORDS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(rf"\b{theirs}\b"), yours) for theirs, yours in _ENGLISH["their_words"].items()
)
"""In a sentence about the user, "their" is theirs (`third_person` wrote it for "my")."""
_PLURAL_FORMS: dict[str, str] = _ENGLISH["plural_forms"]


def second_person(content: str, language: str | None = None) -> str:
    """A third-person memory said to the user: "User's daughter Mia loves horses" -> "Your daughter Mia
    loves horses", "User works at a bakery" -> "You work at a bakery". The inverse of `third_person`'s
    simple forms: a sentence's (or clause's) subject "User" takes the verb after it, and in a sentence
    that starts with it "their" is the user's (`_THEIR_WORDS`); elsewhere "User" becomes "you". In
    another language (detected, `language` the hint), its simple forms (`chats.memory.person_forms`)."""
    written_in = "en" if _USER_ELSEWHERE.match(content) else detect(content, hint=language)
    if written_in != "en":
        return " ".join(
            said_to_user.second_person_sentence(sentence, written_in) for sentence in _SENTENCE.split(content)
        )
    return _outside_quotes(content, lambda unquoted: " ".join(map(_to_user, _SENTENCE.split(unquoted))))


def _to_user(sentence: str) -> str:
    sentence = sentence.replace("\u2019", "'")  # one apostrophe for the verb forms
    about_user = sentence.startswith(("User ", "The user ", "the user "))
    sentence = _USER_POSSESSIVE.sub("your", sentence)
    sentence = _USER_SUBJECT.sub(lambda m: f"{m.group(1)}you{m.group(2) or ''} {_base_verb(m.group(3))}", sentence)
    sentence = _USER_ELSEWHERE.sub("you", sentence)
    if about_user:
        for pattern, replacement in _THEIR_WORDS:
            sentence = pattern.sub(replacement, sentence)
    return sentence[:1].upper() + sentence[1:] if sentence.startswith(("you", "your")) else sentence


def _base_verb(verb: str) -> str:
    """ "works" -> "work", "goes" -> "go", "studies" -> "study", "is" -> "are"; past tenses and modals stay."""
    if verb in _PLURAL_FORMS:
        return _PLURAL_FORMS[verb]
    if verb.endswith(_ES_DROPPED_AFTER):
        return verb[:-2]
    if len(verb) > 4 and verb.endswith("ies"):
        return verb[:-3] + "y"
    if verb.endswith("s") and not verb.endswith("ss"):
        return verb[:-1]
    return verb


_SUBJECT_PREFIX = re.compile(r"^(?:the\s+)?user\b", re.IGNORECASE)
_NOT_WORD = re.compile(r"[^\w\s]+")
_POSSESSIVE = re.compile(r"'s\b")


def comparison_key(content: str) -> str:
    """What two memories are compared by for an exact duplicate: Unicode-normalised, case-folded,
    without a leading "User"/"The user", punctuation or repeated whitespace."""
    text = unicodedata.normalize("NFKC", content).strip()
    text = _SUBJECT_PREFIX.sub("", text)
    text = _POSSESSIVE.sub("", text.casefold().replace("\u2019", "'"))
    text = _NOT_WORD.sub(" ", text)
    return " ".join(text.split())


def words(content: str) -> list[str]:
    """Lower-cased words, possessive "'s" dropped."""
    return comparison_key(content).split()


_MONTHS = _ENGLISH["months"].split()
_MONTH_ABBREVIATIONS = {month[:3]: month for month in _MONTHS}
_NUMBER_WORDS = {
    word: str(number)
    for words_at in (_ENGLISH["counts"].split(), _ENGLISH["ordinals"].split())
    for number, word in enumerate(words_at)
    if word != "_"
}
_WEEKDAYS = registry.words(_ENGLISH["weekdays"])
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_CAPITALISED = re.compile(r"\b[A-Z][\w'\u2019-]*")
_NOT_NAMES = registry.words(_ENGLISH["not_names"])
DetailSet = frozenset[str]


def numbers(content: str) -> DetailSet:
    """Numbers, number words (as digits) and month names: the details that make two dated facts differ."""
    found = {match.group(0).replace(",", "") for match in _NUMBER.finditer(content)}
    for word in words(content):
        if word in _NUMBER_WORDS:
            found.add(_NUMBER_WORDS[word])
        elif word in _MONTHS or word in _WEEKDAYS:
            found.add(word)
        elif word.rstrip(".") in _MONTH_ABBREVIATIONS and word != "may":
            found.add(_MONTH_ABBREVIATIONS[word.rstrip(".")])
    return frozenset(found)


def names(content: str) -> list[str]:
    """Capitalised words that are not function words, months, weekdays or "User", case-folded, in
    order: the named people, places and things of a fact. A capitalised word that opens a sentence
    ("Last Friday Calvin...") is marked with a leading "^": it may be an ordinary word."""
    found = []
    for match in _CAPITALISED.finditer(content):
        word = match.group(0).casefold().replace("\u2019", "'").removesuffix("'s")
        if word in _NOT_NAMES or word in _MONTHS or word in _WEEKDAYS or word == "user":
            continue
        before = content[: match.start()].rstrip()
        found.append(word if before and before[-1] not in '.!?:"“' else "^" + word)
    return found
