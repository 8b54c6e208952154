"""When a timer or a reminder is due, from the user's words ("tomorrow at 9", "domani alle 9", "in zehn
Minuten", "5 minutos"), read by `dateparser` in the user's language and time zone. Pure: the clock's
reading and the zone are arguments.

dateparser misses two things people say, so the words are put right first, from each language's
`[timers]` and `[numbers]` tables in `languages/<code>/timers.toml`: a bare hour after "at" ("tomorrow at
9" came out as 17:00, the hour of the reference time), and number words in Italian and Spanish ("cinque
minuti" came out as nothing).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo

from languages.registry import SUPPORTED, codes, table


def _any_of(key: str) -> str:
    """A pattern of every language's `[timers] key` words, the longest first (they are mixed as people mix
    them: "alle 9 horas")."""
    said = {word for code in SUPPORTED for word in table(code)["timers"][key]}
    return "(?:" + "|".join(re.escape(word) for word in sorted(said, key=lambda w: (-len(w), w))) + ")"


_OCLOCK = _any_of("oclock") + r"\b"
"""Said after a bare hour ("um 9 Uhr"): dropped once the hour is written 9:00 (dateparser read 17:00)."""
_UNIT = _any_of("unit_starts")
"""How a time unit's name begins ("minut"): "a", "un", "eine" before one is 1 ("an hour")."""
_MINUS = re.compile(r"(?i)\s*(?:-|" + _any_of("minus") + r"\s)\s*(?=\d|\w)")
"""A delay said below zero ("minus 5 minutes", "-5 minutes", "meno cinque minuti")."""
_WORD = re.compile(r"\d+(?:[:.]\d+)*(?:h(?:\d\d)?)?|[\w'-]+|[^\w\s]+")


@dataclass(frozen=True, slots=True)
class Words:
    """A language's words for times."""

    at: tuple[str, ...]
    """What comes before a clock time ("at", "alle", "a las", "um")."""
    then: tuple[str, ...]
    """What joins when and what ("... tomorrow at 9 to call the plumber")."""
    numbers: Mapping[str, int]
    rewrites: tuple[tuple[re.Pattern[str], str], ...] = ()
    """What dateparser misreads in this language, written as it reads it (Portuguese "18h30" -> "18:30")."""


def _words(code: str) -> Words:
    found = table(code)
    rewrites = tuple(
        (re.compile(pattern, re.IGNORECASE), said) for pattern, said in found["timers"].get("rewrites", ())
    )
    return Words(tuple(found["timers"]["at"]), tuple(found["timers"]["then"]), dict(found["numbers"]), rewrites)


WORDS: Mapping[str, Words] = {code: _words(code) for code in SUPPORTED}


def time_said(text: str, now: datetime, zone: tzinfo, language: str | None = "en") -> datetime | None:
    """When `text` says (an absolute time, "tomorrow at 9", or a delay, "in 5 minutes", "five minutes", "minus
    5 minutes"), as an aware UTC time; None when it says no time. A time gone ("0 seconds", "yesterday") is
    returned too: the tools refuse it in a sentence, where None would leave the words to a chat model that may
    say it was done. `zone`: the user's, in which "tomorrow at 9" is read. `language`: None for any
    (dateparser finds it; English's words)."""
    words = WORDS.get(language or "en", WORDS["en"])
    minus = _MINUS.match(text)
    if minus is not None:  # dateparser reads "minus 5 minutes" as nothing, and "- 5 minutes" as a date in May
        ahead = time_said(text[minus.end() :], now, zone, language)
        return None if ahead is None else now - (ahead - now)
    local_now = now.astimezone(zone).replace(tzinfo=None)
    try:  # what a model passes: "2026-11-28T09:00:00", with or without its offset
        exact = datetime.fromisoformat(text.strip())
        return (exact if exact.tzinfo else exact.replace(tzinfo=zone)).astimezone(UTC)
    except ValueError:
        pass
    import dateparser  # here: 0.3 s to import, and the window paints first

    for pattern, said in words.rewrites:
        text = pattern.sub(said, text)
    found = dateparser.parse(
        _put_right(text, words),
        languages=None if language is None else [codes("dateparser")[language]],
        settings={"RELATIVE_BASE": local_now, "PREFER_DATES_FROM": "future", "RETURN_AS_TIMEZONE_AWARE": False},
    )
    if found is None:
        return None
    if found.tzinfo is None:
        if found <= local_now and local_now - found < timedelta(days=1) and _clock_time_only(text, words):
            found += timedelta(days=1)  # "at 9" said at 17:00: tomorrow's 9
        found = found.replace(tzinfo=zone)
    return found.astimezone(UTC)


