"""Barge-in on Parley's own voice detector: the user speaking over Parley's voice stops it, whether or
not the live model is still generating.

Why it is decided here and not by the service: Gemini Live sends `interrupted` only while it is still
generating, and it generates several times faster than real time, so after `turnComplete` the speaker
can hold many seconds of an answer the service has finished with. A user who speaks then is heard by the
service as a new turn while the old answer plays on. pipecat and LiveKit Agents stop playback on their
own voice activity detector for the same reason; so does Parley.

What it hears, scored by Silero VAD (`voice.echo.vad`, 32 ms windows), from an `EchoCanceller`:

- once its linear filter has learnt the echo path (`CancelledChunk.linear_trusted`, after 12-16 s of
  Parley's voice per voice loop): the linear canceller's output, which keeps the user's voice whole, held
  against its prediction of Parley's voice (`voice.echo.linear_canceller` says why);
- before that: AEC3's output, the chunk itself;
- nothing at all until the canceller has heard `armed_after_ms` of Parley's voice.

What is left of Parley's own voice, and a cough or a door, must not count: speech over playback counts
only after `BargeInConfig.min_speech_ms` of windows that pass the thresholds of the signal heard (short
dips bridged), once one of them has been voiced (periodic at a pitch, `voice.echo.voicing`, measured on the
linear canceller's output), and only while the speaker is playing the model's voice.

`SpeechOverPlayback` hears (Silero, levels, periodicity: `HeardWindow`); `OverlapDetector` decides, a pure
function of those windows, so bench/barge_in.py records what was heard once and weighs settings on it.

Facts behind the numbers (tests/voice/laptop_room.py: the room simulation of tests/voice/rooms.py with
the laptop's own speaker 5 cm from its microphone, Parley's voice 8 dB louder there than a talker at
1 m; `python -m bench.barge_in` measures them, `python -m bench.barge_in_sweep` weighs settings):

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
- Coughs and doors: Silero scores them as speech now and then, on the linear output most (it keeps them
  whole, as it keeps the user), and 6 of 100 stopped the voice (one in the goal room). Stretches that
  fired on them reached a periodicity of 0.16-0.38; the user's first stretch had reached 0.6 or more by
  the time it counted (0.46 once, at 5 dB SNR). Asking 0.4-0.45 of one window stopped none of 200
  (100 over later answers, 100 over first ones) and changed no delay or detection in any room; 0.35 let
  one through; 0.5-0.6 cost one or two first-answer detections. pipecat and LiveKit Agents meet the same
  noises with a longer minimum of speech (0.2-0.5 s), a word count from the transcript, or resuming a
  "false interruption" without words: all later than the 300 ms this detector has.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
import onnxruntime

from voice.audio.chunks import MIC_FORMAT, AudioChunk, AudioFormat
from voice.audio.pcm import convert, pcm16_to_float
from voice.echo.canceller import CancelledChunk
from voice.echo.vad import WINDOW_BYTES, WINDOW_SAMPLES, SileroVad, load_session
from voice.echo.voicing import Voicing


@dataclass(frozen=True, slots=True)
class BargeInConfig:
    threshold: float = 0.3
    """Speech probability (0 to 1) at or above which a 32 ms window of AEC3's output counts as speech."""
    min_level_dbfs: float = -40.0
    """A window of AEC3's output counts as speech only this loud or louder (RMS, dB full scale): above
    what the echo canceller leaves of Parley's own voice (under -43 dBFS in the goal room)."""
    linear_threshold: float = 0.3
    """The same for a window of the linear canceller's output (`voice.echo.linear_canceller`), once it is trusted: in
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
    per voice loop): when it had heard 1.8-1.9 s of the first answer, before AEC3 had converged, a loud
    passage of it came through at -20 to -30 dBFS, scored up to 0.47, and stopped Parley's own voice in
    about one run in three of the real-time room test (tests/app/test_room_conversation.py). The voicing
    check does not help there: the passage is Parley's voice, voiced (0.52). In the lockstep bench, which
    does not reproduce it, arming after 1 s would bring the first answer's p95 from 2.2 s to 1.4 s."""
    min_voicing: float = 0.45
    """A stretch of speech over playback counts only once one of its windows (one that counts as speech)
    is this periodic (`voice.echo.voicing`, 0 to 1): a voice is voiced within about 100 ms of its start, a
    cough or a door is not (see the module's notes)."""
    max_gap_ms: float = 64.0
    """Windows under the threshold inside a stretch of speech, up to this long (milliseconds), do not
    restart the count: a voice in a reverberant room dips for a window or two between syllables."""


