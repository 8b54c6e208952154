"""What is said about timers, in each language Parley speaks: when one rings or was missed, and the offline voice's
answers to the timer tools (`app.offline.replies` hands those here). Pure."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date, datetime, timedelta, tzinfo
from typing import Any

from app.core.timer import Timer
from languages.registry import DEFAULT, SUPPORTED, table

SAY: Mapping[str, Mapping[str, str]] = {code: table(code)["timers"]["sayings"] for code in SUPPORTED}
"""Language -> what is said about timers, by message: `languages/<code>/timers.toml` (`[timers.sayings]`)."""
_STOP_WORDS: Mapping[str, tuple[str, ...]] = {code: tuple(table(code)["timers"]["stop"]) for code in SUPPORTED}


def stop_words(language: str) -> tuple[str, ...]:
    """What stops a ringing timer in `language` when said alone, without the wake word (`app.timers.ringing`):
    matched as whole words in what Whisper heard (case and accents aside); English's for a language Parley
    does not speak. Nothing a ring itself says (`rang`) is among them."""
    return _STOP_WORDS.get(language, _STOP_WORDS[DEFAULT])


def rang(timer: Timer, language: str) -> str:
    """What is said (and shown, and noted in the chat) when `timer` rings."""
    say = SAY.get(language, SAY[DEFAULT])
    if timer.kind == "reminder":
        return say["reminder"].format(text=timer.label)
    return say["timer_up"].format(name=timer.label) if timer.label else say["plain_timer_up"]


def missed(timers: Sequence[Timer], zone: tzinfo, language: str, now: datetime) -> str:
    """What is said at `now` of `timers` that were due while Parley was not running: each with its time, and its
    date when that was not today (a reminder of yesterday, said this morning, is not "at 09:00")."""
    say = SAY.get(language, SAY[DEFAULT])
    today = now.astimezone(zone).date()
    named = [
        say["reminder_at"].format(text=t.label or t.kind, time=_at(t.due_at.astimezone(zone), today, say))
        for t in timers
    ]
    return say["missed"].format(timers=_listed(named, say))


def duration(seconds: int, language: str) -> str:
    """ "9 minutes", "1 hour and 5 minutes", "30 seconds" (the two largest units that are not zero)."""
    say = SAY.get(language, SAY[DEFAULT])
    names = say["units"].split()
    hours, rest = divmod(max(0, seconds), 3600)
    parts = ((hours, 0), (rest // 60, 2), (rest % 60, 4))  # each unit's singular in `names`; plural after it
    said = [f"{n} {names[unit + (n != 1)]}" for n, unit in parts if n][:2]
    return f" {say['and']} ".join(said) if said else f"0 {names[5]}"


def tool_reply(tool: str, result: Mapping[str, Any], language: str) -> str:
    """What the offline voice says once a timer tool answered `result` (its times are the user's local
    times, as the kit answers them)."""
    say = SAY.get(language, SAY[DEFAULT])
    if tool in ("set_timer", "set_reminder"):
        if not result.get("success"):
            return say.get(str(result.get("reason")), say["failed"])  # the kit's reasons are sayings
        if tool == "set_reminder":
            return say["reminder_set"].format(time=_when(result, say), text=result["label"])
        left = duration(int(result["seconds_left"]), language)
        label = result.get("label")
        return say["timer_set"].format(name=label, left=left) if label else say["plain_timer_set"].format(left=left)
    if tool == "list_timers":
        # The kit answers the soonest first, and only the next few of a long list (`app.timers.toolkit.NEXT`).
        items = [_left(item, say, language) for item in result.get("timers", [])]
        count = int(result.get("count", len(items)))
        if count > len(items):
            return say["many"].format(count=count, timers=_listed(items, say))
        return say["listed"].format(timers=_listed(items, say)) if items else say["none"]
    if result.get("success"):
        return say["cancelled"].format(timers=_listed([_label(item, say) for item in result.get("cancelled", [])], say))
    if result.get("choices"):
        return say["which"].format(timers=_listed([_label(item, say) for item in result["choices"]], say))
    return say["not_found"]


def _left(item: Mapping[str, Any], say: Mapping[str, str], language: str) -> str:
    if item["kind"] == "reminder":
        return say["reminder_at"].format(text=item["label"], time=_when(item, say))
    left = duration(int(item["seconds_left"]), language)
    return (
        say["timer_left"].format(name=item["label"], left=left)
        if item["label"]
        else say["plain_timer_left"].format(left=left)
    )


def _label(item: Mapping[str, Any], say: Mapping[str, str]) -> str:
    return str(item.get("label") or item.get("id"))


def _when(item: Mapping[str, Any], say: Mapping[str, str]) -> str:
    """When a timer the kit answered (`TimerKit.shown`) is due (`_at`). Today is its local due time less the
    seconds left (rounded up by at most one)."""
    due = datetime.fromisoformat(item["due_at"])
    return _at(due, (due - timedelta(seconds=int(item["seconds_left"]))).date(), say)


def _at(due: datetime, today: date, say: Mapping[str, str]) -> str:
    """ "09:00" of a local time `due` on the day `today`; "09:00 on 3 December" (`dated`) on another day."""
    if due.date() == today:
        return due.strftime("%H:%M")
    return say["dated"].format(time=due.strftime("%H:%M"), day=due.day, month=say["months"].split()[due.month - 1])


def _listed(items: Sequence[str], say: Mapping[str, str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" {say['and']} " + items[-1]
