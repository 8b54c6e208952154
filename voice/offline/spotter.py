"""Hears one of a few short commands ("stop") in a stream of microphone chunks, without the wake word:
Silero VAD finds each short utterance, Whisper base transcribes it, and its words are matched against the
phrases. Generic: what the phrases mean is the caller's.

Why these two models, and nothing newer: both are already on the machine for the offline voice and barge-in,
both are multilingual or language-blind, and the VAD costs 0.1-0.3 ms per 32 ms window, so Whisper runs only
when someone speaks. A keyword model (openWakeWord) would need a model per word and language, and none ships
for "stop". Facts that shape it:

- Whisper reads a 30 s window whatever the utterance's length: about 1.1 s of one core per utterance on
  this machine class (beam 5, 2-2.4 s at load 8-12), so an utterance is cut at `MAX_MS` and transcribed
  on one thread, leaving the other core to the microphone, the wake word and the speaker. A command needs
  no 30 s: it is read on a 10 s window (`WhisperTranscriber.transcribe_command`, 0.35-0.5 s at load 8-12),
  which in the bench decided as often as the whole window with a confident read, and 1-2 s sooner. Read
  again on the whole when unsure, it heard no more "stop"s (11 of 16, warmed canceller) and decided later.
- Whisper is told the language: on a single espeak-ng word it guessed Japanese for Italian "basta" and
  English for German "stopp", and finding it costs a second decode.
- A short hangover (`HANGOVER_MS`): a command is one word, and the caller waits for it.
- A word alone, cut tight, is misheard: on espeak-ng's voices Whisper base made Italian "basta" "Master"
  and Spanish "para" "a la" with the endpointer's usual 192 ms before the speech and nothing after it; with
  `PAD_MS` before and `TRAILING_MS` of silence after, it heard "basta", "Para", "Stopp" (400 ms after
  gave "Pasta"). The silence costs nothing: Whisper reads 10 s anyway.
- Whisper is prompted with the phrases, as if said before: espeak-ng's "stop" from 2 m in a reverberant
  room with noise was "So..." unprompted, "Stop." prompted, while "hello", "ciao" and a timer's own
  sentence stayed what they were.
- The prompt has a price: over what the echo canceller leaves of a ring, with nobody speaking, Whisper
  wrote the phrases themselves ("Shut up.", "Stop. Stop.", "Quiet. Quiet.") at a mean token log
  probability of -0.87 to -1.29 (-0.71 to -1.3 on the 10 s window), where a "stop" said scored -0.05 to
  -0.65: `MIN_LOG_PROBABILITY` tells them apart.

Over Parley's own sound (a ringing timer), the spotter hears through the echo canceller (`CancelledChunk`):

- where the user speaks is found on both of its outputs, speech in either counting: AEC3's, where the
  user's voice is turned down 10-25 dB while Parley plays (Silero scored a "stop" over a ring's words
  0.04-0.2 there), and the linear canceller's, where the user is whole, and so is Parley's voice until the
  filter has converged (then the ring and a "stop" over it are one utterance);
- what was said is read on AEC3's output: in the goal room, Whisper found a "stop" said over a ring's
  words there, and on the linear canceller's output heard the ring's words instead ("Your pasta timer is
  up.", "You're past the time"). Reading the linear output too, once its filter was trusted, heard no
  more (13 of 16 either way, tuning part, warmed canceller) and decided later (p95 8.0 s against 7.6).

What is not heard (bench/tools_stop_over_ring.py, tuning part, per utterance): while the ring's words play,
Silero scores the linear canceller's output as speech throughout (the ring in it), so a "stop" said 0.1-0.7 s
into a round is one utterance with the whole round, read on AEC3's output, where the user is turned down
25-30 dB with a fresh canceller (no "stop" heard there in 8) and 10-25 dB with a warmed one (3 of 8). Pausing
the ring the moment the user speaks over it was weighed and left: the barge-in detector (`voice.echo.barge_in`,
armed at once) noticed those "stop"s only where the linear filter was trusted (2 of 16), though it noticed
every one said 1.3 s in (over the words' end) and nothing of the ring alone.

bench/tools_stop_over_ring.py measures it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterable, Awaitable, Callable, Collection
from dataclasses import dataclass
from pathlib import Path

import onnxruntime

from voice.audio.chunks import AudioChunk
from voice.echo.canceller import CancelledChunk
from voice.echo.vad import SileroVad, load_session
from voice.offline import files
from voice.offline.endpoint import SAMPLE_RATE, EndpointConfig, Endpointer, SpeechEnded
from voice.offline.heard import Heard
from voice.offline.phrases import matching
from voice.offline.transcriber import WhisperTranscriber

MAX_MS = 3_000.0
"""An utterance is cut here: a command is short, and Whisper's cost does not grow with it."""
HANGOVER_MS = 320.0
"""Silence that ends an utterance (milliseconds)."""
PAD_MS = 400.0
"""Audio kept before the utterance's first speech window (milliseconds)."""
TRAILING_MS = 1_000.0
"""Silence put after the utterance's last speech window before Whisper reads it (milliseconds)."""
MIN_UTTERANCE_MS = 250.0
"""An utterance shorter than this (milliseconds, the audio kept before it included) is not read: a stop word
said from 2 m is longer (448 ms and over in bench/tools_stop_over_ring.py), while the onset of a ring's
chime that the echo canceller lets through (96 ms) cost a Whisper read, 1-2 s of one core, before the
"stop" after it could be read."""
SPOTTER_THREADS = 1
"""Whisper's threads: one core is left to the microphone, the wake word and the speaker."""
MIN_LOG_PROBABILITY = -0.6
"""An utterance's words count only when Whisper's mean token log probability is at least this (natural
log): chosen on bench/tools_stop_over_ring.py's tuning part, read on the 10 s window, between the stop words
Whisper made up over a ring heard alone (-0.71 and under) and the "stop"s it heard said over one with a
clear voice (-0.52 and over; those it wrote at -0.73 to -1.0 over the ring's words are the made-up ones'
company, and missed). On the 30 s window the two stood at -0.87 and -0.65, and -0.76 split them."""


