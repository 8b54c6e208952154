"""Errors of the offline voice."""

from __future__ import annotations

from voice.errors import VoiceError


class OfflineVoiceError(VoiceError):
    """An offline model or tool is missing or cannot be loaded (one line a user can act on)."""
