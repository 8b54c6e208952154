"""Settings saved while Parley listens: which of them a running voice loop takes at once, and the voice
settings a conversation reads.

A running loop takes the wake threshold at once (the detector reads it at every chunk), the idle time and
the language from its next conversation on (each conversation reads `VoiceSettings` as it opens), and the
microphone and speaker between conversations (`app.front.device_switch`); the window grabs a new talk
shortcut at once (`app.front.shortcut.talk`). The offline voice loads its models for one language, so there a
new language waits for a restart, as do the wake word, the voice model and the live model, the keys and the
storage.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.config.settings import Settings
from app.conversation import VoiceSettings
from app.wiring import live_language_code

AT_ONCE = frozenset(
    {"wake_threshold", "idle_seconds", "language", "input_device", "output_device", "close_to_tray", "talk_shortcut"}
)
"""The config keys a running Parley takes without a restart (the language only with Gemini's voice)."""

_NAMES = {
    "wake_word": "the wake word",
    "gemini_live_model": "the live model",
    "language": "the language (of the offline voice)",
    "models_release_s": "the time before the models are freed",
}


def voice_settings(settings: Settings, live_model: str) -> VoiceSettings:
    """What a conversation reads from `settings`, with `live_model` the name of the model that answers."""
    return VoiceSettings(
        live_model=live_model,
        idle_after_s=settings.idle_seconds,
        language=settings.language or "auto",
        language_code=live_language_code(settings),
        web_search=settings.web_search,
    )


@dataclass(frozen=True, slots=True)
class SavedChanges:
    """What a save in Settings changed, split by when it counts."""

    now: tuple[str, ...]
    """Config keys that count at once."""
    at_restart: tuple[str, ...]
    """Config keys (and keys typed into the keyring, by name) that count when Parley next starts."""

    def note(self) -> str:
        """One line for the window's status bar."""
        if not self.at_restart:
            return "Settings saved: they apply now."
        later = ", ".join(_NAMES.get(key, key.replace("_", " ")) for key in self.at_restart)
        rest = "; the rest applies now" if self.now else ""
        return f"Settings saved: {later} when Parley restarts{rest}."


def saved_changes(changed: list[str], *, offline_voice: bool) -> SavedChanges:
    """`changed`: the config keys (and keys' names) a save wrote; `offline_voice`: the offline voice
    answers, so a new language waits for a restart."""
    at_once = AT_ONCE - {"language"} if offline_voice else AT_ONCE
    return SavedChanges(
        now=tuple(key for key in changed if key in at_once),
        at_restart=tuple(key for key in changed if key not in at_once),
    )
