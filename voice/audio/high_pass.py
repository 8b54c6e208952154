"""A streaming Butterworth high-pass filter: its state is carried from one chunk to the next, so a stream
cut into chunks is filtered as if whole.

Designed and run in numpy as `scipy.signal.butter(order, cutoff_hz, "highpass", fs=rate, output="sos")` and
`sosfilt` would: the same sections, and the same samples to within 1e-12 (a signal at full scale 1)
(tests/voice/test_high_pass.py holds it to scipy). scipy was what filtered before; importing it held 74 MB for
the rest of the process's life from the first conversation on (issue 35: asleep means small).

How a section runs on a chunk, without a loop over its samples: its numerator is a three-tap convolution, which
the two inputs before the chunk start; its denominator, with the two outputs before the chunk folded into the
chunk's first two samples, is a convolution with its impulse response cut to the chunk's length, done by FFT
(0.3 ms for an 80 ms chunk at 16 kHz, where a loop in Python took 1.5 ms)."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

Section = tuple[float, float, float, float, float]
"""b0, b1, b2, a1, a2 (a0 is 1)."""


class HighPass:
    def __init__(self, order: int, cutoff_hz: float, rate: int) -> None:
        self._sections = butterworth_high_pass(order, cutoff_hz, rate)
        self._inputs = np.zeros((len(self._sections), 2))
        """Each section's last two inputs, oldest first."""
        self._outputs = np.zeros((len(self._sections), 2))
        """Each section's last two outputs, oldest first."""

    def __call__(self, samples: NDArray[np.float64]) -> NDArray[np.float64]:
        """The next chunk of the stream, filtered: each section in turn."""
        signal = np.array(samples, dtype=np.float64)
        length = len(signal)
        if not length:
            return signal
        for index, (b0, b1, b2, a1, a2) in enumerate(self._sections):
            given = np.concatenate([self._inputs[index], signal])
            driven = np.convolve(given, (b0, b1, b2))[2 : 2 + length]
            before, last = self._outputs[index]
            driven[0] -= a1 * last + a2 * before  # the outputs before the chunk, as inputs of a filter at rest
            if length > 1:
                driven[1] -= a2 * last
            signal = _all_pole(driven, a1, a2)
            self._inputs[index] = given[-2:]
            self._outputs[index] = np.concatenate([self._outputs[index], signal[-2:]])[-2:]
        return signal


def _all_pole(driven: NDArray[np.float64], a1: float, a2: float) -> NDArray[np.float64]:
    """`driven` through 1 / (1 + a1 z^-1 + a2 z^-2) from rest."""
    length = len(driven)
    response, size = _response(a1, a2, length)
    return np.fft.irfft(np.fft.rfft(driven, size) * response, size)[:length]


@lru_cache(maxsize=32)
def _response(a1: float, a2: float, length: int) -> tuple[NDArray[np.complex128], int]:
    """The spectrum of the impulse response of 1 / (1 + a1 z^-1 + a2 z^-2), a pair of complex poles p and p*, cut
    to `length` samples ((p^(m+1) - p*^(m+1)) / (p - p*)), for an FFT of `size` points (room for the whole
    linear convolution: nothing wraps around)."""
    pole = complex(-a1 / 2, np.sqrt(4 * a2 - a1 * a1) / 2)
    powers = np.arange(1, length + 1)
    impulse = np.real((pole**powers - pole.conjugate() ** powers) / (pole - pole.conjugate()))
    size = 1 << (2 * length - 1).bit_length()
    return np.fft.rfft(impulse, size), size


def butterworth_high_pass(order: int, cutoff_hz: float, rate: int) -> list[Section]:
    """The second-order sections of a digital Butterworth high-pass of even `order`, through the bilinear
    transform with the cutoff pre-warped, the whole gain on the first section and the poles nearest the unit
    circle last, as scipy orders them."""
    if order < 2 or order % 2:
        raise ValueError(f"a high-pass of order {order}: only even orders from 2 are made here")
    twice_rate = 2.0 * rate
    warped = twice_rate * np.tan(np.pi * cutoff_hz / rate)
    k = np.arange(1, order + 1)
    low_pass_poles = np.exp(1j * np.pi * (2 * k + order - 1) / (2 * order))
    analog_poles = warped / low_pass_poles  # low-pass to high-pass: every zero at s = 0
    poles = (twice_rate + analog_poles) / (twice_rate - analog_poles)  # bilinear: the zeros go to z = 1
    gain = float(np.real(np.prod(twice_rate / (twice_rate - analog_poles))))
    upper = sorted((pole for pole in poles if pole.imag > 0), key=abs)
    sections = [(1.0, -2.0, 1.0, -2.0 * pole.real, abs(pole) ** 2) for pole in upper]
    b0, b1, b2, a1, a2 = sections[0]
    sections[0] = (gain * b0, gain * b1, gain * b2, a1, a2)
    return sections
