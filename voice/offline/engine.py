"""The offline voice's models, loaded once per app run and shared by its connections, and the threads
they run on. Every blocking call goes through here, off the event loop:

- one "offline-models" thread runs Whisper and the chat model, one job at a time: they never compete for
  the two cores, and an abandoned answer stops within a token (about 20 ms) before the next job starts;
- one "offline-vad" thread scores the microphone, in order, like the wake word detector's own thread.

Whisper is not one of the models loaded with the rest: it is leased from `Transcribers`, which load it when
speech is expected (the app's `OnDemand`: at the wake word, or when the VAD hears speech) and let it go after a
quiet spell. A typed question needs no transcriber, nor faster-whisper's import (0.3 s with PyAV's).

Language: Whisper is told the user's language, or finds it per utterance ("auto": `language` None), and
espeak-ng speaks each sentence in its own language's voice (`language_of`, the app's detector: the chat
model's English and a template in the user's language differ). The chat model writes English only
(`chat_model.LANGUAGES`): with another language it is asked for English, and the first of its sentences
said in the run comes after one in the user's language that says so (`ENGLISH_ONLY_NOTICE`).

Generated text reaches the loop only through `call_soon_threadsafe`, and a sentinel closes the stream.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import onnxruntime

from languages.registry import SUPPORTED, table
from voice.echo.vad import SileroVad, load_session, silero_model_path
from voice.offline import files
from voice.offline.chat_model import LANGUAGES, MODEL_NAME, ChatModel
from voice.offline.convert import convert_gguf
from voice.offline.heard import Heard
from voice.offline.prompt import ChatMessage
from voice.offline.speech import VOICES, EspeakSynthesizer, espeak_path, voice_for

if TYPE_CHECKING:  # faster-whisper is imported where Whisper loads (`load_transcriber`)
    from voice.offline.transcriber import WhisperTranscriber

_T = TypeVar("_T")
_DONE = object()

LanguageOf = Callable[[str, str], str]
"""(text, the language to assume when the text is too short to tell) -> the text's language code."""
FOUND_LANGUAGE_PROBABILITY = 0.5
"""With "auto", a language found with less than this share of Whisper's probability among the supported
ones does not change the one spoken: a cough or a two-word answer is a guess. (espeak-ng's Italian, said
whole, scored 0.51; its Spanish and German 0.98.)"""
ENGLISH_ONLY_NOTICE = {code: table(code)["offline_voice"]["english_only"] for code in SUPPORTED}
"""Said once, before the chat model's first sentence said, to a user who speaks another language (each language's
`[offline_voice] english_only`)."""
IN_ENGLISH = "Always answer in English, whatever language the user writes in."


@dataclass(frozen=True, slots=True)
class ModelFolders:
    whisper: Path
    chat: Path


def prepare_files(cache: Path) -> ModelFolders:
    """Join Whisper and convert the chat model into `cache`, the first time only (blocking)."""
    gguf = files.smollm2_gguf()
    chat = files.prepared(
        cache / f"smollm2-135m-instruct-ct2-{gguf.stat().st_size}", lambda folder: convert_gguf(gguf, folder)
    )
    return ModelFolders(whisper=files.whisper_base(cache), chat=chat)


async def load_transcriber(cache: Path) -> WhisperTranscriber:
    """Whisper from `cache` (joined there by `prepare_files`), loaded off the loop (about 0.7 s)."""

    def load() -> WhisperTranscriber:
        from voice.offline.transcriber import WhisperTranscriber

        return WhisperTranscriber(files.whisper_base(cache))

    return await asyncio.to_thread(load)


class Transcribers(Protocol):
    """Whisper as the voice gets it: loaded when speech is expected, kept while leased (the app's `OnDemand`)."""

    def prepare(self) -> None:
        """Start loading it, without waiting."""
        ...

    def lease(self) -> AbstractAsyncContextManager[WhisperTranscriber]:
        """It, loaded (waiting for the load), kept while the context is open."""
        ...


class LoadedTranscriber:
    """`Transcribers` of one Whisper loaded already, never let go (benches and tests)."""

    def __init__(self, transcriber: WhisperTranscriber) -> None:
        self._transcriber = transcriber

    def prepare(self) -> None:
        return None

    @asynccontextmanager
    async def lease(self) -> AsyncIterator[WhisperTranscriber]:
        yield self._transcriber


def check_installed() -> None:
    """Raise `OfflineVoiceError` for the first part of the offline voice that is not installed; quick (no
    model is loaded or prepared)."""
    files.smollm2_gguf()
    files.whisper_parts()
    silero_model_path()
    espeak_path()


