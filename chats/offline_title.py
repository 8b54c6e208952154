"""`subject_title`: an offline chat title that names what the chat is about, with no network and no key.

A person scanning the chat list looks for the subject: "Lisbon trip with Ana", "Kitchen wall tiles",
not the keyphrase "Day Trip". So the title is the chat's best noun phrase, in sentence case:

1. The text is cut into clauses, and each word is looked up in lemminflect's English lexicon, which
   tells whether a word can be a noun, an adjective, a verb or an adverb, and its lemma ("loaves" is
   "loaf"). A name is a word the chat writes with a capital where no sentence starts ("Ana", "Golf"),
   or in mixed case ("TypeScript").
2. A noun phrase is a run of words that can be nouns or adjectives (or are names, or are unknown to the
   lexicon: "zellige", "tsconfig"), ending on one that can be a noun. A word that can be a verb is read
   as one after a subject, a modal or "to" ("we want to migrate"), and so ends a phrase.
3. The phrases a title uses are also made from what the chat says around them: "tiles for the kitchen
   wall" and "trip to Lisbon" give "kitchen wall tiles" and "Lisbon trip"; "the loaves keep coming out
   flat" gives "flat loaves"; "kitchen wall" and "wall tiles" chain into "kitchen wall tiles".
4. A phrase scores, for each word, its lemma's count over the chat less `SAID_ONCE` (a modifier said
   once costs a little), a bonus when the user's first turn says it and the chat says it again (people
   open a chat by saying what it is for), and one for a name. The user's words count double the
   assistant's: the user brings the subject, the assistant brings advice words.
5. People are not subjects: a name said as company ("with Ana", "Ana and I") is added to the title
   ("Lisbon trip with Ana"); a name spoken to ("Hey Mel!") is left out.

Everything here is pure and deterministic. The cue words are English; other languages still get their
names and the words they repeat.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from functools import cache
from itertools import chain, pairwise

import lemminflect
from segtok.segmenter import split_single

from chats.offline_words import ASSISTANT_LABEL, LABEL_AT_START, OPEN_ASSISTANT_LABEL, canonical_label, stopwords

MAX_WORDS = 5
MAX_PHRASE_WORDS = 4
"""A phrase leaves room for "with Ana" within `MAX_WORDS`."""
USER_WEIGHT = 1.0
ASSISTANT_WEIGHT = 0.5
SAID_ONCE = 1.25
"""Subtracted from each word's count: a modifier said once ("a *simple* curry recipe") costs a little,
so it is kept only when the rest of the phrase is worth it."""
FIRST_TURN_BONUS = 1.0
"""Per repeated word of the user's first turn: people open a chat by saying what it is for."""
NAME_BONUS = 0.5
"""Per name: the entities a chat names ("Lisbon", "TypeScript") are what a person looks for."""

_CLAUSE_BREAK = re.compile(r"[,;:!?()\[\]{}\"\u201c\u201d\u00ab\u00bb\u2026\u2013\u2014/]|\s-\s|\.(?=\s|$)")
_WORD = re.compile(r"[^\W_](?:[\w'\u2019+#&.-]*[\w+#])?")
_POSSESSIVE = re.compile(r"['\u2019]s$", re.IGNORECASE)
_NOT_NAMES = frozenset(
    """i i'm i'll i've i'd ok okay hi hey hello thanks yes no yeah user assistant monday tuesday wednesday
    thursday friday saturday sunday january february march april may june july august september october
    november december mon tue tues wed thu thur thurs fri sat sun congrats congratulations bye""".split()
)
_WEAK = frozenset(
    """again already also actually basically currently definitely eventually finally honestly hopefully
    just maybe probably quickly really recently soon still today tonight tomorrow yesterday now here there
    back lot lots bit thing things stuff kind sort idea ideas question questions advice tip tips help way
    ways time times long day days week weeks month months year years minute minutes hour hours morning evening
    night weekend people person guys everyone good great nice fine bad big small little new old best
    better worse awesome amazing wonderful hard easy sure glad happy pleased fun love ok okay yeah hey
    hi hello thanks thank please sorry wow cool percent euro euros dollar dollars pound pounds make made
    take took give gave feel felt find found sounds hope congrats congratulations super""".split()
)
"""Words that never say what a chat is about ("lots", "ideas", "good"): they end a noun phrase."""
_VERB_CUES = frozenset(
    """i you we they he she it i'm you're we're they're he's she's it's i'd you'd we'd they'd i'll you'll
    we'll they'll i've you've we've they've to can could would will should must might may shall don't
    doesn't didn't can't cannot won't wouldn't shouldn't couldn't let's lets please not also just
    never always still""".split()
)
"""After these a word that can be a verb is one: "we want to *migrate*", "I *plan*"."""
_GREETINGS = frozenset("hi hey hello thanks thank bye oh wow yeah yes congrats congratulations sorry dear".split())
"""Before a name, these make it the one spoken to ("Hey Mel"), not what the chat is about."""
_COMPOUND_LINKS = frozenset({"for", "of", "on", "about", "in"})
"""Phrase A + link + phrase B reads as the compound "B A": "tiles for the kitchen wall"."""
_PLACE_LINKS = frozenset({"to", "at", "around"})
"""The same when B is a name: "trip to Lisbon" is the "Lisbon trip"."""
_DETERMINERS = frozenset("the a an my our your his her their its this that these those some".split())
_LINKING = frozenset(
    """is are was were be been being keep keeps kept coming come comes came out turning turn turns turned
    getting get gets got looking look looks looked seem seems seemed stay stays stayed go goes going went
    becoming become became too so very really always still all quite a bit""".split()
)
"""Between a phrase and its adjective: "loaves keep coming out *flat*" give "flat loaves"."""
_NOUN, _ADJ, _VERB = "NOUN", "ADJ", "VERB"