@dataclass(frozen=True, slots=True)
class LinearWindow:
    """What the linear canceller's output says of a window (`voice.echo.linear_canceller`)."""

    probability: float
    """Silero's speech probability of the window of the linear canceller's output (0 to 1)."""
    level_dbfs: float
    """Its level (RMS, dB full scale)."""
    echo_dbfs: float
    """The level of Parley's voice the linear canceller predicts in it (RMS, dBFS; -inf for none)."""


@dataclass(frozen=True, slots=True)
class HeardWindow:
    """What the detector hears in one 32 ms window of the microphone: everything the decision uses."""

    probability: float
    """Silero's speech probability of AEC3's output (0 to 1)."""
    level_dbfs: float
    """AEC3's output level (RMS, dB full scale)."""
    window_ms: float
    """The window's length (milliseconds)."""
    playing: bool
    """Whether the speaker was playing the model's voice."""
    voicing: float = 1.0
    """Periodicity of the linear canceller's output (`voice.echo.voicing`, 0 to 1; of the chunk itself when
    there is no canceller)."""
    linear: LinearWindow | None = None
    """The linear canceller's view of the window (None when there is no canceller)."""
    linear_trusted: bool = False
    """Whether the linear canceller had converged (`CancelledChunk.linear_trusted`)."""
    voice_heard_ms: float = math.inf
    """How much of Parley's voice the canceller had heard (milliseconds; inf when there is none)."""


class OverlapDetector:
    """Decides, window by window, when the user has started speaking over the playing voice. Pure: the
    speech probabilities come from the caller's voice activity model."""

    def __init__(self, config: BargeInConfig | None = None) -> None:
        self.config = config or BargeInConfig()
        self._speech_ms = 0.0
        """Speech heard over playback in the stretch in progress (milliseconds)."""
        self._gap_ms = 0.0
        """Time under the threshold since the last speech window of that stretch (milliseconds)."""
        self._voiced = False
        """Whether the stretch in progress has had a voiced window."""
        self._playing_ms = 0.0
        """How long the voice has been playing without a break (milliseconds)."""
        self._echo_dbfs = -math.inf
        """The echo prediction held, with its release (dBFS)."""

    def push(self, window: HeardWindow) -> bool:
        """The next window. True exactly once per stretch of speech over playback, at the window where it
        has lasted `min_speech_ms` and been voiced."""
        config = self.config
        if not window.playing or window.voice_heard_ms < config.armed_after_ms:
            self._speech_ms = self._gap_ms = self._playing_ms = 0.0
            self._voiced = False
            self._echo_dbfs = -math.inf
            return False
        linear = window.linear if window.linear_trusted else None
        released = self._echo_dbfs - config.echo_release_db_per_s * window.window_ms / 1000.0
        self._echo_dbfs = max(-math.inf if linear is None else linear.echo_dbfs, released)
        self._playing_ms += window.window_ms
        if self._playing_ms <= config.settle_ms:
            return False
        if linear is not None and linear.echo_dbfs >= config.echo_present_dbfs:
            speech = (
                linear.probability >= config.linear_threshold
                and linear.level_dbfs >= config.linear_min_level_dbfs
                and linear.level_dbfs >= self._echo_dbfs + config.over_echo_db
            )
        else:
            speech = window.probability >= config.threshold and window.level_dbfs >= config.min_level_dbfs
        if speech:
            already = self._speech_ms >= config.min_speech_ms and self._voiced
            self._speech_ms += window.window_ms
            self._voiced |= window.voicing >= config.min_voicing
            self._gap_ms = 0.0
            return not already and self._speech_ms >= config.min_speech_ms and self._voiced
        self._gap_ms += window.window_ms
        if self._gap_ms > config.max_gap_ms:
            self._speech_ms = 0.0
            self._voiced = False
        return False


