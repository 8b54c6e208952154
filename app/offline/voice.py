"""The offline voice as a voice loop answers with it: SmolLM2 (`voice.offline.engine.OfflineVoice`) loaded as a
conversation opens, Whisper when the user is to speak (at the wake word: `transcriber`, or when the VAD hears
speech), each let go after `models_release_s` unused (`app.on_demand`; about 320 MB resident together), the
intent router's examples embedded as the first conversation opens.

Loaded at the wake word, the models are ready before the user has finished speaking (1.5 s of loading against
2 s or more of a question), so the first answer comes as soon as when they were loaded at start. A typed
message has no such head start: it waits for the chat model's load, and none for Whisper's, which it does not
need."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.config.paths import model_cache
from app.config.settings import Settings
from app.on_demand import OnDemand, dropped
from app.wiring import language_of, spoken_language
from voice.live.connection import LiveConfig, LiveConnection, LiveConnectionFactory

if TYPE_CHECKING:
    from chats.embedders.embedding import Embedder
    from voice.offline.engine import OfflineVoice
    from voice.offline.heard import Heard
    from voice.offline.transcriber import WhisperTranscriber


@dataclass(frozen=True, slots=True)
class OfflineVoiceOnDemand:
    opening: LiveConnectionFactory
    """Opens a connection once the models are loaded (loading them if they are not)."""
    transcribe_in: Callable[[bytes, str, str], Awaitable[Heard]]
    """`OfflineVoice.transcribe_in` (a short command: pcm, prompt, language), the models loaded for it."""
    model_name: str
    models: OnDemand[OfflineVoice]
    transcriber: OnDemand[WhisperTranscriber]
    """Whisper: `prepare` it when the user is about to speak (the wake word), not for a typed message."""


async def offline_voice(
    settings: Settings, embedder: Embedder, stack: AsyncExitStack, *, instructions: Sequence[str] = ()
) -> OfflineVoiceOnDemand:
    """The offline voice of `settings`, its models let go with `stack` at the latest. Its files are prepared now
    (the first run converts the chat model, about 5 s; what is missing is said at once, as `OfflineVoiceError`).
    `instructions`: what its system prompt tells the model to do (`OfflineIntents`)."""
    from app.offline.intents import OfflineIntents
    from app.timers.wiring import local_zone
    from voice.offline import connection as offline
    from voice.offline.engine import OfflineVoice, load_transcriber, prepare_files
    from voice.offline.text import wake_phrase_of

    cache, language = model_cache(), spoken_language(settings)
    await asyncio.to_thread(prepare_files, cache)
    transcriber = OnDemand(
        "the offline transcriber",
        functools.partial(load_transcriber, cache),
        dropped,
        quiet_s=settings.models_release_s,
    )
    stack.push_async_callback(transcriber.aclose)
    voices = OnDemand(
        "the offline voice",
        functools.partial(OfflineVoice.load, cache, transcriber, language=language, language_of=language_of),
        OfflineVoice.aclose,
        quiet_s=settings.models_release_s,
    )
    stack.push_async_callback(voices.aclose)
    intents = OfflineIntents(embedder, language=language, zone=local_zone(), instructions=instructions, cache=cache)
    wake_phrase = wake_phrase_of(settings.wake_word)

    @asynccontextmanager
    async def opening(config: LiveConfig) -> AsyncIterator[LiveConnection]:
        async with voices.held():  # the models load while the intents' examples are embedded
            await intents.prepare()
            async with (
                voices.lease() as voice,
                offline.connect(config, voice=voice, intents=intents, wake_phrase=wake_phrase) as connection,
            ):
                yield connection

    async def transcribe_in(pcm: bytes, prompt: str, language: str) -> Heard:
        async with voices.lease() as voice:
            return await voice.transcribe_in(pcm, prompt, language)

    return OfflineVoiceOnDemand(opening, transcribe_in, OfflineVoice.model_name, voices, transcriber)
