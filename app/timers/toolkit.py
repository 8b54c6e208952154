"""The timer tools as a `ToolKit` (`app.core.toolkit`): set, list and cancel timers and reminders, and,
while the voice loop runs, the scheduler that rings them."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta, tzinfo
from types import TracebackType
from typing import Any
from uuid import UUID

from app.core.timer import Kind, Timer
from app.core.toolkit import ConversationVoice, ListensByItself, Overhear, SpeaksByItself
from app.on_demand import OnDemand
from app.timers.declarations import (
    CANCEL_TIMER,
    LIST_TIMERS,
    MAX_SECONDS,
    REMINDER_AHEAD,
    SET_REMINDER,
    SET_TIMER,
    TIMER_TOOL_NAMES,
    TIMER_TOOLS,
)
from app.timers.parsing import time_said
from app.timers.schedule import matching, running
from app.timers.scheduler import Clock, Pause, Ringer, TimerScheduler
from app.timers.store import TimerFile, TimerFileError
from voice.live.connection import ToolDeclaration

Listener = Callable[[Sequence[Timer]], None]
"""Told the running timers whenever they change (the window's list)."""
LISTED_AT_MOST = 5
"""A list of more timers is answered as how many, and the soonest `NEXT` (500 said in full took 19 s, and
sent whole they fill the model's context): to the model and to the offline voice alike."""
NEXT = 3
"""How many a summarised list names: the offline voice's `many` sentence says "the next three"."""


class TimerKit:
    def __init__(
        self,
        file: TimerFile,
        *,
        clock: Clock,
        zone: tzinfo,
        language: str | None,
        ringer: Ringer | None = None,
        on_change: Listener | None = None,
        pause: Pause = asyncio.sleep,
        voice: SpeaksByItself | None = None,
        on_demand: Sequence[OnDemand[Any]] = (),
    ) -> None:
        """`ringer`: rings the timers while the kit is entered; None for a kit that only sets and lists them
        (`parley ask`, which ends long before they are due, and must not take a missed timer's only
        announcement). `zone`: the user's, for "tomorrow at 9". `language`: the user's ("en"), None for
        "auto" (English words then). `voice`: what the ringer speaks and hears with, lent the voice loop's
        voice (`speak_with`). `on_demand`: the ringer's models that load when needed (`app.on_demand`), let go
        for good as the kit exits."""
        self._file = file
        self._clock = clock
        self._zone = zone
        self._language = language
        self._on_change = on_change
        self._scheduler = (
            None if ringer is None else TimerScheduler(file, ringer, clock=clock, pause=pause, on_marked=self._told)
        )
        self._ringer = ringer
        self._voice = voice
        self._on_demand = on_demand
        self._task: asyncio.Task[None] | None = None
        self._warming: asyncio.Task[datetime | None] | None = None

    def listen_through(self, overhear: Overhear) -> None:
        """The voice loop's microphone, for a ringer that hears "stop" (`ListensByItself`)."""
        if isinstance(self._ringer, ListensByItself):
            self._ringer.listen_through(overhear)

    def speak_with(self, voice: ConversationVoice) -> None:
        """The voice loop's voice, for a ring in Gemini's voice and a "stop" heard by its Whisper."""
        if self._voice is not None:
            self._voice.speak_with(voice)

    async def __aenter__(self) -> TimerKit:
        if self._scheduler is not None:
            self._task = asyncio.create_task(self._scheduler.run(), name="timer-scheduler")
            # dateparser loads its language data on its first parse (0.3-0.5 s): now, not in the first
            # reminder of a conversation.
            self._warming = asyncio.create_task(asyncio.to_thread(time_said, "in 1 minute", self._clock(), self._zone))
        await self._changed()
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        for task in (self._task, self._warming):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        for part in self._on_demand:
            await part.aclose()

    async def declarations(self) -> tuple[ToolDeclaration, ...]:
        return TIMER_TOOLS

    def handles(self, name: str) -> bool:
        return name in TIMER_TOOL_NAMES

    async def call(self, name: str, args: Mapping[str, Any], chat_id: UUID) -> dict[str, Any]:
        try:
            if name == SET_TIMER.name:
                return await self._set_timer(args, chat_id)
            if name == SET_REMINDER.name:
                return await self._set_reminder(args, chat_id)
            if name == LIST_TIMERS.name:
                return self._listed(await self.running())
            if name == CANCEL_TIMER.name:
                return await self.cancel(str(args.get("which", "")))
            return {"success": False, "error": f"No timer tool is called {name!r}."}
        except TimerFileError as error:
            return {"success": False, "error": f"The timers could not be kept: {error}"}

    async def running(self) -> list[Timer]:
        return running(await asyncio.to_thread(self._file.read))

    async def cancel(self, which: str) -> dict[str, Any]:
        """Cancel the timers `which` names (`app.timers.schedule.matching`): one, or all when it says so; when
        a label names several, none, and the choices are answered."""
        found = matching(await asyncio.to_thread(self._file.read), which)
        if not found:
            return {"success": False, "error": "No timer or reminder by that name.", "timers": []}
        if len(found) > 1 and which.strip().lower() not in ("all", "*"):
            return {"success": False, "error": "Several match: which one?", "choices": [self.shown(t) for t in found]}
        cancelled = [t for t in found if await asyncio.to_thread(self._file.mark, t.id, "cancelled")]
        await self._changed()
        return {"success": True, "cancelled": [self.shown(t) for t in cancelled]}

    async def _set_timer(self, args: Mapping[str, Any], chat_id: UUID) -> dict[str, Any]:
        seconds = args.get("seconds")
        if not isinstance(seconds, int | float):
            return {"success": False, "error": f"seconds must be a number from 1 to {MAX_SECONDS}."}
        if seconds < 1:
            return _refused("too_short", "A timer must be longer than zero: nothing was set.")
        if seconds > MAX_SECONDS:
            return _refused("too_long", f"A timer runs {MAX_SECONDS} s at most: nothing was set; set a reminder.")
        due = self._clock() + timedelta(seconds=float(seconds))
        return await self._add("timer", str(args.get("label") or "").strip(), due, chat_id)

    async def _set_reminder(self, args: Mapping[str, Any], chat_id: UUID) -> dict[str, Any]:
        text, when = str(args.get("text") or "").strip(), str(args.get("when") or "").strip()
        if not text or not when:
            return {"success": False, "error": "A reminder needs a time and what to remind of."}
        now = self._clock()
        due = time_said(when, now, self._zone, self._language)
        if due is None:
            return {"success": False, "error": f"'{when}' is not a time: say a date and time, or a delay."}
        if due <= now:
            return _refused("past", f"'{when}' has passed: nothing was set.")
        if due > now + REMINDER_AHEAD:
            return _refused("too_far", f"'{when}' is over {REMINDER_AHEAD.days} days ahead: nothing was set.")
        return await self._add("reminder", text, due, chat_id)

    async def _add(self, kind: Kind, label: str, due: datetime, chat_id: UUID) -> dict[str, Any]:
        timer = Timer(secrets.token_hex(3), kind, label, due, self._clock(), chat_id)
        await asyncio.to_thread(self._file.add, timer)
        await self._changed()
        return {"success": True, **self.shown(timer)}

    async def _changed(self) -> None:
        if self._scheduler is not None:
            self._scheduler.changed()
        await self._told()

    async def _told(self) -> None:
        """The listener learns the running timers (one rang, was set or cancelled)."""
        if self._on_change is not None:
            try:
                timers = await self.running()
            except TimerFileError:
                return
            self._on_change(timers)

    def _listed(self, timers: Sequence[Timer]) -> dict[str, Any]:
        """The running `timers` (soonest first) as the list tool answers them: their `count`, and each of them,
        or the soonest `NEXT` of a list longer than `LISTED_AT_MOST`."""
        named = timers[: NEXT if len(timers) > LISTED_AT_MOST else None]
        return {"success": True, "count": len(timers), "timers": [self.shown(t) for t in named]}

    def shown(self, timer: Timer) -> dict[str, Any]:
        """A timer as the model (and `--json`) sees it: local time, and what is left."""
        return {
            "id": timer.id,
            "kind": timer.kind,
            "label": timer.label,
            "due_at": timer.due_at.astimezone(self._zone).isoformat(timespec="seconds"),
            "seconds_left": timer.seconds_left(self._clock()),
        }


def _refused(reason: str, error: str) -> dict[str, Any]:
    """A call refused for a `reason` the user is told (`app.timers.sayings`: a key of `[timers.sayings]`)."""
    return {"success": False, "reason": reason, "error": error}
