"""A linear echo canceller for the barge-in detector: it takes out of the microphone the part of Parley's
voice that a linear filter of what was played can predict, and leaves the user's voice at full strength.

Why a second canceller beside AEC3 (`voice.echo.canceller`): AEC3 ends with a residual echo suppressor, and while
Parley speaks that suppressor also takes 10-25 dB off the user's voice within 100-200 ms of its start
(double talk), so a voice detector on AEC3's output hears the user late or not at all (p95 1.4 s from
the user's first sound to silence in the goal room). The livekit binding of WebRTC's module gives no
access to AEC3's linear stage, so this is our own: a partitioned-block frequency-domain adaptive filter
(overlap-save NLMS, one partition per 10 ms frame), as in Speex's MDF and AEC3's own linear stage.
Its output still holds Parley's voice some 15-20 dB down, so it is paired with the filter's own
estimate of the echo: the detector counts the user only where the output stands out from that estimate
(`voice.echo.barge_in`). AEC3's output stays what the service and the wake word hear.

Facts behind the numbers (laptop echo path of tests/voice/laptop_room.py, goal room):

- `PARTITIONS` x 10 ms = 250 ms of echo path: the sound card's latency plus the direct path and the
  strong early reflections; the reverberant tail beyond is left, and is part of what the estimate-relative
  rule tolerates. The echo is cut by 17-20 dB once converged (the room's noise and the laptop speaker's
  clipping, which no linear filter follows, set the limit).
- `STEP` 0.3 converges to 12 dB in about 8-10 s of Parley's voice and to the trusted 18 dB in 12-16 s
  (0.6 converges a little sooner and then wanders 3-8 dB lower on speech; 1.0 diverges). Trusted at
  12 dB, the detector stopped Parley's own voice 21 times in ten first answers of 30 s; at 15 dB, 3; at
  17-18 dB, none (`CONVERGED_DB`). AEC3 converges in about a second; the filter lives as long as the
  voice loop, so this matters for the first quarter minute of Parley's voice only.
- The microphone goes through the same 100 Hz high-pass as AEC3's: the room's low rumble otherwise
  dominates the output, and Silero then scored plain user speech 0.2-0.3 instead of 0.8.
- Cost (2-core AMD EPYC, under load): about 1 ms of CPU per 80 ms microphone chunk while Parley's voice
  is within the filter's reach, 0.09 ms otherwise (see `_frame_through`).

Tried and left, to trust the filter sooner in the first answer: re-adapting on the first 2 s of Parley's
voice kept aside (data reuse, 1 or 4 stored frames per new frame) lifts the first seconds (4-5 dB at 2 s
against 2.3) but overfits them: the filter then settles at 14-17 dB (1 frame) or 10-12 dB (4), never the
trusted 18 dB in 30 s, against 18-21 dB after 10-16 s without. Also libspeexdsp's MDF through
`speexdsp-aec` (ctypes on the system library, absent from Windows and many desktops; its authors measure
15-20 dB on synthetic speech after 3-5 s, what this filter does); `pywebrtc-audio` and
`aec-audio-processing`, WebRTC bindings that expose no more of AEC3 than livekit's (no linear output, no
suppressor settings).
"""

from __future__ import annotations

import math
from typing import Final

import numpy as np
import soxr
from numpy.typing import NDArray

from voice.audio.high_pass import HighPass

Samples = NDArray[np.float64]
"""Mono audio as floats, full scale 1.0, at the microphone's rate."""

PARTITIONS: Final = 25
"""Filter length in 10 ms partitions."""
STEP: Final = 0.3
"""Normalised step size of the adaptation."""
HIGH_PASS_HZ: Final = 100.0
LEAK_MARGIN: Final = 4.0
"""Once converged, the step is full where the error is within this factor of the echo the filter is
expected to leave, and shrinks in proportion beyond (1 and 16 gave the same double-talk cut, within 0.4 dB)."""
MAX_REFERENCE_MS: Final = 250.0
"""Played audio waiting for the microphone beyond this (milliseconds) is dropped, oldest first: an echo
that late is past the filter's reach anyway."""
MAX_OWED_MS: Final = 100.0
"""Played audio up to this late (milliseconds) is a block the speaker reported after the microphone chunk
that spans its moment: the speaker's 20 ms blocks and the microphone's 80 ms chunks reach the event loop in
either order (in the real-time room test, 2 of every 5 chunks came before the block overlapping their
end). Such samples are taken as silence for the frame that met them, and put in their place in the
filter's history when they come, for every later frame (dropping them instead kept the filter under 6 dB).
A reference missing for longer means the speaker is not running (before the first answer): nothing is owed."""
CONVERGED_DB: Final = 18.0
"""The filter is trusted once it takes this much (dB) off the microphone while Parley's voice plays..."""
DIVERGED_DB: Final = 10.0
"""...and no longer once that falls under this (the echo path changed: the laptop moved)."""
ERLE_SMOOTHING: Final = 0.01
"""Per 10 ms frame: the echo reduction is followed over about a second, so the user's first syllables
(which the filter cannot predict) barely move it."""
ACTIVE_REFERENCE: Final = 1e-7
"""Mean square of the reference over the filter's span (-70 dBFS) above which a frame tells how well
the echo is cancelled."""


