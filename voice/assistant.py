"""The assistant's outer loop: sleep on the wake word, converse, go back to sleep.

One task pumps the microphone into a queue. While sleeping, the wake detector reads from it and a short
ring buffer remembers the last moments; on the wake word the buffer's tail (the pre-roll) and every
later chunk go to the conversation, so words said right after the wake word are not lost.

The push-to-talk button (`wake_now`) and a typed message wake the assistant too, even while the wake
detector waits for audio: sleeping races the three, and the losers are cancelled.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import AsyncGenerator, Awaitable, Callable
from contextlib import aclosing
from typing import Protocol

from voice.audio import AudioChunk, AudioSource
from voice.session import EndReason, Microphone
from voice.state import AssistantState, StateMachine
from voice.typed import TypedText
from voice.wake_protocol import PUSH_TO_TALK, TYPED_TEXT, WakeDetector, WakeEvent

log = logging.getLogger(__name__)

PREROLL_MS = 800.0
"""Audio kept from before the wake word fired. Detection lags the phrase's end by 160 ms at the median
and up to 600 ms on synthetic speech (bench/voice.py), so a first word can start that early."""


class Conversation(Protocol):
    async def converse(self, microphone: Microphone, typed: TypedText, states: StateMachine) -> EndReason:
        """Talk until the conversation is over (idle, ended, or unreachable), its turns saved; send the
        messages that are or come into `typed` once connected."""
        ...


class Assistant:
    def __init__(
        self,
        *,
        source: AudioSource,
        wake: WakeDetector,
        conversation: Conversation,
        states: StateMachine,
        on_wake: Callable[[WakeEvent], Awaitable[None]],
        typed: TypedText | None = None,
        preroll_ms: float = PREROLL_MS,
    ) -> None:
        """`typed`: where typed messages wait; a message there wakes the assistant and goes to the model."""
        self._source = source
        self._wake = wake
        self._conversation = conversation
        self._states = states
        self._on_wake = on_wake
        self._preroll_ms = preroll_ms
        self._typed = typed if typed is not None else TypedText()
        self._recent: deque[AudioChunk] = deque()
        self._ended = False
        self._pressed = asyncio.Event()
        self._position_ms = 0.0
        """End of the last chunk the microphone gave (milliseconds into its stream)."""

    def wake_now(self) -> bool:
        """Push-to-talk: start a conversation now, as the wake word would (on the event loop). True if one
        starts; during a conversation, or once stopped, nothing happens and it is False."""
        if self._states.state is not AssistantState.SLEEPING:
            return False
        self._pressed.set()
        return True

    async def run(self) -> None:
        """Until the audio source ends (a recording) or the task is cancelled (shutdown)."""
        microphone: Microphone = asyncio.Queue()
        pump = asyncio.create_task(self._pump(microphone), name="assistant-microphone")
        try:
            while (wake := await self._sleep_until_wake(microphone)) is not None:
                await self._on_wake(wake)
                self._states.move(AssistantState.CONNECTING)
                self._pressed.clear()  # a press while waking up asks for nothing more
                reason = await self._converse(microphone, self._preroll(wake))
                log.info("conversation over: %s", reason.value)
                if reason is EndReason.CONNECTION_FAILED and (dropped := self._typed.drop_all()):
                    # Kept, they would wake the assistant again at once, into the same failure.
                    log.warning("%d typed message(s) not sent: the live model could not be reached", dropped)
                # Messages typed while the conversation was ending stay, and wake the assistant again.
                self._states.move(AssistantState.SLEEPING)
                if self._ended:
                    break
        finally:
            pump.cancel()
            (pumped,) = await asyncio.gather(pump, return_exceptions=True)
            self._states.move(AssistantState.STOPPED)
        if isinstance(pumped, Exception):
            raise pumped  # the microphone failed (no device, unreadable recording): say so, don't just stop

    async def _pump(self, microphone: Microphone) -> None:
        try:
            async for chunk in self._source.chunks():
                self._position_ms = chunk.end_ms
                microphone.put_nowait(chunk)
        finally:
            microphone.put_nowait(None)

    async def _sleep_until_wake(self, microphone: Microphone) -> WakeEvent | None:
        """The first wake word heard, button press or typed message; None once the audio has ended."""
        if self._ended:
            return None
        heard = asyncio.create_task(self._hear_wake_word(microphone), name="assistant-wake-word")
        pressed = asyncio.create_task(self._pressed.wait(), name="assistant-push-to-talk")
        typed = asyncio.create_task(self._typed.wait(), name="assistant-typed-text")
        try:
            await asyncio.wait({heard, pressed, typed}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (heard, pressed, typed):
                task.cancel()
            await asyncio.gather(heard, pressed, typed, return_exceptions=True)
        if not heard.cancelled():
            return heard.result()  # the wake word, the end of the audio, or the detector's failure
        # No pre-roll: what came before the press (or the typing) was not said to the assistant.
        self._recent.clear()
        woken_by = PUSH_TO_TALK if not pressed.cancelled() else TYPED_TEXT
        return WakeEvent(woken_by, 1.0, self._position_ms)

    async def _hear_wake_word(self, microphone: Microphone) -> WakeEvent | None:
        # Cancelled when the button or a typed message wins: a chunk waiting in the queue stays there for
        # the conversation, and both generators are closed here, not left to the garbage collector.
        async with (
            aclosing(self._remembered(microphone)) as remembered,
            aclosing(self._wake.detections(remembered)) as detections,
        ):
            async for wake in detections:
                return wake
        return None

    async def _remembered(self, microphone: Microphone) -> AsyncGenerator[AudioChunk, None]:
        while (chunk := await microphone.get()) is not None:
            self._recent.append(chunk)
            while self._recent and self._recent[0].end_ms < chunk.end_ms - 2 * self._preroll_ms:
                self._recent.popleft()
            yield chunk
        self._ended = True

    def _preroll(self, wake: WakeEvent) -> list[AudioChunk]:
        """The chunks from `preroll_ms` before the detection on, including any read past it."""
        chunks = [c for c in self._recent if c.end_ms > wake.offset_ms - self._preroll_ms]
        self._recent.clear()
        return chunks

    async def _converse(self, microphone: Microphone, preroll: list[AudioChunk]) -> EndReason:
        heard: Microphone = asyncio.Queue()
        for chunk in preroll:
            heard.put_nowait(chunk)
        if self._ended:
            heard.put_nowait(None)
        forward = asyncio.create_task(self._forward(microphone, heard), name="assistant-forward")
        try:
            return await self._conversation.converse(heard, self._typed, self._states)
        finally:
            forward.cancel()
            await asyncio.gather(forward, return_exceptions=True)

    async def _forward(self, microphone: Microphone, heard: Microphone) -> None:
        if self._ended:
            return
        while (chunk := await microphone.get()) is not None:
            heard.put_nowait(chunk)
        self._ended = True
        heard.put_nowait(None)
