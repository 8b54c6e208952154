"""Where the user's wake word enrolment lives, and the wake detector that uses it.

`parley wake enrol` (app/wake_command.py) writes the verifier; whatever starts the sleeping assistant
builds its detector with `wake_detector(settings)`, so the enrolment counts wherever Parley listens.
"""

from __future__ import annotations

from pathlib import Path

from app.settings import Settings
from voice.wake import OpenWakeWordDetector, resolve_model
from voice.wake_verifier import WakeVerifier


def verifier_path(settings: Settings) -> Path:
    """Where the verifier for `settings.wake_word` lives: only Parley writes there."""
    return settings.data_dir / "wake" / f"{resolve_model(settings.wake_word).name}.verifier.npz"


def load_verifier(settings: Settings) -> WakeVerifier | None:
    """The enrolled verifier for the configured wake word, or None when there is none. `WakeModelError`
    when the file is damaged (enrol again, or `parley wake forget`)."""
    path = verifier_path(settings)
    return WakeVerifier.load(path) if path.is_file() else None


def wake_detector(settings: Settings) -> OpenWakeWordDetector:
    """The wake word detector as the settings and the data folder describe it (the enrolled verifier
    included when there is one)."""
    return OpenWakeWordDetector(settings.wake_word, threshold=settings.wake_threshold, verifier=load_verifier(settings))
