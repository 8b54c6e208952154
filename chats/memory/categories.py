"""Which of spec 001's categories a fact said in the user's own words belongs to, when nothing else says:
the offline voice (which has no model to choose) and `parley memories add` without `--category`.

Words decide, in the five languages, first match wins: what the user eats or cannot eat (preference: a
diet is durable and shapes every suggestion, so it is pre-loaded like any preference, never left in
context), who they are (identity), the people in their life (relationship), likes and dislikes
(preference), what they are making (project), else context. Identity, preference and relationship are
pre-loaded into every conversation (`chats.memory.preload`); project and context are searched when they
matter.
"""

from __future__ import annotations

import re

from chats.memory.models import Category

_CATEGORY_WORDS: tuple[tuple[Category, re.Pattern[str]], ...] = (
    (
        "preference",
        re.compile(
            r"\b(vegan|vegetarian|pescatarian|allergic|allergy|gluten|lactose|halal|kosher|teetotal\w*"
            r"|(?:do not|don't|doesn't|does not|never) (?:eat|drink)"
            r"|vegan[oa]|vegetarian[oa]|végane?|végétarien\w*|veganer\w*|vegetarier\w*|allergi\w*)\b",
            re.IGNORECASE,
        ),
    ),
    (
        "identity",
        re.compile(
            r"\b(name|i am|i'm|years old|born|live|from|chiamo|sono|abito|vivo|anni|llamo|soy|appelle|suis|habite"
            r"|heiße|bin|wohne|jahre)\b",
            re.IGNORECASE,
        ),
    ),
    (
        "relationship",
        re.compile(
            r"\b(wife|husband|partner|son|daughter|mother|father|friend|sister|brother|moglie|marito|figlio|figlia"
            r"|madre|padre|amico|amica|sorella|fratello|esposa|esposo|hijo|hija|hermano|hermana|amigo|amiga|femme"
            r"|mari|fils|fille|mère|père|ami|amie|sœur|frère|frau|mann|sohn|tochter|mutter|vater|freund|freundin"
            r"|schwester|bruder)\b",
            re.I,
        ),
    ),
    (
        "preference",
        re.compile(
            r"\b(prefer|like|love|hate|favou?rite|enjoy|dislike|preferisc\w*|piace|piacciono|odio|adoro|prefiero"
            r"|gusta|gustan|encanta|préfère|aime|adore|déteste|mag|liebe|hasse|lieber|gern)\b",
            re.IGNORECASE,
        ),
    ),
    ("project", re.compile(r"\b(project|working on|building|writing|progetto|proyecto|projet|projekt)\b", re.I)),
)


def guess_category(words: str) -> Category:
    """The category of a fact from its words (the user's, or already in the third person)."""
    return next((name for name, pattern in _CATEGORY_WORDS if pattern.search(words)), "context")
