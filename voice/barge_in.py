"""Barge-in on Parley's own voice detector: the user speaking over Parley's voice stops it, whether or
not the live model is still generating.

Why it is decided here and not by the service: Gemini Live sends `interrupted` only while it is still
generating, and it generates several times faster than real time, so after `turnComplete` the speaker
can hold many seconds of an answer the service has finished with. A user who speaks then is heard by the
service as a new turn while the old answer plays on. pipecat and LiveKit Agents stop playback on their
own voice activity detector for the same reason; so does Parley.

What it hears, scored by Silero VAD (`voice.vad`, 32 ms windows), from an `EchoCanceller`:

- once its linear filter has learnt the echo path (`CancelledChunk.linear_trusted`, after 12-16 s of
  Parley's voice per voice loop): the linear canceller's output, which keeps the user's voice whole, held
  against its prediction of Parley's voice (`voice.linear_echo` says why);
- before that: AEC3's output, the chunk itself;
- nothing at all until the canceller has heard `armed_after_ms` of Parley's voice.

What is left of Parley's own voice, and a cough or a door, must not count: speech over playback counts
only after `BargeInConfig.min_speech_ms` of windows that pass the thresholds of the signal heard (short
dips bridged), and only while the speaker is playing the model's voice.

Facts behind the numbers (tests/voice/laptop_room.py: the room simulation of tests/voice/rooms.py with
the laptop's own speaker 5 cm from its microphone, Parley's voice 8 dB louder there than a talker at
1 m; `python -m bench.voice --only barge_in` measures them):

- While Parley speaks, AEC3's residual echo suppressor also takes 10-25 dB off the user's voice
  (double talk), within 100-200 ms of its start, and Silero then scores it 0.0-0.3: the first syllables
  are the best chance, so the stretch asked for is short (64 ms) and the threshold low (0.3). On AEC3's
  output the delay to silence stays at p95 1.4-1.5 s in the goal room; on the linear canceller's, 290 ms.
- On the linear canceller's output (swept on 3 minutes of Parley's voice and 50 moments in the goal
  room, only settings with no self-interruption kept): threshold 0.15-0.25, a floor of -32 to -35 dBFS
  and -12 to -15 dB against the prediction all gave p95 265-300 ms; threshold 0.3 gave 335 ms, 0.5 and
  0.7 missed 2-10 of the 50 (Silero scores the user there 0.2-0.5 as often as 0.8). Without the
  prediction (a floor alone), 5-7 self-interruptions in 3 minutes. With the final filter (its step
  shrinking in double talk) 0.3 measures as 0.2 did; asking 96 ms of speech instead of 64 stopped fewer
  coughs and doors (3 of 100 against 6) but took the p95 to 445 ms.
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

from voice.audio import MIC_FORMAT, AudioChunk, AudioFormat
from voice.echo import CancelledChunk
from voice.pcm import convert, pcm16_to_float
from voice.vad import WINDOW_BYTES, SileroVad, load_session


@dataclass(frozen=True, slots=True)
class BargeInConfig:
    threshold: float = 0.3
    """Speech probability (0 to 1) at or above which a 32 ms window of AEC3's output counts as speech."""
    min_level_dbfs: float = -40.0
    """A window of AEC3's output counts as speech only this loud or louder (RMS, dB full scale): above
    what the echo canceller leaves of Parley's own voice (under -43 dBFS in the goal room)."""
    linear_threshold: float = 0.3
    """The same for a window of the linear canceller's output (`voice.linear_echo`), once it is trusted: in
    the bench, 0.2 and 0.3 gave the same delays (p95 290 ms), and 0.3 let 6 of 100 coughs and doors stop
    the voice against 9."""
    linear_min_level_dbfs: float = -35.0
    """The same for a window of the linear canceller's output."""
    over_echo_db: float = -12.0
    """A window of the linear canceller's output counts as speech only if it is at most this far (dB) under
    its prediction of Parley's voice in it: what the filter leaves of Parley's voice stays 15-20 dB under
    the prediction, the user's voice does not."""
    echo_present_dbfs: float = -50.0
    """The linear canceller's output is heard only where its prediction of Parley's voice is this loud or
    louder (dBFS); elsewhere, in Parley's pauses, AEC3's output, which has nothing to suppress there: in the
    linear output Silero scored a door in a pause 0.54-0.64, in AEC3's 0.01."""
    echo_release_db_per_s: float = 60.0
    """The echo prediction a window is held against falls no faster than this (dB per second): the room
    rings on after Parley's words stop, for longer than the linear filter's 250 ms reach, and what it leaves
    then scored 0.2-0.33 in the goal room, while the prediction had already fallen 10-15 dB."""
    min_speech_ms: float = 64.0
    """Speech over playback must last this long (milliseconds) to stop the voice."""
    settle_ms: float = 400.0
    """Nothing counts in the first moments of the voice after a silence (milliseconds): the echo canceller
    has had nothing to learn the echo path from while the speaker was quiet, and lets the start of the
    voice through while it finds it again (-26 dBFS at the microphone, scored 0.4, in the real-time room
    test), where a user seldom speaks over an answer that has just begun."""
    armed_after_ms: float = 3000.0
    """Nothing counts until the echo canceller has heard this much of Parley's voice (milliseconds, once
    per voice loop): about 1.2 s into the first answer, before AEC3 has converged, a loud passage of it came
    through at -20 to -28 dBFS, scored up to 0.47, and stopped Parley's own voice in about one run in
    three of the real-time room test (tests/app/test_room_conversation.py)."""
    max_gap_ms: float = 64.0
    """Windows under the threshold inside a stretch of speech, up to this long (milliseconds), do not
    restart the count: a voice in a reverberant room dips for a window or two between syllables."""


