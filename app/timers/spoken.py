"""The arguments of a timer tool from a request the offline voice recognised ("set a timer for five
minutes", "ricordami domani alle 9 di chiamare l'idraulico", "cancel the pasta timer"). Pure: the time now
and the zone are arguments."""

from __future__ import annotations

import math
import re
from datetime import datetime, tzinfo
from typing import Any

from app.timers.parsing import due_time, split_reminder

_LABELLED = re.compile(r"(?i)\b(?!(?:a|an|the|my|set|start|new|ein|einen|den)\b)(\w+)[ -]timer\b")
"""English "a pasta timer", German "einen Nudel-Timer": the word before "timer" is what it is for. Other
languages name it after its time ("un timer di cinque minuti per la pasta")."""
_NAMED_BEFORE = ("en", "de")
_FOR = frozenset("for the per il lo la le para el los las pour les für den die das der".split())
"""The words between a timer's time and what it is for ("... for the pasta", "... per la pasta")."""


def timer_arguments(
    tool: str, rest: str, utterance: str, language: str | None, *, now: datetime, zone: tzinfo
) -> dict[str, Any] | None:
    """`rest`: the words after the recognised request; None when they give no time to set."""
    if tool == "set_timer":
        found = _time_first(rest, now, zone, language) or _time_last(utterance, now, zone, language)
        if found is None:
            return None
        due, left_over = found
        named = _LABELLED.search(utterance) if (language or "en") in _NAMED_BEFORE else None
        label = named.group(1).lower() if named else _label(left_over)
        return {"seconds": math.ceil((due - now).total_seconds()), "label": label}
    if tool == "set_reminder":
        found = split_reminder(rest, now, zone, language) if rest else None
        if found is None:
            return None
        due, what = found
        return {"when": due.astimezone(zone).replace(tzinfo=None).isoformat(timespec="seconds"), "text": what}
    if tool == "cancel_timer":
        return {"which": rest}
    return {}


def _time_first(text: str, now: datetime, zone: tzinfo, language: str | None) -> tuple[datetime, str] | None:
    """The time the longest beginning of `text` says, and the words after it ("cinque minuti per la pasta":
    in five minutes, "per la pasta")."""
    words = text.split()
    for end in range(len(words), 0, -1):
        due = due_time(" ".join(words[:end]), now, zone, language)
        if due is not None:
            return due, " ".join(words[end:])
    return None


def _time_last(text: str, now: datetime, zone: tzinfo, language: str | None) -> tuple[datetime, str] | None:
    """The time the longest ending of `text` says ("...a timer for five minutes": in five minutes)."""
    words = text.split()
    for start in range(len(words)):
        due = due_time(" ".join(words[start:]), now, zone, language)
        if due is not None:
            return due, ""
    return None


def _label(words: str) -> str:
    """ "per la pasta" -> "pasta": what a timer is for, said after its time."""
    said = [word for word in words.strip(" ,.!?").split() if word.lower() not in _FOR]
    return " ".join(said[:3])
