"""First person to third and third to second in Italian, Spanish, French and German: what
`chats.memory.text` does for English, for the simple forms of each language.

Rewritten at the start of a sentence, with or without the subject pronoun (Italian and Spanish leave it
out: "lavoro in banca" is "I work at a bank"):
- the subject and its verb: "mi chiamo Marco" -> "L'utente si chiama Marco", "je suis" -> "L'utilisateur
  est", "ich wohne" -> "Der Nutzer wohnt", "tengo dos hijos" -> "El usuario tiene dos hijos";
- a possessive: "mia moglie" -> "La moglie dell'utente", "mon frère" -> "Le frère de l'utilisateur";
- "mi piace" / "me gusta" -> "All'utente piace" / "Al usuario le gusta".
Inside a sentence the possessives become the third person's ("mio" -> "suo", "mes" -> "ses").

A verb's third person comes from a table of the irregular ones, else from its ending: Italian and Spanish
"-o" becomes "-a" for the verbs whose infinitive ends in "-are"/"-ar", "-e" for the others, the infinitive
found by simplemma's lemmatiser; French "-s"/"-x" becomes "-t"; German "-e" becomes "-t" ("-et" after
"t"/"d"). A sentence-opening word is taken for a verb without its pronoun only when simplemma knows it
as one: names ("Marco") and nouns ("Domani") are left alone.

When a sentence still speaks in the first person after that, `third_person` keeps the user's words with
a clear subject: 'L'utente ha detto: “...”' (`said`). The way back, a memory said to the user, is
`chats.memory.said_to_user`. The words are data, in `languages/<code>/words.toml` (`[person_forms]`).
Pure apart from loading simplemma's tables once (on first use).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

from languages.registry import SUPPORTED, Language, table, words

Other = Language
"""A code of `chats.language.words` other than English."""


@dataclass(frozen=True, slots=True)
class Forms:
    subject: str
    """How a memory names the user, at a sentence start."""
    said: str
    """The subject's "said:", before the user's own words in quotes."""
    pronoun: str
    """The first person subject pronoun, as a regex (optional before the verb)."""
    irregular: Mapping[str, str]
    """First person singular present -> third person."""
    possessive_inner: Mapping[str, str]
    first_person: re.Pattern[str]
    """What still speaks in the first person after the rewrites."""
    to_second: Mapping[str, str]
    """Third person -> second, for the irregular verbs; possessives too."""
    conjunctions: str
    """After these the same subject goes on ("mi chiamo Marco *e lavoro* in banca"): a regex alternation."""
    infinitives: tuple[str, ...]
    """How an infinitive ends: a word simplemma takes to such a lemma is a verb."""
    feminine: frozenset[str]
    """Spanish: feminine nouns that do not end in "-a" ("mi madre" -> "La madre del usuario")."""
    masculine: frozenset[str]
    """Spanish: masculine nouns that end in "-a" ("mi día")."""
    neuter: frozenset[str]
    """German: neuter nouns ("mein Kind" -> "Das Kind des Nutzers"); the others after "mein" are masculine."""
    of_user: str
    """After a noun that was "my" ("mia moglie" -> "La moglie *dell'utente*")."""
    possessive_opening: re.Pattern[str]
    """"My" and a noun at a sentence's start (groups `owner`, `noun`; Italian's `article`: "la mia")."""
    likes: tuple[re.Pattern[str], str] | None
    """"Mi piace" at a sentence's start (the verb its group), and who likes in the third person."""
    negation: str
    """Italian and Spanish: the negation said before the verb ("non")."""
    reflexive: tuple[str, str]
    """Italian and Spanish: the reflexive pronoun of the first person and of the third ("mi", "si")."""
    elide_before: str
    """French: the letters before which "ne", "se", "le" and "la" lose their vowel ("n'aime", "l'amie")."""
    et_stem: re.Pattern[str] | None
    """German: a verb stem this matches takes "-et", not "-t", in the third person ("arbeit" -> "arbeitet",
    "atm" -> "atmet")."""
    pro_drop: bool
    """The verb's ending names the subject, so the pronoun is usually left out ("lavoro in banca"), and a
    first person in "-o" turns third by its infinitive's conjugation (`_regular`)."""


