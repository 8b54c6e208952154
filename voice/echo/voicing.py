"""How voiced a stretch of sound is: the periodicity of the linear echo canceller's output, for the
barge-in detector (`voice.echo.barge_in`), which must not stop Parley's voice for a cough or a door.

A voice is periodic where it is voiced (the vocal folds open and close at the pitch, 70-400 Hz), and every
spoken word has voiced sounds within 100 ms or so of its start; a cough is turbulent air and a door a
bang, a rattle and a low thud, none of them periodic in the pitch range once the thud is filtered out.
So the barge-in detector asks that a stretch Silero takes for speech has been voiced somewhere.

The measure is the normalised cross-correlation of the newest window with the signal one period earlier
(the NCCF of RAPT and Praat's "To Pitch (ac)"), at its best lag between `MAX_HZ` and `MIN_HZ`: 1.0 for a
signal that repeats itself exactly, about 0.1-0.3 for noise. It looks only at audio already heard (a lagged
copy from the past), so it adds no delay.

Facts behind the numbers (the fixtures in the five rooms of bench/barge_in.py, noise included):
- The speech fixtures said from the talker's spot reach 0.5 in a window 100 ms after their first sound
  (median; 115 ms at the 90th percentile, 132 ms at most); Silero needs about as long, so asking for a
  voiced window costs no delay (bench/barge_in_sweep.py: none in any room). Coughs and doors reach up to
  0.52-0.54 in some window, mostly quiet ones (a strong early reflection repeats a bang at its lag), but
  the loud windows that Silero counts as speech stayed at 0.38 or under.
- Measured on `HIGH_PASS_HZ` upwards: a door's thud is a 50-120 Hz tone, as periodic as a vowel on the
  full band; `MIN_BAND_SHARE` takes care of a thud loud enough to pass the filter. 150, 300 and 500 Hz
  gave the same figures within 0.02 and 15 ms; 300 Hz is the usual floor of telephone speech, where the
  harmonics still carry the pitch.
- Cost: 0.07 ms of CPU per 32 ms window (2-core AMD EPYC, loaded).

Why numpy and not a library: the pitch trackers that install here either look ahead (SwiftF0's
streaming needs 176 ms of lookahead, more than half the delay budget of barge-in) or run a whole file
at a time through a large native package (praat-parselmouth, 10.7 MB wheel; librosa's pYIN, numba);
the barge-in detector needs one number per 32 ms window, from the past only, in about 0.1 ms.
"""

from __future__ import annotations

from typing import Final

import numpy as np
from numpy.typing import NDArray

from voice.audio.high_pass import HighPass

MIN_HZ: Final = 70.0
"""The lowest pitch looked for (Hertz): a low male voice."""
MAX_HZ: Final = 400.0
"""The highest (Hertz): a high female or child's voice."""
HIGH_PASS_HZ: Final = 300.0
"""The periodicity is measured above this (Hertz): see the module's docstring."""
MIN_BAND_SHARE: Final = 0.1
"""A window whose energy above `HIGH_PASS_HZ` is less than this share of its whole is not voiced: a vowel
keeps 20-95 % of its energy there (in the goal room, the speech fixtures' loud windows), a low hum or
thud next to nothing, however periodic what little of it passes the filter."""
QUIET: Final = 1e-10
"""Mean square (-100 dBFS) under which a window is taken as silence, of periodicity 0."""


class Voicing:
    """Periodicity of a stream, window by window. Feed it the stream in order (`push`), at `rate`."""

    def __init__(self, rate: int, window: int) -> None:
        self._window = window
        self._min_lag = int(rate / MAX_HZ)
        self._max_lag = int(np.ceil(rate / MIN_HZ))
        self._history = np.zeros(self._max_lag + window)
        self._high_pass = HighPass(4, HIGH_PASS_HZ, rate)

    def push(self, samples: NDArray[np.float64]) -> float:
        """The next window of the stream (`window` samples, full scale 1.0) -> its periodicity (0 to 1)."""
        if len(samples) != self._window:
            raise ValueError(f"{len(samples)} samples is not a window of {self._window}")
        filtered = self._high_pass(samples)
        self._history = np.concatenate([self._history[self._window :], filtered])
        if float(np.dot(filtered, filtered)) < MIN_BAND_SHARE * float(np.dot(samples, samples)):
            return 0.0
        return periodicity(self._history, self._window, self._min_lag, self._max_lag)


def periodicity(history: NDArray[np.float64], window: int, min_lag: int, max_lag: int) -> float:
    """The best normalised correlation of the last `window` samples of `history` with the same length
    `min_lag`..`max_lag` samples earlier (`history` holds at least `max_lag` + `window` samples)."""
    current = history[-window:]
    energy = float(np.dot(current, current))
    if energy / window < QUIET:
        return 0.0
    start = len(history) - window
    # Every lag at once: the correlations through one FFT, the lagged windows' energies by a running sum.
    size = 1 << int(np.ceil(np.log2(len(history) + window)))
    spectrum = np.fft.rfft(history, size)
    correlation = np.fft.irfft(np.fft.rfft(current, size).conj() * spectrum, size)
    lags = np.arange(min_lag, max_lag + 1)
    cross = correlation[start - lags]
    squares = np.concatenate([[0.0], np.cumsum(history**2)])
    lagged = squares[start - lags + window] - squares[start - lags]
    nccf = cross / np.sqrt(energy * np.maximum(lagged, QUIET * window))
    return float(max(0.0, nccf.max()))