class LinearEchoFilter:
    """Feed it what the speaker plays (`played`) and the microphone (`cleaned`), both at the microphone's
    rate and in stream order; `cleaned` returns the microphone with the predicted echo taken out and the
    prediction itself, each as long as its input (whole 10 ms frames only)."""

    def __init__(self, rate: int) -> None:
        self._rate = rate
        self._frame = rate // 100
        bins = self._frame + 1
        self._weights = np.zeros((PARTITIONS, bins), dtype=np.complex128)
        self._past = np.zeros((PARTITIONS + 1) * self._frame)
        """The reference the microphone has met, its last `PARTITIONS` + 1 frames, newest last."""
        self._spectra = np.zeros((PARTITIONS, bins), dtype=np.complex128)
        """`_past` as overlap-save spectra of two frames each, newest first."""
        self._power = np.full(bins, 1e-6)
        self._reference = np.zeros(0)
        """Played samples the microphone has not reached yet."""
        self._owed = 0
        """Played samples the microphone reached before they came: the newest of `_past`, silence there
        until they come (`MAX_OWED_MS`)."""
        self._max_owed = round(rate * MAX_OWED_MS / 1000)
        self._max_reference = round(rate * MAX_REFERENCE_MS / 1000)
        self._high_pass = HighPass(2, HIGH_PASS_HZ, rate)
        self._resampler: soxr.ResampleStream | None = None
        self._resampled_from = 0
        """Rate (Hertz) `_resampler` takes; 0 when there is none."""
        self._mic_power = 0.0
        self._residual_power = 0.0
        self.converged = False
        """Whether the filter has learnt the echo path well enough for its output to be trusted."""
        self.heard_ms = 0.0
        """How much of Parley's voice (frames with the reference active) the filter has heard (ms)."""

    @property
    def erle_db(self) -> float:
        """How much the filter currently takes off the microphone while Parley's voice plays (dB)."""
        if self._residual_power <= 0.0 or self._mic_power <= 0.0:
            return 0.0
        return 10.0 * math.log10(self._mic_power / self._residual_power)

    def played(self, pcm: NDArray[np.int16], rate: int) -> None:
        """Mono PCM16 samples at `rate` (Hertz) that the speaker starts playing now."""
        samples = self._at_mic_rate(pcm.astype(np.float64) / 32768.0, rate)
        skipped = min(self._owed, len(samples))
        if skipped:
            end = len(self._past) - self._owed + skipped
            self._past[end - skipped : end] = samples[:skipped]
        self._owed -= skipped
        self._reference = np.concatenate([self._reference, samples[skipped:]])[-self._max_reference :]

    def cleaned(self, mic: Samples) -> tuple[Samples, Samples]:
        """Microphone samples (a whole number of 10 ms frames) -> (what the echo prediction leaves, the
        prediction), both high-passed as AEC3 hears them."""
        if len(mic) % self._frame:
            raise ValueError(f"{len(mic)} samples is not a whole number of {self._frame}-sample frames")
        if not len(mic):
            return np.zeros(0), np.zeros(0)
        filtered = self._high_pass(mic)
        residual = np.empty(len(mic))
        estimate = np.empty(len(mic))
        for start in range(0, len(mic), self._frame):
            frame = slice(start, start + self._frame)
            residual[frame], estimate[frame] = self._frame_through(np.asarray(filtered[frame], dtype=np.float64))
        return residual, estimate

    def _at_mic_rate(self, samples: Samples, rate: int) -> Samples:
        """Played audio at `rate` -> the microphone's rate, seamless across calls.

        libsoxr's band-limited qualities hold back up to 20-37 ms of output at a time, in bursts, and a
        reference that reaches the filter after its microphone frame is lost to it (taken as silence: with
        "LQ" the filter never passed 10 dB in the goal room). Its "quick" cubic interpolation holds nothing
        back. Its cost: at 24 kHz -> 16 kHz the output falls alternately on and between input samples, a
        response that changes from sample to sample, which no linear filter follows: on a plain delayed
        echo the filter cuts 17-21 dB of Parley's 24 kHz voice against 24 dB from 16 or 48 kHz. The room's
        noise limits it about as much (19-20 dB in the goal room)."""
        if rate == self._rate:
            return samples
        if self._resampler is None or self._resampled_from != rate:
            self._resampler = soxr.ResampleStream(rate, self._rate, 1, dtype="float64", quality="QQ")
            self._resampled_from = rate
        return np.asarray(self._resampler.resample_chunk(samples), dtype=np.float64)

    def _next_reference(self) -> None:
        """Move the reference the next microphone frame meets into `_past`."""
        taken, self._reference = self._reference[: self._frame], self._reference[self._frame :]
        self._past = np.roll(self._past, -self._frame)
        self._past[-self._frame :] = 0.0
        self._past[len(self._past) - self._frame : len(self._past) - self._frame + len(taken)] = taken
        self._owed += self._frame - len(taken)
        if self._owed > self._max_owed:
            self._owed = 0  # not a late block: the speaker is not running, and its next block starts afresh

    def _frame_through(self, mic: Samples) -> tuple[Samples, Samples]:
        n = self._frame
        self._next_reference()
        if not self._past.any():
            # Nothing played within the filter's reach: there is no echo to predict, and nothing to learn.
            # Skipped, because the microphone is cleaned all the time Parley sleeps (0.85 ms a chunk
            # otherwise: more than the whole sleeping budget of 1 % of a core).
            return mic, np.zeros(n)
        # Every partition afresh: a late block may have changed any of them.
        windows = np.lib.stride_tricks.sliding_window_view(self._past, 2 * n)[::n]
        self._spectra = np.fft.rfft(windows[::-1], axis=1)
        current = self._spectra[0]
        estimate = np.fft.irfft((self._weights * self._spectra).sum(axis=0), 2 * n)[n:]
        residual = mic - estimate
        error = np.fft.rfft(np.concatenate([np.zeros(n), residual]))
        self._power = 0.9 * self._power + 0.1 * np.abs(current) ** 2
        step: float | Samples = STEP
        if self.converged:
            # Double talk: where the error stands far above the echo a converged filter leaves, it is
            # someone else's sound, and chasing it would pull the filter off the echo path (the user's voice
            # over 4 s took a 31 dB cut down to 8 dB). So the step shrinks to the share of the error that
            # can be echo (J.-M. Valin, "On Adjusting the Learning Rate in Frequency Domain Echo
            # Cancellation With Double-Talk", 2007): the same user left it at 25 dB.
            leak = 10.0 ** (-self.erle_db / 10.0)
            left = leak * np.abs(np.fft.rfft(np.concatenate([np.zeros(n), estimate]))) ** 2
            step = STEP * np.minimum(1.0, LEAK_MARGIN * left / (np.abs(error) ** 2 + 1e-12))
        # Normalised by the louder of the newest frame's power and the partitions' mean: the newest alone
        # is near zero when a block is late or a word has just ended while older partitions are loud, and
        # the step then blew the filter up (in one real-time run of three).
        power = np.maximum(self._power, np.mean(np.abs(self._spectra) ** 2, axis=0))
        gradient = step * np.conj(self._spectra) * error / (power * PARTITIONS + 1e-6)
        # The gradient constraint of overlap-save: each partition stays a causal 10 ms piece of the path.
        weights = np.fft.irfft(self._weights + gradient, 2 * n, axis=1)
        weights[:, n:] = 0.0
        self._weights = np.fft.rfft(weights, axis=1)
        self._follow_erle(mic, residual)
        return residual, estimate

    def _follow_erle(self, mic: Samples, residual: Samples) -> None:
        if float(np.mean(np.abs(self._spectra) ** 2)) / (2 * self._frame) < ACTIVE_REFERENCE:
            return
        self.heard_ms += 10.0
        self._mic_power += ERLE_SMOOTHING * (float(np.mean(mic**2)) - self._mic_power)
        self._residual_power += ERLE_SMOOTHING * (float(np.mean(residual**2)) - self._residual_power)
        erle = self.erle_db
        self.converged = erle >= DIVERGED_DB if self.converged else erle >= CONVERGED_DB
