"""The voice's status as a front end shows it (app/core/status.py)."""

from __future__ import annotations

from app.core.status import VoiceStatus
from voice.state import AssistantState


def test_every_assistant_state_is_a_status_of_the_same_name_and_value() -> None:
    for state in AssistantState:
        status = VoiceStatus.of(state)
        assert (status.name, status.value) == (state.name, state.value)
    front_only = {status.value for status in VoiceStatus} - {state.value for state in AssistantState}
    assert front_only == {"off", "error", "looking"}


def test_only_a_running_loop_listens() -> None:
    assert [status for status in VoiceStatus if not status.listens] == [
        VoiceStatus.STOPPED,
        VoiceStatus.OFF,
        VoiceStatus.ERROR,
    ]
    assert str(VoiceStatus.RESPONDING) == "responding"  # a StrEnum: the word a log or a test prints
