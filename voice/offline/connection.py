"""`OfflineLiveConnection`: the `LiveConnection` protocol on local models, so the session, the tools, the
window and the tests do not care whether Gemini or the offline voice answers.

One turn, and the events the session sees:

1. The microphone's chunks are scored by the VAD. When speech starts while Parley is still answering,
   that is a barge-in: the answer is cancelled and `Interrupted` clears the speaker. Then an empty
   `UserTranscript` says the user is talking (the session does not go idle while they speak). As with
   Gemini Live, `Interrupted` comes only while the answer is being written: once it is, speech over its
   voice is the session's to notice (`voice.echo.barge_in`), on the sink that plays it.
2. At the end of speech (`endpoint`), Whisper transcribes the utterance: `UserTranscript(text, final=True)`.
   Words said while that ran are joined to it rather than answered twice.
3. The app's intent router may turn the words into a `ToolCall`. Its result (`send_tool_result`) goes
   back to the router, which says what to answer (`ToolAnswer`): a short templated sentence for what a
   tool did (switched, saved, forgot: nothing for a model to add, and it must not contradict it), or what
   a tool found (memories, earlier messages) for the chat model to put in words. Each of its sentences is
   said only if the router finds it supported by the findings; else the template is said instead.
   Otherwise the chat model answers, with the chat's history and the system prompt, and each sentence is
   spoken as soon as it is written (`ModelTranscript` then `ModelAudio` per sentence, at 24 kHz), at most
   `MAX_SENTENCES` of them.
4. `TurnComplete`. Typed text (`send_text`) is answered the same way, without a transcript.

The connection never resumes (it hands out no handle) and never goes away on its own: an unexpected
failure of a model surfaces as `LiveConnectionLost`, and the session opens a fresh one.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import re
from collections.abc import AsyncGenerator, AsyncIterator, Mapping, Sequence
from contextlib import aclosing, asynccontextmanager
from dataclasses import dataclass
from typing import Any

from voice.audio.chunks import MIC_FORMAT, MODEL_VOICE_FORMAT, AudioChunk
from voice.audio.pcm import convert, pcm16_to_float, split
from voice.errors import LiveConnectionError, VoiceError
from voice.live import connection as live
from voice.offline.endpoint import EndpointConfig, Endpointer, SpeechStarted
from voice.offline.engine import OfflineVoice
from voice.offline.prompt import ChatMessage, with_findings, without_tools
from voice.offline.router import FromChat, IntentRouter, ToolAnswer
from voice.offline.text import (
    MAX_WORDS,
    SentenceSplitter,
    is_noise,
    said_before,
    whisper_prompt,
    without_wake_phrase,
)

log = logging.getLogger(__name__)

MAX_SENTENCES = 3
"""Sentences spoken per answer: the small model rambles, and a voice answer should be short anyway."""
MAX_FOUND_SENTENCES = 2
"""Sentences spoken about a tool's findings: past the second the small model drifts from them."""
AUDIO_CHUNK_MS = 200
NO_ANSWER = "Sorry, I don't know what to say to that."


@dataclass(frozen=True, slots=True)
class _Heard:
    pcm: bytes


@dataclass(frozen=True, slots=True)
class _Typed:
    text: str


class _Closed:
    """The sentinel that ends `events()`."""


