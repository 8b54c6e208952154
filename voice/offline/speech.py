"""Text to speech with espeak-ng (Debian's `espeak-ng` package), run as a subprocess.

- espeak-ng writes a WAV at 22.05 kHz mono PCM16 into a temporary file, not to a pipe: a cancelled call
  stops reading a pipe, and once asyncio's buffer holds 128 KB (three seconds of speech) it stops
  reading too, never sees the killed process's end of file, and `wait()` never returns. The header is
  read by hand (`parse_wav`), not with `wave`, which would trust sizes `--stdout` leaves as placeholders.
- A 15-word sentence takes 40-80 ms: one process per sentence, so the first sentence is heard while
  the model still writes the next, and an interrupted answer stops by killing one short-lived process.
- Output is resampled with soxr to the model voice format (24 kHz mono), what the speaker expects from
  any live connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import struct
import tempfile

import numpy as np

from voice.audio import MODEL_VOICE_FORMAT, AudioFormat
from voice.offline.errors import OfflineVoiceError
from voice.pcm import convert, pcm16_to_float

ESPEAK = "espeak-ng"
VOICE = "en-us"
WORDS_PER_MINUTE = 175


def espeak_path() -> str:
    """The espeak-ng program, or `OfflineVoiceError` saying how to install it."""
    path = shutil.which(ESPEAK)
    if path is None:
        raise OfflineVoiceError("the offline voice needs espeak-ng: apt-get install espeak-ng (scripts/setup.sh)")
    return path


def parse_wav(data: bytes) -> tuple[AudioFormat, bytes]:
    """The format and samples of a RIFF/WAVE PCM16 file or stream whose declared sizes may be wrong."""
    if len(data) < 12 or data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        raise OfflineVoiceError("espeak-ng did not write a WAV stream")
    at, audio_format = 12, None
    while at + 8 <= len(data):
        chunk, size = data[at : at + 4], struct.unpack("<I", data[at + 4 : at + 8])[0]
        body = at + 8
        if chunk == b"fmt ":
            encoding, channels, rate = struct.unpack("<HHI", data[body : body + 8])
            bits = struct.unpack("<H", data[body + 14 : body + 16])[0]
            if encoding != 1 or bits != 16:
                raise OfflineVoiceError(f"espeak-ng wrote {bits}-bit audio of encoding {encoding}, not PCM16")
            audio_format = AudioFormat(rate=rate, channels=channels)
        elif chunk == b"data":
            if audio_format is None:
                break
            pcm = data[body:]  # to the end: the declared size is a placeholder
            return audio_format, pcm[: len(pcm) - len(pcm) % (2 * audio_format.channels)]
        at = body + size + (size & 1)
    raise OfflineVoiceError("espeak-ng's WAV stream has no audio")


class EspeakSynthesizer:
    """Speaks one sentence at a time; cancelling `synthesize` kills its espeak-ng process."""

    def __init__(self, *, voice: str = VOICE, words_per_minute: int = WORDS_PER_MINUTE) -> None:
        self._program = espeak_path()
        self._voice = voice
        self._speed = words_per_minute
        self.format = MODEL_VOICE_FORMAT

    async def synthesize(self, text: str) -> bytes:
        """`text` spoken, as PCM16 in `self.format`; b"" for nothing to say."""
        if not text.strip():
            return b""
        with tempfile.NamedTemporaryFile(prefix="parley-speech-", suffix=".wav") as speech:
            process = await asyncio.create_subprocess_exec(
                self._program,
                "-w",
                speech.name,
                "-v",
                self._voice,
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
            out = speech.read()
        audio_format, pcm = parse_wav(out)
        samples = pcm16_to_float(pcm, audio_format.channels)
        return convert(np.asarray(samples), audio_format.rate, self.format)
