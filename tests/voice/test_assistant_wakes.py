"""What wakes the assistant besides the wake word, and what keeps it from hearing: the push-to-talk button, typed
messages, the mute gate; and overhearing the microphone beside the wake word."""

from __future__ import annotations

from tests.fakes.scripted_wake import WAKE_TAG, ScriptedWakeDetector
from tests.voice.assistant_harness import FRAME_MS, Running, S, ScriptedConversation, number, numbered_frames
from voice.audio.chunks import MIC_FORMAT, AudioChunk
from voice.session_events import EndReason
from voice.wake.protocol import PUSH_TO_TALK, TYPED_TEXT, WakeEvent


async def test_push_to_talk_wakes_the_assistant_while_the_detector_waits_for_audio() -> None:
    running = Running(ScriptedConversation(frames=2))
    first, second, third, fourth, fifth = numbered_frames(6)[1:]
    running.microphone.put(first, second, third)
    await running.wake.until_heard(3)  # the detector now waits for a fourth chunk that does not come
    assert running.assistant.wake_now()
    await running.until(S.LISTENING)
    running.microphone.put(fourth, fifth)
    await running.until(S.SLEEPING)
    await running.finish()
    assert running.woken == [WakeEvent(PUSH_TO_TALK, 1.0, third.end_ms)]
    # No pre-roll: what came before the press was not said to the assistant.
    assert running.conversation.heard == [[4, 5]]
    assert running.moves() == [
        (S.SLEEPING, S.CONNECTING),
        (S.CONNECTING, S.LISTENING),
        (S.LISTENING, S.SLEEPING),
        (S.SLEEPING, S.STOPPED),
    ]


async def test_push_to_talk_during_a_conversation_changes_nothing() -> None:
    running = Running(ScriptedConversation(frames=2), wake=ScriptedWakeDetector([80]))
    chunks = numbered_frames(8)
    running.microphone.put(chunks[0])
    await running.until(S.LISTENING)
    assert not running.assistant.wake_now()
    running.microphone.put(chunks[1])
    await running.until(S.SLEEPING)
    running.microphone.put(*chunks[2:])
    await running.wake.until_heard(7)  # asleep again on chunks 2 to 7, the press forgotten
    await running.finish()
    assert [w.model for w in running.woken] == ["scripted"]  # the press did not queue a second conversation
    assert len(running.conversation.heard) == 1


async def test_a_typed_message_wakes_the_assistant_and_reaches_the_conversation() -> None:
    running = Running(ScriptedConversation(frames=1, texts=1))
    running.microphone.put(*numbered_frames(3))
    await running.wake.until_heard(3)
    running.typed.put("What's on my calendar?")
    await running.until(S.LISTENING)
    running.microphone.put(*numbered_frames(4)[3:])
    await running.until(S.SLEEPING)
    await running.finish()
    assert running.woken == [WakeEvent(TYPED_TEXT, 1.0, 240.0)]
    assert running.conversation.read == ["What's on my calendar?"]
    assert running.typed.pending == 0


async def test_typed_messages_no_connection_took_are_dropped_not_retried() -> None:
    running = Running(ScriptedConversation(frames=0, reason=EndReason.CONNECTION_FAILED))
    running.microphone.put(*numbered_frames(2))
    await running.wake.until_heard(2)
    running.typed.put("Hello?")
    await running.until(S.SLEEPING)
    running.microphone.put(*numbered_frames(4)[2:])
    await running.wake.until_heard(4)  # back to listening for the wake word, not straight into a retry
    await running.finish()
    assert [w.model for w in running.woken] == [TYPED_TEXT]
    assert running.typed.pending == 0


def tagged(start_ms: float) -> AudioChunk:
    """An 80 ms chunk in which the wake word is "said" (to a detector made with `tag=WAKE_TAG`)."""
    frame_bytes = MIC_FORMAT.bytes_per_second * FRAME_MS // 1000
    return AudioChunk(MIC_FORMAT, WAKE_TAG + bytes(frame_bytes - len(WAKE_TAG)), start_ms)


async def test_while_muted_the_wake_word_goes_unheard_and_after_unmuting_it_wakes() -> None:
    running = Running(ScriptedConversation(frames=1), wake=ScriptedWakeDetector(tag=WAKE_TAG))
    running.gate.set_muted(True)
    running.microphone.put(tagged(0.0), tagged(80.0))
    await running.wake.until_heard(2)
    assert running.woken == []
    running.gate.set_muted(False)
    running.microphone.put(tagged(160.0))
    await running.until(S.LISTENING)
    running.gate.set_muted(True)
    running.microphone.put(tagged(240.0))
    await running.until(S.SLEEPING)
    await running.finish()
    assert running.woken == [WakeEvent("scripted", 1.0, 240.0)]
    # What the conversation heard while muted: silence of the same length (its number reads 0).
    assert running.conversation.heard == [[0]]


async def test_overhearing_reads_the_microphone_from_now_on_beside_the_wake_word() -> None:
    running = Running(ScriptedConversation(frames=0))
    chunks = numbered_frames(6)
    running.microphone.put(*chunks[:3])
    await running.wake.until_heard(3)
    overheard = running.assistant.overhear()
    assert overheard is not None
    with overheard:
        running.microphone.put(*chunks[3:])
        await running.wake.until_heard(6)  # the wake detector reads on as before
        running.microphone.end()
        assert [number(chunk) async for chunk in overheard] == [3, 4, 5]
    await running.finish()
    assert running.assistant.overhear() is None  # the microphone has ended
