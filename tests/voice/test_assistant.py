"""The assistant's loop on synthetic audio, with a scripted wake detector and a scripted conversation. The
push-to-talk button, typed messages, the mute gate and overhearing: test_assistant_wakes.py; a microphone that
fails or is missing: test_assistant_microphone_loss.py."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from tests.fakes.gemini_live_server import WAIT_S
from tests.fakes.scripted_wake import ScriptedWakeDetector
from tests.voice.assistant_harness import S, ScriptedConversation, numbered_frames
from voice.assistant import Assistant
from voice.audio.chunks import AudioChunk
from voice.audio.synthetic import SyntheticSource
from voice.errors import NoAudioDevice
from voice.state import StateChanged, StateMachine
from voice.wake.protocol import WakeEvent


async def run(
    frames: int, wakes: list[float], conversation: ScriptedConversation
) -> tuple[list[StateChanged], list[WakeEvent]]:
    states = StateMachine()
    changes: list[StateChanged] = []
    states.subscribe(changes.append)
    woken: list[WakeEvent] = []

    async def on_wake(event: WakeEvent) -> None:
        woken.append(event)

    assistant = Assistant(
        source=SyntheticSource(numbered_frames(frames)),
        wake=ScriptedWakeDetector(wakes),
        conversation=conversation,
        states=states,
        on_wake=on_wake,
        preroll_ms=240,
    )
    async with asyncio.timeout(WAIT_S):
        await assistant.run()
    return changes, woken


async def test_the_words_after_the_wake_word_reach_the_conversation_with_the_preroll() -> None:
    conversation = ScriptedConversation(frames=6)
    changes, woken = await run(40, [800], conversation)
    assert [w.offset_ms for w in woken] == [800]
    # Frame 9 ends at 800 ms: the pre-roll holds the frames ending after 560 ms (7, 8, 9), then it goes on.
    assert conversation.heard == [[7, 8, 9, 10, 11, 12]]
    assert [(c.old, c.new) for c in changes] == [
        (S.SLEEPING, S.CONNECTING),
        (S.CONNECTING, S.LISTENING),
        (S.LISTENING, S.SLEEPING),
        (S.SLEEPING, S.STOPPED),
    ]


async def test_a_second_wake_word_starts_a_second_conversation() -> None:
    conversation = ScriptedConversation(frames=3)
    _, woken = await run(60, [800, 3200], conversation)
    assert len(woken) == 2
    assert conversation.heard[1][0] >= 37  # nothing of the first conversation is heard again
    assert len(conversation.heard) == 2


async def test_without_a_wake_word_nothing_connects() -> None:
    conversation = ScriptedConversation(frames=3)
    changes, woken = await run(30, [], conversation)
    assert woken == [] and conversation.heard == []
    assert [(c.old, c.new) for c in changes] == [(S.SLEEPING, S.STOPPED)]


async def test_a_recording_that_ends_mid_conversation_ends_the_assistant() -> None:
    conversation = ScriptedConversation(frames=1000)
    changes, _ = await run(20, [800], conversation)
    assert conversation.heard == [[7, 8, 9, *range(10, 20)]]
    assert changes[-1] == StateChanged(S.SLEEPING, S.STOPPED)


async def test_a_failing_microphone_is_reported_not_swallowed() -> None:
    async def broken() -> AsyncIterator[AudioChunk]:
        yield numbered_frames(1)[0]
        raise NoAudioDevice("no microphone found: it was unplugged")

    states = StateMachine()

    async def on_wake(event: WakeEvent) -> None:
        raise AssertionError("no wake word was spoken")

    assistant = Assistant(
        source=SyntheticSource(broken()),
        wake=ScriptedWakeDetector([]),
        conversation=ScriptedConversation(frames=1),
        states=states,
        on_wake=on_wake,
    )
    with pytest.raises(NoAudioDevice, match="unplugged"):
        async with asyncio.timeout(WAIT_S):
            await assistant.run()
    assert states.state is S.STOPPED


def test_a_wake_detector_needs_a_microphone() -> None:
    async def on_wake(event: WakeEvent) -> None:
        raise AssertionError("never woken")

    with pytest.raises(ValueError, match="wake detector needs a microphone"):
        Assistant(
            source=None,
            wake=ScriptedWakeDetector(),
            conversation=ScriptedConversation(frames=0),
            states=StateMachine(),
            on_wake=on_wake,
        )
