from __future__ import annotations

import numpy as np

from voice.audio.chunks import MIC_FORMAT, MODEL_VOICE_FORMAT
from voice.audio.earcon import NOTE_MS, NOTES_HZ, earcon


def test_the_chime_is_two_soft_edged_notes() -> None:
    chunk = earcon()
    assert chunk.format == MODEL_VOICE_FORMAT
    assert chunk.duration_ms == 2 * NOTE_MS
    samples = np.frombuffer(chunk.pcm, dtype="<i2").astype(np.float64)
    assert abs(samples[0]) < 50 and abs(samples[-1]) < 50  # no click at either end
    half = len(samples) // 2
    for part, hz in zip((samples[:half], samples[half:]), NOTES_HZ, strict=True):
        spectrum = np.abs(np.fft.rfft(part))
        peak = np.fft.rfftfreq(len(part), 1 / MODEL_VOICE_FORMAT.rate)[int(np.argmax(spectrum))]
        assert abs(peak - hz) < 20


def test_the_chime_follows_the_format() -> None:
    assert earcon(MIC_FORMAT).format == MIC_FORMAT
    assert earcon(MIC_FORMAT).duration_ms == 2 * NOTE_MS
