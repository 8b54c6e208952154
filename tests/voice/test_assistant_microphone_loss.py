"""The assistant when its microphone fails or there is none: typed messages still wake it, a microphone heard
again wakes it again, a failure in a conversation ends only what it hears."""

from __future__ import annotations

from tests.fakes.scripted_wake import ScriptedWakeDetector
from tests.voice.assistant_harness import Deafened, S, ScriptedConversation, Unpluggable, numbered_frames
from voice.wake.protocol import TYPED_TEXT


async def test_a_microphone_that_fails_while_asleep_leaves_typing_working() -> None:
    microphone, wake = Unpluggable(), ScriptedWakeDetector()
    deafened = Deafened(ScriptedConversation(frames=10, texts=1), microphone=microphone, wake=wake)
    microphone.put(*numbered_frames(2))
    await wake.until_heard(2)
    assert deafened.assistant.hears and deafened.lost == []
    microphone.unplug()
    await deafened.until(lambda: bool(deafened.lost))
    assert deafened.lost == ["the microphone stopped: the input device went away"]
    assert not deafened.assistant.hears
    assert not deafened.assistant.wake_now()  # push-to-talk: nothing to listen with
    deafened.typed.put("What's on my calendar?")
    await deafened.conversations(1)
    deafened.typed.put("And tomorrow?")
    await deafened.conversations(2)
    await deafened.stop()
    assert deafened.woken == [TYPED_TEXT, TYPED_TEXT]
    assert deafened.conversation.read == ["What's on my calendar?", "And tomorrow?"]
    assert deafened.conversation.heard == [[], []]  # each heard at once that the microphone says no more
    assert deafened.lost == ["the microphone stopped: the input device went away"]  # told once


async def test_a_microphone_heard_again_after_it_failed_wakes_the_assistant_again() -> None:
    microphone, wake = Unpluggable(), ScriptedWakeDetector([400])
    deafened = Deafened(ScriptedConversation(frames=2), microphone=microphone, wake=wake)
    assert not deafened.assistant.hear_again()  # it has not failed: nothing to do
    microphone.unplug()
    await deafened.until(lambda: bool(deafened.lost))
    assert deafened.assistant.hear_again()  # plugged in again (its source switched, in the window)
    assert not deafened.assistant.hear_again()  # once is enough while it is being tried
    assert not deafened.assistant.hears and deafened.back == 0  # not before it gives sound
    frames = numbered_frames(8)
    microphone.put(*frames[:1])
    await deafened.until(lambda: deafened.back == 1)
    assert deafened.assistant.hears
    microphone.put(*frames[1:])
    await deafened.conversations(1)  # the wake word listened again, on a new stream
    assert deafened.woken == ["scripted"] and wake.streams == 2
    assert deafened.conversation.heard == [[0, 1]]  # the pre-roll from the new stream's start
    microphone.unplug()
    await deafened.until(lambda: len(deafened.lost) == 2)  # it failed again: told again
    await deafened.stop()


async def test_a_microphone_that_fails_in_a_conversation_ends_only_what_it_hears() -> None:
    microphone = Unpluggable()
    deafened = Deafened(ScriptedConversation(frames=1000), microphone=microphone, wake=ScriptedWakeDetector([160]))
    frames = numbered_frames(4)
    microphone.put(*frames[:2])
    await deafened.until(lambda: deafened.states.state is S.LISTENING)
    microphone.put(*frames[2:])
    microphone.unplug()
    await deafened.conversations(1)  # the conversation went on until its microphone stream ended
    assert deafened.conversation.heard == [[0, 1, 2, 3]]
    assert deafened.woken == ["scripted"] and len(deafened.lost) == 1
    await deafened.stop()  # asleep, waiting for a typed message: not stopped with the microphone


async def test_without_a_microphone_only_a_typed_message_wakes_the_assistant() -> None:
    deafened = Deafened(ScriptedConversation(frames=10, texts=1), microphone=None, wake=None)
    assert not deafened.assistant.hears
    assert not deafened.assistant.wake_now()
    deafened.typed.put("Hello?")
    await deafened.conversations(1)
    await deafened.stop()
    assert deafened.woken == [TYPED_TEXT] and deafened.conversation.heard == [[]]
    assert deafened.lost == []  # there was none to lose


async def test_without_a_microphone_nothing_is_overheard() -> None:
    deafened = Deafened(ScriptedConversation(frames=10, texts=1), microphone=None, wake=None)
    assert deafened.assistant.overhear() is None
    deafened.typed.put("Hello?")
    await deafened.conversations(1)
    assert deafened.assistant.overhear() is None
    await deafened.stop()
