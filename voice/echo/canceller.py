"""Acoustic echo cancellation: removes from the microphone what Parley's own speaker played, so that
Parley's voice coming back through laptop speakers neither wakes it nor interrupts it, while the user
talking over it (barge-in) still comes through.

WebRTC's audio processing module (AEC3, as bundled by the `livekit` package) does the work; it runs
locally, with no LiveKit server. This is the only module that imports `livekit`.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Final

import numpy as np
import soxr
from livekit import rtc
from numpy.typing import NDArray

from voice.audio.chunks import MIC_FORMAT, AudioChunk, AudioFormat, AudioSource
from voice.echo.linear_canceller import LinearEchoFilter
from voice.errors import AudioError

CAPTURE_RATES: Final = frozenset({8_000, 16_000, 32_000, 48_000})
"""Microphone rates (Hertz) WebRTC's audio processing module cleans at natively."""

FRAME_MS: Final = 10
"""WebRTC processes audio in frames of exactly 10 ms, on both the played and the recorded side."""

QUIET_AFTER_MS: Final = 10.0
"""When the reference given so far has been played out for longer than this (milliseconds), the speaker
is taken to have gone quiet, and the reference is continued with silence up to now, and so on until
`played()` is called again. AEC3 wants an unbroken played stream, as WebRTC's own audio device layer
gives it: a pause left out of the reference shifts all that is played after it against its echo, and
AEC3 then takes a few hundred ms to find the echo again (measured: after pauses of 80 ms to 1.5 s left
out, 80 ms chunks kept only 3 to 11 dB of cancellation). `played()` calls up to this late count as
jitter; later ones, as a pause. Random lateness of up to 15 ms cost about 1 dB (66 dB left), up to
25 ms left 58 dB."""

_FALLBACK_QUALITY: Final = "LQ"
"""libsoxr quality for played audio at a rate with no whole 10 ms frame (22.05 kHz, 11.025 kHz): the
only audio resampled here. An echo canceller needs an early reference more than a hi-fi one: a
streaming resampler holds samples back until the next chunk, up to 20 ms with "LQ" against up to
37 ms with "HQ", and the reference must reach the canceller before its echo does."""


@dataclass(frozen=True, slots=True)
class CancelledChunk(AudioChunk):
    """A microphone chunk cleaned by `EchoCanceller`, with what the barge-in detector needs beside it:
    the linear canceller's view of the same span (`voice.echo.linear_canceller`), in the chunk's format."""

    linear: bytes
    """The microphone less the echo a linear filter predicts: the user's voice is left at full strength,
    Parley's voice some 15-20 dB down once the filter has converged."""
    echo: bytes
    """That prediction of Parley's voice at the microphone."""
    linear_trusted: bool
    """Whether the linear filter has converged (`LinearEchoFilter.converged`) when the chunk was cleaned."""
    voice_heard_ms: float
    """How much of Parley's voice the canceller had heard when the chunk was cleaned (milliseconds)."""


