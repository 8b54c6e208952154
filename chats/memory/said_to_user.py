"""A memory in Italian, Spanish, French or German said to the user: the inverse of the simple forms
`chats.memory.person_forms` writes ("L'utente si chiama Marco" -> "Ti chiami Marco", "Die Frau des Nutzers"
-> "Deine Frau"). Other sentences are said as they are. Pure."""

from __future__ import annotations

import re

from chats.memory.person_forms import FORMS, Other


def second_person_sentence(sentence: str, language: Other) -> str:
    """A third-person sentence said to the user: "L'utente si chiama Marco" -> "Ti chiami Marco", "La
    moglie dell'utente" -> "La tua moglie"; other sentences as they are."""
    forms = FORMS[language]
    for pattern, replacement in _SECOND_OPENINGS[language]:
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
    reflexive = {"it": ("si ", "ti "), "es": ("se ", "te "), "fr": ("s'", "t'"), "de": ("", "")}[language]
    prefix = ""
    if reflexive[0] and rest.startswith(reflexive[0]):
        prefix, rest = reflexive[1], rest[len(reflexive[0]) :]
    if language == "fr" and rest.startswith("se "):
        prefix, rest = "te ", rest[3:]
    verb, _, tail = rest.partition(" ")
    second = forms.to_second.get(verb) or _second_regular(verb, language)
    if language == "fr" and said_negation and second[:1] in "aeéèêiouh":
        said_negation = "n'"
    pronoun = {"it": "", "es": "", "fr": "tu ", "de": "du "}[language]
    tail = " ".join(forms.to_second.get(word, word) for word in tail.split(" "))
    said_to = f"{pronoun}{said_negation}{prefix}{second} {tail}".strip()
    return said_to[:1].upper() + said_to[1:]


_SECOND_OPENINGS: dict[str, tuple[tuple[str, str], ...]] = {
    "it": (
        (r"^l'utente ha detto:", "hai detto:"),
        (r"^all'utente (piace|piacciono)\b", r"ti \1"),
        (r"^(il|lo) (\w+) dell'utente\b", r"\1 tuo \2"),
        (r"^la (\w+) dell'utente\b", r"la tua \1"),
        (r"^(i|gli) (\w+) dell'utente\b", r"\1 tuoi \2"),
        (r"^le (\w+) dell'utente\b", r"le tue \1"),
        (r"^l'(\w+) dell'utente\b", r"l'\1 tuo"),
    ),
    "es": (
        (r"^el usuario dijo:", "dijiste:"),
        (r"^al usuario le (gusta|gustan|encanta|encantan)\b", r"te \1"),
        (r"^(?:el|la) (\w+) del usuario\b", r"tu \1"),
        (r"^(?:los|las) (\w+) del usuario\b", r"tus \1"),
    ),
    "fr": (
        (r"^l'utilisateur a dit :", "tu as dit :"),
        (r"^le (\w+) de l'utilisateur\b", r"ton \1"),
        (r"^la (\w+) de l'utilisateur\b", r"ta \1"),
        (r"^les (\w+) de l'utilisateur\b", r"tes \1"),
        (r"^l'(\w+) de l'utilisateur\b", r"ton \1"),
    ),
    "de": (
        (r"^der nutzer sagte:", "du sagtest:"),
        (r"^(?:der|das) (\w+) des nutzers\b", r"dein \1"),
        (r"^die (\w+) des nutzers\b", r"deine \1"),
    ),
}


def _second_regular(verb: str, language: Other) -> str:
    if language == "it":
        if verb.endswith(("ia", "ie")):
            return verb[:-1]  # "mangia" -> "mangi"
        return verb[:-1] + "i" if verb.endswith(("a", "e")) else verb
    if language == "es":
        return verb + "s" if verb.endswith(("a", "e")) else verb
    if language == "fr":
        if verb.endswith("t"):
            return verb[:-1] + "s"
        if verb.endswith("d"):
            return verb + "s"
        return verb + "s" if verb.endswith("e") else verb
    if verb.endswith("t") and not verb.endswith(("st", "ßt", "zt", "xt")):
        return verb[:-1] + "st"
    return verb
