"""The timer kit of a voice loop, built where the loop is (`parley listen`, `parley ask`, the window), with
the speaker, the chat store and the front end it rings through."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import AsyncIterable, Callable, Sequence
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Any
from uuid import UUID
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from app.config.paths import model_cache
from app.config.settings import Settings
from app.core.events import ChatSaved, FrontEvent, TimersChanged
from app.core.toolkit import Transcribe
from app.on_demand import OnDemand, dropped
from app.timers.ring_voice import RingVoice
from app.timers.ringing import SoundRinger, Speak
from app.timers.scheduler import Clock, Pause
from app.timers.store import TimerFile
from app.timers.toolkit import TimerKit
from app.wiring import ChatServices, spoken_language
from chats.models import Turn
from voice.audio.chunks import AudioChunk, AudioSink

if TYPE_CHECKING:  # imported where used: faster-whisper takes a quarter of a second to import
    from voice.offline.spotter import PhraseSpotter

log = logging.getLogger(__name__)


def now() -> datetime:
    return datetime.now(UTC)


def local_zone() -> tzinfo:
    """The user's time zone: `TZ`, else the one /etc/localtime links to, else the fixed offset of now (which
    is wrong across a change of summer time, hence the names first)."""
    for name in (os.environ.get("TZ", "").lstrip(":"), _linked_zone()):
        if name:
            try:
                return ZoneInfo(name)
            except (ZoneInfoNotFoundError, ValueError):
                continue
    zone = datetime.now().astimezone().tzinfo
    return zone if zone is not None else UTC


def _linked_zone() -> str:
    try:
        target = Path("/etc/localtime").resolve().as_posix()
    except OSError:
        return ""
    return target.split("/zoneinfo/", 1)[1] if "/zoneinfo/" in target else ""


def timer_kit(
    settings: Settings,
    services: ChatServices,
    *,
    post: Callable[[FrontEvent], None] | None = None,
    sink: AudioSink | None = None,
    rings: bool = True,
    clock: Clock = now,
    pause: Pause = asyncio.sleep,
) -> tuple[TimerKit, SoundRinger | None]:
    """The kit, and its ringer (None when it `rings` not: `parley ask`). `post`: the front end's events
    (the running timers, a timer ringing); `sink`: the speaker the chime and the words go to. `clock` and
    `pause`: what the timers wait on (a test moves its own)."""
    zone = local_zone()
    language = spoken_language(settings)
    tell = post or (lambda event: None)

    async def note(chat_id: UUID, text: str, line_id: UUID) -> None:
        await services.store.append(chat_id, [Turn(role="model", text=text, at=clock(), id=line_id)])
        tell(ChatSaved(chat_id))

    voice: RingVoice | None = None
    ringer: SoundRinger | None = None
    on_demand: tuple[OnDemand[Any], ...] = ()
    if rings:
        voice = RingVoice(_espeak(), pause=pause)
        spotter = StopSpotter(voice.shared_whisper, quiet_s=settings.models_release_s)
        on_demand = (spotter.part,)
        ringer = SoundRinger(
            post=tell,
            language=language or "en",
            zone=zone,
            sink=sink,
            speak=voice.speak,
            note=note,
            spot=spotter.spot,
            pause=pause,
        )
    kit = TimerKit(
        TimerFile(settings.data_dir),
        clock=clock,
        zone=zone,
        language=language,
        ringer=ringer,
        on_change=lambda timers: tell(TimersChanged(tuple(timers))),
        pause=pause,
        voice=voice,
        on_demand=on_demand,
    )
    return kit, ringer


def _espeak() -> Speak | None:
    """espeak-ng's voice, or None without it (the chime still rings)."""
    from voice.offline.errors import OfflineVoiceError
    from voice.offline.speech import EspeakSynthesizer, voice_for

    try:
        synthesizer = EspeakSynthesizer()
    except OfflineVoiceError as error:
        log.info("timers ring without words: %s", error)
        return None

    async def speak(text: str, language: str) -> bytes:
        return await synthesizer.synthesize(text, voice=voice_for(language))

    return speak


class StopSpotter:
    """Hears a stop word with the offline Whisper base and Silero VAD (`voice.offline.spotter`): `spot` is the
    ringer's. They load at a ring (about 0.5 s, while the chime plays) and are let go after `quiet_s` seconds
    unused (`app.on_demand`, the `models_release_s` setting), as a conversation's models are: with Gemini's voice
    its own Whisper is 150 MB that a day of sleep does not need. Without them it hears nothing (the button stops
    the ring), said in the log. `shared`: a Whisper already loaded (the offline voice's), asked at each load:
    then only the VAD is loaded."""

    def __init__(self, shared: Callable[[], Transcribe | None] = lambda: None, *, quiet_s: float) -> None:
        async def load() -> PhraseSpotter | None:
            return await asyncio.to_thread(_loaded, model_cache(), shared())

        self.part: OnDemand[PhraseSpotter | None] = OnDemand("the timer's stop spotter", load, dropped, quiet_s=quiet_s)

    async def spot(self, chunks: AsyncIterable[AudioChunk], words: Sequence[str], language: str) -> bool:
        async with self.part.lease() as spotter:
            return spotter is not None and await spotter.spot(chunks, words, language) is not None


def _loaded(cache: Path, shared: Transcribe | None) -> PhraseSpotter | None:
    """The spotter (with the `shared` Whisper, if any), or None (logged) when its models are missing."""
    from voice.errors import VadModelError
    from voice.offline.errors import OfflineVoiceError
    from voice.offline.spotter import PhraseSpotter

    try:
        return PhraseSpotter.load(cache) if shared is None else PhraseSpotter.sharing(shared)
    except (OfflineVoiceError, VadModelError) as error:
        log.info("a ringing timer stops by its button only: %s", error)
        return None