class EchoCanceller:
    """Cancels, in microphone chunks, the echo of what the speaker played.

    Feed it both sides of the conversation, in real time and in order:

    - `played(chunk)` with every chunk at the moment the speaker starts playing it: any PCM16 format
      (stereo is downmixed). Call it when the audio is handed to the device, not when it is queued:
      Gemini sends speech faster than real time (see "How early" below). The silence the speaker
      plays may be passed on or left out: when the reference runs dry for over `QUIET_AFTER_MS`, the
      canceller continues it with silence itself, timed by `clock`, with the same result (measured).
    - `cleaned(chunk)` with every microphone chunk, in `format`; it returns the chunk with the echo
      removed: same format, same `start_ms`, same length, as a `CancelledChunk` that also carries a
      linear canceller's output for the barge-in detector (`voice.echo.linear_canceller` says why).

    Played audio is not resampled here when a 10 ms frame of it is a whole number of samples (24 kHz
    model voice, 44.1 and 48 kHz devices): WebRTC takes the played side at its own rate and converts it
    internally with a resampler built for this, which adds under 1 ms, where a streaming resampler
    here would hold back up to 20-37 ms of the reference.

    How early is early enough: the played audio must reach the canceller before the microphone chunk
    holding its echo is cleaned. With 80 ms chunks and a 50 ms echo path, `played()` calls a steady
    60 ms late still gave 67 dB; 100 ms late, 5 dB.

    No stream delay is configured: AEC3 estimates the delay between the two streams itself (echoes
    delayed 10 to 500 ms were all removed by 58 dB or more; giving it the true delay changed nothing).

    Latency: WebRTC takes whole 10 ms frames. A microphone chunk that is a whole number of frames
    (80 ms chunks are 8) comes back with no delay added here. When a chunk leaves part of a frame over,
    that part waits for the next chunk and the returned audio is padded once with that much silence at
    the front: from then on the stream runs `delay_ms` late (always under 10 ms). AEC3 itself works in
    4 ms blocks and, once anything has been played, returns the microphone one block (4 ms) late.

    Cost (2-core AMD EPYC): about 0.4-0.5 ms of CPU per 80 ms microphone chunk and 0.1 ms per 80 ms of
    played audio, under 1 % of a core (0.13 ms per chunk before anything has been played), plus the
    linear filter's 1 ms per chunk while Parley's voice is within its reach (0.09 ms otherwise, so
    sleeping costs no more), so both methods may be called on the event loop. Handing `cleaned()` to an
    executor would keep that off the loop at the price of a thread hop (0.06 ms); it is worth it only
    where an executor call per chunk is made anyway (the wake word model's).

    Threads: the two methods may be called from different threads (say, `played` on the loop and
    `cleaned` in an executor); a lock keeps them from running at once. Each method's own calls must
    come in stream order, so each is called from one thread (or task) at a time.
    """

    def __init__(
        self,
        format: AudioFormat = MIC_FORMAT,
        *,
        noise_suppression: bool = False,
        clock: Callable[[], float] | None = time.monotonic,
    ) -> None:
        """`format` is the microphone's: mono PCM16 at a rate in `CAPTURE_RATES`.

        `noise_suppression` also runs WebRTC's stationary-noise suppressor. It is off by default:
        echo removal does not need it (AEC3 has its own residual-echo suppressor), and it takes
        3 to 4 dB off clean speech and reshapes what the wake word model and the speech model hear.

        `clock` gives the time in seconds (monotonic): it tells when the speaker has gone quiet. None when the
        caller passes every block the speaker plays, its silence included (`SpeakerSink` does): the reference
        is then never continued by the clock. Better so where it can be: `played()` runs on the event loop,
        and on a loaded machine the loop is often more than `QUIET_AFTER_MS` late, so silence the speaker
        never played was put into the reference, shifting the echo against it (in the real-time room test,
        under a load of 5 on two cores, AEC3 let Parley's voice through at -22 to -30 dBFS for the first
        1.5 s of an answer).
        """
        if format.rate not in CAPTURE_RATES or format.channels != 1 or format.width != 2:
            raise ValueError(
                f"echo cancellation needs mono 16-bit audio at one of {sorted(CAPTURE_RATES)} Hz, got {format}"
            )
        self._format = format
        self._frame_bytes = _frame_samples(format.rate) * format.width
        self._clock = clock
        self._lock = threading.Lock()
        try:
            self._apm = rtc.AudioProcessingModule(
                echo_cancellation=True,
                noise_suppression=noise_suppression,
                # WebRTC's usual companion to AEC3: removes DC and rumble below ~80 Hz, which would
                # otherwise take up the adaptive filter. Speech keeps its energy (-0.3 dB).
                high_pass_filter=True,
                # Off: gain changes on the microphone side look to the canceller like a changing echo path.
                auto_gain_control=False,
            )
        except Exception as error:  # the native library is missing or will not start
            raise AudioError(f"the echo canceller cannot start: {_one_line(error)}") from error
        self._played_rate = 0
        """Rate (Hertz) at which the reference goes to WebRTC; 0 before anything is played."""
        self._played_pending = bytearray()
        """Played mono PCM16, less than one frame, waiting for the rest of its frame."""
        self._played_until = 0.0
        """`clock` time (seconds) at which the reference given so far has all been played."""
        self._quiet = False
        """Whether the speaker has gone quiet, so that silence is being added to the reference."""
        self._resampler: soxr.ResampleStream | None = None
        self._resampled_from = 0
        """Rate (Hertz) `_resampler` takes; 0 when there is none."""
        self._mic_pending = bytearray()
        """Microphone PCM16, less than one frame, waiting for the rest of its frame."""
        self._mic_ready = bytearray()
        """Cleaned microphone PCM16 not yet returned: the padding plus whole processed frames."""
        self._delay_bytes = 0
        self._linear = LinearEchoFilter(format.rate)
        self._linear_ready = bytearray()
        self._echo_ready = bytearray()
        """The linear canceller's output and echo prediction, kept in step with `_mic_ready`."""

    @property
    def format(self) -> AudioFormat:
        """The microphone format, in which `cleaned()` takes and returns chunks."""
        return self._format

    @property
    def delay_ms(self) -> float:
        """How far the audio `cleaned()` returns runs behind the audio it is given because of chunks that
        split a 10 ms frame (milliseconds): 0 while every chunk is whole frames, otherwise under 10."""
        return self._format.duration_ms(self._delay_bytes)

    def played(self, chunk: AudioChunk) -> None:
        """Tell the canceller that the speaker starts playing `chunk` now (PCM16, any rate or channels)."""
        source = chunk.format
        if source.width != 2:
            raise ValueError(f"played audio must be 16-bit PCM, got {source.width}-byte samples")
        if len(chunk.pcm) % (source.width * source.channels):
            raise ValueError(f"{len(chunk.pcm)} bytes is not a whole number of {source.channels}-channel frames")
        samples: NDArray[np.int16] = np.frombuffer(chunk.pcm, dtype="<i2")
        if source.channels > 1:
            samples = np.rint(samples.reshape(-1, source.channels).mean(axis=1)).astype("<i2")
        now = self._clock() if self._clock is not None else 0.0
        with self._lock:
            rate = source.rate
            if rate % (1000 // FRAME_MS):
                samples = self._resample(samples, rate)
                rate = self._format.rate
            if rate != self._played_rate:
                # A new rate is a new stream (WebRTC reconfigures itself): it starts now.
                self._played_rate = rate
                self._played_pending.clear()
                self._played_until = now
            else:
                self._continue_with_silence(now)
            self._feed_reference(samples.tobytes())
            self._linear.played(samples, rate)
            self._quiet = False
            self._played_until += chunk.duration_ms / 1000

    def cleaned(self, chunk: AudioChunk) -> CancelledChunk:
        """`chunk` from the microphone with the echo of what was played removed: same format, same
        `start_ms` and same length (its audio runs `delay_ms` late, see the class notes)."""
        if chunk.format != self._format:
            raise ValueError(f"chunk format {chunk.format} does not match the echo canceller's {self._format}")
        if len(chunk.pcm) % self._format.width:
            raise ValueError(f"{len(chunk.pcm)} bytes is not a whole number of PCM16 samples")
        rate = self._format.rate
        now = self._clock() if self._clock is not None else 0.0
        with self._lock:
            self._continue_with_silence(now)
            self._mic_pending += chunk.pcm
            whole = len(self._mic_pending) - len(self._mic_pending) % self._frame_bytes
            raw = np.frombuffer(bytes(self._mic_pending[:whole]), dtype="<i2").astype(np.float64) / 32768.0
            linear, echo = self._linear.cleaned(raw)
            self._linear_ready += _pcm16(linear)
            self._echo_ready += _pcm16(echo)
            for offset in range(0, whole, self._frame_bytes):
                # A fresh bytearray per frame: WebRTC writes the cleaned samples back into it.
                buffer = self._mic_pending[offset : offset + self._frame_bytes]
                self._call(self._apm.process_stream, rtc.AudioFrame(buffer, rate, 1, self._frame_bytes // 2))
                self._mic_ready += buffer
            del self._mic_pending[:whole]
            short = len(chunk.pcm) - len(self._mic_ready)
            if short > 0:
                # Part of a frame is still waiting: pad the front once so the stream stays continuous.
                # The padding only ever grows to the largest part frame left over, under one frame.
                for ready in (self._mic_ready, self._linear_ready, self._echo_ready):
                    ready[:0] = bytes(short)
                self._delay_bytes += short
            pcm, linear_pcm, echo_pcm = (
                bytes(ready[: len(chunk.pcm)]) for ready in (self._mic_ready, self._linear_ready, self._echo_ready)
            )
            for ready in (self._mic_ready, self._linear_ready, self._echo_ready):
                del ready[: len(chunk.pcm)]
            trusted, heard_ms = self._linear.converged, self._linear.heard_ms
        return CancelledChunk(chunk.format, pcm, chunk.start_ms, linear_pcm, echo_pcm, trusted, heard_ms)

    def _continue_with_silence(self, now: float) -> None:
        """If the speaker has gone quiet, continue the reference with the silence it played up to `now`
        (see `QUIET_AFTER_MS`). Under the lock."""
        quiet = now - self._played_until
        if (
            self._clock is None
            or not self._played_rate
            or quiet <= 0
            or (not self._quiet and quiet * 1000 <= QUIET_AFTER_MS)
        ):
            return
        # Once quiet, every moment counts: the next chunk must start exactly when it is played.
        self._quiet = True
        self._feed_reference(bytes(round(quiet * self._played_rate) * 2))
        self._linear.played(np.zeros(round(quiet * self._format.rate), dtype=np.int16), self._format.rate)
        self._played_until = now

    def _feed_reference(self, pcm: bytes) -> None:
        """Mono PCM16 at `_played_rate` -> WebRTC's reverse stream, in whole frames. Under the lock."""
        self._played_pending += pcm
        frame_bytes = _frame_samples(self._played_rate) * 2
        whole = len(self._played_pending) - len(self._played_pending) % frame_bytes
        for offset in range(0, whole, frame_bytes):
            # WebRTC writes into the frame it is given: the slice is a copy.
            frame = self._played_pending[offset : offset + frame_bytes]
            self._call(self._apm.process_reverse_stream, rtc.AudioFrame(frame, self._played_rate, 1, frame_bytes // 2))
        del self._played_pending[:whole]

    def _resample(self, samples: NDArray[np.int16], rate: int) -> NDArray[np.int16]:
        """Played mono PCM16 at `rate` -> the microphone's rate, seamless across chunks. Under the lock."""
        if self._resampler is None or self._resampled_from != rate:
            self._resampler = soxr.ResampleStream(rate, self._format.rate, 1, dtype="int16", quality=_FALLBACK_QUALITY)
            self._resampled_from = rate
        return np.asarray(self._resampler.resample_chunk(samples), dtype="<i2").reshape(-1)

    @staticmethod
    def _call(process: Callable[[rtc.AudioFrame], None], frame: rtc.AudioFrame) -> None:
        try:
            process(frame)
        except RuntimeError as error:
            raise AudioError(f"the echo canceller failed: {_one_line(error)}") from error


def _pcm16(samples: NDArray[np.float64]) -> bytes:
    return np.clip(np.rint(samples * 32768.0), -32768, 32767).astype("<i2").tobytes()


def _frame_samples(rate: int) -> int:
    return rate * FRAME_MS // 1000


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split()) or type(error).__name__


class EchoCancelledSource:
    """A microphone `AudioSource` whose chunks have what the speaker played taken out.

    Each chunk is cleaned as soon as the microphone hands it over, not when the reader asks for it. The
    speaker's blocks reach the canceller as they are played, so a reader that falls behind (a busy event
    loop, a slow stage) would have the reference run ahead of the capture by its lag, and AEC3 lets the
    echo through once that passes about half a second (measured in a simulated room: 100-300 ms ahead
    changed nothing, 600 ms let Parley's voice through at -15 to -30 dBFS for over a second). The cleaned
    chunks wait for the reader; past `max_queued_ms` the oldest are dropped (`dropped_chunks`), as the
    microphone itself would have done.
    """

    def __init__(self, source: AudioSource, canceller: EchoCanceller, *, max_queued_ms: float = 4000.0) -> None:
        self._source = source
        self._canceller = canceller
        self._max_queued_ms = max_queued_ms
        self.dropped_chunks = 0
        """Cleaned chunks thrown away because the reader fell more than `max_queued_ms` behind."""

    @property
    def format(self) -> AudioFormat:
        return self._source.format

    async def chunks(self) -> AsyncIterator[AudioChunk]:
        ready: deque[AudioChunk] = deque()
        arrived = asyncio.Event()
        ended = False
        failure: Exception | None = None

        async def clean() -> None:
            nonlocal ended, failure
            try:
                async for chunk in self._source.chunks():
                    ready.append(self._canceller.cleaned(chunk))
                    while ready[-1].end_ms - ready[0].start_ms > self._max_queued_ms:
                        ready.popleft()
                        self.dropped_chunks += 1
                    arrived.set()
            except Exception as error:  # the microphone's own (NoAudioDevice, UnreadableAudio): the reader's
                failure = error
            finally:
                ended = True
                arrived.set()

        cleaning = asyncio.create_task(clean(), name="echo-cancelled-microphone")
        try:
            while True:
                while ready:
                    yield ready.popleft()
                if ended:
                    if failure is not None:
                        raise failure
                    return
                arrived.clear()
                if not ready and not ended:
                    await arrived.wait()
        finally:
            cleaning.cancel()
            await asyncio.gather(cleaning, return_exceptions=True)

    async def aclose(self) -> None:
        await self._source.aclose()
