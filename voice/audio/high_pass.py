"""A streaming Butterworth high-pass filter: its state is carried from one chunk to the next, so a stream
cut into chunks is filtered as if whole.

Designed and run here in numpy and plain Python, as `scipy.signal.butter(order, cutoff_hz, "highpass", fs=rate,
output="sos")` and `sosfilt` would (the same sections, the same samples: tests/voice/test_high_pass.py holds
them to it). scipy was what filtered before; importing it held 74 MB for the rest of the process's life from
the first conversation on (issue 35: asleep means small). The loop costs about 0.16 ms per 10 ms frame at
16 kHz for order 4, and runs only while Parley talks or listens."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray


class HighPass:
    def __init__(self, order: int, cutoff_hz: float, rate: int) -> None:
        self._sections = butterworth_high_pass(order, cutoff_hz, rate)
        self._state = [(0.0, 0.0) for _ in self._sections]

    def __call__(self, samples: NDArray[np.float64]) -> NDArray[np.float64]:
        """The next chunk of the stream, filtered: each section in turn, transposed direct form II."""
        values: list[float] = np.asarray(samples, dtype=np.float64).tolist()
        for index, (b0, b1, b2, a1, a2) in enumerate(self._sections):
            z1, z2 = self._state[index]
            for n, value in enumerate(values):
                out = b0 * value + z1
                z1 = b1 * value - a1 * out + z2
                z2 = b2 * value - a2 * out
                values[n] = out
            self._state[index] = (z1, z2)
        return np.array(values, dtype=np.float64)


def butterworth_high_pass(order: int, cutoff_hz: float, rate: int) -> list[tuple[float, float, float, float, float]]:
    """The second-order sections (b0, b1, b2, a1, a2; a0 is 1) of a digital Butterworth high-pass of even `order`,
    through the bilinear transform with the cutoff pre-warped, the whole gain on the first section and the
    poles nearest the unit circle last, as scipy orders them."""
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
