"""The assistant's states, the one place that changes them, and the event every change publishes."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from voice.errors import VoiceError

log = logging.getLogger(__name__)


class AssistantState(Enum):
    SLEEPING = "sleeping"
    """Listening for the wake word only; nothing leaves the machine."""
    CONNECTING = "connecting"
    """Woken: opening the live session."""
    LISTENING = "listening"
    """The session is open and the user has the floor."""
    THINKING = "thinking"
    """The model is working on an answer it has not started to speak: a typed message was sent, or a
    tool is running."""
    RESPONDING = "responding"
    """The model is speaking."""
    RECONNECTING = "reconnecting"
    """The connection dropped or is being replaced; the conversation resumes where it was."""
    STOPPED = "stopped"
    """Shut down for good."""


S = AssistantState
TRANSITIONS: dict[AssistantState, frozenset[AssistantState]] = {
    S.SLEEPING: frozenset({S.CONNECTING, S.STOPPED}),
    S.CONNECTING: frozenset({S.LISTENING, S.SLEEPING, S.STOPPED}),
    S.LISTENING: frozenset({S.THINKING, S.RESPONDING, S.RECONNECTING, S.SLEEPING, S.STOPPED}),
    S.THINKING: frozenset({S.RESPONDING, S.LISTENING, S.RECONNECTING, S.SLEEPING, S.STOPPED}),
    S.RESPONDING: frozenset({S.THINKING, S.LISTENING, S.RECONNECTING, S.SLEEPING, S.STOPPED}),
    S.RECONNECTING: frozenset({S.LISTENING, S.SLEEPING, S.STOPPED}),
    S.STOPPED: frozenset(),
}
"""Which state may follow which. Anything else is a bug in the caller, not a condition to recover from."""


@dataclass(frozen=True, slots=True)
class StateChanged:
    old: AssistantState
    new: AssistantState


class InvalidTransition(VoiceError):
    def __init__(self, old: AssistantState, new: AssistantState) -> None:
        super().__init__(f"the assistant cannot go from {old.value} to {new.value}")


class StateMachine:
    """Holds the state; `move` is the only way to change it, and every change reaches every listener."""

    def __init__(self, initial: AssistantState = AssistantState.SLEEPING) -> None:
        self._state = initial
        self._listeners: list[Callable[[StateChanged], None]] = []

    @property
    def state(self) -> AssistantState:
        return self._state

    def subscribe(self, listener: Callable[[StateChanged], None]) -> None:
        self._listeners.append(listener)

    def move(self, new: AssistantState) -> StateChanged | None:
        """Go to `new` and publish the change; staying in the same state publishes nothing."""
        old = self._state
        if new is old:
            return None
        if new not in TRANSITIONS[old]:
            raise InvalidTransition(old, new)
        self._state = new
        change = StateChanged(old, new)
        log.debug("assistant %s -> %s", old.value, new.value)
        for listener in self._listeners:
            listener(change)
        return change
