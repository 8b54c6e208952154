"""How loud a source is: the settings window's microphone level test.

Levels are in dBFS (decibels relative to full scale): 0 is the loudest a 16-bit sample can be, digital
silence is `SILENCE_DBFS`. Speech at arm's length from a laptop microphone typically peaks somewhere
around -30 to -10 dBFS; a level that stays near the floor while someone speaks means the wrong device,
a muted input, or no permission to record.
"""

from __future__ import annotations

import math

import numpy as np

from voice.audio import AudioSource

SILENCE_DBFS = -96.0
"""The floor reported for digital silence (about the dynamic range of 16-bit samples)."""
_FULL_SCALE = 32768.0


def peak_dbfs(pcm: bytes) -> float:
    """The loudest sample of 16-bit little-endian PCM, in dBFS (`SILENCE_DBFS` for silence or nothing)."""
    samples = np.frombuffer(pcm[: len(pcm) - len(pcm) % 2], dtype="<i2")
    if samples.size == 0:
        return SILENCE_DBFS
    peak = int(np.max(np.abs(samples.astype(np.int32))))
    if peak == 0:
        return SILENCE_DBFS
    return max(SILENCE_DBFS, 20.0 * math.log10(peak / _FULL_SCALE))


async def loudest(source: AudioSource, seconds: float) -> float:
    """Listen to `source` for `seconds` of audio (or until it ends) and return its peak level (dBFS).

    The source is closed afterwards. Raises what the source raises (`NoAudioDevice` for a microphone
    that cannot be opened)."""
    level = SILENCE_DBFS
    heard_ms = 0.0
    try:
        # No `break`: closing the source ends the iteration, and the iteration ending is what closes a
        # microphone's stream (a generator left suspended would hold the device until collected).
        async for chunk in source.chunks():
            level = max(level, peak_dbfs(chunk.pcm))
            heard_ms += chunk.duration_ms
            if heard_ms >= seconds * 1000.0:
                await source.aclose()
    finally:
        await source.aclose()
    return level
