"""The voice's status as a front end shows it: the assistant's states, plus the two a front end meets
before or instead of them (no loop runs; the loop failed)."""

from __future__ import annotations

from enum import StrEnum

from voice.state import AssistantState


class VoiceStatus(StrEnum):
    """`voice.state.AssistantState`, member for member and value for value, and `OFF`, `ERROR` and `LOOKING`.

    A `StrEnum`: its values are the words a log, a test or `parley listen --events` would print."""

    SLEEPING = AssistantState.SLEEPING.value
    CONNECTING = AssistantState.CONNECTING.value
    LISTENING = AssistantState.LISTENING.value
    THINKING = AssistantState.THINKING.value
    RESPONDING = AssistantState.RESPONDING.value
    RECONNECTING = AssistantState.RECONNECTING.value
    STOPPED = AssistantState.STOPPED.value
    OFF = "off"
    """No voice loop runs: voice is set to Gemini without a key, or another Parley listens on these chats."""
    ERROR = "error"
    """The voice loop failed; the error said why."""
    LOOKING = "looking"
    """Parley takes a picture of the screen, which the user asked for (`app.screen`): a tool call, so the
    assistant is `THINKING` before and after it."""

    @classmethod
    def of(cls, state: AssistantState) -> VoiceStatus:
        return cls(state.value)

    @property
    def listens(self) -> bool:
        """A voice loop runs: talking, typing to it and muting it work."""
        return self not in (VoiceStatus.OFF, VoiceStatus.STOPPED, VoiceStatus.ERROR)


OFFLINE_NOTICE = (
    "Offline voice: a small local model (SmolLM2-135M) answers. It keeps chats, switches them and "
    "remembers what you ask it to, but its answers are short and often wrong on facts. Nothing leaves "
    "this computer. Add a Gemini key for a capable assistant."
)
"""What the window and `parley doctor` say while the offline voice answers."""
