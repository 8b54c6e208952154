"""The assistant's outer loop: sleep on the wake word, converse, go back to sleep.

One task pumps the microphone into a queue. While sleeping, the wake detector reads from it and a short
ring buffer remembers the last moments; on the wake word the buffer's tail (the pre-roll) and every
later chunk go to the conversation, so words said right after the wake word are not lost.

The push-to-talk button (`wake_now`) and a typed message wake the assistant too, even while the wake
detector waits for audio: sleeping races the three, and the losers are cancelled.

Typing needs no microphone. An assistant made without one (`parley ask`), or whose microphone fails (none
can be opened, or it goes away) when it was told to go on (`on_microphone_lost`: the window), sleeps until
a typed message and converses with an ended microphone stream; the wake word and push-to-talk do nothing.
It does not try the microphone again: a device plugged in later is heard once the loop starts again.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import AsyncGenerator, Awaitable, Callable
from contextlib import aclosing
from typing import Protocol

from voice.audio import AudioChunk, AudioSource
from voice.errors import AudioError
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
        source: AudioSource | None,
        wake: WakeDetector | None,
        conversation: Conversation,
        states: StateMachine,
        on_wake: Callable[[WakeEvent], Awaitable[None]],
        typed: TypedText | None = None,
        preroll_ms: float = PREROLL_MS,
        on_microphone_lost: Callable[[AudioError], None] | None = None,
    ) -> None:
        """`source` and `wake`: the microphone and the wake word detector that listens to it; both None for
        an assistant without a microphone, woken by typed messages only.
        `typed`: where typed messages wait; a message there wakes the assistant and goes to the model.
        `on_microphone_lost`: when given, a microphone that fails with `AudioError` leaves the assistant
        running for typed messages, after this is told why (once); without it, `run` ends with the error."""
        if (source is None) != (wake is None):
            raise ValueError("a wake detector needs a microphone to listen to, and a microphone a wake detector")
        self._ears = (source, wake) if source is not None and wake is not None else None
        self._deaf = self._ears is None
        """No microphone: there was none, or it failed. Only typed messages wake the assistant."""
        self._on_microphone_lost = on_microphone_lost
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

    @property
    def hears(self) -> bool:
        """The microphone works: the wake word and push-to-talk can start a conversation."""
        return not self._deaf

    def wake_now(self) -> bool:
        """Push-to-talk: start a conversation now, as the wake word would (on the event loop). True if one
        starts; during a conversation, without a microphone (`hears` is False), or once stopped, nothing
        happens and it is False."""
        if self._deaf or self._states.state is not AssistantState.SLEEPING:
            return False
        self._pressed.set()
        return True

    async def run(self) -> None:
        """Until the audio source ends (a recording) or the task is cancelled (shutdown); without a
        microphone, until cancelled."""
        microphone: Microphone = asyncio.Queue()
        pump = None if self._ears is None else asyncio.create_task(self._pump(microphone), name="assistant-microphone")
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
            pumped: BaseException | None = None
            if pump is not None:
                pump.cancel()
                (pumped,) = await asyncio.gather(pump, return_exceptions=True)
            self._states.move(AssistantState.STOPPED)
        if isinstance(pumped, Exception):
            raise pumped  # the microphone failed (no device, unreadable recording): say so, don't just stop

    async def _pump(self, microphone: Microphone) -> None:
        assert self._ears is not None
        source, _ = self._ears
        try:
            async for chunk in source.chunks():
                self._position_ms = chunk.end_ms
                microphone.put_nowait(chunk)
        except AudioError as error:
            if self._on_microphone_lost is None:
                raise
            log.warning("the microphone failed, typed messages still work: %s", error)
            self._deaf = True  # before the end mark below: its reader must not take it for the end of a recording
            self._on_microphone_lost(error)
        finally:
            microphone.put_nowait(None)

    async def _sleep_until_wake(self, microphone: Microphone) -> WakeEvent | None:
        """The first wake word heard, button press or typed message (without a microphone, the first typed
        message); None once the audio has ended."""
        while not self._ended:
            heard = (
                None
                if self._deaf
                else asyncio.create_task(self._hear_wake_word(microphone), name="assistant-wake-word")
            )
            pressed = asyncio.create_task(self._pressed.wait(), name="assistant-push-to-talk")
            typed = asyncio.create_task(self._typed.wait(), name="assistant-typed-text")
            racing = {pressed, typed} if heard is None else {heard, pressed, typed}
            try:
                await asyncio.wait(racing, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for task in racing:
                    task.cancel()
                await asyncio.gather(*racing, return_exceptions=True)
            if heard is not None and not heard.cancelled():
                wake = heard.result()  # the wake word, the end of the audio, or the detector's failure
                if wake is not None:
                    return wake
                continue  # the audio ended (so does the assistant), or the microphone failed (typing goes on)
            # No pre-roll: what came before the press (or the typing) was not said to the assistant.
            self._recent.clear()
            woken_by = PUSH_TO_TALK if not pressed.cancelled() else TYPED_TEXT
            return WakeEvent(woken_by, 1.0, self._position_ms)
        return None

    async def _hear_wake_word(self, microphone: Microphone) -> WakeEvent | None:
        # Cancelled when the button or a typed message wins: a chunk waiting in the queue stays there for
        # the conversation, and both generators are closed here, not left to the garbage collector.
        assert self._ears is not None
        _, detector = self._ears
        async with (
            aclosing(self._remembered(microphone)) as remembered,
            aclosing(detector.detections(remembered)) as detections,
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
        self._ended = not self._deaf

    def _preroll(self, wake: WakeEvent) -> list[AudioChunk]:
        """The chunks from `preroll_ms` before the detection on, including any read past it."""
        chunks = [c for c in self._recent if c.end_ms > wake.offset_ms - self._preroll_ms]
        self._recent.clear()
        return chunks

    async def _converse(self, microphone: Microphone, preroll: list[AudioChunk]) -> EndReason:
        heard: Microphone = asyncio.Queue()
        for chunk in preroll:
            heard.put_nowait(chunk)
        if self._ended or self._deaf:
            heard.put_nowait(None)  # the conversation hears nothing more; what is typed still reaches it
        forward = asyncio.create_task(self._forward(microphone, heard), name="assistant-forward")
        try:
            return await self._conversation.converse(heard, self._typed, self._states)
        finally:
            forward.cancel()
            await asyncio.gather(forward, return_exceptions=True)

    async def _forward(self, microphone: Microphone, heard: Microphone) -> None:
        if self._ended or self._deaf:
            return
        while (chunk := await microphone.get()) is not None:
            heard.put_nowait(chunk)
        self._ended = not self._deaf
        heard.put_nowait(None)
