"""How a timer rings: the chime and the spoken line through the speaker, a desktop notification (a front
event), and a line in the chat it was set in. On a speaker that can (`voice.audio.overlay`), the ring is
heard at once, over the model's voice if it speaks (ducked beneath, not cut), rather than after it. It rings
a few rounds, then gives up; `stop` ends it early (the window's Stop button, the tray's message), and so does
the user saying "stop" (`sayings.stop_words`), without the wake word: while it rings, and only then, the
microphone is read beside the wake word detector (`listen_through`), through the echo canceller that keeps
the ring's own sound from stopping it. Stopped, the round under way is withdrawn from a speaker that
overlays, silent from its next block (another timer ringing at once with it), rather than played out.

The words are spoken by `speak`: in the conversations' voice when it can be had (`app.timers.ring_voice`)."""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import AsyncIterable, Awaitable, Callable, Sequence
from datetime import datetime, tzinfo
from uuid import UUID

from app.core.events import FrontEvent, TimerRinging, TimersMissed, TimerStopped
from app.core.timer import Timer
from app.core.toolkit import Overhear
from app.timers import sayings
from app.timers.scheduler import Pause, set_or_paused
from voice.audio.chunks import MODEL_VOICE_FORMAT, AudioChunk, AudioSink
from voice.audio.earcon import earcon
from voice.audio.overlay import Overlays
from voice.offline.phrases import matching

log = logging.getLogger(__name__)

ROUNDS = 3
"""Chime and words this many times, unless stopped."""
ROUND_GAP_S = 5.0
"""Between rounds: long enough to answer "stop", short enough to be heard from the next room."""
NOTE_IDS = uuid.UUID("6f1f7b0e-7a53-4a8e-9d43-5c1d2b3a4e50")
"""Namespace of the ids of chat lines about timers: one line per timer, whatever happens twice."""

Speak = Callable[[str, str], Awaitable[bytes]]
"""Text and language -> PCM16 in `MODEL_VOICE_FORMAT`, what speakers take (b"" for nothing)."""
NoteInChat = Callable[[UUID, str, UUID], Awaitable[None]]
"""Add a line to a chat (chat id, text, the line's id)."""
Spot = Callable[[AsyncIterable[AudioChunk], Sequence[str], str], Awaitable[bool]]
"""Read microphone chunks until one of the words is said in the language (a code): True; False when the chunks
end first, or when nothing can listen (no speech model)."""


class SoundRinger:
    def __init__(
        self,
        *,
        post: Callable[[FrontEvent], None],
        language: str,
        zone: tzinfo,
        sink: AudioSink | None = None,
        speak: Speak | None = None,
        note: NoteInChat | None = None,
        spot: Spot | None = None,
        pause: Pause = asyncio.sleep,
    ) -> None:
        """`spot`: hears "stop" on the microphone (None: only `stop` stops a ring)."""
        self._post = post
        self._language = language
        self._zone = zone
        self._sink = sink
        self._speak = speak
        self._note = note
        self._pause = pause
        self._spot = spot
        self._overhear: Overhear | None = None
        self._stops: dict[str, asyncio.Event] = {}

    def listen_through(self, overhear: Overhear) -> None:
        """How to open the microphone while a timer rings (the voice loop's `overhear`)."""
        self._overhear = overhear

    def stop(self, timer_id: str | None = None) -> None:
        """Stop `timer_id` ringing, or every timer that rings. On the ringer's event loop."""
        for ringing, stopped in self._stops.items():
            if timer_id in (None, ringing):
                stopped.set()

    async def ring(self, timer: Timer) -> None:
        message = sayings.rang(timer, self._language)
        stopped = self._stops.setdefault(timer.id, asyncio.Event())
        self._post(TimerRinging(timer, message))
        hearing = asyncio.create_task(self._hear_stop(stopped, message), name=f"timer-hears-stop-{timer.id}")
        try:
            words: bytes | None = None  # asked for once: the same each round
            for round_ in range(ROUNDS):
                words = await self._sound(message, words)
                if round_ == 0 and timer.chat_id is not None:  # after the chime: a store write is not instant
                    await self._noted(timer.chat_id, message, timer.id)
                if await set_or_paused(stopped, self._pause, ROUND_GAP_S):
                    break
        finally:
            if stopped.is_set() and isinstance(self._sink, Overlays):
                self._sink.withdraw_overlays()  # silent at once, not after the round under way
            hearing.cancel()
            await asyncio.gather(hearing, return_exceptions=True)
            del self._stops[timer.id]
            self._post(TimerStopped(timer.id))

    async def _hear_stop(self, stopped: asyncio.Event, message: str) -> None:
        """Set `stopped` when the user says a stop word the ring's `message` does not say itself (a "stop watch"
        timer is stopped by "enough", not by its own words); nothing without a microphone or a speech model.
        Another timer ringing at once listens on a cursor of its own, and "stop" stops them both."""
        microphone = None if self._spot is None or self._overhear is None else self._overhear()
        if microphone is None or self._spot is None:
            return
        with microphone:
            try:
                words = [w for w in sayings.stop_words(self._language) if matching(message, [w]) is None]
                if await self._spot(microphone, words, self._language):
                    stopped.set()
            except Exception as error:  # the button still stops it
                log.warning("a timer could not listen for stop: %r", error)

    async def missed(self, timers: Sequence[Timer], now: datetime) -> None:
        message = sayings.missed(timers, self._zone, self._language, now)
        self._post(TimersMissed(message, tuple(t.id for t in timers)))
        for timer in timers:
            if timer.chat_id is not None:
                await self._noted(timer.chat_id, sayings.missed([timer], self._zone, self._language, now), timer.id)
        await self._sound(message)

    async def _sound(self, message: str, words: bytes | None = None) -> bytes | None:
        """The chime, then `message`'s `words` (asked for when None, after the chime); the words played."""
        if self._sink is None:
            return words
        try:
            # Heard at once, over the model's voice if it speaks (ducked beneath), where the speaker can.
            play = self._sink.overlay if isinstance(self._sink, Overlays) else self._sink.write
            chime = earcon(self._sink.format)
            await play(chime)
            speaks = self._speak is not None and self._sink.format == MODEL_VOICE_FORMAT
            if words is None:
                words = await self._speak(message, self._language) if self._speak and speaks else b""
            if words:
                await play(AudioChunk(self._sink.format, words, chime.end_ms))
        except Exception as error:  # a speaker or espeak failing must not stop the ring's other signs
            log.warning("a timer could not be heard: %r", error)
        return words

    async def _noted(self, chat_id: UUID, message: str, timer_id: str) -> None:
        if self._note is None:
            return
        try:
            await self._note(chat_id, message, uuid.uuid5(NOTE_IDS, timer_id))
        except Exception as error:  # the chat deleted, the store unreachable: the ring goes on
            log.warning("a timer's line could not be added to its chat: %r", error)
