from __future__ import annotations

import pytest

from voice.state import TRANSITIONS, AssistantState, InvalidTransition, StateChanged, StateMachine

S = AssistantState


def test_a_conversation_moves_through_the_states_and_publishes_each_change() -> None:
    machine = StateMachine()
    seen: list[StateChanged] = []
    machine.subscribe(seen.append)
    path = [S.CONNECTING, S.LISTENING, S.RESPONDING, S.RECONNECTING, S.LISTENING, S.SLEEPING, S.STOPPED]
    for state in path:
        machine.move(state)
    assert [(c.old, c.new) for c in seen] == list(zip([S.SLEEPING, *path[:-1]], path, strict=True))
    assert machine.state is S.STOPPED


def test_staying_put_publishes_nothing() -> None:
    machine = StateMachine()
    seen: list[StateChanged] = []
    machine.subscribe(seen.append)
    assert machine.move(S.SLEEPING) is None
    assert seen == []


@pytest.mark.parametrize(
    ("old", "new"), [(old, new) for old in S for new in S if new is not old and new not in TRANSITIONS[old]]
)
def test_every_transition_outside_the_table_is_refused(old: AssistantState, new: AssistantState) -> None:
    machine = StateMachine(old)
    with pytest.raises(InvalidTransition, match=f"from {old.value} to {new.value}"):
        machine.move(new)
    assert machine.state is old


def test_every_state_can_stop_and_stopped_is_final() -> None:
    assert all(S.STOPPED in TRANSITIONS[state] for state in S if state is not S.STOPPED)
    assert TRANSITIONS[S.STOPPED] == frozenset()
