"""One conversation with the live model, from the wake word until it goes idle or is ended.

The session owns four tasks per connection: the uplink (microphone to model, and to the barge-in detector), the typist
(typed text to the model), the downlink (model events: voice to the speaker, transcripts merged into turns, tool calls
answered) and the idle watch (`voice.idle`). It rotates the connection on `GoAway` and resumes it after a drop
(waiting a little longer after each failure in a row: `RECONNECT_BACKOFF`), so the conversation goes on.

What the chat keeps is what the user heard. The live model's voice arrives faster than real time, so a model turn is
complete (`TurnComplete`) while the speaker still holds seconds of it: the turn is recorded once its voice has played
out, and if the user speaks over it first (`voice.echo.barge_in`, on the microphone; or the service's `Interrupted`
while it still generates) the speaker is cleared and the turn is recorded as far as it was played, marked interrupted.
The idle countdown starts when the voice has played out.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from voice.audio.chunks import AudioSink
from voice.backoff import Backoff, Pause
from voice.errors import LiveConnectionError
from voice.idle import IdleWatch
from voice.live.connection import (
    GoAway,
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
    WebSources,
)
from voice.model_turn import ModelTurn, ModelTurnState
from voice.races import race
from voice.session_events import (
    ConnectionFailed,
    ConversationHistory,
    EndReason,
    Microphone,
    SessionEvent,
    SpokenTurn,
    ToolHandler,
    ToolReply,
    ToolStarted,
    ToolUsed,
)
from voice.state import AssistantState, StateMachine
from voice.typed import TypedText

if TYPE_CHECKING:  # the echo canceller (livekit's, 0.1 s to import) loads where the detector is made: not for `ask`
    from voice.echo.barge_in import SpeechOverPlayback, SpeechOverPlaybackFactory

log = logging.getLogger(__name__)

RECONNECT_ATTEMPTS = 3
"""Reconnections in a row without a completed turn before the session gives up."""
RECONNECT_BACKOFF = Backoff(first_s=0.5, max_s=4.0)
"""Waits before each of those reconnections: 0.5, 1 and 2 s, so a network that drops for a moment (a Wi-Fi roam,
a sleeping laptop's first seconds) is ridden out, and a service that closes at once is not hammered; 3.5 s in all
before the session gives up. A rotation (`GoAway`) and a refused resumption handle reconnect at once."""


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
        wait: Pause = asyncio.sleep,
        barge_in: SpeechOverPlaybackFactory | None = None,
        history: ConversationHistory | None = None,
        backoff: Backoff = RECONNECT_BACKOFF,
        pause: Pause = asyncio.sleep,
    ) -> None:
        """`barge_in` makes the detector that stops the voice when the user speaks over it (None: only the
        service's `Interrupted` does). `history` gives what was said when a new server-side session must be
        seeded (a resumption handle refused); None: the config's history alone, this session's turns lost to
        the model. `wait` lets the idle time pass, `pause` waits out `backoff` between reconnections after a
        failure (tests pass ones they control)."""
        self._config = config
        self._connect = connect
        self._sink = sink
        self._tools = tools
        self._states = states
        self._on_event = on_event
        self._idle = IdleWatch(sink, idle_after_s=idle_after_s, wait=wait, on_played_out=self._settle)
        self._history = history
        self._backoff = backoff
        self._pause = pause
        self._user_now: list[str] = []
        self._user_next: list[str] = []
        self._model_now = ModelTurn()
        self._turn = ModelTurnState.WAITING
        self._playing: ModelTurn | None = None
        """The last model turn, complete, while its voice plays out: recorded when it has played out, or cut
        where the user speaks over it."""
        self._written_ms = sink.queued_ms
        """Audio written to the speaker in this session (ms), counting what it held at the start (the earcon):
        `_written_ms - queued_ms` is how far playback has gone."""
        self._over_playback: SpeechOverPlayback | None = barge_in() if barge_in is not None else None
        self._ending = False
        self._failures = 0
        """Connections lost or not opened since the last completed turn."""

    async def run(self, microphone: Microphone, typed: TypedText | None = None) -> EndReason:
        """Converse until idle or ended; the caller moves the assistant back to sleep afterwards.
        Messages in `typed` are sent as user turns as soon as a connection is open, in order."""
        if typed is None:
            typed = TypedText()
        try:
            return await self._run(microphone, typed)
        finally:
            # Ended while the last answer plays on (a goodbye, a chat switch): it is heard to its end.
            await self._settle(played_out=True)

    async def _run(self, microphone: Microphone, typed: TypedText) -> EndReason:
        config, last_failure = self._config, ""
        while True:
            failed = False
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
                self._failures, last_failure, failed = self._failures + 1, str(lost), True
                config = self._config.resumed(lost.resumption_handle)
            except LiveConnectionError as error:
                # Unreachable. At the start, say so at once; in a conversation, try again a few times.
                if self._states.state is AssistantState.CONNECTING:
                    return await self._failed(str(error))
                self._failures, last_failure, failed = self._failures + 1, str(error), True
            if self._failures > RECONNECT_ATTEMPTS:
                return await self._failed(f"gave up after {self._failures} failed connections in a row: {last_failure}")
            self._states.move(AssistantState.RECONNECTING)
            if failed:
                await self._pause(self._backoff.delay(self._failures - 1))

    async def _failed(self, message: str) -> EndReason:
        # Told to the user by whoever hears `ConnectionFailed` (the window's banner, the command's one line):
        # the log keeps it for later, below the command line's warnings.
        log.info("the conversation could not go on: %s", message)
        await self._on_event(ConnectionFailed(message))
        return EndReason.CONNECTION_FAILED

    def _fresh_config(self) -> LiveConfig:
        """The conversation's history as it is now, for a new server-side session."""
        history = self._config.history if self._history is None else tuple(self._history())
        return replace(self._config, history=history, resumption_handle=None)

    async def _converse(self, connection: LiveConnection, microphone: Microphone, typed: TypedText) -> EndReason:
        self._idle.quiet()
        uplink = asyncio.create_task(self._uplink(connection, microphone), name="session-uplink")
        typist = asyncio.create_task(self._typist(connection, typed), name="session-typist")
        try:
            # The uplink ending (a recording ran out) ends nothing: the model may still be answering.
            downlink = asyncio.ensure_future(self._downlink(connection))
            _, idle = await race(downlink, self._until_idle())
            return idle.result() if downlink.cancelled() else downlink.result()
        finally:
            for task in (uplink, typist):
                task.cancel()
            # A drop also ends the uplink and the typist with LiveConnectionLost; the downlink's copy is the
            # one acted on.
            await asyncio.gather(uplink, typist, return_exceptions=True)

    async def _uplink(self, connection: LiveConnection, microphone: Microphone) -> None:
        # Cancelled with its connection; the next connection's uplink reads on from the chunk this one did not
        # take (`Microphone`). Once the recording has ended, that one ends at once.
        async for chunk in microphone:
            await connection.send_audio(chunk)
            await self._settle()
            if self._over_playback is not None and await self._over_playback.heard(chunk, self._voice_playing()):
                await self._spoken_over()

    def _voice_playing(self) -> bool:
        """The speaker is playing the model's voice (not just the earcon)."""
        return (self._playing is not None or self._turn is ModelTurnState.ANSWERING) and self._sink.queued_ms > 0

    async def _spoken_over(self) -> None:
        """The user spoke over the voice: silence now, and the turn is kept as far as it was played."""
        if not self._voice_playing():
            return  # the service's `Interrupted` came first
        played_ms = self._played_ms()
        log.info("the user spoke over the voice %.0f ms into its turn", played_ms)
        self._sink.clear()
        if self._playing is not None:
            await self._settle(played_out=False, played_ms=played_ms)
        else:
            log.info("barge-in while the model was still answering")
            # The rest is dropped until the service hears the user too, or finishes.
            await self._finish_turn(interrupted=True, played_ms=played_ms, then=ModelTurnState.SPOKEN_OVER)

    def _played_ms(self) -> float:
        return self._written_ms - self._sink.queued_ms

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
        # The user is active, as when they speak: the idle countdown waits until the model's turn ends,
        # so a conversation never goes idle under a message just sent (issue 13, part 4).
        self._idle.active()
        if self._turn is ModelTurnState.ANSWERING:
            self._model_now.typed_after.append(text)  # it follows the model's turn in the chat: recorded when that ends
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
            if isinstance(event, WebSources):
                # Pages the answer under way draws on: nothing to play or do, and no calm moment. Those of a
                # turn the user spoke over go with it.
                if self._turn is not ModelTurnState.SPOKEN_OVER:
                    self._model_now.grounded_on(event.sources, event.queries)
                continue
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
        match event:
            case UserTranscript(text):
                (self._user_next if self._turn is ModelTurnState.ANSWERING else self._user_now).append(text)
                self._idle.active()
            case ModelAudio() | ModelTranscript() if self._turn is ModelTurnState.SPOKEN_OVER:
                return False  # the rest of a turn the user spoke over: not played, not kept
            case ModelAudio(chunk):
                await self._settle(played_out=True)  # a new answer: the last one is over
                self._model_speaks()
                self._model_now.voiced = True
                await self._sink.write(chunk)
                self._written_ms += chunk.duration_ms
            case ModelTranscript(text):
                await self._settle(played_out=True)
                self._model_speaks()
                self._model_now.said_at(text, self._written_ms)
            case ToolCall():
                await self._tool_call(event, connection)
            case Interrupted():
                await self._interrupted()
            case TurnComplete():
                if self._turn in (ModelTurnState.SPOKEN_OVER, ModelTurnState.CUT):
                    # The end of a turn already ended here: the one the user spoke over (the service says
                    # `interrupted`, then `turnComplete`). The user's next words are not a turn yet.
                    self._turn = ModelTurnState.WAITING
                else:
                    await self._finish_turn(interrupted=False)
                return True
        return self._turn is not ModelTurnState.ANSWERING

    async def _tool_call(self, call: ToolCall, connection: LiveConnection) -> None:
        await self._settle(played_out=True)
        # The user's words are in the chat before the tool runs: a tool may act on them (a memory is saved
        # only from what the user said), and the chat reads user turn, tool, answer.
        await self._record_user_so_far()
        if self._turn is not ModelTurnState.SPOKEN_OVER:  # a turn spoken over stays dropped to its end
            self._turn = ModelTurnState.ANSWERING
        self._idle.active()
        self._states.move(AssistantState.THINKING)  # until the model speaks again, or its turn ends
        await self._on_event(ToolStarted(call))
        reply = await self._tools(call)
        reply = await self._shown(call, reply, connection)
        await connection.send_tool_result(call.id, call.name, reply.result)
        self._ending = self._ending or reply.end_conversation
        await self._on_event(ToolUsed(call, reply))

    async def _shown(self, call: ToolCall, reply: ToolReply, connection: LiveConnection) -> ToolReply:
        """Send the reply's picture, if any, before its answer; when it cannot be, the reply that says so."""
        if reply.picture is None:
            return reply
        try:
            await connection.send_picture(reply.picture)
        except LiveConnectionError as error:
            log.warning("the picture for %s could not be sent: %s", call.name, error)
            unshown = ToolReply(reply.unshown or {"shown": False})
            if isinstance(error, LiveConnectionLost):
                await self._on_event(ToolUsed(call, unshown))  # the user hears of it; the session reconnects
                raise
            return unshown
        return reply

    async def _interrupted(self) -> None:
        """The service says the user spoke over the model's turn."""
        if self._turn is ModelTurnState.SPOKEN_OVER:
            # The service heard the user too: the turn was cut here already, and none of what came of it
            # since was played.
            self._turn = ModelTurnState.CUT
            return
        played_ms = self._played_ms()
        self._sink.clear()  # barge-in: silence now, whatever was queued
        if self._turn is ModelTurnState.ANSWERING or self._playing is None:
            await self._finish_turn(interrupted=True, played_ms=played_ms, then=ModelTurnState.CUT)
        else:
            self._turn = ModelTurnState.CUT
            await self._settle(played_ms=played_ms)

    def _model_speaks(self) -> None:
        self._turn = ModelTurnState.ANSWERING
        self._idle.active()
        self._states.move(AssistantState.RESPONDING)

    async def _finish_turn(
        self, *, interrupted: bool, played_ms: float | None = None, then: ModelTurnState = ModelTurnState.WAITING
    ) -> None:
        """The model's turn ends (`then`: how it ended): the user's turn before it is recorded, and the model's
        too when it was cut short (kept as far as `played_ms`) or has no voice left to play; else it waits in
        `_playing`."""
        user = "".join(self._user_now).strip()
        turn, self._model_now = self._model_now, ModelTurn()
        self._user_now, self._user_next = self._user_next, []
        self._turn = then
        self._failures = 0
        self._states.move(AssistantState.LISTENING)
        self._idle.quiet()
        if user:
            await self._record(SpokenTurn("user", user))
        if interrupted:
            await self._record_model(turn, played_ms)
        elif turn.voiced and self._sink.queued_ms > 0:
            self._playing = turn
        else:
            await self._record_model(turn, None)

    async def _settle(self, *, played_out: bool = False, played_ms: float | None = None) -> None:
        """Record the turn whose voice was playing, if any: whole once it has played out (or when
        `played_out` says it will be heard to its end), cut at `played_ms` when that is given."""
        playing = self._playing
        if playing is None or (not played_out and played_ms is None and self._sink.queued_ms > 0):
            return
        self._playing = None
        await self._record_model(playing, None if played_out else played_ms)

    async def _record_model(self, turn: ModelTurn, played_ms: float | None) -> None:
        """The model's turn (cut at `played_ms` when given, and marked interrupted), then what was typed meanwhile."""
        text = turn.text(heard_until_ms=played_ms)
        if text:
            sources, searches = tuple(turn.sources.values()), tuple(turn.searches)
            cut = played_ms is not None
            await self._record(SpokenTurn("model", text, interrupted=cut, sources=sources, searches=searches))
        for message in turn.typed_after:
            await self._record(SpokenTurn("user", message, typed=True))

    async def _record(self, turn: SpokenTurn) -> None:
        if self._playing is not None:
            await self._settle(played_out=True)  # the answer still playing comes first in the chat
        await self._on_event(turn)

    async def _until_idle(self) -> EndReason:
        await self._idle.until_idle()
        return EndReason.IDLE
