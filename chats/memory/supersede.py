"""When a new fact contradicts an older one ("User lives in Berlin" after "User lives in Paris"), and when
it only repeats it in other words ("User can get by in Japanese" after "User speaks Japanese fairly well").

The rule is deliberately narrow, pure and explainable. A fact has a *frame* when it states one of a
few single-valued attributes of one subject: where they live (lives in, moved to, is based in...),
where or as what they work, a name, a favourite something, an age, a spouse or partner, how well they
speak one language. Two facts of the same category contradict when their frames have the same subject
and attribute but a different value (compared by its first name or, failing that, its first words). The
newer one then supersedes the older: the store marks the older `superseded_by` the newer, and reads
return only the newer.

A name can also be given in passing: "User's dog Kofi needs a long walk every day" names the dog while
saying something else. Only the one pet or person a user has one of is read so ("User's son Leo" may be
one of several sons; "User's other dog", "User also has a dog called..." are a second one). A fact
naming its value in passing is replaced only by the same fact with another name (a renamed or misheard
dog), never by a fact about a dog of another name, which may be a second dog; and it never repeats a
fact, since it says more than the name.

Limits, on purpose: attributes outside the list are never superseded ("User likes hiking" does not
replace "User likes painting": both stay), nor are negations ("User no longer lives in Paris" has no
frame), nor facts whose subject is named differently ("User's wife" vs "Jane"). A supersede is visible
(the older memory is kept and listed with `include_superseded=True`), so a wrong one can be undone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

from chats.memory.duplicates import masked_words
from chats.memory.models import Category
from chats.memory.text import comparison_key, names, words
from languages import registry

RESTATEMENT_SIMILARITY = 0.7
"""From here up, a fact stating the same value of the same attribute as a current one repeats it ("User
moved to Porto last month" after "User lives in Porto now": 0.83), though it words it otherwise."""

_FRAMES = registry.table("en")["memory_frames"]
"""`languages/en/memory.toml`'s `[memory_frames]`: its expressions, and the words around a frame."""


def _expression(written: str | list[str], flags: re.RegexFlag = re.IGNORECASE) -> re.Pattern[str]:
    return re.compile(written if isinstance(written, str) else "".join(written), flags)


_JOB_EDGES = _expression(_FRAMES["job_edges"])
"""Around a job's name: its article, and where or how it is done ("being a nurse at the clinic", "by
trade")."""
_NEGATION = _expression(_FRAMES["negation"])
_ATTRIBUTES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (attribute, _expression(pattern)) for attribute, pattern in _FRAMES["attributes"].items()
)
_ANOTHER = registry.words(_FRAMES["another"])
"""Words that make a name one of several ("User's other dog is called...", "User also has a cat named..."):
such a name neither replaces nor repeats the one named before."""
_ONE_OF = registry.words(_FRAMES["one_of"])
"""Pets, partners, parents, a boss: "User's dog Kofi" is the user's dog, not one of several sons."""
_NAMED_IN_PASSING = _expression(_FRAMES["named_in_passing"], re.NOFLAG)
""""User's dog Kofi needs a long walk every day", "User's wife, Jane, is a doctor"."""
_SPEAKS = _expression(_FRAMES["speaks"])
"""Speaking a language: "speaks Japanese fairly well", "can get by in Japanese", "is fluent in Japanese"."""
_FLUENT = registry.words(_FRAMES["fluent"])
"""Words that make speaking a language a level of its own: fluent is not "can get by"."""
_QUALIFIERS = registry.words(_FRAMES["qualifiers"])
"""Words after a value that add nothing to it ("User lives in Porto now", "speaks Japanese fairly well")."""


@dataclass(frozen=True, slots=True)
class Frame:
    subject: str
    """The normalised words before the attribute ("" for the user, "wife" for "User's wife")."""
    attribute: str
    """"home", "employer", "job", "name", "partner", "favourite colour", "age", "speaks japanese"."""
    value: str
    """The value's first name, else its first three words, normalised; for a language, "fluent" or
    "speaks"."""


class _Reading(NamedTuple):
    frame: Frame
    in_passing: bool
    """The value is named while the fact says something else ("User's dog Kofi needs a long walk")."""
    only: bool
    """The fact says its frame and nothing more ("User's dog is called Kofi")."""


def frame(content: str) -> Frame | None:
    """The single-valued attribute `content` states, if it is one this module knows."""
    reading = _read(content)
    return None if reading is None else reading.frame


