"""One conversation with the live model, from the wake word until it goes idle or is ended.

The session owns four tasks per connection: the uplink (microphone to model), the typist (typed text to
the model), the downlink (model events: voice to the speaker, transcripts merged into turns, tool calls
answered) and the idle watch.
It rotates the connection on `GoAway` and resumes it after a drop, so the conversation goes on.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any, Literal, Protocol

from voice.audio import AudioChunk, AudioSink
from voice.errors import LiveConnectionError
from voice.live import (
    GoAway,
    HistoryTurn,
    Interrupted,
    LiveConfig,
    LiveConnection,
    LiveConnectionFactory,
    LiveConnectionLost,
    LiveConnectionRefused,
    LiveEvent,
    ModelAudio,
    ModelTranscript,
    ToolCall,
    TurnComplete,
    UserTranscript,
)
from voice.state import AssistantState, StateMachine
from voice.typed import TypedText

log = logging.getLogger(__name__)

RECONNECT_ATTEMPTS = 3
"""Reconnections in a row without a completed turn before the session gives up."""

Microphone = asyncio.Queue[AudioChunk | None]
"""Microphone chunks in order; None closes the stream (the recording ended)."""


class EndReason(Enum):
    IDLE = "idle"
    """Nobody spoke for the idle time after the model's last turn."""
    ENDED_BY_TOOL = "ended_by_tool"
    """A tool asked to end the conversation (a chat switch, a goodbye)."""
    CONNECTION_FAILED = "connection_failed"
    """The model could not be reached (again)."""


@dataclass(frozen=True, slots=True)
class SpokenTurn:
    """One finished turn, its transcript fragments merged; or a message the user typed (`typed`)."""

    role: Literal["user", "model"]
    text: str
    interrupted: bool = False
    """A model turn the user cut short: `text` is what was transcribed before the barge-in."""
    typed: bool = False
    """A user turn typed in the window rather than spoken: `text` is exactly what was sent to the model."""


@dataclass(frozen=True, slots=True)
class ToolReply:
    result: Mapping[str, Any]
    """The answer the model receives."""
    end_conversation: bool = False
    """End this session once the model has finished its turn (a chat switch, a goodbye)."""


@dataclass(frozen=True, slots=True)
class ToolUsed:
    call: ToolCall
    reply: ToolReply


@dataclass(frozen=True, slots=True)
class ToolStarted:
    """A tool call is being answered (a `ToolUsed` with the same call follows): "Saving to memory..."."""

    call: ToolCall


@dataclass(frozen=True, slots=True)
class ConnectionFailed:
    """The live model could not be reached, or refused the session: the conversation ends here."""

    message: str
    """One line for the user, never a key: "Gemini Live refused the API key (1008: ...)"."""


SessionEvent = SpokenTurn | ToolStarted | ToolUsed | ConnectionFailed


class ToolHandler(Protocol):
    async def __call__(self, call: ToolCall) -> ToolReply:
        """Answer a tool call; never raise for bad arguments: answer with an error object."""
        ...


class _Rotate(Exception):
    """The service announced it will close this connection: open the next one now."""


