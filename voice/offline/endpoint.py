"""Where an utterance starts and ends, from per-window speech probabilities. Pure: no model, no clock.

Timing facts that set the defaults (Silero VAD v6 on 32 ms windows of 16 kHz audio):

- Speech starts after `start_ms` of windows at or above `threshold`: 96 ms ignores clicks and the odd
  noisy window, yet a barge-in is noticed within about a tenth of a second of the first syllable.
- Speech ends after `hangover_ms` below the threshold. Pauses inside a sentence last 100-300 ms (the
  fixtures leave 300 ms after the wake phrase); 480 ms bridges them and is about a quarter of the
  end-of-speech delay the user waits through, the first thing to trade against cutting off slow talkers.
- `pad_ms` of audio before the detected start is kept: the first phoneme's onset scores low.
- An utterance longer than `max_ms` is cut there: Whisper reads 30 s at a time.
- Speech already under way when the stream starts is the wake phrase's tail, which the pre-roll carries
  ("...jarvis", 0.5-0.8 s of it): with `skip_leading`, that first stretch ends at a pause of
  `leading_pause_ms` and is dropped unheard when it is shorter than `leading_max_ms`. Whisper would
  otherwise turn half a wake word into words ("The major of this was the weather...") and, joined to the
  question after a 300 ms pause, into one garbled turn. Longer speech is kept whole: it was not a tail.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

SAMPLE_RATE = 16_000
"""Hertz: the VAD and Whisper both take 16 kHz mono."""
LEADING_WITHIN_MS = 100.0
"""Speech found this close to the start of the stream was already under way when it started."""


@dataclass(frozen=True, slots=True)
class SpeechStarted:
    start_ms: float
    """Where speech began (milliseconds into the stream the endpointer was fed)."""


@dataclass(frozen=True, slots=True)
class SpeechEnded:
    pcm: bytes
    """The utterance, 16 kHz mono PCM16, from a little before its start to its last speech window."""
    start_ms: float
    end_ms: float
    """Where the last window that held speech ends (milliseconds into the stream)."""


EndpointEvent = SpeechStarted | SpeechEnded


@dataclass(frozen=True, slots=True)
class EndpointConfig:
    threshold: float = 0.5
    """Speech probability (0 to 1) at or above which a window counts as speech."""
    start_ms: float = 96.0
    hangover_ms: float = 480.0
    pad_ms: float = 192.0
    max_ms: float = 28_000.0
    skip_leading: bool = False
    leading_pause_ms: float = 192.0
    leading_max_ms: float = 1_500.0


class Endpointer:
    """Feed it windows in order with their speech probability; it says when speech starts and ends."""

    def __init__(self, config: EndpointConfig | None = None) -> None:
        self.config = config or EndpointConfig()
        self._position_ms = 0.0
        self._before: deque[tuple[bytes, float]] = deque()
        """Recent windows while not in speech: the pad, and the run of speech windows before a start."""
        self._run_ms = 0.0
        """Consecutive speech (while waiting for a start) or silence (while in speech), milliseconds."""
        self._utterance = bytearray()
        self._start_ms = 0.0
        self._last_speech_end_ms = 0.0
        self._speech_bytes = 0
        """Length of `_utterance` up to the end of its last speech window."""
        self.in_speech = False
        self._leading = False
        """The utterance in progress started with the stream (see `skip_leading`): not announced yet."""

    def push(self, window: bytes, probability: float) -> list[EndpointEvent]:
        """One window (any length, usually 32 ms) and its probability; the events it completes."""
        duration = 1000.0 * len(window) / (2 * SAMPLE_RATE)
        start, self._position_ms = self._position_ms, self._position_ms + duration
        speech = probability >= self.config.threshold
        if not self.in_speech:
            return self._waiting(window, start, duration, speech)
        self._utterance += window
        if speech:
            self._run_ms = 0.0
            self._last_speech_end_ms = self._position_ms
            self._speech_bytes = len(self._utterance)
        else:
            self._run_ms += duration
        too_long = self._position_ms - self._start_ms >= self.config.max_ms
        if self._leading:
            return self._leading_end(too_long)
        if self._run_ms >= self.config.hangover_ms or too_long:
            return [self._end()]
        return []

    def _leading_end(self, too_long: bool) -> list[EndpointEvent]:
        length = self._last_speech_end_ms - self._start_ms
        if length > self.config.leading_max_ms:
            self._leading = False  # not a wake phrase's tail: an utterance like any other, announced late
            return [SpeechStarted(self._start_ms)]
        if self._run_ms >= self.config.leading_pause_ms or too_long:
            self._end()
            self._leading = False
            return []
        return []

    def _waiting(self, window: bytes, start: float, duration: float, speech: bool) -> list[EndpointEvent]:
        self._before.append((window, start))
        self._run_ms = self._run_ms + duration if speech else 0.0
        keep_ms = self.config.pad_ms + self._run_ms
        while self._before and self._before[0][1] < self._position_ms - keep_ms:
            self._before.popleft()
        if self._run_ms < self.config.start_ms:
            return []
        self.in_speech = True
        speech_start = self._position_ms - self._run_ms
        self._run_ms = 0.0
        self._start_ms = self._before[0][1]
        self._utterance = bytearray(b"".join(w for w, _ in self._before))
        self._before.clear()
        self._last_speech_end_ms = self._position_ms
        self._speech_bytes = len(self._utterance)
        if self.config.skip_leading and speech_start <= LEADING_WITHIN_MS and self._start_ms == 0.0:
            self._leading = True  # speech from the stream's first windows on: maybe the wake phrase's tail
            return []
        return [SpeechStarted(max(speech_start, 0.0))]

    def _end(self) -> SpeechEnded:
        ended = SpeechEnded(bytes(self._utterance[: self._speech_bytes]), self._start_ms, self._last_speech_end_ms)
        self.in_speech = False
        self._run_ms = 0.0
        self._utterance = bytearray()
        return ended

    def flush(self) -> list[EndpointEvent]:
        """The stream ended: an utterance in progress ends here."""
        if not self.in_speech:
            return []
        ended = self._end()
        if self._leading:
            self._leading = False
            return []
        return [ended]
