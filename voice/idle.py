"""When a conversation has gone idle: nobody has been active for the idle time since the voice played out.

The session says when the user or the model becomes active (speech transcribed, a message typed, the model
answering) and when the floor is quiet again (the model's turn is over); the watch counts the idle time
from when the speaker has played the last answer out, not from when its audio was all received (it comes
faster than real time).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from voice.audio.chunks import AudioSink
from voice.backoff import Pause
from voice.races import unless


class IdleWatch:
    def __init__(
        self, sink: AudioSink, *, idle_after_s: float, wait: Pause, on_played_out: Callable[[], Awaitable[None]]
    ) -> None:
        """`wait` lets time pass (tests pass one they control); `on_played_out` is told each time the voice
        has played out, before the idle time starts."""
        self._sink = sink
        self._idle_after_s = idle_after_s
        self._wait = wait
        self._on_played_out = on_played_out
        self._activity = 0
        """Counts every change, so a wait that saw one knows the quiet it started in was broken meanwhile."""
        self._quiet = asyncio.Event()
        self._changed = asyncio.Event()
        """Set by each change: the idle time counting stops there, and starts again once the floor is quiet."""

    def active(self) -> None:
        self._activity += 1
        self._quiet.clear()
        self._changed.set()

    def quiet(self) -> None:
        self._activity += 1
        self._quiet.set()
        self._changed.set()

    async def until_idle(self) -> None:
        """Return once the floor has stayed quiet, the speaker silent, for the idle time."""
        while True:
            await self._quiet.wait()
            seen = self._activity
            while (playing_ms := self._sink.queued_ms) > 0:
                await self._wait(playing_ms / 1000.0)
            await self._on_played_out()
            self._changed.clear()
            if self._activity != seen:
                continue  # something happened while the voice played out: count from the new quiet
            await self._unless_changed(self._wait(self._idle_after_s))
            if self._activity == seen and self._quiet.is_set() and self._sink.queued_ms <= 0:
                return

    async def _unless_changed(self, waiting: Awaitable[None]) -> None:
        """`waiting`, cut short by any change: the idle time counts again from the next quiet, not from when
        this count began (a turn ending 8 s into it would otherwise leave the conversation open for 18 s)."""
        await unless(waiting, self._changed.wait())