@dataclass(frozen=True, slots=True)
class Spotted:
    """A phrase heard."""

    phrase: str
    end_ms: float
    """Where the utterance's last speech window ends, on the chunks' own clock (`AudioChunk.start_ms`)."""


Transcribe = Callable[[bytes, str, str], Awaitable[Heard]]
"""16 kHz mono PCM16, a prompt and a language code -> the words heard."""


def spotters_whisper(cache: Path) -> Transcribe:
    """Whisper base from `cache` (joined there the first time) on `SPOTTER_THREADS`, run off the event loop.
    Blocking; raises `OfflineVoiceError` naming what is missing."""
    transcriber = WhisperTranscriber(files.whisper_base(cache), threads=SPOTTER_THREADS)

    async def transcribe(pcm: bytes, prompt: str, language: str) -> Heard:
        return await asyncio.to_thread(transcriber.transcribe_command, pcm, prompt, language)

    return transcribe


class PhraseSpotter:
    """Whisper and the VAD, loaded once (`load` or `sharing`, blocking); `spot` may be called again and again,
    one at a time."""

    def __init__(self, transcribe: Transcribe, vad: onnxruntime.InferenceSession) -> None:
        self._transcribe = transcribe
        self._vad = vad

    @classmethod
    def load(cls, cache: Path) -> PhraseSpotter:
        """Whisper base from `cache` (joined there the first time) and Silero VAD: about 0.5 s. Blocking;
        raises `OfflineVoiceError` or `VadModelError` naming what is missing."""
        return cls(spotters_whisper(cache), load_session())

    @classmethod
    def sharing(cls, transcribe: Transcribe) -> PhraseSpotter:
        """Silero VAD, with a Whisper already loaded (the offline voice's: not a second 150 MB). Blocking;
        raises `VadModelError` when the VAD is missing."""
        return cls(transcribe, load_session())

    async def spot(self, chunks: AsyncIterable[AudioChunk], phrases: Collection[str], language: str) -> Spotted | None:
        """Read 16 kHz mono PCM16 `chunks` until one of `phrases` is said in `language` (an ISO 639-1 code);
        None when the chunks end first. What else is said is dropped unkept."""
        vad, linear_vad = SileroVad(self._vad), SileroVad(self._vad)
        endpointer = Endpointer(EndpointConfig(hangover_ms=HANGOVER_MS, max_ms=MAX_MS, pad_ms=PAD_MS))
        first_ms: float | None = None
        async for chunk in chunks:
            first_ms = chunk.start_ms if first_ms is None else first_ms
            linear = chunk.linear if isinstance(chunk, CancelledChunk) else chunk.pcm
            for window, probability in await asyncio.to_thread(_scored, vad, linear_vad, chunk.pcm, linear):
                for event in endpointer.push(window, probability):
                    if isinstance(event, SpeechEnded) and (
                        spotted := await self._heard(event, phrases, language, first_ms)
                    ):
                        return spotted
        for event in endpointer.flush():
            if isinstance(event, SpeechEnded) and (spotted := await self._heard(event, phrases, language, first_ms)):
                return spotted
        return None

    async def _heard(
        self, utterance: SpeechEnded, phrases: Collection[str], language: str, first_ms: float | None
    ) -> Spotted | None:
        if utterance.end_ms - utterance.start_ms < MIN_UTTERANCE_MS:
            return None
        pcm = utterance.pcm + bytes(2 * round(SAMPLE_RATE * TRAILING_MS / 1000))  # PCM16: 2 bytes a sample
        prompt = " ".join(f"{phrase.capitalize()}." for phrase in phrases)
        heard = await self._transcribe(pcm, prompt, language)
        phrase = matching(heard.text, phrases) if heard.log_probability >= MIN_LOG_PROBABILITY else None
        return None if phrase is None else Spotted(phrase, (first_ms or 0.0) + utterance.end_ms)


def _scored(vad: SileroVad, linear_vad: SileroVad, pcm: bytes, linear: bytes) -> list[tuple[bytes, float]]:
    """AEC3's windows (`pcm`), each with the higher of its speech probability and that of the linear
    canceller's output over the same span (`linear`; the chunk itself when there is no canceller)."""
    both = zip(vad.push(pcm), linear_vad.push(linear), strict=True)
    return [(window, max(probability, linear_probability)) for (window, probability), (_, linear_probability) in both]
