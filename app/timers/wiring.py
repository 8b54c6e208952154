"""The timer kit of a voice loop, built where the loop is (`parley listen`, `parley ask`, the window), with
the speaker, the chat store and the front end it rings through."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from uuid import UUID
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from app.config.settings import Settings
from app.front.events import ChatSaved, FrontEvent, TimersChanged
from app.timers.ringing import SoundRinger, Speak
from app.timers.scheduler import Clock, Pause
from app.timers.store import TimerFile
from app.timers.toolkit import TimerKit
from app.wiring import ChatServices, spoken_language
from chats.models import Turn
from voice.audio.chunks import AudioSink

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

    ringer = (
        SoundRinger(post=tell, language=language or "en", zone=zone, sink=sink, speak=_espeak(), note=note, pause=pause)
        if rings
        else None
    )
    kit = TimerKit(
        TimerFile(settings.data_dir),
        clock=clock,
        zone=zone,
        language=language,
        ringer=ringer,
        on_change=lambda timers: tell(TimersChanged(tuple(timers))),
        pause=pause,
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