def _read(content: str) -> _Reading | None:
    if _NEGATION.search(content):
        return None
    reading = _stated(content) or _spoken(content) or _named_in_passing(content)
    if reading is not None and reading.frame.attribute == "name" and _ANOTHER & set(words(content)):
        return None
    return reading


def _stated(content: str) -> _Reading | None:
    for attribute, pattern in _ATTRIBUTES:
        match = pattern.search(content)
        if not match:
            continue
        subject = comparison_key(content[: match.start()])
        if attribute == "age":
            return _Reading(Frame(subject, "age", match.group(1)), in_passing=False, only=False)
        if attribute == "name" and match.group("named"):  # "User has a dog called Kofi": the dog's name
            subject = " ".join(filter(None, (subject, match["named"])))
        name = f"favourite {match.group(1).lower()}" if attribute == "favourite" else attribute
        rest = content[match.end() :]
        valued = _JOB_EDGES.sub("", rest) if attribute == "job" else rest  # "is a nurse by trade": "nurse"
        value_names = names(valued)
        value = value_names[0].lstrip("^") if value_names else " ".join(comparison_key(valued).split()[:3])
        return _Reading(Frame(subject, name, value), in_passing=False, only=_says_only(rest, value)) if value else None
    return None


def _spoken(content: str) -> _Reading | None:
    match = _SPEAKS.search(content)
    if not match or not names(match["language"]):
        return None
    rest = words(content[match.end() :])
    beyond = _after_qualifiers(rest)
    level = "fluent" if _FLUENT & set(words(match.group(0)) + rest[: len(rest) - len(beyond)]) else "speaks"
    subject = comparison_key(content[: match.start()])
    return _Reading(Frame(subject, f"speaks {comparison_key(match['language'])}", level), False, not beyond)


def _named_in_passing(content: str) -> _Reading | None:
    match = _NAMED_IN_PASSING.match(content)
    if not match or match["subject"] not in _ONE_OF or not names(match["name"]):
        return None
    value = comparison_key(match["name"])
    return _Reading(Frame(match["subject"], "name", value), True, _says_only(content[match.end() :], value))


def _after_qualifiers(rest: list[str]) -> list[str]:
    """`rest` from its first word that is not a qualifier ("fairly well", "fluently")."""
    for i, word in enumerate(rest):
        if word not in _QUALIFIERS and word not in _FLUENT:
            return rest[i:]
    return []


def _says_only(rest: str, value: str) -> bool:
    """Whether the words after an attribute are its value and nothing more: its name in full, its words,
    qualifiers ("User's wife is named Jane Smith", "User lives in Porto now")."""
    allowed = set(value.split()) | {name.lstrip("^") for name in names(rest)} | _QUALIFIERS
    return all(word in allowed for word in words(rest))


def contradicts(new: str, new_category: Category, old: str, old_category: Category) -> bool:
    """Whether the newer fact `new` replaces the older `old`: same category, subject and attribute,
    another value; and when `old` names its value only in passing, the same words around another name."""
    readings = _both_read(new, new_category, old, old_category)
    if readings is None:
        return False
    (new_frame, _, _), (old_frame, old_in_passing, _) = readings
    return (
        new_frame.subject == old_frame.subject
        and new_frame.attribute == old_frame.attribute
        and new_frame.value != old_frame.value
        and (not old_in_passing or masked_words(new) == masked_words(old))
    )


def restates(new: str, new_category: Category, old: str, old_category: Category, similarity: float) -> bool:
    """Whether `new` states the same value of the same attribute as `old` in other words ("User moved to
    Porto" after "User lives in Porto now"): when `new` says nothing more than that ("User's dog is called
    Kofi" after "User's dog Kofi needs a long walk"), or when the two are alike (`similarity`, their
    cosine, from `RESTATEMENT_SIMILARITY` up) and neither names its value only in passing."""
    readings = _both_read(new, new_category, old, old_category)
    if readings is None:
        return False
    (new_frame, new_in_passing, new_only), (old_frame, old_in_passing, _) = readings
    if new_frame != old_frame:
        return False
    return new_only or (similarity >= RESTATEMENT_SIMILARITY and not (new_in_passing or old_in_passing))


def _both_read(new: str, new_category: Category, old: str, old_category: Category) -> tuple[_Reading, _Reading] | None:
    """The frames of two facts of the same category, when both have one."""
    if new_category != old_category:
        return None
    new_reading, old_reading = _read(new), _read(old)
    return None if new_reading is None or old_reading is None else (new_reading, old_reading)
