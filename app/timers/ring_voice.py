"""The voice a timer rings in: Gemini's while a Live session is connected (the voice the user is hearing
answer), else the offline voice's (espeak-ng). Gemini says the line in a short session of its own, told to
read it word for word, so the conversation under way is not touched and nothing is added to its chat; the
chime plays meanwhile. A session that fails or is slow (`GEMINI_WAIT_S`) gives the offline voice instead, and
one sentence is asked for once, whatever the rounds.

The same lent voice shares its Whisper: offline, the "stop" a ring listens for is transcribed by the model
the offline voice already holds, not by a second copy."""

from __future__ import annotations

import asyncio
import logging

from app.timers.ringing import Speak
from app.tools.toolkit import ConversationVoice, Transcribe
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
    (`speak_with`); until then, and without Gemini, `offline` (None: the chime alone)."""

    def __init__(self, offline: Speak | None, *, gemini_wait_s: float = GEMINI_WAIT_S) -> None:
        self._offline = offline
        self._gemini_wait_s = gemini_wait_s
        self._voice: ConversationVoice | None = None
        self._last: tuple[str, bytes] | None = None
        """The last line Gemini said, and its sound: a ring says it each round."""

    def speak_with(self, voice: ConversationVoice) -> None:
        self._voice = voice

    def shared_whisper(self) -> Transcribe | None:
        """The offline voice's Whisper, once the voice loop has loaded it."""
        return None if self._voice is None else self._voice.transcribe

    async def speak(self, text: str, language: str) -> bytes:
        voice = self._voice
        if voice is not None and voice.gemini is not None and voice.connected():
            if self._last is not None and self._last[0] == text:
                return self._last[1]
            try:
                async with asyncio.timeout(self._gemini_wait_s):
                    pcm = await said_by_gemini(voice.gemini, voice.live_model, voice.language_code, text)
            except (LiveConnectionError, TimeoutError, OSError) as error:
                log.warning("a timer rings in the offline voice: Gemini's did not come (%s)", type(error).__name__)
            else:
                if pcm:
                    self._last = (text, pcm)
                    return pcm
        return b"" if self._offline is None else await self._offline(text, language)