class SpeechOverPlayback:
    """The microphone side of barge-in for one conversation: Silero VAD on every microphone chunk (so its
    recurrent state is warm when playback starts), and on the linear canceller's output beside it, with
    that output's periodicity (`voice.echo.voicing`); `OverlapDetector` on their windows."""

    def __init__(self, session: onnxruntime.InferenceSession, config: BargeInConfig | None = None) -> None:
        self._vad = SileroVad(session)
        self._linear_vad = SileroVad(session)
        self._voicing = Voicing(MIC_FORMAT.rate, WINDOW_SAMPLES)
        self._overlap = OverlapDetector(config)
        self._echo_pending = bytearray()
        """The echo prediction for the audio the VADs hold back until their window is whole."""

    async def heard(self, chunk: AudioChunk, playing: bool) -> bool:
        """Score `chunk` (any PCM16 format) off the event loop; True when the user has started speaking
        over the voice in it. Call in stream order, one call at a time.

        From an `EchoCanceller` whose linear filter has converged, the detector also hears the linear
        canceller's output against its echo prediction (`voice.echo.linear_canceller` says why)."""
        spoken_over = False
        for window in await self.windows(chunk, playing):
            spoken_over |= self._overlap.push(window)
        return spoken_over

    async def windows(self, chunk: AudioChunk, playing: bool) -> list[HeardWindow]:
        """What the detector hears in `chunk`, window by window, before it decides (what `heard` decides
        on; the benchmark keeps them to weigh settings)."""
        pcm = _as_mic(chunk.pcm, chunk.format)
        if isinstance(chunk, CancelledChunk):
            linear, echo = _as_mic(chunk.linear, chunk.format), _as_mic(chunk.echo, chunk.format)
        else:
            # Silence keeps the linear side's windows in step (a muted microphone sends plain chunks).
            linear = echo = bytes(len(pcm))
        self._echo_pending += echo
        # About 0.2 ms of CPU per 32 ms window and model, 0.1 ms for the periodicity: cheap, but off the loop.
        cancelled = isinstance(chunk, CancelledChunk)
        scored = await asyncio.to_thread(self._score, pcm, linear, cancelled)
        heard: list[HeardWindow] = []
        for (window, probability), (linear_window, linear_probability), voicing in scored:
            echo_dbfs = level_dbfs(bytes(self._echo_pending[:WINDOW_BYTES]))
            del self._echo_pending[:WINDOW_BYTES]
            seen = HeardWindow(probability, level_dbfs(window), MIC_FORMAT.duration_ms(len(window)), playing, voicing)
            if isinstance(chunk, CancelledChunk):
                view = LinearWindow(linear_probability, level_dbfs(linear_window), echo_dbfs)
                seen = replace(
                    seen, linear=view, linear_trusted=chunk.linear_trusted, voice_heard_ms=chunk.voice_heard_ms
                )
            heard.append(seen)
        return heard

    def _score(
        self, pcm: bytes, linear: bytes, cancelled: bool
    ) -> list[tuple[tuple[bytes, float], tuple[bytes, float], float]]:
        """Both VADs' windows, and the periodicity of the linear output's (of the chunk's own without it)."""
        windows, linear_windows = self._vad.push(pcm), self._linear_vad.push(linear)
        scored = []
        for window, linear_window in zip(windows, linear_windows, strict=True):
            voiced = linear_window[0] if cancelled else window[0]
            voicing = self._voicing.push(np.frombuffer(voiced, dtype="<i2").astype(np.float64) / 32768.0)
            scored.append((window, linear_window, voicing))
        return scored


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
