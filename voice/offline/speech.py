"""Text to speech with espeak-ng (Debian's `espeak-ng` package), run as a subprocess.

- espeak-ng writes a WAV (22.05 kHz mono) into a temporary file, not to a pipe: a cancelled call stops
  reading a pipe, and once asyncio's buffer holds 128 KB (three seconds of speech) it stops reading too,
  never sees the killed process's end of file, and `wait()` never returns.
- A 15-word sentence takes 40-80 ms: one process per sentence, so the first sentence is heard while
  the model still writes the next, and an interrupted answer stops by killing one short-lived process.
- The file is read and resampled like any recording (`voice.audio.wav.read_recording`) to the model voice
  format (24 kHz mono), what the speaker expects from any live connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import tempfile
from pathlib import Path

from languages.registry import codes
from voice.audio.chunks import MODEL_VOICE_FORMAT
from voice.audio.wav import read_recording
from voice.errors import UnreadableAudio
from voice.offline.errors import OfflineVoiceError

ESPEAK = "espeak-ng"
VOICE = "en-us"
VOICES = codes("espeak")
"""espeak-ng's voice for each language Parley speaks (ISO 639-1 code -> voice name; `espeak-ng --voices`)."""
WORDS_PER_MINUTE = 175


def voice_for(language: str) -> str:
    """The espeak-ng voice of `language` (a code, e.g. "it"); English's for a language it has none of here."""
    return VOICES.get(language, VOICE)


def espeak_path() -> str:
    """The espeak-ng program, or `OfflineVoiceError` saying how to install it."""
    path = shutil.which(ESPEAK)
    if path is None:
        raise OfflineVoiceError("the offline voice needs espeak-ng: apt-get install espeak-ng (scripts/setup.sh)")
    return path


class EspeakSynthesizer:
    """Speaks one sentence at a time; cancelling `synthesize` kills its espeak-ng process."""

    def __init__(self, *, voice: str = VOICE, words_per_minute: int = WORDS_PER_MINUTE) -> None:
        self._program = espeak_path()
        self._voice = voice
        self._speed = words_per_minute
        self.format = MODEL_VOICE_FORMAT

    async def synthesize(self, text: str, *, voice: str | None = None) -> bytes:
        """`text` spoken, as PCM16 in `self.format`, in `voice` (an espeak-ng voice name; None: the one this
        synthesizer was made with); b"" for nothing to say."""
        if not text.strip():
            return b""
        with tempfile.NamedTemporaryFile(prefix="parley-speech-", suffix=".wav") as speech:
            process = await asyncio.create_subprocess_exec(
                self._program,
                "-w",
                speech.name,
                "-v",
                voice or self._voice,
                "-s",
                str(self._speed),
                "--",
                text,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.PIPE,  # a line or two at most: never enough to stall
            )
            try:
                _, err = await process.communicate()
            finally:
                if process.returncode is None:  # cancelled: barge-in, or the connection closing
                    with contextlib.suppress(ProcessLookupError):
                        process.kill()
                    await process.wait()
            if process.returncode != 0:
                raise OfflineVoiceError(
                    f"espeak-ng failed (exit {process.returncode}): {err.decode(errors='replace')[:120]}"
                )
            try:
                return read_recording(Path(speech.name), self.format)
            except UnreadableAudio as error:
                raise OfflineVoiceError(f"espeak-ng wrote no audio we can read ({error})") from error
