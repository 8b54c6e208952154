"""What Whisper made of one utterance: light to import (faster-whisper is not), so that a kit lent the offline
voice's Whisper can name what it gives back."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Heard:
    """What Whisper made of one utterance."""

    text: str
    language: str
    """The language it transcribed in (ISO 639-1): the one it was told, or the one it found."""
    language_probability: float
    """How sure it was of a language it found (0 to 1); 1.0 for a language it was told."""
    log_probability: float = 0.0
    """Whisper's mean log probability of the words' tokens (natural log, 0 is certain; 0.0 for no words):
    words it made up out of noise, led by a prompt, score about -0.9 to -1.2, words said -0.05 to -0.7
    (`voice.offline.spotter`)."""