@cache
def forms_of(language: str) -> Forms:
    """`language`'s `[person_forms]`, from `languages/<code>/words.toml` (read on first use: every language's,
    read with the memory store that every command opens, took 0.12 s); English is `chats.memory.text`'s."""
    file = table(language)
    forms = file["person_forms"]
    return Forms(
        subject=forms["subject"],
        said=forms["said"],
        pronoun=forms["pronoun"],
        irregular=forms["irregular"],
        possessive_inner=forms["possessive_inner"],
        first_person=re.compile(forms["first_person"], re.IGNORECASE),
        to_second=forms["to_second"],
        conjunctions=forms["conjunctions"],
        infinitives=tuple(file["infinitives"]),
        feminine=words(forms.get("feminine", "")),
        masculine=words(forms.get("masculine", "")),
        neuter=words(forms.get("neuter", "")),
        of_user=forms["of_user"],
        possessive_opening=re.compile(forms["possessive_opening"], re.IGNORECASE),
        likes=(re.compile(forms["likes"][0], re.IGNORECASE), forms["likes"][1]) if "likes" in forms else None,
        negation=forms.get("negation", ""),
        reflexive=(forms.get("reflexive", ["", ""])[0], forms.get("reflexive", ["", ""])[1]),
        elide_before=forms.get("elide_before", ""),
        et_stem=re.compile(forms["et_stem"]) if "et_stem" in forms else None,
        pro_drop=forms.get("pro_drop", False),
    )


_QUOTE_OPEN, _QUOTE_CLOSE = "\u201c", "\u201d"


def supported(language: str) -> bool:
    return language in SUPPORTED and language != "en"


def third_person_sentence(sentence: str, language: Other) -> str:
    """One sentence rewritten in the third person where its form is a simple one (see the module)."""
    forms = forms_of(language)
    rewritten = _opening(sentence, language, forms)
    subject_first = rewritten != sentence
    if subject_first:
        rewritten = re.sub(
            rf"(,? (?:{forms.conjunctions}) )(\w['\u2019]?[\w ]*)",
            lambda m: m.group(1) + _same_subject(m.group(2), language, forms),
            rewritten,
        )
    if subject_first:
        for mine, theirs in forms.possessive_inner.items():
            rewritten = re.sub(rf"\b{mine}\b", theirs, rewritten)
            rewritten = re.sub(rf"\b{mine.capitalize()}\b", theirs.capitalize(), rewritten)
    return rewritten


def first_person_left(text: str, language: Other) -> str | None:
    """The first first-person word of `text` in `language`, or None."""
    found = forms_of(language).first_person.search(text)
    return found.group(0) if found else None


def said(text: str, language: Other) -> str:
    """The user's own words with a clear subject: 'L'utente ha detto: “Ci siamo sposati a maggio”'."""
    return f"{forms_of(language).said} {_QUOTE_OPEN}{text}{_QUOTE_CLOSE}"


# -- the opening of a sentence -------------------------------------------------------------------------


def _same_subject(clause: str, language: Other, forms: Forms) -> str:
    """A clause after "and" whose subject is still the user: its verb in the third person, without the
    subject ("e lavoro in banca" -> "e lavora in banca", "und ich wohne" -> "und wohnt")."""
    rewritten = _subject_opening(clause, language, forms)
    if rewritten == clause:
        return clause
    return rewritten.removeprefix(forms.subject + " ")


def _opening(sentence: str, language: Other, forms: Forms) -> str:
    if forms.likes and (m := forms.likes[0].match(sentence)):
        return f"{forms.likes[1]}{m.group(1).lower()}{sentence[m.end() :]}"
    if possessive := _possessive_opening(sentence, language):
        return possessive
    return _subject_opening(sentence, language, forms)


def _subject_opening(sentence: str, language: Other, forms: Forms) -> str:
    if language == "de":
        m = re.match(r"^ich (\w+)\b", sentence, re.I)
        if m is None:
            return sentence
        # After "dass" the verb comes last: "(dass) ich Vegetarier bin" -> "Der Nutzer ist Vegetarier".
        last = re.search(r"\s(\w+)([.!]?)$", sentence)
        if last and m.end() <= last.start() and _is_german_verb(last.group(1), forms):
            middle = sentence[len("ich ") : last.start()].strip()
            return f"{forms.subject} {_third(last.group(1).lower(), language, forms)} {middle}{last.group(2)}"
        return f"{forms.subject} {_third(m.group(1).lower(), language, forms)}{sentence[m.end() :]}"
    if language == "fr":
        m = re.match(r"^(?:je |j['\u2019])(?:(ne |n['\u2019]))?(?:(me |m['\u2019]))?(\w+)\b", sentence, re.I)
        if m is None:
            return sentence
        verb = _third(m.group(3).lower(), language, forms)
        elides = verb[:1] in forms.elide_before
        negation = ("n'" if elides else "ne ") if m.group(1) else ""
        reflexive = ("s'" if elides else "se ") if m.group(2) else ""
        return f"{forms.subject} {negation}{reflexive}{verb}{sentence[m.end() :]}"
    # Italian and Spanish: the pronoun is usually left out; "non"/"no" and a reflexive may come first.
    negation_word, reflexive_word = forms.negation, forms.reflexive
    m = re.match(rf"^(?:(?:{forms.pronoun}) )?({negation_word} )?({reflexive_word[0]} )?(\w+)\b", sentence, re.I)
    if m is None:
        return sentence
    word = m.group(3)
    pronoun_said = sentence[: m.start(3)].lower().startswith(forms.pronoun)
    if pronoun_said or m.group(2):
        third: str | None = _third(word.lower(), language, forms)
    else:
        third = _pro_drop(word, sentence[m.end() :], language, forms)
    if third is None or (third == word.lower() and not pronoun_said):
        return sentence
    negation = f"{negation_word} " if m.group(1) else ""
    reflexive = f"{reflexive_word[1]} " if m.group(2) else ""
    return f"{forms.subject} {negation}{reflexive}{third}{sentence[m.end() :]}"


