"""The assistant's state in words a user reads, and the microphone level as a meter's value."""

from __future__ import annotations

STATE_WORDS = {
    "sleeping": "sleeping",
    "connecting": "connecting",
    "listening": "listening",
    "thinking": "thinking",
    "responding": "speaking",
    "reconnecting": "reconnecting",
    "stopped": "stopped",
    "off": "off",
    "error": "error",
}
"""The voice loop's states (`voice.state.AssistantState` values, plus the window's own "off" when there is
no key and "error" when the loop failed) as the status bar and the tray say them."""

QUIET_DBFS = -60.0
"""A level at or below this shows as an empty meter: room noise on a laptop microphone sits around it."""


def state_words(state: str) -> str:
    return STATE_WORDS.get(state, state)


def meter_percent(dbfs: float) -> int:
    """A level in dBFS (0 is full scale) on a 0..100 meter, linear in decibels from `QUIET_DBFS` to 0."""
    share = (dbfs - QUIET_DBFS) / -QUIET_DBFS
    return round(100 * min(max(share, 0.0), 1.0))