Phrase = tuple["_Word", ...]


@dataclass(frozen=True, slots=True)
class _Word:
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


@dataclass(frozen=True, slots=True)
class _Chat:
    clauses: tuple[tuple[_Word, ...], ...]
    names: dict[str, str]
    """Lower-case name -> how the chat writes it most often."""
    persons: frozenset[str]
    """Names said as company ("with Ana", "Ana and I"): a title adds them, never stands on them."""
    addressed: frozenset[str]
    """Names spoken to ("Hey Mel!", "Thanks, Caroline"): not a subject either."""
    counts: dict[str, float]
    """Weighted count of each lemma in the noun phrases."""
    first_turn: frozenset[str]
    """Lemmas of the user's first turn."""


def subject_title(text: str) -> str:
    """A 2 to 5 word title in sentence case that names the subject of `text` (a transcript whose lines
    may start with "User:"/"Assistant:", or a summary). "" when it names nothing yet ("Hi!"): the chat
    then keeps no title, and maintenance asks again after its next exchange."""
    chat = _read(text)
    people = chat.persons | chat.addressed
    phrases = [phrase for phrase in _phrases(chat) if not {word.lower for word in phrase} <= people]
    if not phrases:
        return ""
    ranked = sorted(range(len(phrases)), key=lambda i: (-_score(phrases[i], chat), len(phrases[i]), i))
    best = phrases[ranked[0]]
    words = [word.text for word in best]
    if len(best) == 1:
        words = _widen(best[0], [phrases[i] for i in ranked[1:]], chat)
    companion = _companion(chat, {word.lower() for word in words})
    if companion and len(words) <= MAX_WORDS - 2:
        words += ["with", companion]
    return _sentence_case(words, chat.names)


def _read(text: str) -> _Chat:
    clauses: list[tuple[_Word, ...]] = []
    user_turns = 0
    for line in text.splitlines():
        label = LABEL_AT_START.match(line)
        from_assistant = label is not None and canonical_label(label.group(1)) in (
            ASSISTANT_LABEL,
            OPEN_ASSISTANT_LABEL,
        )
        body = line[label.end() :] if label else line
        weight = ASSISTANT_WEIGHT if from_assistant else USER_WEIGHT
        found = [clause for sentence in split_single(body) for clause in _clauses(sentence, weight)]
        if not from_assistant and (label or not user_turns) and any(map(_says_something, chain(*found))):
            user_turns += 1  # "Hi!" is no turn here; unlabelled text: its first line stands for the first turn
            if user_turns == 1:
                found = [tuple(replace(word, first_turn=True) for word in clause) for clause in found]
        clauses += found
    names = _names(clauses)
    persons, addressed = _people(clauses, names)
    counts: dict[str, float] = defaultdict(float)
    for clause in clauses:
        for run in _runs(clause, names, persons):
            for word in run:
                counts[word.lemma] += word.weight
    first_turn = frozenset(word.lemma for clause in clauses for word in clause if word.first_turn)
    return _Chat(tuple(clauses), names, persons, addressed, counts, first_turn)


