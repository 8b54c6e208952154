"""Which noun phrase of the user's opening turn says what a chat is about, read for its title
(`chats.text.offline_title`): the one it opens on, and the one after a verb of wanting. Pure."""

from __future__ import annotations

from collections.abc import Sequence

from chats.text.offline_grammar import VERB, Grammar
from chats.text.title_runs import noun_runs
from chats.text.title_words import Word


def opening_run(run: Sequence[Word], people: frozenset[str], g: Grammar) -> bool:
    """Whether the first run of the user's first turn is the noun phrase the chat opens with: not people
    alone, nor an English verb's "-ing" ("I am *planning* a train trip")."""
    if {word.lower for word in run} <= people:
        return False
    return not (g.language == "en" and all(word.lower.endswith("ing") and VERB in word.readings for word in run))


def wanted_run(
    clauses: Sequence[tuple[Word, ...]],
    names: dict[str, str],
    persons: frozenset[str],
    people: frozenset[str],
    g: Grammar,
) -> frozenset[str]:
    """The lemmas of the first noun phrase after a verb of wanting (`Grammar.want_verbs`) in the user's
    opening turn, in its clause or a later one ("beschlossen, *das Bad* zu sanieren"), when no earlier
    sentence of the turn named something; not people."""
    at: int | None = None
    before = said = False
    for clause in clauses:
        if not clause or not clause[0].first_turn:
            continue
        if clause[0].initial:
            before, said = before or said, False
        after = frozenset(id(word) for word in clause)
        if at is None:
            if before:
                return frozenset()
            said = said or any(True for _ in noun_runs(clause, names, persons, g))
            at = next((i for i, word in enumerate(clause) if word.lower in g.want_verbs), None)
            if at is None:
                continue
            after = frozenset(id(word) for word in clause[at + 1 :])
        for run in noun_runs(clause, names, persons, g):
            if id(run[0]) in after and opening_run(run, people, g) and not {w.lemma for w in run} & g.people_nouns:
                return frozenset(word.lemma for word in run)
    return frozenset()