def split_reminder(text: str, now: datetime, zone: tzinfo, language: str | None = "en") -> tuple[datetime, str] | None:
    """(when, what) of a reminder said in one go: "tomorrow at 9 to call the plumber", "(to) call the plumber
    tomorrow at 9", "domani alle 9 di chiamare l'idraulico": split at one of the language's `then` words,
    the side that reads as a time is when; else the longest ending that reads as a time is when. None when
    no split gives both."""
    words = WORDS.get(language or "en", WORDS["en"])
    tokens = text.split()
    for position, token in enumerate(tokens):
        word = token.lower().strip(",")
        elided = next((w for w in words.then if w.endswith("'") and word.startswith(w) and word != w), None)
        if word not in words.then and elided is None:
            continue
        after = [token[len(elided) :]] if elided else []  # French "d'appeler": "appeler"
        before = " ".join(tokens[:position]).strip(" ,")
        said = " ".join([*after, *tokens[position + 1 :]]).strip(" ,.")
        if before and said and (due := time_said(before, now, zone, language)) is not None:
            return due, said
    for cut in range(1, len(tokens)):  # what first: "(to) call the plumber tomorrow at 9"
        what, when = tokens[:cut], " ".join(tokens[cut:])
        if what[0].lower() in words.then:
            what = what[1:]
        if what and (due := time_said(when, now, zone, language)) is not None:
            return due, " ".join(what).strip(" ,.")
    return None


def _put_right(text: str, words: Words) -> str:
    """Number words as digits ("twenty five" -> "25"), and a bare hour after an "at" word as a clock time
    ("alle 9" -> "alle 9:00")."""
    out: list[str] = []
    pending: int | None = None
    for token in _WORD.findall(text):
        value = words.numbers.get(token.lower())
        if value == 1 and pending is None:  # "a", "un", "eine": one only when a unit follows ("an hour")
            out.append("1" if _unit_follows(text, token) else token)
            continue
        if value is not None:
            pending = (pending or 0) + value  # "twenty five": 25; "zero": 0
            continue
        if pending is not None:
            out.append(str(pending))
            pending = None
        out.append(token)
    if pending is not None:
        out.append(str(pending))
    said = " ".join(out)
    for at in sorted(words.at, key=len, reverse=True):
        said = re.sub(
            rf"(?i)\b({re.escape(at)})\s*(\d{{1,2}})(?:\s*{_OCLOCK})?(?![:.h]?\d|\s*(?:am|pm|h)\b)", r" \2:00", said
        )
    return said


def _unit_follows(text: str, token: str) -> bool:
    return re.search(rf"(?i)\b{re.escape(token)}\s+{_UNIT}", text) is not None


def _clock_time_only(text: str, words: Words) -> bool:
    """Whether `text` names a clock time and nothing else ("at 9", "alle 21:30", "9 pm")."""
    said = _put_right(text, words).strip().lower()
    for at in sorted(words.at, key=len, reverse=True):
        said = said.removeprefix(at).strip()
    return re.fullmatch(r"\d{1,2}([:.h]\d\d)?h?(\s*(am|pm))?", said) is not None
