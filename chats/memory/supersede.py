"""When a new fact contradicts an older one: "User lives in Berlin" after "User lives in Paris".

The rule is deliberately narrow, pure and explainable. A fact has a *frame* when it states one of a
few single-valued attributes of one subject: where they live (lives in, moved to, is based in...),
where or as what they work, a name, a favourite something, an age, a spouse or partner. Two facts of the
same category contradict when their frames have the same subject and attribute but a different value
(compared by its first name or, failing that, its first words). The newer one then supersedes the older:
the store marks the older `superseded_by` the newer, and reads return only the newer.

Limits, on purpose: attributes outside the list are never superseded ("User likes hiking" does not
replace "User likes painting": both stay), nor are negations ("User no longer lives in Paris" has no
frame), nor facts whose subject is named differently ("User's wife" vs "Jane"). A supersede is visible
(the older memory is kept and listed with `include_superseded=True`), so a wrong one can be undone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from chats.memory.models import Category
from chats.memory.text import comparison_key, names

_JOB_EDGES = re.compile(r"^\s*(?:being\s+)?(?:an?\s+)?|\s+(?:at|for|in|with|on|by)\s.*$", re.IGNORECASE)
"""Around a job's name: its article, and where or how it is done ("being a nurse at the clinic", "by
trade")."""
_NEGATION = re.compile(r"\b(?:not|no longer|never|n['\u2019]t|used to|formerly|anymore)\b", re.IGNORECASE)
_ATTRIBUTES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (attribute, re.compile(pattern, re.IGNORECASE))
    for attribute, pattern in (
        (
            "home",
            r"\b(?:lives|is living|now lives|has moved|moved|relocated|is based|is located|resides)\s+(?:in|to)\b",
        ),
        (
            "employer",
            r"\b(?:works|is working|now works|is employed|started working|got a job|has a job)\s+(?:at|for)\b",
        ),
        (
            "job",
            r"\b(?:works as|is employed as|job is|role is|job title is)\b"
            r"|\bis(?=\s+an?\s+(?:\w+\s+){1,3}by\s+(?:trade|profession)\b)",
        ),
        ("name", r"\b(?:name is|is named|is called|goes by)\b"),
        ("partner", r"\b(?:is married to|got married to|is engaged to|is dating)\b"),
        ("favourite", r"\bfavou?rite\s+([a-z]+(?:\s[a-z]+)?)\s+is\b"),
        ("age", r"\bis\s+(\d{1,3})\s+years?\s+old\b"),
    )
)


@dataclass(frozen=True, slots=True)
class Frame:
    subject: str
    """The normalised words before the attribute ("" for the user, "wife" for "User's wife")."""
    attribute: str
    """"home", "employer", "job", "name", "partner", "favourite colour", "age"."""
    value: str
    """The value's first name, else its first three words, normalised."""


def frame(content: str) -> Frame | None:
    """The single-valued attribute `content` states, if it is one this module knows."""
    if _NEGATION.search(content):
        return None
    for attribute, pattern in _ATTRIBUTES:
        match = pattern.search(content)
        if not match:
            continue
        subject = comparison_key(content[: match.start()])
        if attribute == "age":
            return Frame(subject, "age", match.group(1))
        name = f"favourite {match.group(1).lower()}" if attribute == "favourite" else attribute
        rest = content[match.end() :]
        if attribute == "job":  # "works as a nurse at the clinic", "is a nurse by trade": "nurse"
            rest = _JOB_EDGES.sub("", rest)
        value_names = names(rest)
        value = value_names[0].lstrip("^") if value_names else " ".join(comparison_key(rest).split()[:3])
        return Frame(subject, name, value) if value else None
    return None


def contradicts(new: str, new_category: Category, old: str, old_category: Category) -> bool:
    """Whether the newer fact `new` replaces the older `old`: same category, subject and attribute,
    another value."""
    if new_category != old_category:
        return False
    new_frame, old_frame = frame(new), frame(old)
    if new_frame is None or old_frame is None:
        return False
    return (
        new_frame.subject == old_frame.subject
        and new_frame.attribute == old_frame.attribute
        and new_frame.value != old_frame.value
    )


def restates(new: str, new_category: Category, old: str, old_category: Category) -> bool:
    """Whether `new` states the same value of the same attribute as `old`, in other words ("User moved to
    Porto" after "User lives in Porto now")."""
    new_frame = frame(new)
    return new_category == old_category and new_frame is not None and new_frame == frame(old)
