"""Plays one connection's `ConnectionScript` for the fake Gemini Live server (`gemini_live_server`): fires
each step once its trigger holds, generates `Speak` answers in time (`speed` times real time, on the event
loop's clock), and hears the client's audio with the server's simple voice activity detection, which
interrupts an answer still being generated and ends utterances for `AfterSpeech`."""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import Sequence
from typing import Protocol

import numpy as np
from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

from tests.fakes.gemini_live_record import GeneratedReply, RecordedConnection
from tests.fakes.gemini_live_scenario import (
    Action,
    AfterAudio,
    AfterSpeech,
    AfterText,
    AfterToolResponse,
    AtOnce,
    Close,
    CompleteGeneration,
    CompleteTurn,
    ConnectionScript,
    Drop,
    Interrupt,
    NewHandle,
    OutputTranscript,
    Speak,
    Step,
    server_frame,
    speak_chunks,
)


class LiveTiming(Protocol):
    """What the player reads of its server: how fast it generates, how it hears speech, where its own
    failures go."""

    speed: float
    speech_rms: float
    speech_start_ms: float
    speech_end_ms: float
    errors: list[BaseException]


def close_reason(text: str) -> str:
    """A close frame holds at most 123 bytes of reason; the service cuts longer ones."""
    return text.encode()[:123].decode(errors="ignore")


class HungUp(Exception):
    """The script closed or dropped the connection: stop serving it."""


class ScriptPlayer:
    """Plays a connection's script: fires each step once its trigger holds, and generates its `Speak`
    answers in time, one at a time, on a task of its own."""

    def __init__(
        self,
        ws: ServerConnection,
        record: RecordedConnection,
        script: ConnectionScript,
        handles: set[str],
        server: LiveTiming,
    ) -> None:
        self.audio_bytes = 0
        """Audio received since the last step fired."""
        self.answered: set[str] = set()
        """Tool call ids answered since the last step fired."""
        self.texts = 0
        """Typed user turns received since the last step fired."""
        self.utterances = 0
        """Ends of speech heard since the last step fired."""
        self._ws = ws
        self._record = record
        self._steps = deque(script.steps)
        self._handles = handles
        self._server = server
        self._lock = asyncio.Lock()
        """Held while a step's actions are sent: steps fire in order, never two at once."""
        self._generation: asyncio.Task[None] | None = None
        self._reply: GeneratedReply | None = None
        self._stop_generating = asyncio.Event()
        self._voiced_ms = 0.0
        self._quiet_ms = 0.0
        self._speaking = False

    def _ready(self, step: Step) -> bool:
        match step.when:
            case AtOnce():
                return True
            case AfterAudio(min_bytes):
                return self.audio_bytes >= min_bytes
            case AfterText(count):
                return self.texts >= count
            case AfterToolResponse(call_id):
                return bool(self.answered) if call_id is None else call_id in self.answered
            case AfterSpeech(count):
                return self.utterances >= count
        return False

    async def advance(self) -> None:
        async with self._lock:
            while self._generation is None and self._steps and self._ready(self._steps[0]):
                step = self._steps.popleft()
                self.audio_bytes = 0
                self.texts = 0
                self.utterances = 0
                self.answered.clear()
                await self._play(step.then)

    async def _play(self, actions: Sequence[Action]) -> None:
        for index, action in enumerate(actions):
            match action:
                case Speak():
                    self._start(action, actions[index + 1 :])
                    return
                case Drop():
                    self._ws.transport.abort()
                    raise HungUp
                case Close(code, reason):
                    self._record.close_code = code
                    await self._ws.close(code, close_reason(reason))
                    raise HungUp
                case NewHandle(handle, resumable) if resumable:
                    self._handles.add(handle)
            await self.send(action)

    async def send(self, action: Action) -> None:
        frame = server_frame(action)
        if frame is not None:
            await self._ws.send(json.dumps(frame))
            self._record.sent.append((asyncio.get_running_loop().time(), frame))

    # -- generating an answer in time --------------------------------------------------------------

    def _start(self, speak: Speak, rest: Sequence[Action]) -> None:
        reply = GeneratedReply(speak, started_at=asyncio.get_running_loop().time())
        self._record.replies.append(reply)
        self._reply = reply
        self._stop_generating.clear()
        self._generation = asyncio.create_task(self._generate(reply, rest), name="fake-live-speak")

    async def _generate(self, reply: GeneratedReply, rest: Sequence[Action]) -> None:
        try:
            await self._stream(reply)
            async with self._lock:
                self._generation = None
                if not reply.interrupted:
                    await self._play(rest)  # what the step does after the answer, e.g. a tool call
            await self.advance()  # a later step may have become ready while this one was generated
        except (ConnectionClosed, HungUp):
            return  # the connection ends; `_converse` sees it too
        except Exception as error:  # the fake's own bug: fail the test
            self._server.errors.append(error)

    async def _stream(self, reply: GeneratedReply) -> None:
        """Send each chunk once it is generated (`speed` times real time), then close the turn; or, when
        interrupted, `interrupted` and `turnComplete` at once and nothing more."""
        generated_s = 0.0
        for audio, words in speak_chunks(reply.speak):
            generated_s += len(audio.pcm) / (2 * audio.rate)
            try:
                async with asyncio.timeout_at(reply.started_at + generated_s / self._server.speed):
                    await self._stop_generating.wait()
            except TimeoutError:
                pass
            if reply.interrupted:
                break
            await self.send(audio)
            reply.sent_pcm += len(audio.pcm)
            if words:
                await self.send(OutputTranscript(words))
                reply.sent_transcript += words
        if reply.interrupted:
            await self.send(Interrupt())
            await self.send(CompleteTurn())
            return
        reply.ended_at = asyncio.get_running_loop().time()
        self._reply = None
        await self.send(CompleteGeneration())
        await self.send(CompleteTurn())

    def interrupt(self, at: float | None = None) -> None:
        """The user spoke (or typed) over the answer at `at` (now if None): stop generating it, if it is still
        being generated."""
        reply = self._reply
        if reply is None or not reply.generating:
            return
        reply.interrupted = True
        reply.ended_at = asyncio.get_running_loop().time() if at is None else at
        self._reply = None
        self._stop_generating.set()

    def hear(self, pcm: bytes, rate: int) -> None:
        """The server's voice activity detection, on one chunk of client audio: see the module docstring."""
        samples = np.frombuffer(pcm[: len(pcm) // 2 * 2], dtype="<i2").astype(np.float64)
        if samples.size == 0:
            return
        duration_ms = samples.size / rate * 1000
        now = asyncio.get_running_loop().time()
        if float(np.sqrt(np.mean(samples**2))) >= self._server.speech_rms:
            self._quiet_ms = 0.0
            self._voiced_ms += duration_ms
            if not self._speaking and self._voiced_ms >= self._server.speech_start_ms:
                self._speaking = True
                self._record.speech_heard_at.append(now)
                self.interrupt(now)
            return
        self._voiced_ms = 0.0
        if self._speaking:
            self._quiet_ms += duration_ms
            if self._quiet_ms >= self._server.speech_end_ms:
                self._speaking = False
                self.utterances += 1
                self._record.speech_ended_at.append(now)

    async def stop(self) -> None:
        """The connection ended: stop generating."""
        if self._generation is not None:
            self._generation.cancel()
            await asyncio.gather(self._generation, return_exceptions=True)
