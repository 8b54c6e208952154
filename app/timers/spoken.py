"""Timer requests to the offline voice ("set a pasta timer for five minutes", "ricordami domani alle 9 di
chiamare l'idraulico", "cancel the pasta timer") and the tool call each stands for. Pure: the time now and
the zone are arguments.

They are recognised word for word at the start of what was said, in every language, English too, from each
language's `[timers.requests]` in `languages/<code>/timers.toml`, one word allowed before a timer noun
(the timer's name). Not by the embedder: all-MiniLM-L6-v2 put "set a rice timer for" at 0.64 from "set a
pasta timer for", under the intents' threshold, and a bare "remind me" as close to "remind me what we
discussed about" as to a reminder. A reminder is claimed only when its words hold a time, so "remind me what
we discussed about the holiday" still goes to the other intents."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, tzinfo
from typing import Any

from app.timers.parsing import split_reminder, time_said
from languages.registry import SUPPORTED, table, words


@dataclass(frozen=True, slots=True)
class Request:
    tool: str
    rest: str
    """What was said after the request's words."""
    name: str = ""
    """The word said before the timer noun ("pasta" of "set a pasta timer for"), if any."""


def _pattern(phrasing: str, nouns: frozenset[str]) -> re.Pattern[str]:
    words: list[str] = []
    for word in phrasing.lower().split():
        said = re.escape(word)
        if word in nouns and not any("(?P<name>" in w for w in words):
            said = rf"(?:(?P<name>[\w']+)[\s-]+)?{said}"
        words.append(said)
    return re.compile(r"^\W*" + r"[\s,]+".join(words) + r"(?=\W|$)", re.IGNORECASE)


def _requests(code: str) -> tuple[tuple[str, re.Pattern[str]], ...]:
    timers = table(code)["timers"]
    nouns = frozenset(timers["nouns"])
    found = [(tool, phrasing) for tool, phrasings in timers["requests"].items() for phrasing in phrasings]
    found.sort(key=lambda item: -len(item[1]))  # the longest phrasing that fits wins
    return tuple((tool, _pattern(phrasing, nouns)) for tool, phrasing in found)


REQUESTS: Mapping[str, tuple[tuple[str, re.Pattern[str]], ...]] = {code: _requests(code) for code in SUPPORTED}
"""Language -> (tool, the pattern of one of its phrasings), longest phrasing first."""


def timer_request(text: str, language: str | None) -> Request | None:
    """The timer request `text` opens with, in `language` (None: any of them), or None."""
    for code in SUPPORTED if language is None else (language,):
        for tool, pattern in REQUESTS.get(code, ()):
            match = pattern.match(text)
            if match is not None:
                return Request(
                    tool, text[match.end() :].strip(" ,.;:!?¿¡"), (match.groupdict().get("name") or "").lower()
                )
    return None


def timer_call(
    text: str, tools: frozenset[str] | set[str], language: str | None, *, now: datetime, zone: tzinfo
) -> tuple[str, dict[str, Any]] | None:
    """The timer tool (among the declared `tools`) and arguments `text` asks for, or None."""
    request = timer_request(text, language)
    if request is None or request.tool not in tools:
        return None
    args = timer_arguments(request, text, language, now=now, zone=zone)
    return None if args is None else (request.tool, args)


_FOR = frozenset(word for code in SUPPORTED for word in words(table(code)["timers"]["before_label"]))
"""The words between a timer's time and what it is for ("... for the pasta", "... per la pasta"), in every
language."""


def timer_arguments(
    request: Request, utterance: str, language: str | None, *, now: datetime, zone: tzinfo
) -> dict[str, Any] | None:
    """The tool's arguments; None when the words give no time to set."""
    rest = request.rest
    if request.tool == "set_timer":
        found = _time_first(rest, now, zone, language) or _time_last(utterance, now, zone, language)
        if found is None:
            return None
        due, left_over = found
        return {"seconds": math.ceil((due - now).total_seconds()), "label": request.name or _label(left_over)}
    if request.tool == "set_reminder":
        reminder = split_reminder(rest, now, zone, language) if rest else None
        if reminder is None:
            return None
        due, what = reminder
        return {"when": due.astimezone(zone).replace(tzinfo=None).isoformat(timespec="seconds"), "text": what}
    if request.tool == "cancel_timer":
        return {"which": " ".join(filter(None, (request.name, rest)))}
    return {}


def _time_first(text: str, now: datetime, zone: tzinfo, language: str | None) -> tuple[datetime, str] | None:
    """The time the longest beginning of `text` says, and the words after it ("cinque minuti per la pasta":
    in five minutes, "per la pasta")."""
    words = text.split()
    for end in range(len(words), 0, -1):
        due = time_said(" ".join(words[:end]), now, zone, language)
        if due is not None:
            return due, " ".join(words[end:])
    return None


def _time_last(text: str, now: datetime, zone: tzinfo, language: str | None) -> tuple[datetime, str] | None:
    """The time the longest ending of `text` says ("...a timer for five minutes": in five minutes)."""
    words = text.split()
    for start in range(len(words)):
        due = time_said(" ".join(words[start:]), now, zone, language)
        if due is not None:
            return due, ""
    return None


def _label(words: str) -> str:
    """ "per la pasta" -> "pasta": what a timer is for, said after its time."""
    said = [word for word in words.strip(" ,.!?").split() if word.lower() not in _FOR]
    return " ".join(said[:3])
