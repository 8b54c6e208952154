"""Barge-in on Parley's own voice detector: the user speaking over Parley's voice stops it, whether or
not the live model is still generating.

Why it is decided here and not by the service: Gemini Live sends `interrupted` only while it is still
generating, and it generates several times faster than real time, so after `turnComplete` the speaker
can hold many seconds of an answer the service has finished with. A user who speaks then is heard by the
service as a new turn while the old answer plays on. pipecat and LiveKit Agents stop playback on their
own voice activity detector for the same reason; so does Parley.

What it hears: the echo-cancelled microphone (`voice.echo`), scored by Silero VAD (`voice.vad`, 32 ms
windows). What is left of Parley's own voice after AEC3, and a cough or a door, must not count: speech
over playback counts only after `BargeInConfig.min_speech_ms` of windows that both score at least
`threshold` and are louder than `min_level_dbfs` (short dips bridged), and only while the speaker is
playing the model's voice.

Facts behind the numbers (tests/voice/laptop_room.py: the room simulation of tests/voice/rooms.py with
the laptop's own speaker 5 cm from its microphone, Parley's voice 8 dB louder there than a talker at
1 m; `python -m bench.voice --only barge_in` measures them):

- While Parley speaks, AEC3's residual echo suppressor also takes 10-25 dB off the user's voice
  (double talk), within 100-200 ms of its start, and Silero then scores it 0.0-0.3: the first syllables
  are the best chance, so the stretch asked for is short (64 ms) and the threshold low (0.3).
- What AEC3 leaves of Parley's voice scores up to 0.39 but stays under -43 dBFS (99th percentile -46
  dBFS), where a talker 2 m away reaches -35 to -22 dBFS: the level floor keeps it out.
- Swept over 10.5 minutes of Parley's voice in seven rooms (0 self-interruptions for every setting
  kept), 56 coughs and doors (0), and 84 moments the user spoke over it: these settings noticed 83 of
  the 84, 43 within 300 ms, median 262 ms. Settings asking for more (threshold 0.5, 160 ms, no floor)
  noticed 74, 21 within 300 ms.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import onnxruntime

from voice.audio import MIC_FORMAT, AudioChunk
from voice.pcm import convert, pcm16_to_float
from voice.vad import SileroVad, load_session


@dataclass(frozen=True, slots=True)
class BargeInConfig:
    threshold: float = 0.3
    """Speech probability (0 to 1) at or above which a 32 ms window counts as speech."""
    min_level_dbfs: float = -40.0
    """A window counts as speech only this loud or louder (RMS, dB full scale): above what the echo
    canceller leaves of Parley's own voice."""
    min_speech_ms: float = 64.0
    """Speech over playback must last this long (milliseconds) to stop the voice."""
    settle_ms: float = 400.0
    """Nothing counts in the first moments of the voice after a silence (milliseconds): the echo canceller
    has had nothing to learn the echo path from while the speaker was quiet, and lets the start of the
    voice through while it finds it again (-26 dBFS at the microphone, scored 0.4, in the real-time room
    test), where a user seldom speaks over an answer that has just begun."""
    max_gap_ms: float = 64.0
    """Windows under the threshold inside a stretch of speech, up to this long (milliseconds), do not
    restart the count: a voice in a reverberant room dips for a window or two between syllables."""


class OverlapDetector:
    """Decides, window by window, when the user has started speaking over the playing voice. Pure: the
    speech probabilities come from the caller's voice activity model."""

    def __init__(self, config: BargeInConfig | None = None) -> None:
        self.config = config or BargeInConfig()
        self._speech_ms = 0.0
        """Speech heard over playback in the stretch in progress (milliseconds)."""
        self._gap_ms = 0.0
        """Time under the threshold since the last speech window of that stretch (milliseconds)."""
        self._playing_ms = 0.0
        """How long the voice has been playing without a break (milliseconds)."""

    def push(self, probability: float, level_dbfs: float, window_ms: float, playing: bool) -> bool:
        """One window's speech probability, its level (RMS, dBFS) and whether the voice was playing
        during it; True exactly once per stretch of speech over playback, at the window where it has
        lasted `min_speech_ms`."""
        if not playing:
            self._speech_ms = self._gap_ms = self._playing_ms = 0.0
            return False
        self._playing_ms += window_ms
        if self._playing_ms <= self.config.settle_ms:
            return False
        if probability >= self.config.threshold and level_dbfs >= self.config.min_level_dbfs:
            already = self._speech_ms >= self.config.min_speech_ms
            self._speech_ms += window_ms
            self._gap_ms = 0.0
            return not already and self._speech_ms >= self.config.min_speech_ms
        self._gap_ms += window_ms
        if self._gap_ms > self.config.max_gap_ms:
            self._speech_ms = 0.0
        return False


class SpeechOverPlayback:
    """The microphone side of barge-in for one conversation: Silero VAD on every microphone chunk (so its
    recurrent state is warm when playback starts), `OverlapDetector` on its windows."""

    def __init__(self, session: onnxruntime.InferenceSession, config: BargeInConfig | None = None) -> None:
        self._vad = SileroVad(session)
        self._overlap = OverlapDetector(config)

    async def heard(self, chunk: AudioChunk, playing: bool) -> bool:
        """Score `chunk` (any PCM16 format) off the event loop; True when the user has started speaking
        over the voice in it. Call in stream order, one call at a time."""
        pcm = chunk.pcm
        if chunk.format != MIC_FORMAT:
            pcm = convert(pcm16_to_float(pcm, chunk.format.channels), chunk.format.rate, MIC_FORMAT)
        # About 0.2 ms of CPU per 32 ms window: cheap, but inference stays off the loop.
        windows = await asyncio.to_thread(self._vad.push, pcm)
        spoken_over = False
        for window, probability in windows:
            window_ms = MIC_FORMAT.duration_ms(len(window))
            spoken_over |= self._overlap.push(probability, level_dbfs(window), window_ms, playing)
        return spoken_over


def level_dbfs(pcm: bytes) -> float:
    """RMS of PCM16 samples in dB full scale (-inf for digital silence)."""
    samples = np.frombuffer(pcm, dtype="<i2").astype(np.float64) / 32768.0
    power = float(np.mean(samples**2)) if len(samples) else 0.0
    return 10.0 * math.log10(power) if power > 0 else -math.inf


SpeechOverPlaybackFactory = Callable[[], SpeechOverPlayback]
"""Makes the detector of one conversation (its VAD state is its own)."""


def speech_over_playback(config: BargeInConfig | None = None) -> SpeechOverPlaybackFactory:
    """Load Silero VAD once (about 50 ms) and return a factory of per-conversation detectors."""
    session = load_session()
    return lambda: SpeechOverPlayback(session, config)
