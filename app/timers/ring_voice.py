"""The voice a timer rings in: Gemini's while a Live session is connected (the voice the user is hearing
answer), else the offline voice's (espeak-ng). Gemini says the line in a short session of its own, told to
read it word for word, so the conversation under way is not touched and nothing is added to its chat; the
chime plays meanwhile, on time whatever the session does. A session refused (a per-key limit of sessions
open at once: 1011 RESOURCE_EXHAUSTED), failing or slow (`GEMINI_WAIT_S`, on the ringer's clock) gives the
offline voice's words at once. The ringer asks once per ring, whatever the rounds (`app.timers.ringing`).

Why not the conversation's own session, which is open whenever this one is asked for: the line would reach
it as the user's turn, so the model would answer it in the chat's context (in its own words, and into the
chat's history and journal), and a turn sent while it answers cuts the answer the user is hearing, which a
ring is laid over, not in place of (`voice.audio.overlay`).

The same lent voice shares its Whisper: offline, the "stop" a ring listens for is transcribed by the model
the offline voice already holds, not by a second copy."""

from __future__ import annotations

import asyncio
import logging

from app.core.toolkit import ConversationVoice, Transcribe
from app.timers.ringing import Speak
from app.timers.scheduler import Pause, done_or_paused
from voice.errors import LiveConnectionError
from voice.live.connection import LiveConfig, LiveConnectionFactory, ModelAudio, TurnComplete

log = logging.getLogger(__name__)

GEMINI_WAIT_S = 4.0
"""For Gemini's words (a session opened and one sentence said): about a second as a rule."""
READ_ALOUD = (
    "You read reminders aloud for a voice assistant. Say exactly the text the user sends, word for word, in "
    "its own language, and nothing else: no greeting, no comment, no question."
)


async def said_by_gemini(connect: LiveConnectionFactory, model: str, language_code: str | None, text: str) -> bytes:
    """`text` in Gemini's voice (PCM16 in the model's voice format), from a session of its own."""
    pcm = bytearray()
    async with connect(LiveConfig(model=model, system_prompt=READ_ALOUD, language_code=language_code)) as live:
        await live.send_text(text)
        async for event in live.events():
            if isinstance(event, ModelAudio):
                pcm += event.chunk.pcm
            elif isinstance(event, TurnComplete):
                break
    return bytes(pcm)


class RingVoice:
    """`speak` for the ringer and `shared_whisper` for its "stop" spotter, in the voice the voice loop lends
    (`speak_with`); until then, and without Gemini, `offline` (None: the chime alone). `pause`: what Gemini's
    words are waited on (the ringer's)."""

    def __init__(
        self, offline: Speak | None, *, gemini_wait_s: float = GEMINI_WAIT_S, pause: Pause = asyncio.sleep
    ) -> None:
        self._offline = offline
        self._gemini_wait_s = gemini_wait_s
        self._pause = pause
        self._voice: ConversationVoice | None = None

    def speak_with(self, voice: ConversationVoice) -> None:
        self._voice = voice

    def shared_whisper(self) -> Transcribe | None:
        """The offline voice's Whisper, once the voice loop has loaded it."""
        return None if self._voice is None else self._voice.transcribe

    async def speak(self, text: str, language: str) -> bytes:
        voice = self._voice
        if voice is not None and voice.gemini is not None and voice.connected():
            saying = said_by_gemini(voice.gemini, voice.live_model, voice.language_code, text)
            try:
                pcm = await done_or_paused(saying, self._pause, self._gemini_wait_s)
            except (LiveConnectionError, OSError) as error:
                log.warning("a timer rings in the offline voice: Gemini's did not come (%s)", type(error).__name__)
            else:
                if pcm:
                    return pcm
                log.warning("a timer rings in the offline voice: Gemini's did not come in %g s", self._gemini_wait_s)
        return b"" if self._offline is None else await self._offline(text, language)