def _pro_drop(word: str, after: str, language: Other, forms: Forms) -> str | None:
    """The third person of a sentence-opening verb said without its pronoun ("lavoro in banca"), or None
    when `word` is no verb, or a capitalised word followed by a verb: a name ("Marco lavora...")."""
    lower = word.lower()
    if lower in forms.irregular:
        return forms.irregular[lower]
    third = _regular(lower, language)
    if third == lower:
        return None
    following = re.match(r"\s*(\w+)", after)
    if word[:1].isupper() and following and _is_verb_form(following.group(1).lower(), language):
        return None
    return third


def _is_german_verb(word: str, forms: Forms) -> bool:
    """A first person present that can end a German clause: "bin", "habe", "wohne" (lower case: a
    capitalised word is a noun)."""
    return word in forms.irregular or (word.islower() and word.endswith("e") and _is_verb_form(word, "de"))


def _is_verb_form(lower: str, language: Other) -> bool:
    """A conjugated verb: simplemma takes it to an infinitive other than itself."""
    lemma = _lemma(lower, language)
    return lemma != lower and lemma.endswith(forms_of(language).infinitives)


def _third(verb: str, language: Other, forms: Forms) -> str:
    if verb in forms.irregular:
        return forms.irregular[verb]
    if forms.pro_drop:
        return _regular(verb, language)
    if language == "fr":
        if verb.endswith("ds"):
            return verb[:-1]
        if verb.endswith(("s", "x")):
            return verb[:-1] + "t"
        return verb
    # German
    if not verb.endswith("e"):
        return verb
    stem = verb[:-1]
    if forms.et_stem and forms.et_stem.search(stem):
        return stem + "et"
    return stem + "t"


def _regular(verb: str, language: Other) -> str:
    """Italian or Spanish "-o": "-a" for the first conjugation, "-e" for the others, by the lemma of
    `verb` or of the candidate third person; `verb` itself when neither is a verb."""
    if not verb.endswith("o"):
        return verb
    first, *other_endings = forms_of(language).infinitives
    other = tuple(other_endings)
    lemma = _lemma(verb, language)
    if lemma.endswith(first) and lemma != verb:
        return verb[:-1] + "a"
    if lemma.endswith(other) and lemma != verb:
        return verb[:-1] + "e"
    # The "-e" form first: a rare first-conjugation verb may share the stem ("vivar" beside "vivir").
    for candidate, ending in ((verb[:-1] + "e", other), (verb[:-1] + "a", (first,))):
        if _lemma(candidate, language).endswith(ending):
            return candidate
    return verb


# -- a possessive opening ---------------------------------------------------------------------------


def _possessive_opening(sentence: str, language: Other) -> str | None:
    forms = forms_of(language)
    m = forms.possessive_opening.match(sentence)
    if m is None:
        return None
    noun = m.group("noun")
    article = _article(m.group("owner").lower(), noun.lower(), m.groupdict().get("article"), language, forms)
    return f"{article}{noun} {forms.of_user}{sentence[m.end() :]}"


def _article(owner: str, noun: str, said: str | None, language: Other, forms: Forms) -> str:
    """The article, capitalised, of a noun that was "my" `noun` (lower case) and is now the user's; `said`:
    the article said before the possessive, where a language says one ("*la* mia moglie")."""
    if language == "it":
        article = said or {"mio": "il ", "mia": "la ", "miei": "i ", "mie": "le "}[owner]
        if article.strip().lower() in ("il", "la") and noun[:1] in "aeiou":
            return "L'"
        if article.strip().lower() == "il" and re.match(r"(?:z|gn|ps|s[^aeiou])", noun):
            return "Lo "
        return article.capitalize()
    if said:  # the article said before the possessive is the noun's ("a minha mulher")
        return said.capitalize()
    if language == "es":
        feminine = noun in forms.feminine or (noun.rstrip("s").endswith("a") and noun not in forms.masculine)
        return ("Las " if feminine else "Los ") if owner == "mis" else ("La " if feminine else "El ")
    if language == "fr":
        if owner == "mes":
            return "Les "
        return "L'" if noun[:1] in forms.elide_before else ("Le " if owner == "mon" else "La ")
    return "Die " if owner == "meine" else ("Das " if noun in forms.neuter else "Der ")


@cache
def _lemma(word: str, language: Other) -> str:
    # Imported on first use: simplemma takes a fifth of a second to import, and most runs (a chat list, an
    # English memory) never lemmatise.
    import simplemma

    return str(simplemma.lemmatize(word, lang=language))
