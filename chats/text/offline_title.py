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
   open a chat by saying what it is for), and one for a name. In a long chat the user opens, the words of
   its first noun phrase get a strong bonus when said again. The user's words count double the
   assistant's: the user brings the subject, the assistant brings advice words.
   A chat that arrives whole (an import, one maintained after a long talk) often drifts to a detail it
   then says over and over (the corner sofa of a house move); a person still names it for what it was
   opened for. So in a chat of `WHOLE_CHAT_LINES` or more that the user opens (a greeting and an offer
   of help before it aside; not a talk that opens by speaking to someone, "Hey Mel!"), the title is the
   best phrase made only of the opening turn's words; a lone word is widened by a phrase the user says,
   or set beside another word of the opening. An opening that starts on what is the user's ("Mon
   chauffe-eau fait un bruit", "Unsere Therme klopft"; not "my doctor"), or says what they want to do
   something to ("Notre immeuble voudrait lancer un jardin partagé"), gives that phrase a bonus: a first
   answer often dwells on its own words (the knocking, the limescale).
5. People are not subjects: a name said as company ("with Ana", "Ana and I") is added to the title
   ("Lisbon trip with Ana"); a name spoken to ("Hey Mel!") is left out, and so is someone close said with
   their name ("my son Finn", who asks for pocket money).