@dataclass(frozen=True, slots=True)
class LinearWindow:
    """What the linear canceller's output says of a window (`voice.linear_echo`)."""

    probability: float
    """Silero's speech probability of the window of the linear canceller's output (0 to 1)."""
    level_dbfs: float
    """Its level (RMS, dB full scale)."""
    echo_dbfs: float
    """The level of Parley's voice the linear canceller predicts in it (RMS, dBFS; -inf for none)."""


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
        self._echo_dbfs = -math.inf
        """The echo prediction held, with its release (dBFS)."""

    def push(
        self, probability: float, level_dbfs: float, window_ms: float, playing: bool, linear: LinearWindow | None = None
    ) -> bool:
        """One window of AEC3's output (its speech probability and level, RMS dBFS), whether the voice was
        playing during it, and the linear canceller's view of the same window once it is trusted. True
        exactly once per stretch of speech over playback, at the window where it has lasted
        `min_speech_ms`."""
        if not playing:
            self._speech_ms = self._gap_ms = self._playing_ms = 0.0
            self._echo_dbfs = -math.inf
            return False
        config = self.config
        released = self._echo_dbfs - config.echo_release_db_per_s * window_ms / 1000.0
        self._echo_dbfs = max(-math.inf if linear is None else linear.echo_dbfs, released)
        self._playing_ms += window_ms
        if self._playing_ms <= config.settle_ms:
            return False
        if linear is not None and linear.echo_dbfs >= config.echo_present_dbfs:
            speech = (
                linear.probability >= config.linear_threshold
                and linear.level_dbfs >= config.linear_min_level_dbfs
                and linear.level_dbfs >= self._echo_dbfs + config.over_echo_db
            )
        else:
            speech = probability >= config.threshold and level_dbfs >= config.min_level_dbfs
        if speech:
            already = self._speech_ms >= config.min_speech_ms
            self._speech_ms += window_ms
            self._gap_ms = 0.0
            return not already and self._speech_ms >= config.min_speech_ms
        self._gap_ms += window_ms
        if self._gap_ms > config.max_gap_ms:
            self._speech_ms = 0.0
        return False


class SpeechOverPlayback:
    """The microphone side of barge-in for one conversation: Silero VAD on every microphone chunk (so its
    recurrent state is warm when playback starts), and on the linear canceller's output beside it,
    `OverlapDetector` on their windows."""

    def __init__(self, session: onnxruntime.InferenceSession, config: BargeInConfig | None = None) -> None:
        self._vad = SileroVad(session)
        self._linear_vad = SileroVad(session)
        self._overlap = OverlapDetector(config)
        self._echo_pending = bytearray()
        """The echo prediction for the audio the VADs hold back until their window is whole."""

    async def heard(self, chunk: AudioChunk, playing: bool) -> bool:
        """Score `chunk` (any PCM16 format) off the event loop; True when the user has started speaking
        over the voice in it. Call in stream order, one call at a time.

        From an `EchoCanceller` whose linear filter has converged, the detector also hears the linear
        canceller's output against its echo prediction (`voice.linear_echo` says why)."""
        pcm = _as_mic(chunk.pcm, chunk.format)
        trusted = False
        if isinstance(chunk, CancelledChunk):
            playing = playing and chunk.voice_heard_ms >= self._overlap.config.armed_after_ms
            trusted = chunk.linear_trusted
            linear, echo = _as_mic(chunk.linear, chunk.format), _as_mic(chunk.echo, chunk.format)
        else:
            # Silence keeps the linear side's windows in step (a muted microphone sends plain chunks).
            linear = echo = bytes(len(pcm))
        self._echo_pending += echo
        # About 0.2 ms of CPU per 32 ms window and model: cheap, but inference stays off the loop.
        windows, linear_windows = await asyncio.to_thread(lambda: (self._vad.push(pcm), self._linear_vad.push(linear)))
        spoken_over = False
        for (window, probability), (linear_window, linear_probability) in zip(windows, linear_windows, strict=True):
            window_ms = MIC_FORMAT.duration_ms(len(window))
            echo_dbfs = level_dbfs(bytes(self._echo_pending[:WINDOW_BYTES]))
            del self._echo_pending[:WINDOW_BYTES]
            view = LinearWindow(linear_probability, level_dbfs(linear_window), echo_dbfs) if trusted else None
            spoken_over |= self._overlap.push(probability, level_dbfs(window), window_ms, playing, view)
        return spoken_over


def _as_mic(pcm: bytes, format: AudioFormat) -> bytes:
    """PCM16 in `format` -> the VAD's format."""
    return pcm if format == MIC_FORMAT else convert(pcm16_to_float(pcm, format.channels), format.rate, MIC_FORMAT)


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
