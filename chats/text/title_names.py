"""Who a chat names, read for its title (`chats.text.offline_title`): its names, the people said as
company ("with Ana") and the people spoken to ("Hey Mel!"). Pure."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

from chats.text.offline_grammar import Grammar, lexicon
from chats.text.title_words import Word


def names_in(clauses: Sequence[tuple[Word, ...]], g: Grammar) -> dict[str, str]:
    """Words the chat writes with a capital where no sentence starts, and never without one; mixed
    case words; capitalised sentence openers the lexicon does not know ("Ana and I ...")."""
    capitalised: dict[str, Counter[str]] = defaultdict(Counter)
    lowercase: set[str] = set()
    for clause in clauses:
        for word in clause:
            if word.lower in g.not_names or not word.text[:1].isalpha():
                continue
            if not word.text[:1].isupper():
                lowercase.add(word.lower)
            elif g.capital_nouns:
                # German: every noun has a capital; a name is a capitalised word its lexicon does not know.
                if not lexicon(word.text, g.language)[1] or any(c.isupper() for c in word.text[1:]):
                    capitalised[word.lower][word.text] += 1
            elif not word.initial or any(c.isupper() for c in word.text[1:]) or not word.readings:
                capitalised[word.lower][word.text] += 1
    return {
        lower: forms.most_common(1)[0][0]
        for lower, forms in capitalised.items()
        if lower not in lowercase and lower not in g.stopwords and lower not in g.verb_cues
    }


def people_in(
    clauses: Sequence[tuple[Word, ...]], names: dict[str, str], g: Grammar, user_weight: float
) -> tuple[frozenset[str], frozenset[str]]:
    """The names said as company, and the names spoken to (a name that is a clause on its own, or follows a
    greeting); someone spoken to is no company, even when also said "with". In German only the user's words
    (of `user_weight`) bring company: the assistant's "mit Leckerlis" is a noun the lexicon does not know."""
    company: set[str] = set()
    addressed: set[str] = set()
    for clause in clauses:
        for i, word in enumerate(clause):
            if word.lower not in names:
                continue
            after = " ".join(w.lower for w in clause[i + 1 : i + 3])
            if len(clause) == 1 or word.previous in g.greetings:
                addressed.add(word.lower)
            elif g.capital_nouns and word.weight < user_weight:
                continue
            elif word.previous == g.with_word or after in {f"{g.and_word} {me}" for me in g.me_words}:
                company.add(word.lower)
    return frozenset(company - addressed), frozenset(addressed)