class OfflineLiveConnection:
    """Made and closed by `connect()`."""

    def __init__(
        self,
        config: live.LiveConfig,
        voice: OfflineVoice,
        *,
        intents: IntentRouter | None = None,
        wake_phrase: str | None = None,
    ) -> None:
        self._tools = frozenset(tool.name for tool in config.tools)
        self._system = without_tools(config.system_prompt, self._tools)
        self._voice = voice
        self._intents = intents
        self._wake_phrase = wake_phrase
        self._history = [
            ChatMessage("user" if turn.role == "user" else "assistant", turn.text)
            for turn in config.history
            if turn.text.strip()
        ]
        self._events: asyncio.Queue[live.LiveEvent | live.LiveConnectionLost | _Closed] = asyncio.Queue()
        self._inputs: asyncio.Queue[_Heard | _Typed] = asyncio.Queue()
        self._vad = voice.new_vad()
        self._endpoint = Endpointer(EndpointConfig(skip_leading=wake_phrase is not None))
        self._worker: asyncio.Task[None] | None = None
        self._warming: asyncio.Task[None] | None = None
        self._reply: asyncio.Task[None] | None = None
        self._tool_results: dict[str, asyncio.Future[Mapping[str, Any]]] = {}
        self._call_ids = itertools.count(1)
        self._audio_ms = 0.0
        self._said: list[str] = []
        """The sentences of the answer in progress that were spoken."""
        self._heard_fragments = 0
        """`UserTranscript` texts sent in the user's turn in progress (the next one needs a space)."""
        self._lost: live.LiveConnectionLost | None = None
        self._closed = False

    @property
    def resumption_handle(self) -> str | None:
        return None

    def start(self) -> None:
        self._worker = asyncio.create_task(self._work(), name="offline-turns")

    async def send_audio(self, chunk: AudioChunk) -> None:
        self._check_open()
        if self._warming is None:
            # The chat model reads the system prompt while the user speaks, not waited for: the models' one
            # thread takes the transcription after it, and an answer that needs neither model is said at once.
            # Typed text starts no warm-up: an answer of the chat model's reads the prompt itself, and one that
            # needs no model (a tool's, a template's: most typed questions offline) leaves the thread idle, so that
            # `parley ask` ends at once instead of waiting 1-2 s for a warm-up nobody used.
            self._warming = asyncio.create_task(self._voice.warm(self._system), name="offline-warm")
        pcm = chunk.pcm
        if chunk.format != MIC_FORMAT:
            pcm = convert(pcm16_to_float(pcm, chunk.format.channels), chunk.format.rate, MIC_FORMAT)
        for window, probability in await self._voice.detect(self._vad, pcm):
            for event in self._endpoint.push(window, probability):
                if isinstance(event, SpeechStarted):
                    self._voice.expect_speech()  # loaded at the wake word already, unless typing opened the talk
                    self._user_started()
                else:
                    self._inputs.put_nowait(_Heard(event.pcm))

    async def send_text(self, text: str) -> None:
        self._check_open()
        self._inputs.put_nowait(_Typed(text))

    async def send_tool_result(self, call_id: str, name: str, result: Mapping[str, Any]) -> None:
        self._check_open()
        waiting = self._tool_results.get(call_id)
        if waiting is not None and not waiting.done():
            waiting.set_result(result)

    async def send_picture(self, picture: live.Picture) -> None:
        self._check_open()
        raise LiveConnectionError("the offline voice cannot see pictures")

    async def events(self) -> AsyncGenerator[live.LiveEvent, None]:
        while True:
            event = await self._events.get()
            if isinstance(event, _Closed):
                return
            if isinstance(event, live.LiveConnectionLost):
                raise event
            yield event

    async def aclose(self) -> None:
        if self._closed:
            return
        self._closed = True
        tasks = [task for task in (self._reply, self._worker, self._warming) if task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._events.put_nowait(_Closed())

    # -- hearing -----------------------------------------------------------------------------------

    def _user_started(self) -> None:
        if self._reply is not None and not self._reply.done():
            self._reply.cancel()
            self._emit(live.Interrupted())
        # "The user is talking", after the barge-in: the session ends the interrupted turn on `Interrupted`
        # and starts counting towards idle; this keeps it awake until the user's turn has been answered.
        self._emit(live.UserTranscript(""))

    async def _work(self) -> None:
        try:
            waiting: list[str] = []
            while True:
                item = await self._inputs.get()
                if isinstance(item, _Typed):
                    await self._answer(item.text)
                    continue
                heard = await self._voice.transcribe(item.pcm, whisper_prompt(self._wake_phrase))
                text = without_wake_phrase(heard, self._wake_phrase)
                if not is_noise(text):
                    self._emit(live.UserTranscript(text if not self._heard_fragments else f" {text}", final=True))
                    self._heard_fragments += 1
                    waiting.append(text)
                if self._endpoint.in_speech or not self._inputs.empty():
                    continue  # the user goes on: answer everything they said at once
                if waiting:
                    question, waiting = " ".join(waiting), []
                    await self._answer(question)
                else:
                    self._emit(live.TurnComplete())  # noise: the user's turn ends with nothing to answer
                    self._heard_fragments = 0
        except Exception as error:  # a model or espeak-ng failed: end this connection, the session opens another
            if isinstance(error, VoiceError | OSError):
                log.warning("the offline voice failed: %s", error)
            else:
                log.exception("the offline voice failed unexpectedly")
            self._lost = live.LiveConnectionLost(
                f"the offline voice failed ({type(error).__name__})", code=None, resumption_handle=None
            )
            self._events.put_nowait(self._lost)

    async def _answer(self, question: str) -> None:
        self._heard_fragments = 0
        self._reply = asyncio.create_task(self._reply_to(question), name="offline-reply")
        await asyncio.wait({self._reply})  # a barge-in cancels the answer, not this loop
        if not self._reply.cancelled() and (error := self._reply.exception()) is not None:
            raise error

    async def _reply_to(self, question: str) -> None:
        self._history.append(ChatMessage("user", question))
        self._said = []
        # The intent first (an embedding: about 0.15 s), then the model: run side by side, numpy's BLAS
        # threads and the model's thread fight over the two cores and both take several times longer.
        try:
            calls = await self._intents.match(question, self._tools) if self._intents is not None else ()
            beyond = self._intents.beyond_offline(question) if self._intents is not None and not calls else None
            if calls:
                await self._use_tools(calls, question)
            elif beyond is not None:
                await self._say(beyond)  # the small model would invent an answer
            else:
                await self._from_chat(question)
        finally:
            if self._said:
                self._history.append(ChatMessage("assistant", " ".join(self._said)))
        self._emit(live.TurnComplete())

    async def _use_tools(self, calls: Sequence[live.ToolCall], question: str) -> None:
        assert self._intents is not None
        answered = [(call, await self._use_tool(call)) for call in calls]
        await self._tell(question, self._intents.reply(answered))

    async def _use_tool(self, call: live.ToolCall) -> Mapping[str, Any]:
        call = live.ToolCall(id=f"offline-{next(self._call_ids)}", name=call.name, args=call.args)
        result: asyncio.Future[Mapping[str, Any]] = asyncio.get_running_loop().create_future()
        self._tool_results[call.id] = result
        self._emit(call)
        try:
            return await result
        finally:
            self._tool_results.pop(call.id, None)

    async def _tell(self, question: str, answer: ToolAnswer) -> None:
        """The chat model's words for `answer`'s findings where they hold, else (or after them, when they
        leave out a name it must say) its template."""
        if answer.findings:
            await self._phrase(question, answer)
        if not self._said or _leaves_out(answer.names, self._said):
            await self._say(answer.template)

    async def _from_chat(self, question: str) -> None:
        """What the chat and the memories say (the app finds it: `IntentRouter.from_chat`), else the chat
        model's own answer, without a sentence it said before or one that tells the user about themselves
        what they never said."""
        found = FromChat(None)
        if self._intents is not None:
            found = self._intents.from_chat(question, [(m.role, m.text) for m in self._history], self._system)
        if found.answer is not None:
            await self._tell(question, found.answer)
            return
        async with aclosing(self._sentences(self._history, SentenceSplitter())) as sentences:
            async for sentence in sentences:
                if self._said_before(sentence) or (
                    self._intents is not None and self._intents.unfit(sentence, question, found.known)
                ):
                    continue
                await self._say_models(sentence)
                if len(self._said) >= MAX_SENTENCES:
                    return
        if not self._said:
            await self._say(self._intents.no_answer() if self._intents is not None else NO_ANSWER)

    def _said_before(self, sentence: str) -> bool:
        return said_before(sentence, [m.text for m in self._history if m.role == "assistant"])

    async def _phrase(self, question: str, answer: ToolAnswer) -> None:
        """The chat model answers `question` from the tool's findings; its sentences are said while the
        router finds them supported by the findings, and the first that is not ends the answer (the
        template is said when none was)."""
        assert self._intents is not None
        asked = [ChatMessage("user", with_findings(question, answer.findings))]
        whole = SentenceSplitter(first_max_words=MAX_WORDS)  # whole sentences: each is checked before it is said
        async with aclosing(self._sentences(asked, whole)) as sentences:
            async for sentence in sentences:
                if not self._intents.supported(sentence, answer.findings, question) or self._said_before(sentence):
                    return
                await self._say_models(sentence)
                if len(self._said) >= MAX_FOUND_SENTENCES:
                    return

    async def _sentences(self, messages: list[ChatMessage], splitter: SentenceSplitter) -> AsyncGenerator[str, None]:
        """The chat model's answer to `messages`, cut by `splitter` as it is written; the writing stops
        when the caller closes the generator (`aclosing`), or the task reading it is cancelled."""
        if self._warming is not None:
            await self._warming  # its failure is the answer's
        answer = self._voice.answer(self._system, messages)
        try:
            async with aclosing(answer.pieces()) as pieces:
                async for piece in pieces:
                    for sentence in splitter.push(piece):
                        yield sentence
            for sentence in splitter.flush():
                yield sentence
        finally:
            answer.cancel()

    async def _say_models(self, sentence: str) -> None:
        """Say a sentence of the chat model's, after the notice that it writes English only when it is due
        (`OfflineVoice.english_only_notice`)."""
        if (notice := self._voice.english_only_notice()) is not None:
            await self._say(notice)
        await self._say(sentence)

    async def _say(self, sentence: str) -> None:
        pcm = await self._voice.speak(sentence)
        self._emit(live.ModelTranscript(sentence if not self._said else f" {sentence}"))
        self._said.append(sentence)
        for chunk in split(pcm, MODEL_VOICE_FORMAT, AUDIO_CHUNK_MS, start_ms=self._audio_ms):
            self._emit(live.ModelAudio(chunk))
        self._audio_ms += MODEL_VOICE_FORMAT.duration_ms(len(pcm))

    # -- plumbing ----------------------------------------------------------------------------------

    def _emit(self, event: live.LiveEvent) -> None:
        if not self._closed:
            self._events.put_nowait(event)

    def _check_open(self) -> None:
        if self._lost is not None:
            raise self._lost
        if self._closed:
            raise live.LiveConnectionLost("the offline connection is closed", code=None, resumption_handle=None)


def _leaves_out(names: Sequence[str], said: Sequence[str]) -> bool:
    """Whether the sentences `said` leave out one of `names` (a possessive "Mia's" says "Mia")."""
    text = " ".join(said)
    return any(re.search(rf"\b{re.escape(name)}\b", text) is None for name in names)


@asynccontextmanager
async def connect(
    config: live.LiveConfig,
    *,
    voice: OfflineVoice,
    intents: IntentRouter | None = None,
    wake_phrase: str | None = None,
) -> AsyncIterator[OfflineLiveConnection]:
    """Open an offline connection on the loaded `voice`, seeded with `config`'s history and prompt. Bind
    `voice`, `intents` and `wake_phrase` with `functools.partial` to get a `LiveConnectionFactory`."""
    connection = OfflineLiveConnection(config, voice, intents=intents, wake_phrase=wake_phrase)
    connection.start()
    try:
        yield connection
    finally:
        await connection.aclose()