Italian, Spanish, French and German (the text's language, `chats.language.words.detect`) read their words with
simplemma's lemmatiser and their own small words (`chats.text.offline_grammar`); their phrases keep what a
thing is for or of after it ("Piastrelle per la cucina", "Viaje a Lisboa con Ana"), and a German capital
marks a noun. Everything here is pure and deterministic.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from itertools import chain, pairwise

from segtok.segmenter import split_single

from chats.language.words import detect
from chats.text.offline_grammar import ADJ, NOUN, POSSESSIVES, VERB, Grammar, grammar, lexicon
from chats.text.offline_words import ASSISTANT_LABEL, LABEL_AT_START, OPEN_ASSISTANT_LABEL, canonical_label
from chats.text.title_aims import aim_title
from chats.text.title_meant import opening_run, wanted_run
from chats.text.title_names import names_in, people_in
from chats.text.title_runs import MAX_PHRASE_WORDS, noun_runs
from chats.text.title_words import Word, read_clauses

MAX_WORDS = 5
USER_WEIGHT = 1.0
ASSISTANT_WEIGHT = 0.5
SAID_ONCE = 1.25
"""Subtracted from each word's count: a modifier said once ("a *simple* curry recipe") costs a little,
so it is kept only when the rest of the phrase is worth it."""
FIRST_TURN_BONUS = 1.0
"""Per repeated word of the user's first turn: people open a chat by saying what it is for."""
OPENING_BONUS = 3.0
"""Per repeated word of the noun phrase a long chat opens with (`LONG_CHAT_TURNS`), when the user opens
it: a chat that arrives whole (an import, one maintained after a long talk) often drifts to a detail it
then says over and over ("the EPDM" of a garden shed's roof); a person still names it for what it was
opened for."""
LONG_CHAT_TURNS = 6
"""Lines from which a chat is long: a young chat's exchange or two has not drifted yet."""
WHOLE_CHAT_LINES = 2
"""Lines (from the user's opening turn) from which the title is taken from the opening turn's phrases: a
first exchange already, whose long answer repeats its advice words ("the heat exchanger" of a noisy
boiler), and a chat that arrives whole."""
MEANT_BONUS = 2.0
"""Per word of the noun phrase the user's opening says it is about, said again or not: what is theirs
("*Notre frigo* ne refroidit plus, le congélateur marche encore" is about the fridge, though a first answer
dwells on the freezer) or what they want to do something to ("Notre immeuble voudrait lancer *un jardin
partagé*"). Chosen on the tuning part: 1.5 to 2.5 title the same chats; 1.0 too few."""
NAME_BONUS = 0.5
"""Per name: the entities a chat names ("Lisbon", "TypeScript") are what a person looks for."""

Phrase = tuple[Word, ...]


@dataclass(frozen=True, slots=True)
class _Chat:
    clauses: tuple[tuple[Word, ...], ...]
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
    opening: frozenset[str]
    """Lemmas of the noun phrase a long chat opens with, when the user opens it; empty otherwise."""
    meant: frozenset[str]
    """Lemmas of the noun phrase the user's opening turn says it is about, when the user opens the chat:
    the phrase a clause opens on after a possessive ("*Notre frigo* ne refroidit plus", "*Unsere Therme*
    klopft"; not "my doctor", nor "we want to migrate *our* billing service", an object), and the first
    after a verb of wanting in the opening's first sentence that names something ("Notre immeuble voudrait
    lancer *un jardin partagé*"; not "We're redoing the kitchen. I want to get rid of *the cabinets*")."""
    asked: frozenset[str]
    """Lemmas of the noun phrases of the user's opening turn, in a whole chat the user opens
    (`WHOLE_CHAT_LINES`); empty otherwise."""
    user_opens: bool
    """The user's first turn opens the chat: no talk to someone by name, no answer to what was said."""
    grammar: Grammar


def subject_title(text: str, language: str | None = None) -> str:
    """A 2 to 5 word title in sentence case that names the subject of `text` (a transcript whose lines
    may start with "User:"/"Assistant:", or a summary), in its language (`language`, the user's, for a
    text too short to tell). "" when it names nothing yet ("Hi!"): the chat then keeps no title, and
    maintenance asks again after its next exchange."""
    chat = _read(text, grammar(detect(_without_labels(text), hint=language)))
    phrases = [phrase for phrase in _phrases(chat) if not _a_person(phrase, chat)]
    if not phrases:
        return ""
    order = sorted(range(len(phrases)), key=lambda i: (-_score(phrases[i], chat), len(phrases[i]), i))
    ranked = [phrases[i] for i in order]
    asked = [phrase for phrase in ranked if _asked(phrase, chat)]
    best, beside = (asked[0], asked) if asked else (ranked[0], ranked)
    opening = [word for clause in chat.clauses for word in clause if word.first_turn]
    skill = aim_title(opening, chat.grammar) if chat.user_opens else None
    words = skill or _title_words(best, ranked, beside, chat) or _about(best[0], chat)
    companion = _companion(chat, {word.lower() for word in words})
    if companion and len(words) <= MAX_WORDS - 2:
        words += [chat.grammar.with_word, companion]
    return _sentence_case(words, chat.names, nouns_capitalised=chat.grammar.capital_nouns)


def _a_person(phrase: Phrase, chat: _Chat) -> bool:
    """Whether `phrase` names someone, not a subject: the company or the people spoken to ("Ana"), or someone
    close and their name ("my son Finn", "mia sorella Giulia": a people noun and names only)."""
    if {word.lower for word in phrase} <= chat.persons | chat.addressed:
        return True
    words = [word for word in phrase if word.lower not in chat.grammar.stopwords]
    close = [word for word in words if word.lemma in chat.grammar.people_nouns]
    named = [word for word in words if word.lower in chat.names]
    return bool(close) and bool(named) and len(close) + len(named) == len(words)


def _without_labels(text: str) -> str:
    return "\n".join(LABEL_AT_START.sub("", line) for line in text.splitlines())


def _read(text: str, g: Grammar) -> _Chat:
    clauses: list[tuple[Word, ...]] = []
    user_turns = 0
    lines = text.splitlines()
    opened_at: int | None = None
    said_before: list[tuple[Word, ...]] = []
    """What the other side said before the user's first turn."""
    for number, line in enumerate(lines):
        label = LABEL_AT_START.match(line)
        from_assistant = label is not None and canonical_label(label.group(1)) in (
            ASSISTANT_LABEL,
            OPEN_ASSISTANT_LABEL,
        )
        body = line[label.end() :] if label else line
        weight = ASSISTANT_WEIGHT if from_assistant else USER_WEIGHT
        found = [clause for sentence in split_single(body) for clause in read_clauses(sentence, weight, g)]
        if not from_assistant and (label or not user_turns) and any(_says_something(w, g) for w in chain(*found)):
            user_turns += 1  # "Hi!" is no turn here; unlabelled text: its first line stands for the first turn
            if user_turns == 1:
                opened_at = number
                found = [tuple(replace(word, first_turn=True) for word in clause) for clause in found]
        if from_assistant and opened_at is None:
            said_before += found
        clauses += found
    names = names_in(clauses, g)
    persons, addressed = people_in(clauses, names, g, USER_WEIGHT)
    # The user opens unless their first turn answers what the other side said ("Hey Jon! ..."); a greeting
    # and an offer of help come first in many chats ("Hello! What can I help you with?").
    user_opens = opened_at is not None and not any(list(noun_runs(clause, names, persons, g)) for clause in said_before)
    lines = lines[opened_at or 0 :]
    counts: dict[str, float] = defaultdict(float)
    opening: frozenset[str] = frozenset()
    owned: frozenset[str] | None = None  # the possessive's phrase of `_Chat.meant`
    opens = user_opens and len(lines) >= LONG_CHAT_TURNS
    asked: set[str] = set()
    for clause in clauses:
        for run in noun_runs(clause, names, persons, g):
            for word in run:
                counts[word.lemma] += word.weight
                if word.first_turn and user_opens and len(lines) >= WHOLE_CHAT_LINES:
                    asked.add(word.lemma)
            if opens and not opening and run[0].first_turn and opening_run(run, persons | addressed, g):
                opening = frozenset(word.lemma for word in run)
            if owned is None and run[0].first_turn:
                mine = (
                    user_opens
                    and clause[0].lower in POSSESSIVES
                    and run[0] is clause[1]
                    and opening_run(run, persons | addressed, g)
                    and not {word.lemma for word in run} & g.people_nouns
                )
                owned = frozenset(word.lemma for word in run) if mine else frozenset()
    first_turn = frozenset(word.lemma for clause in clauses for word in clause if word.first_turn)
    talk = any(word.first_turn and word.lower in addressed for clause in clauses for word in clause)
    if talk:
        asked = set()  # "Hey Mel! ...": a talk between people wanders by nature, no request opens it
    user_opens = user_opens and not talk
    wanted = wanted_run(clauses, names, persons, persons | addressed, g) if user_opens else frozenset()
    return _Chat(
        tuple(clauses),
        names,
        persons,
        addressed,
        counts,
        first_turn,
        opening,
        (owned or frozenset()) | wanted,
        frozenset(asked),
        user_opens,
        g,
    )


def _asked(phrase: Phrase, chat: _Chat) -> bool:
    return all(word.lemma in chat.asked for word in phrase if word.lower not in chat.grammar.stopwords)


def _says_something(word: Word, g: Grammar) -> bool:
    return word.lower not in g.stopwords and word.lemma not in g.weak and word.lower not in g.greetings


def _phrases(chat: _Chat) -> list[Phrase]:
    """Every noun phrase of the chat with its shorter endings, the compounds its prepositions and
    adjectives make, and the chains of overlapping ones; each once (by lemmas), in text order."""
    found: dict[tuple[str, ...], Phrase] = {}
    g = chat.grammar
    for clause in chat.clauses:
        runs = list(noun_runs(clause, chat.names, chat.persons, g))
        predicates = _predicates(clause, runs, g) if g.language == "en" else ()
        for phrase in (*map(tuple, runs), *_compounds(clause, runs, chat.names, g), *predicates):
            for start in range(len(phrase)):
                found.setdefault(_lemmas(phrase[start:]), phrase[start:])
    # "kitchen wall" and "wall tiles" make "kitchen wall tiles".
    for left in list(found.values()):
        for right in list(found.values()):
            if len(right) > 1 and left[-1].lemma == right[0].lemma and len(left) + len(right) - 1 <= MAX_PHRASE_WORDS:
                chain = (*left, *right[1:])
                found.setdefault(_lemmas(chain), chain)
    return [
        phrase
        for phrase in found.values()
        if len(set(_lemmas(phrase))) == len(phrase)
        and phrase[0].lower not in g.stopwords
        and phrase[-1].lower not in g.stopwords
    ]


def _lemmas(phrase: Phrase) -> tuple[str, ...]:
    return tuple(word.lemma for word in phrase)


def _compounds(
    clause: Sequence[Word], runs: Sequence[list[Word]], names: dict[str, str], g: Grammar
) -> Iterator[Phrase]:
    """Phrase A, a link, maybe a determiner, phrase B: the compound "B A" in English, "A link B" in the
    others ("piastrelle per la cucina")."""
    positions = {id(word): i for i, word in enumerate(clause)}
    for head, tail in pairwise(runs):
        between = clause[positions[id(head[-1])] + 1 : positions[id(tail[0])]]
        if not between or len(between) > 2 or any(word.lower not in g.determiners for word in between[1:]):
            continue
        link = between[0].lower
        # A place names a common noun: "trip to Lisbon", not "from JavaScript to TypeScript".
        is_place = all(w.lower in names for w in tail) and not all(w.lower in names for w in head)
        if not (link in g.links or (link in g.place_links and is_place)):
            continue
        if g.compounds_reversed:
            yield (*tail, *head)[-MAX_PHRASE_WORDS:]
        elif len(head) + len(between) + len(tail) <= MAX_WORDS:
            yield (*head, *(word for word in between if word.lower not in POSSESSIVES), *tail)


def _predicates(clause: Sequence[Word], runs: Sequence[list[Word]], g: Grammar) -> Iterator[Phrase]:
    """A phrase and the adjective said of it: "the loaves keep coming out flat" gives "flat loaves"."""
    positions = {id(word): i for i, word in enumerate(clause)}
    for run in runs:
        after = positions[id(run[-1])] + 1
        while after < len(clause) and clause[after].lower in g.linking:
            after += 1
        if after == positions[id(run[-1])] + 1 or after >= len(clause):
            continue
        word = clause[after]
        if ADJ in word.readings and word.lemma not in g.weak and word.lower not in g.stopwords:
            yield (word, *run[-(MAX_PHRASE_WORDS - 1) :])


def _score(phrase: Phrase, chat: _Chat) -> float:
    score = 0.0
    for word in phrase:
        if word.lower in chat.grammar.stopwords:
            continue  # a link of "piastrelle per la cucina": neither the subject nor a cost
        count = chat.counts.get(word.lemma, 0.0)
        score += count - SAID_ONCE
        if word.lemma in chat.first_turn and count > 1:
            score += FIRST_TURN_BONUS
        if word.lower in chat.names:
            score += NAME_BONUS
        if word.lemma in chat.opening and count > 1:
            score += OPENING_BONUS
        if word.lemma in chat.meant:
            score += MEANT_BONUS
    return score


def _title_words(best: Phrase, ranked: Sequence[Phrase], beside: Sequence[Phrase], chat: _Chat) -> list[str] | None:
    """`best`'s words, a lone word widened (`_widen`); None when it cannot be."""
    if len(best) > 1:
        return [word.text for word in best]
    return _widen(best[0], [p for p in ranked if p is not best], [p for p in beside if p is not best], chat)


def _said_by_user(word: Word, chat: _Chat) -> bool:
    """Counted as much as a word the user says once: a word the assistant says once in passing ("the
    witness *signs*", read as a noun) does not widen a title."""
    return word.lower in chat.grammar.stopwords or chat.counts.get(word.lemma, 0.0) >= USER_WEIGHT


def _about(word: Word, chat: _Chat) -> list[str]:
    """A lone word made a title: "Tokyo chat", "Chat su Tokyo"."""
    before, after = chat.grammar.about_chat
    return [*before.split(), word.text, *after.split()]


def _widen(word: Word, others: Sequence[Phrase], beside: Sequence[Phrase], chat: _Chat) -> list[str] | None:
    """A one-word subject made a title: the best phrase that holds it ("dog" in "dog itchy skin"), or
    with the next best noun of `beside`, a name as its modifier ("Lisbon trip"), otherwise side by side
    ("Sleep and coffee")."""
    for other in others:
        if len(other) > 1 and word.lemma in _lemmas(other) and all(_said_by_user(w, chat) for w in other):
            return [w.text for w in other]
    for other in beside:
        noun = other[0]
        if (
            len(other) > 1
            or noun.lemma == word.lemma
            or noun.lower in chat.persons | chat.addressed
            or NOUN not in noun.readings
        ):
            continue
        # "red", "makes": rather an adjective or a verb here. (The other languages' lexicon gives every
        # noun an adjective's reading too, and no verb one: nothing to tell there.)
        one_of_many = ADJ in noun.readings or (
            VERB in noun.readings and chat.counts.get(noun.lemma, 0.0) <= USER_WEIGHT
        )
        if chat.grammar.language == "en" and one_of_many:
            continue
        if word.lower in chat.names and noun.lower not in chat.names and chat.grammar.compounds_reversed:
            return [word.text, noun.text]
        return [word.text, chat.grammar.and_word, noun.text]
    return None


def _companion(chat: _Chat, taken: set[str]) -> str | None:
    """The person the chat names most often, if the title does not hold them yet."""
    ranked = sorted(
        chat.persons - taken, key=lambda lower: (-chat.counts.get(lexicon(lower, chat.grammar.language)[0], 0.0), lower)
    )
    return chat.names[ranked[0]] if ranked else None


def _sentence_case(words: Sequence[str], names: dict[str, str], *, nouns_capitalised: bool = False) -> str:
    """Sentence case; German keeps its nouns' capitals (`nouns_capitalised`: the words as written)."""
    cased = [names.get(word.lower(), word if nouns_capitalised else word.lower()) for word in words]
    cased[0] = cased[0][:1].upper() + cased[0][1:]
    return " ".join(cased).replace("' ", "'")  # an elided word joins the next: "dell'isola"
