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
languages name it after ("un timer per la pasta"), with words too varied to tell from the time: no label."""
_NAMED_BEFORE = ("en", "de")


def timer_arguments(
    tool: str, rest: str, utterance: str, language: str | None, *, now: datetime, zone: tzinfo
) -> dict[str, Any] | None:
    """`rest`: the words after the recognised request; None when they give no time to set."""
    if tool == "set_timer":
        due = _last_time(rest, now, zone, language) or _last_time(utterance, now, zone, language)
        if due is None:
            return None
        label = _LABELLED.search(utterance) if (language or "en") in _NAMED_BEFORE else None
        seconds = math.ceil((due - now).total_seconds())
        return {"seconds": seconds, "label": label.group(1).lower() if label else ""}
    if tool == "set_reminder":
        found = split_reminder(rest, now, zone, language) if rest else None
        if found is None:
            return None
        due, what = found
        return {"when": due.astimezone(zone).replace(tzinfo=None).isoformat(timespec="seconds"), "text": what}
    if tool == "cancel_timer":
        return {"which": rest}
    return {}


def _last_time(text: str, now: datetime, zone: tzinfo, language: str | None) -> datetime | None:
    """The time the longest ending of `text` says ("...timer for five minutes": in five minutes)."""
    words = text.split()
    for start in range(len(words)):
        due = due_time(" ".join(words[start:]), now, zone, language)
        if due is not None:
            return due
    return None
