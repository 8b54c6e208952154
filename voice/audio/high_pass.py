"""A streaming Butterworth high-pass filter: its state is carried from one chunk to the next, so a stream
cut into chunks is filtered as if whole.

`scipy.signal` is imported when the first filter is made, not with this module: it takes 0.6 s, and the
window imports the voice loop before its first paint (bench/window.py measures it)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray


class HighPass:
    def __init__(self, order: int, cutoff_hz: float, rate: int) -> None:
        from scipy import signal

        self._sosfilt: Any = signal.sosfilt
        self._sections = signal.butter(order, cutoff_hz, btype="highpass", fs=rate, output="sos")
        self._state = np.zeros((self._sections.shape[0], 2))

    def __call__(self, samples: NDArray[np.float64]) -> NDArray[np.float64]:
        """The next chunk of the stream, filtered."""
        filtered, self._state = self._sosfilt(self._sections, samples, zi=self._state)
        return np.asarray(filtered, dtype=np.float64)
