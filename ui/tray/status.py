"""The assistant's state in words a user reads, and the microphone level as a meter's value."""

from __future__ import annotations

from app.core.status import VoiceStatus

STATE_WORDS = {
    VoiceStatus.SLEEPING: "sleeping",
    VoiceStatus.CONNECTING: "connecting",
    VoiceStatus.LISTENING: "listening",
    VoiceStatus.THINKING: "thinking",
    VoiceStatus.RESPONDING: "speaking",
    VoiceStatus.RECONNECTING: "reconnecting",
    VoiceStatus.STOPPED: "stopped",
    VoiceStatus.OFF: "off",
    VoiceStatus.ERROR: "error",
    VoiceStatus.LOOKING: "looking at your screen",
}
"""The voice's status (`app.core.status.VoiceStatus`) as the status bar and the tray say it."""

QUIET_DBFS = -60.0
"""A level at or below this shows as an empty meter: room noise on a laptop microphone sits around it."""


WITHOUT_MICROPHONE = {
    VoiceStatus.SLEEPING: "no microphone, type to talk",
    VoiceStatus.LISTENING: "waiting for a typed message",
}
"""What the states that say Parley hears you mean when no microphone works: only typing reaches it."""


def state_words(state: VoiceStatus, *, microphone: bool = True) -> str:
    """The state in a few words; `microphone` False: none works, and the words say what still does."""
    if not microphone and state in WITHOUT_MICROPHONE:
        return WITHOUT_MICROPHONE[state]
    return STATE_WORDS.get(state, state.value)


def meter_percent(dbfs: float) -> int:
    """A level in dBFS (0 is full scale) on a 0..100 meter, linear in decibels from `QUIET_DBFS` to 0."""
    share = (dbfs - QUIET_DBFS) / -QUIET_DBFS
    return round(100 * min(max(share, 0.0), 1.0))
