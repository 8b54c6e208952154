"""A memory in Italian, Spanish, French or German said to the user: the inverse of the simple forms
`chats.memory.person_forms` writes ("L'utente si chiama Marco" -> "Ti chiami Marco", "Die Frau des Nutzers"
-> "Deine Frau"), by the `[said_to_user]` of `languages/<code>/words.toml`. Other sentences are said as
they are. Pure."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from chats.memory.person_forms import Other, forms_of
from languages.registry import table


def second_person_sentence(sentence: str, language: Other) -> str:
    """A third-person sentence said to the user: "L'utente si chiama Marco" -> "Ti chiami Marco", "La
    moglie dell'utente" -> "La tua moglie"; other sentences as they are."""
    forms, to_user = forms_of(language), _second_person(language)
    for pattern, replacement in to_user.openings:
        new, count = re.subn(pattern, replacement, sentence, count=1, flags=re.IGNORECASE)
        if count:
            return new[:1].upper() + new[1:]
    subject = re.match(rf"{re.escape(forms.subject)}\b\s*", sentence, re.IGNORECASE)
    if subject is None:
        return sentence
    rest = sentence[subject.end() :]
    negation = re.match(r"(?:non |no |ne |n['\u2019])", rest)
    said_negation = ""
    if negation:
        said_negation, rest = negation.group(0), rest[negation.end() :]
        if language == "fr" and said_negation == "n'":
            said_negation = "ne "
    reflexive = to_user.reflexive
    prefix = ""
    if reflexive[0] and rest.startswith(reflexive[0]):
        prefix, rest = reflexive[1], rest[len(reflexive[0]) :]
    if language == "fr" and rest.startswith("se "):
        prefix, rest = "te ", rest[3:]
    verb, _, tail = rest.partition(" ")
    second = forms.to_second.get(verb) or _second_regular(verb, to_user)
    if language == "fr" and said_negation and second[:1] in forms.elide_before:
        said_negation = "n'"
    tail = " ".join(forms.to_second.get(word, word) for word in tail.split(" "))
    said_to = f"{to_user.pronoun}{said_negation}{prefix}{second} {tail}".strip()
    return said_to[:1].upper() + said_to[1:]


@dataclass(frozen=True, slots=True)
class SecondPerson:
    openings: tuple[tuple[str, str], ...]
    """(regex, replacement) for the openings `chats.memory.person_forms` writes, tried in order."""
    reflexive: tuple[str, str]
    """The third person's reflexive pronoun, and the second's ("si ", "ti ")."""
    pronoun: str
    """The second person subject pronoun said before the verb ("tu ", "du "; none in Italian and Spanish)."""
    second_endings: tuple[tuple[str, str], ...]
    """(third person's ending, second's) for the regular verbs, the first that fits replaced ("-a" -> "-i")."""


@cache
def _second_person(language: str) -> SecondPerson:
    """How `language`'s memories are said to the user: its `[said_to_user]`, from `languages/<code>/words.toml`."""
    said = table(language)["said_to_user"]
    third, second = said["reflexive"]
    return SecondPerson(
        openings=tuple((pattern, replacement) for pattern, replacement in said["openings"]),
        reflexive=(third, second),
        pronoun=said["pronoun"],
        second_endings=tuple((third, second) for third, second in said["second_endings"]),
    )


def _second_regular(verb: str, to_user: SecondPerson) -> str:
    for third, second in to_user.second_endings:
        if verb.endswith(third):
            return verb.removesuffix(third) + second
    return verb
