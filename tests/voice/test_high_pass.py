"""The high-pass filter, held to what `scipy.signal` designs and filters (its reference, imported only here)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import signal

from voice.audio.high_pass import HighPass, butterworth_high_pass


@pytest.mark.parametrize(("order", "cutoff_hz", "rate"), [(4, 300.0, 16000), (2, 80.0, 16000), (6, 120.0, 48000)])
def test_its_sections_are_scipys(order: int, cutoff_hz: float, rate: int) -> None:
    expected = signal.butter(order, cutoff_hz, btype="highpass", fs=rate, output="sos")
    made = np.array([(b0, b1, b2, 1.0, a1, a2) for b0, b1, b2, a1, a2 in butterworth_high_pass(order, cutoff_hz, rate)])
    np.testing.assert_allclose(made, expected, rtol=1e-9, atol=1e-12)


def test_a_stream_cut_into_chunks_is_filtered_as_scipy_filters_it_whole() -> None:
    samples = np.random.default_rng(35).standard_normal(4000)
    expected = signal.sosfilt(signal.butter(4, 300.0, btype="highpass", fs=16000, output="sos"), samples)
    high_pass = HighPass(4, 300.0, 16000)
    cuts = [0, 1, 160, 161, 1000, 2999, 4000]
    filtered = np.concatenate([high_pass(samples[start:end]) for start, end in itertools.pairwise(cuts)])
    np.testing.assert_allclose(filtered, expected, rtol=1e-9, atol=1e-12)


def test_it_takes_away_a_low_hum_and_keeps_a_high_tone() -> None:
    time = np.arange(16000) / 16000
    high_pass = HighPass(4, 300.0, 16000)
    hum = high_pass(np.sin(2 * np.pi * 50 * time))[8000:]
    tone = high_pass(np.sin(2 * np.pi * 2000 * time))[8000:]
    assert np.sqrt(np.mean(hum**2)) < 0.001
    assert np.sqrt(np.mean(tone**2)) == pytest.approx(np.sqrt(0.5), rel=0.01)


@pytest.mark.parametrize("order", [0, 1, 3])
def test_an_odd_order_is_refused(order: int) -> None:
    with pytest.raises(ValueError, match="only even orders"):
        HighPass(order, 300.0, 16000)


def test_a_minute_in_32_ms_windows_stays_with_scipy() -> None:
    # The state passes from window to window: what one window's FFT rounds must not add up over a conversation.
    samples = np.random.default_rng(36).standard_normal(16000 * 60)
    expected = signal.sosfilt(signal.butter(4, 300.0, btype="highpass", fs=16000, output="sos"), samples)
    high_pass = HighPass(4, 300.0, 16000)
    filtered = np.concatenate([high_pass(samples[start : start + 512]) for start in range(0, len(samples), 512)])
    np.testing.assert_allclose(filtered, expected, rtol=1e-9, atol=1e-12)
