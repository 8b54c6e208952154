"""The short chime Parley plays when it hears the wake word: two rising notes, soft-edged."""

from __future__ import annotations

import numpy as np

from voice.audio.chunks import MODEL_VOICE_FORMAT, AudioChunk, AudioFormat
from voice.audio.pcm import float_to_pcm16

NOTES_HZ = (1318.5, 1760.0)
"""E6 then A6: a rising fourth reads as "I'm listening"."""
NOTE_MS = 70.0
FADE_MS = 8.0
"""Ramps at each note's edges: a note that starts or stops at full level clicks."""
LEVEL = 0.25


def earcon(audio_format: AudioFormat = MODEL_VOICE_FORMAT) -> AudioChunk:
    """The wake chime as one chunk in `audio_format` (mono), starting at 0 ms."""
    samples = round(audio_format.rate * NOTE_MS / 1000)
    fade = round(audio_format.rate * FADE_MS / 1000)
    envelope = np.ones(samples)
    envelope[:fade] = np.linspace(0.0, 1.0, fade)
    envelope[-fade:] = np.linspace(1.0, 0.0, fade)
    time = np.arange(samples) / audio_format.rate
    notes = [LEVEL * envelope * np.sin(2 * np.pi * hz * time) for hz in NOTES_HZ]
    return AudioChunk(audio_format, float_to_pcm16(np.concatenate(notes)), 0.0)
