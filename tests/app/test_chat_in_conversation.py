"""The one owner of "which chat are we in": where each turn goes through a switch request, and the chat chosen
for the next conversation."""

from __future__ import annotations

from uuid import uuid4

from app.chat_in_conversation import (
    Answering,
    ChatInConversation,
    Choosing,
    InChat,
    Switching,
    SwitchState,
    TurnPlace,
)


def state_of(chat: ChatInConversation) -> SwitchState:
    """The state now (read afresh: a call may have moved it since the last look)."""
    return chat.state


def test_a_turn_in_a_chat_goes_to_it_and_is_not_navigation() -> None:
    kitchen = uuid4()
    chat = ChatInConversation(kitchen)
    chat.begin()
    assert chat.place("user") == TurnPlace(kitchen, navigation=False, opens_chat=False)
    assert chat.state == InChat()


def test_after_a_decided_switch_the_rest_of_the_session_goes_to_the_chat_switched_to() -> None:
    garden, kitchen = uuid4(), uuid4()
    chat = ChatInConversation(garden)
    chat.begin()
    asked = uuid4()
    chat.recorded(asked, "user")
    assert chat.request() == (asked,)
    chat.decided(kitchen, asking=False)
    assert chat.state == Switching(kitchen)
    assert chat.place("model") == TurnPlace(kitchen, navigation=True, opens_chat=False)
    assert chat.chat_id == garden  # until the session ends
    assert chat.session_ended() == kitchen
    assert (chat.chat_id, state_of(chat)) == (kitchen, InChat())


def test_when_the_model_asks_which_chat_the_question_and_the_answer_belong_to_the_request() -> None:
    here = uuid4()
    chat = ChatInConversation(here)
    chat.begin()
    words, question, answer = uuid4(), uuid4(), uuid4()
    chat.recorded(words, "user")
    chat.decided(None, asking=True, request=chat.request())
    assert chat.place("model").navigation  # "which one: the tiles or the budget?"
    chat.recorded(question, "model")
    assert not chat.place("user").navigation  # marked once the model switches on it
    chat.recorded(answer, "user")
    assert chat.state == Choosing((words, question, answer), asked=True)
    assert chat.request() == (words, question, answer)


def test_a_model_turn_after_the_question_that_is_no_switch_means_the_user_moved_on() -> None:
    chat = ChatInConversation(uuid4())
    chat.begin()
    chat.recorded(uuid4(), "user")
    chat.decided(None, asking=True, request=chat.request())
    chat.recorded(uuid4(), "model")
    chat.recorded(uuid4(), "user")  # "never mind, what's the weather?"
    assert not chat.place("model").navigation
    chat.recorded(uuid4(), "model")
    assert chat.state == InChat()


def test_a_request_that_did_not_switch_is_answered_by_the_next_model_turn_only() -> None:
    chat = ChatInConversation(uuid4())
    chat.begin()
    chat.decided(None, asking=False)
    assert chat.state == Answering()
    assert chat.place("model").navigation  # "I found no chat about that"
    chat.recorded(uuid4(), "model")
    assert state_of(chat) == InChat()
    assert not chat.place("user").navigation


def test_a_conversation_that_failed_leaves_the_chat_chosen_meanwhile_in_conversation() -> None:
    first, chosen = uuid4(), uuid4()
    chat = ChatInConversation(first)
    chat.begin()
    chat.continue_in(chosen)
    chat.decided(None, asking=True, request=(uuid4(),))
    chat.over()  # the store failed, or the loop stopped: no session ended
    assert (chat.chat_id, state_of(chat)) == (chosen, InChat())
    third = uuid4()
    chat.continue_in(third)  # asleep: at once
    assert chat.chat_id == third


def test_a_request_left_unanswered_ends_with_its_session() -> None:
    here = uuid4()
    chat = ChatInConversation(here)
    chat.begin()
    chat.decided(None, asking=True, request=(uuid4(),))
    assert chat.session_ended() is None
    assert (chat.chat_id, chat.state) == (here, InChat())


def test_a_chat_chosen_during_a_conversation_is_where_the_next_one_goes() -> None:
    first, chosen, later = uuid4(), uuid4(), uuid4()
    chat = ChatInConversation(first)
    chat.continue_in(chosen)  # no conversation under way: at once
    assert chat.chat_id == chosen
    chat.begin()
    chat.continue_in(later)
    assert chat.chat_id == chosen  # the conversation under way stays where it is
    assert chat.session_ended() is None
    assert chat.chat_id == chosen
    chat.over()
    assert chat.chat_id == later


def test_a_switch_by_voice_replaces_a_chat_chosen_before_it() -> None:
    chat = ChatInConversation(uuid4())
    chat.begin()
    chat.continue_in(uuid4())
    switched_to = uuid4()
    chat.decided(switched_to, asking=False)
    assert chat.session_ended() == switched_to
    assert chat.session_ended() is None
    chat.over()
    assert chat.chat_id == switched_to  # the window shows it


def test_a_new_chat_opens_with_its_turns_until_the_store_holds_it() -> None:
    new, other = uuid4(), uuid4()
    chat = ChatInConversation(new, new=True)
    chat.begin()
    assert chat.opening and chat.place("user").opens_chat
    chat.delivered([other])
    assert chat.opening
    chat.delivered([new])
    assert not chat.opening and not chat.place("user").opens_chat
    created = ChatInConversation(uuid4(), new=True)
    created.created()
    assert not created.opening