def _clauses(sentence: str, weight: float) -> list[tuple[_Word, ...]]:
    found: list[tuple[_Word, ...]] = []
    previous = ""
    for piece in _CLAUSE_BREAK.split(sentence):
        clause: list[_Word] = []
        for match in _WORD.finditer(piece):
            raw = match.group()
            possessive = bool(_POSSESSIVE.search(raw)) and raw.lower() not in _VERB_CUES
            text = _POSSESSIVE.sub("", raw) if possessive else raw
            lower = text.lower()
            lemma, readings = _lexicon(lower)
            clause.append(_Word(text, lower, lemma, readings, not previous, weight, previous, possessive))
            previous = lower
        found.append(tuple(clause))
    return found


def _says_something(word: _Word) -> bool:
    return word.lower not in stopwords() and word.lemma not in _WEAK and word.lower not in _GREETINGS


@cache
def _lexicon(lower: str) -> tuple[str, frozenset[str]]:
    readings = lemminflect.getAllLemmas(lower)
    lemma = next(iter(readings.get(_NOUN, ())), lower)
    return str(lemma).lower(), frozenset(readings)


def _names(clauses: Sequence[tuple[_Word, ...]]) -> dict[str, str]:
    """Words the chat writes with a capital where no sentence starts, and never without one; mixed
    case words; capitalised sentence openers the lexicon does not know ("Ana and I ...")."""
    capitalised: dict[str, Counter[str]] = defaultdict(Counter)
    lowercase: set[str] = set()
    for clause in clauses:
        for word in clause:
            if word.lower in _NOT_NAMES or not word.text[:1].isalpha():
                continue
            if not word.text[:1].isupper():
                lowercase.add(word.lower)
            elif not word.initial or any(c.isupper() for c in word.text[1:]) or not word.readings:
                capitalised[word.lower][word.text] += 1
    return {
        lower: forms.most_common(1)[0][0]
        for lower, forms in capitalised.items()
        if lower not in lowercase and lower not in stopwords() and lower not in _VERB_CUES
    }


def _people(clauses: Sequence[tuple[_Word, ...]], names: dict[str, str]) -> tuple[frozenset[str], frozenset[str]]:
    """The names said as company, and the names spoken to (a name that is a clause on its own, or
    follows a greeting); someone spoken to is no company, even when also said "with"."""
    company: set[str] = set()
    addressed: set[str] = set()
    for clause in clauses:
        for i, word in enumerate(clause):
            if word.lower not in names:
                continue
            after = " ".join(w.lower for w in clause[i + 1 : i + 3])
            if len(clause) == 1 or word.previous in _GREETINGS:
                addressed.add(word.lower)
            elif word.previous == "with" or after in ("and i", "and me"):
                company.add(word.lower)
    return frozenset(company - addressed), frozenset(addressed)


def _runs(clause: Sequence[_Word], names: dict[str, str], persons: frozenset[str]) -> Iterator[list[_Word]]:
    """The noun phrases of one clause, in order."""
    run: list[_Word] = []
    for word in clause:
        if run and _VERB in word.readings and not word.readings & {_NOUN, _ADJ}:
            # A gerund modifies the noun after it ("billing service") but follows none: "kids *taking*".
            if trimmed := _trim(run, names):
                yield trimmed
            run = []
        if _nominal(word, names, persons):
            run.append(word)
            if not word.possessive:
                continue
        if trimmed := _trim(run, names):
            yield trimmed
        run = []
    if trimmed := _trim(run, names):
        yield trimmed


def _nominal(word: _Word, names: dict[str, str], persons: frozenset[str]) -> bool:
    if word.lower in names:
        return True
    if word.lower in stopwords() or {word.lower, word.lemma} & _WEAK or any(c.isdigit() for c in word.lower):
        return False
    if not word.readings:
        return len(word.lower) > 2  # unknown to the lexicon: a rare noun or a name, rarely a verb
    if _VERB in word.readings and (word.previous in _VERB_CUES or word.previous in persons):
        return False
    return bool(word.readings & {_NOUN, _ADJ}) or (word.lower.endswith("ing") and _VERB in word.readings)


def _trim(run: list[_Word], names: dict[str, str]) -> list[_Word]:
    """The run ended on a word that can be a noun, at most `MAX_PHRASE_WORDS` long."""
    end = len(run)
    while end and not _head(run[end - 1], names):
        end -= 1
    return run[max(0, end - MAX_PHRASE_WORDS) : end]


def _head(word: _Word, names: dict[str, str]) -> bool:
    return word.lower in names or not word.readings or _NOUN in word.readings


