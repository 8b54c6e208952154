"""Domain errors of the voice package. Each message is one line a user can read."""

from __future__ import annotations


class VoiceError(Exception):
    """Base of every error the voice package raises on purpose."""


class AudioError(VoiceError):
    """Audio cannot be read, written, or reached."""


class UnreadableAudio(AudioError):
    """A recording is missing, corrupt, or not a format we read."""


class NoAudioDevice(AudioError):
    """No microphone or speaker can be opened (no sound card, device busy, permission denied)."""


class WakeModelError(VoiceError):
    """The wake word model cannot be loaded."""


class VadModelError(VoiceError):
    """The voice activity model (Silero VAD, shipped inside faster-whisper) cannot be found."""


class LiveConnectionError(VoiceError):
    """The live speech model cannot be reached, refused the key, or dropped the connection."""