class VoiceSession:
    def __init__(
        self,
        *,
        config: LiveConfig,
        connect: LiveConnectionFactory,
        sink: AudioSink,
        tools: ToolHandler,
        states: StateMachine,
        on_event: Callable[[SessionEvent], Awaitable[None]],
        idle_after_s: float = 10.0,
        wait: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self._config = config
        self._connect = connect
        self._sink = sink
        self._tools = tools
        self._states = states
        self._on_event = on_event
        self._idle_after_s = idle_after_s
        self._wait = wait
        """How the idle watch lets time pass; tests pass one they control."""
        self._spoken: list[HistoryTurn] = []
        self._user_now: list[str] = []
        self._user_next: list[str] = []
        self._model_now: list[str] = []
        self._typed_next: list[str] = []
        """Typed while the model was speaking: turns that follow the model's, recorded when it ends."""
        self._model_started = False
        self._ending = False
        self._activity = 0
        self._quiet = asyncio.Event()
        self._failures = 0
        """Connections lost or not opened since the last completed turn."""

    async def run(self, microphone: Microphone, typed: TypedText | None = None) -> EndReason:
        """Converse until idle or ended; the caller moves the assistant back to sleep afterwards.
        Messages in `typed` are sent as user turns as soon as a connection is open, in order."""
        if typed is None:
            typed = TypedText()
        config, last_failure = self._config, ""
        while True:
            try:
                async with self._connect(config) as connection:
                    self._states.move(AssistantState.LISTENING)
                    return await self._converse(connection, microphone, typed)
            except _Rotate:
                config = self._config.resumed(connection.resumption_handle)
            except LiveConnectionRefused as refused:
                if config.resumption_handle is None:
                    return await self._failed(str(refused))
                config = self._fresh_config()  # the handle expired: start over from the history
            except LiveConnectionLost as lost:
                self._failures, last_failure = self._failures + 1, str(lost)
                config = self._config.resumed(lost.resumption_handle)
            except LiveConnectionError as error:
                # Unreachable. At the start, say so at once; in a conversation, try again a few times.
                if self._states.state is AssistantState.CONNECTING:
                    return await self._failed(str(error))
                self._failures, last_failure = self._failures + 1, str(error)
            if self._failures > RECONNECT_ATTEMPTS:
                return await self._failed(f"gave up after {self._failures} failed connections in a row: {last_failure}")
            self._states.move(AssistantState.RECONNECTING)

    async def _failed(self, message: str) -> EndReason:
        log.warning("%s", message)
        await self._on_event(ConnectionFailed(message))
        return EndReason.CONNECTION_FAILED

    def _fresh_config(self) -> LiveConfig:
        """The original history plus what was said in this session, for a new server-side session."""
        return replace(self._config, history=(*self._config.history, *self._spoken), resumption_handle=None)

    async def _converse(self, connection: LiveConnection, microphone: Microphone, typed: TypedText) -> EndReason:
        self._mark_quiet()
        uplink = asyncio.create_task(self._uplink(connection, microphone), name="session-uplink")
        typist = asyncio.create_task(self._typist(connection, typed), name="session-typist")
        downlink = asyncio.create_task(self._downlink(connection), name="session-downlink")
        idle = asyncio.create_task(self._idle_watch(), name="session-idle")
        try:
            # The uplink ending (a recording ran out) ends nothing: the model may still be answering.
            done, _ = await asyncio.wait({downlink, idle}, return_when=asyncio.FIRST_COMPLETED)
            return done.pop().result()
        finally:
            for task in (uplink, typist, downlink, idle):
                task.cancel()
            # A drop also ends the uplink and the typist with LiveConnectionLost; the downlink's copy is the
            # one acted on.
            await asyncio.gather(uplink, typist, downlink, idle, return_exceptions=True)

    async def _uplink(self, connection: LiveConnection, microphone: Microphone) -> None:
        while (chunk := await microphone.get()) is not None:
            await connection.send_audio(chunk)
        await microphone.put(None)  # leave the end mark for whoever reads next (a resumed connection)

    async def _typist(self, connection: LiveConnection, typed: TypedText) -> None:
        while True:
            text = await typed.next()
            # Into the turns before it is sent: the model may answer with a tool call at once, and a tool
            # acts on what the user said. Once only, though a dropped connection sends it again.
            if not typed.head_recorded:
                typed.record_head()
                await self._typed_turn(text)
            await connection.send_text(text)
            typed.sent()  # only now: a message that met a dropped connection goes out on the next one

    async def _typed_turn(self, text: str) -> None:
        # The idle countdown starts over (the model is about to answer), without counting the user as
        # active until it does: a model that never answers still lets the conversation go idle.
        self._activity += 1
        if self._model_started:
            self._typed_next.append(text)  # it follows the model's turn in the chat: recorded when that ends
            return
        self._states.move(AssistantState.THINKING)  # until the model answers
        # What the user said before typing, then what was typed; the model's answer comes after both.
        await self._record_user_so_far()
        await self._record(SpokenTurn("user", text, typed=True))

    async def _record_user_so_far(self) -> None:
        """End the user's turn here: what they said up to now becomes a chat turn before what follows."""
        said = "".join(self._user_now).strip()
        self._user_now = []
        if said:
            await self._record(SpokenTurn("user", said))

    async def _downlink(self, connection: LiveConnection) -> EndReason:
        rotate = False
        async for event in connection.events():
            if isinstance(event, GoAway):
                rotate = True
            ended = await self._handle(event, connection)
            if ended and (self._ending or rotate):
                if self._ending:
                    return EndReason.ENDED_BY_TOOL
                raise _Rotate
        raise LiveConnectionLost("the live model ended the session", code=None, resumption_handle=None)

    async def _handle(self, event: LiveEvent, connection: LiveConnection) -> bool:
        """Act on one event; True when the model's turn is over (a calm moment)."""
        if isinstance(event, UserTranscript):
            (self._user_next if self._model_started else self._user_now).append(event.text)
            self._mark_active()
        elif isinstance(event, ModelAudio):
            self._model_speaks()
            await self._sink.write(event.chunk)
        elif isinstance(event, ModelTranscript):
            self._model_speaks()
            self._model_now.append(event.text)
        elif isinstance(event, ToolCall):
            # The user's words are in the chat before the tool runs: a tool may act on them (a memory is
            # saved only from what the user said), and the chat reads user turn, tool, answer.
            await self._record_user_so_far()
            self._model_started = True
            self._mark_active()
            self._states.move(AssistantState.THINKING)  # until the model speaks again, or its turn ends
            await self._on_event(ToolStarted(event))
            reply = await self._tools(event)
            await connection.send_tool_result(event.id, event.name, reply.result)
            self._ending = self._ending or reply.end_conversation
            await self._on_event(ToolUsed(event, reply))
        elif isinstance(event, Interrupted):
            self._sink.clear()  # barge-in: silence now, whatever was queued
            await self._finish_turn(interrupted=True)
        elif isinstance(event, TurnComplete):
            await self._finish_turn(interrupted=False)
            return True
        return not self._model_started

    def _model_speaks(self) -> None:
        self._model_started = True
        self._mark_active()
        self._states.move(AssistantState.RESPONDING)

    async def _finish_turn(self, *, interrupted: bool) -> None:
        user, model = "".join(self._user_now).strip(), "".join(self._model_now).strip()
        typed, self._typed_next = self._typed_next, []
        self._user_now, self._user_next, self._model_now = self._user_next, [], []
        self._model_started = False
        self._failures = 0
        self._states.move(AssistantState.LISTENING)
        self._mark_quiet()
        for turn in (
            SpokenTurn("user", user) if user else None,
            SpokenTurn("model", model, interrupted) if model else None,
            *(SpokenTurn("user", text, typed=True) for text in typed),
        ):
            if turn is not None:
                await self._record(turn)

    async def _record(self, turn: SpokenTurn) -> None:
        self._spoken.append(HistoryTurn(turn.role, turn.text))
        await self._on_event(turn)

    def _mark_active(self) -> None:
        self._activity += 1
        self._quiet.clear()

    def _mark_quiet(self) -> None:
        self._activity += 1
        self._quiet.set()

    async def _idle_watch(self) -> EndReason:
        while True:
            await self._quiet.wait()
            seen = self._activity
            await self._wait(self._idle_after_s)
            if self._activity == seen and self._quiet.is_set():
                return EndReason.IDLE