def _phrases(chat: _Chat) -> list[Phrase]:
    """Every noun phrase of the chat with its shorter endings, the compounds its prepositions and
    adjectives make, and the chains of overlapping ones; each once (by lemmas), in text order."""
    found: dict[tuple[str, ...], Phrase] = {}
    for clause in chat.clauses:
        runs = list(_runs(clause, chat.names, chat.persons))
        for phrase in (*map(tuple, runs), *_compounds(clause, runs, chat.names), *_predicates(clause, runs)):
            for start in range(len(phrase)):
                found.setdefault(_lemmas(phrase[start:]), phrase[start:])
    # "kitchen wall" and "wall tiles" make "kitchen wall tiles".
    for left in list(found.values()):
        for right in list(found.values()):
            if len(right) > 1 and left[-1].lemma == right[0].lemma and len(left) + len(right) - 1 <= MAX_PHRASE_WORDS:
                chain = (*left, *right[1:])
                found.setdefault(_lemmas(chain), chain)
    return [phrase for phrase in found.values() if len(set(_lemmas(phrase))) == len(phrase)]


def _lemmas(phrase: Phrase) -> tuple[str, ...]:
    return tuple(word.lemma for word in phrase)


def _compounds(clause: Sequence[_Word], runs: Sequence[list[_Word]], names: dict[str, str]) -> Iterator[Phrase]:
    """Phrase A, a link, maybe a determiner, phrase B: the compound "B A"."""
    positions = {id(word): i for i, word in enumerate(clause)}
    for head, tail in pairwise(runs):
        between = clause[positions[id(head[-1])] + 1 : positions[id(tail[0])]]
        if not between or len(between) > 2 or any(word.lower not in _DETERMINERS for word in between[1:]):
            continue
        link = between[0].lower
        # A place names a common noun: "trip to Lisbon", not "from JavaScript to TypeScript".
        is_place = all(w.lower in names for w in tail) and not all(w.lower in names for w in head)
        if link in _COMPOUND_LINKS or (link in _PLACE_LINKS and is_place):
            yield (*tail, *head)[-MAX_PHRASE_WORDS:]


def _predicates(clause: Sequence[_Word], runs: Sequence[list[_Word]]) -> Iterator[Phrase]:
    """A phrase and the adjective said of it: "the loaves keep coming out flat" gives "flat loaves"."""
    positions = {id(word): i for i, word in enumerate(clause)}
    for run in runs:
        after = positions[id(run[-1])] + 1
        while after < len(clause) and clause[after].lower in _LINKING:
            after += 1
        if after == positions[id(run[-1])] + 1 or after >= len(clause):
            continue
        word = clause[after]
        if _ADJ in word.readings and word.lemma not in _WEAK and word.lower not in stopwords():
            yield (word, *run[-(MAX_PHRASE_WORDS - 1) :])


def _score(phrase: Phrase, chat: _Chat) -> float:
    score = 0.0
    for word in phrase:
        count = chat.counts.get(word.lemma, 0.0)
        score += count - SAID_ONCE
        if word.lemma in chat.first_turn and count > 1:
            score += FIRST_TURN_BONUS
        if word.lower in chat.names:
            score += NAME_BONUS
    return score


def _widen(word: _Word, others: Sequence[Phrase], chat: _Chat) -> list[str]:
    """A one-word subject made a title: the best phrase that holds it ("dog" in "dog itchy skin"), or
    with the next best noun, a name as its modifier ("Lisbon trip"), otherwise side by side ("Sleep and
    coffee")."""
    for other in others:
        if len(other) > 1 and word.lemma in _lemmas(other):
            return [w.text for w in other]
    for other in others:
        noun = other[0]
        if (
            len(other) > 1
            or noun.lemma == word.lemma
            or noun.lower in chat.persons | chat.addressed
            or _NOUN not in noun.readings
        ):
            continue
        if _ADJ in noun.readings or (_VERB in noun.readings and chat.counts.get(noun.lemma, 0.0) <= USER_WEIGHT):
            continue  # "red", "makes": rather an adjective or a verb here
        if word.lower in chat.names and noun.lower not in chat.names:
            return [word.text, noun.text]
        return [word.text, "and", noun.text]
    return [word.text, "chat"]


def _companion(chat: _Chat, taken: set[str]) -> str | None:
    """The person the chat names most often, if the title does not hold them yet."""
    ranked = sorted(chat.persons - taken, key=lambda lower: (-chat.counts.get(_lexicon(lower)[0], 0.0), lower))
    return chat.names[ranked[0]] if ranked else None


def _sentence_case(words: Sequence[str], names: dict[str, str]) -> str:
    cased = [names.get(word.lower(), word.lower()) for word in words]
    cased[0] = cased[0][:1].upper() + cased[0][1:]
    return " ".join(cased)
