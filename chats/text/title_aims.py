"""A chat opened to learn to do something ("I never learned to swim, I want to learn this summer") is about
that skill, which no noun names: `aim_title` reads it from the user's opening turn ("Learning to swim",
"Aprender a nadar", "Schwimmen lernen"). The verbs of learning and the title's shape are each language's
data (`aim_verbs`, `aim_title` in `languages/<code>/words.toml`). Pure."""

from __future__ import annotations

from collections.abc import Sequence

from chats.text.offline_grammar import NOUN, VERB, Grammar
from chats.text.title_words import Word


def aim_title(opening: Sequence[Word], g: Grammar) -> list[str] | None:
    """The words of a title for the skill the opening turn (its words in order) means to learn: the
    infinitive nearest a verb of learning ("learned *to swim*"; German "*schwimmen* ... lernen"), when it
    takes no object ("learn to bake *bread*" is about the bread). None when there is none."""
    for i, word in enumerate(opening):
        if not {word.lower, word.lemma} & g.aim_verbs:
            continue
        skills = [
            (abs(j - i), skill)
            for j, skill in enumerate(opening)
            if _infinitive(skill, g)
            and not {skill.lower, skill.lemma} & g.aim_verbs
            and (g.language != "en" or (j == i + 2 and opening[i + 1].lower == "to"))
            and not _has_object(opening, j, g)
        ]
        if skills:
            skill = min(skills, key=lambda found: found[0])[1]
            before, after = g.aim_title
            return [*before.split(), skill.lower, *after.split()]
    return None


def _infinitive(word: Word, g: Grammar) -> bool:
    return (
        VERB in word.readings
        and word.lemma == word.lower
        and word.lower not in g.stopwords
        and word.lemma not in g.weak
    )


def _has_object(opening: Sequence[Word], at: int, g: Grammar) -> bool:
    """A noun right after the infinitive ("fare *il pane*"), or right before it in German ("*Brot* zu backen")."""
    if g.capital_nouns:
        near = [w for w in reversed(opening[max(0, at - 3) : at]) if w.lower != "zu"][:1]
    else:
        near = [w for w in opening[at + 1 : at + 4] if w.lower not in g.determiners][:1]
    return any(NOUN in w.readings and w.lemma not in g.weak and w.lower not in g.stopwords for w in near)