class OfflineVoice:
    """The loaded models. Make one with `load`; close it when the app stops."""

    model_name = f"{MODEL_NAME} (offline)"

    def __init__(
        self,
        *,
        transcribers: Transcribers,
        chat: ChatModel,
        vad: onnxruntime.InferenceSession,
        language: str | None = "en",
        language_of: LanguageOf | None = None,
    ) -> None:
        """`language`: the code of the language the user speaks, None to find it in each utterance;
        `language_of`: tells the language of a sentence to speak (None: every sentence in `language`)."""
        self._transcribers = transcribers
        self._chat = chat
        self._vad_session = vad
        self._told_language = language
        self.language = language or "en"
        """The language spoken now: the one told, or the one last found."""
        self._language_of = language_of
        self._said_english_only = False
        self._synthesizer = EspeakSynthesizer()
        self._models = ThreadPoolExecutor(1, thread_name_prefix="offline-models")
        self._vad = ThreadPoolExecutor(1, thread_name_prefix="offline-vad")

    @classmethod
    async def load(
        cls,
        cache: Path,
        transcribers: Transcribers,
        *,
        language: str | None = "en",
        language_of: LanguageOf | None = None,
    ) -> OfflineVoice:
        """Prepare the files (first run: about 5 s) and load the chat model and the VAD (about 0.6 s), off the
        loop; Whisper comes from `transcribers`. Raises `OfflineVoiceError` naming what is missing. `language`,
        `language_of`: see `__init__`."""

        return await asyncio.to_thread(cls.load_sync, cache, transcribers, language=language, language_of=language_of)

    @classmethod
    def load_sync(
        cls,
        cache: Path,
        transcribers: Transcribers,
        *,
        language: str | None = "en",
        language_of: LanguageOf | None = None,
    ) -> OfflineVoice:
        """`load`, on the calling thread."""
        chat = ChatModel(prepare_files(cache).chat)
        return cls(transcribers=transcribers, chat=chat, vad=load_session(), language=language, language_of=language_of)

    async def aclose(self) -> None:
        await asyncio.to_thread(self.close)

    def close(self) -> None:
        """Wait for the job in progress (an abandoned answer stops within a token) and stop the threads."""
        self._models.shutdown()
        self._vad.shutdown()

    def new_vad(self) -> SileroVad:
        return SileroVad(self._vad_session)

    async def detect(self, vad: SileroVad, pcm: bytes) -> list[tuple[bytes, float]]:
        return await self._run(self._vad, vad.push, pcm)

    def expect_speech(self) -> None:
        """Someone is speaking: Whisper starts loading now, if it is not loaded, so that it is ready by the end
        of what they say."""
        self._transcribers.prepare()

    async def transcribe_in(self, pcm: bytes, prompt: str, language: str) -> Heard:
        """A short command said in `language` (a code), with the model the conversation uses (one at a time with
        it), on Whisper's short window (`WhisperTranscriber.transcribe_command`)."""
        async with self._transcribers.lease() as transcriber:
            return await self._run(self._models, transcriber.transcribe_command, pcm, prompt, language)

    async def transcribe(self, pcm: bytes, prompt: str | None = None) -> str:
        async with self._transcribers.lease() as transcriber:
            heard = await self._run(
                self._models, transcriber.transcribe, pcm, prompt, self._told_language, tuple(VOICES)
            )
        found = self._told_language is None and heard.text and heard.language in VOICES
        if found and heard.language_probability >= FOUND_LANGUAGE_PROBABILITY:
            self.language = heard.language
        return heard.text

    async def warm(self, system: str) -> None:
        await self._run(self._models, self._chat.warm, self._system(system))

    async def speak(self, text: str) -> bytes:
        language = self._language_of(text, self.language) if self._language_of is not None else self.language
        return await self._synthesizer.synthesize(text, voice=voice_for(language))

    def answer(self, system: str, messages: Sequence[ChatMessage]) -> Answer:
        """Start the chat model's answer now, on the models thread; read it with `Answer.pieces`."""
        return Answer(self._models, self._chat, self._system(system), list(messages))

    def english_only_notice(self) -> str | None:
        """The sentence to say before the first of the chat model's own sentences of the run that is said, in
        a language the model does not write (`ENGLISH_ONLY_NOTICE`); None once it was given, and in English.
        Asked only when a sentence of the model's is about to be said: an answer of the app's own needs none."""
        if self.language in LANGUAGES or self._said_english_only:
            return None
        self._said_english_only = True
        return ENGLISH_ONLY_NOTICE.get(self.language)

    def _system(self, system: str) -> str:
        # The same text for `warm` and `answer`: the model keeps the system prompt's state only for the
        # exact prompt it was warmed with. The app's prompt asks for the user's language; this one cannot.
        return system if self.language in LANGUAGES else f"{system}\n\n{IN_ENGLISH}"

    async def _run(self, executor: ThreadPoolExecutor, function: Callable[..., _T], *args: Any) -> _T:
        return await asyncio.get_running_loop().run_in_executor(executor, function, *args)


class Answer:
    """An answer being written on the models thread while the caller does something else (speaks what
    came before, or decides it wants a tool instead). Pieces reach the loop through
    `call_soon_threadsafe`; a sentinel ends them. `cancel()` stops the writing within a token."""

    def __init__(self, executor: ThreadPoolExecutor, chat: ChatModel, system: str, messages: list[ChatMessage]) -> None:
        loop = asyncio.get_running_loop()
        self._pieces: asyncio.Queue[object] = asyncio.Queue()
        self._cancel = threading.Event()

        def write() -> None:
            try:
                for piece in chat.stream(system, messages, self._cancel):
                    loop.call_soon_threadsafe(self._pieces.put_nowait, piece)
            except Exception as error:  # handed to the reader, which raises it on the loop
                loop.call_soon_threadsafe(self._pieces.put_nowait, error)
            finally:
                loop.call_soon_threadsafe(self._pieces.put_nowait, _DONE)

        self._writing = loop.run_in_executor(executor, write)
        # Not awaited on cancel: a barge-in must not wait for the token in progress; the thread stops at
        # the next one and the next job on the models thread queues behind it.
        self._writing.add_done_callback(lambda done: done.exception())

    async def pieces(self) -> AsyncGenerator[str, None]:
        while (piece := await self._pieces.get()) is not _DONE:
            if isinstance(piece, Exception):
                raise piece
            assert isinstance(piece, str)
            yield piece

    def cancel(self) -> None:
        self._cancel.set()
