"""The assistant's outer loop: sleep on the wake word, converse, go back to sleep.

One task pumps the microphone into one `PrerollStream`. While sleeping, the wake detector reads it live;
on the wake word the conversation reads it from `preroll_ms` before the detection on (the pre-roll), so
words said right after the wake word are not lost. Both read the same buffer through their own cursor: no
chunk is copied from one queue to another.

The push-to-talk button (`wake_now`) and a typed message wake the assistant too, even while the wake
detector waits for audio: sleeping races the three, and the losers are cancelled.

Typing needs no microphone. An assistant made without one (`parley ask`), or whose microphone fails (none
can be opened, or it goes away) when it was told to go on (`on_microphone_lost`: the window), sleeps until
a typed message and converses with an ended microphone stream; the wake word and push-to-talk do nothing.
It tries the microphone again when told to (`hear_again`: Settings opened a device after it failed), and
listens for the wake word again once it gives sound.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from contextlib import aclosing
from typing import Protocol

from voice.audio.chunks import AudioSource
from voice.audio.preroll import PrerollStream, StreamCursor
from voice.errors import AudioError
from voice.races import race
from voice.session_events import EndReason, Microphone
from voice.state import AssistantState, StateMachine
from voice.typed import TypedText
from voice.wake.protocol import PUSH_TO_TALK, TYPED_TEXT, WakeDetector, WakeEvent

log = logging.getLogger(__name__)

PREROLL_MS = 800.0
"""Audio kept from before the wake word fired. Detection lags the phrase's end by 160 ms at the median
and up to 600 ms on synthetic speech (bench/voice.py), so a first word can start that early."""
READ_BEHIND_MS = 30_000.0
"""How far the slowest reader of the microphone's stream may fall behind before the pump waits for it: a
recording read as fast as it can be is held 30 s ahead of the wake detector (1 MB), not whole; a reader
30 s behind a live microphone is stuck, and what the microphone gives meanwhile its own bounded queue drops
(and counts)."""


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
        on_microphone_back: Callable[[], None] | None = None,
    ) -> None:
        """`source` and `wake`: the microphone and the wake word detector that listens to it; both None for
        an assistant without a microphone, woken by typed messages only.
        `typed`: where typed messages wait; a message there wakes the assistant and goes to the model.
        `on_microphone_lost`: when given, a microphone that fails with `AudioError` leaves the assistant
        running for typed messages, after this is told why (once); without it, `run` ends with the error.
        `on_microphone_back`: told when a microphone that failed gives sound again after `hear_again`."""
        if (source is None) != (wake is None):
            raise ValueError("a wake detector needs a microphone to listen to, and a microphone a wake detector")
        self._ears = (source, wake) if source is not None and wake is not None else None
        self._deaf = self._ears is None
        """No microphone: there was none, or it failed. Only typed messages wake the assistant."""
        self._on_microphone_lost = on_microphone_lost
        self._on_microphone_back = on_microphone_back
        self._pump: asyncio.Task[None] | None = None
        """Reads the microphone into `_stream`: one at a time, a new one after `hear_again`."""
        self._heard_again = asyncio.Event()
        """Set when a microphone that failed gives its first chunk: the wake word listens again."""
        self._conversation = conversation
        self._states = states
        self._on_wake = on_wake
        self._preroll_ms = preroll_ms
        self._typed = typed if typed is not None else TypedText()
        # Twice the pre-roll behind what the detector has read: detection may come a frame or two after
        # the chunk it fires on has been read.
        self._stream = PrerollStream(keep_ms=2 * preroll_ms)
        self._ended = False
        """A reader reached the end of the recording: the assistant stops after this conversation."""
        self._asleep_from_ms: float | None = None
        """Where the wake detector starts reading: where the last conversation stopped (None: the start)."""
        self._pressed = asyncio.Event()

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

    def hear_again(self) -> bool:
        """Read the microphone again after it failed (its source was switched for one that may work, on the
        event loop): into a new stream, from which the wake word listens once its first chunk comes and
        `on_microphone_back` is told. False (nothing done) when the microphone has not failed, there is none,
        or the assistant has stopped; if it fails again, `on_microphone_lost` is told again."""
        stopped = self._states.state is AssistantState.STOPPED
        if self._ears is None or not self._deaf or stopped or self._pump is None or not self._pump.done():
            return False
        self._stream = PrerollStream(keep_ms=2 * self._preroll_ms)
        self._asleep_from_ms = None
        self._heard_again.clear()
        self._pump = asyncio.create_task(self._pumping(), name="assistant-microphone")
        return True

    def overhear(self) -> StreamCursor | None:
        """The microphone from now on, beside the wake word and the conversation (a short command heard while
        something else happens: "stop" while a timer rings); None without a microphone. Close the cursor when
        done: it holds what it has not read."""
        return None if self._deaf or self._stream.ended else self._stream.since(self._stream.end_ms)

    async def run(self) -> None:
        """Until the audio source ends (a recording) or the task is cancelled (shutdown); without a
        microphone, until cancelled."""
        if self._ears is None:
            self._stream.end()  # nothing to hear: a conversation hears at once that there is no more
        else:
            self._pump = asyncio.create_task(self._pumping(), name="assistant-microphone")
        try:
            while (woken := await self._sleep_until_wake()) is not None:
                wake, heard = woken
                with heard:
                    await self._on_wake(wake)
                    self._states.move(AssistantState.CONNECTING)
                    self._pressed.clear()  # a press while waking up asks for nothing more
                    reason = await self._conversation.converse(heard, self._typed, self._states)
                self._asleep_from_ms = self._stream.end_ms
                self._ended = self._stream.ended and not self._deaf
                log.info("conversation over: %s", reason.value)
                if reason is EndReason.CONNECTION_FAILED and (dropped := self._typed.drop_all()):
                    # Kept, they would wake the assistant again at once, into the same failure. Logged below the
                    # command line's warnings: the failure itself was told (`ConnectionFailed`), and `parley ask`
                    # says it in one line.
                    log.info("%d typed message(s) not sent: the live model could not be reached", dropped)
                # Messages typed while the conversation was ending stay, and wake the assistant again.
                self._states.move(AssistantState.SLEEPING)
                if self._ended:
                    break
        finally:
            pumped: BaseException | None = None
            if (pump := self._pump) is not None:
                pump.cancel()
                (pumped,) = await asyncio.gather(pump, return_exceptions=True)
            self._states.move(AssistantState.STOPPED)
        if isinstance(pumped, Exception):
            raise pumped  # the microphone failed (no device, unreadable recording): say so, don't just stop

    async def _pumping(self) -> None:
        assert self._ears is not None
        source, _ = self._ears
        stream = self._stream
        try:
            async for chunk in source.chunks():
                await stream.room(READ_BEHIND_MS)
                stream.append(chunk)
                if self._deaf:  # the first chunk of a microphone opened again
                    self._deaf = False
                    self._heard_again.set()
                    if self._on_microphone_back is not None:
                        self._on_microphone_back()
        except AudioError as error:
            if self._on_microphone_lost is None:
                raise
            log.warning("the microphone failed, typed messages still work: %s", error)
            self._deaf = True  # before the end below: its reader must not take it for the end of a recording
            self._on_microphone_lost(error)
        finally:
            stream.end()

    async def _sleep_until_wake(self) -> tuple[WakeEvent, StreamCursor] | None:
        """The first wake word heard, button press or typed message (without a microphone, the first typed
        message), with the cursor the conversation reads the microphone from; None once the audio has ended."""
        while not self._ended:
            # Deaf, the wake word's place in the race waits for the microphone to come back (`hear_again`).
            listening = self._until_heard_again() if self._deaf else self._hear_wake_word()
            heard = asyncio.ensure_future(listening)
            _, pressed, _ = await race(heard, self._pressed.wait(), self._typed.wait())
            if not heard.cancelled():
                woken: tuple[WakeEvent, StreamCursor] | None = (
                    heard.result()
                )  # the wake word, the end of the audio, or the detector's failure
                if woken is not None:
                    return woken
                continue  # the audio ended (so does the assistant), the microphone failed (typing goes on) or came back
            # No pre-roll: what came before the press (or the typing) was not said to the assistant.
            model, now_ms = PUSH_TO_TALK if not pressed.cancelled() else TYPED_TEXT, self._stream.end_ms
            return WakeEvent(model, 1.0, now_ms), self._stream.since(now_ms)
        return None

    async def _until_heard_again(self) -> None:
        await self._heard_again.wait()
        self._heard_again.clear()

    async def _hear_wake_word(self) -> tuple[WakeEvent, StreamCursor] | None:
        # Cancelled when the button or a typed message wins: what the detector has not read stays in the
        # stream, and the generator is closed here, not left to the garbage collector.
        assert self._ears is not None
        _, detector = self._ears
        with self._stream.since(self._asleep_from_ms) as heard:
            async with aclosing(detector.detections(heard)) as detections:
                async for wake in detections:
                    # The conversation's cursor opens before the detector's closes: the pre-roll stays held.
                    return wake, self._stream.since(wake.offset_ms - self._preroll_ms)
        self._ended = not self._deaf
        return None
