"""The assistant's loop on synthetic audio, with a scripted wake detector and a scripted conversation;
the push-to-talk button, typed messages and the mute gate in front of it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

import pytest

from tests.fakes.fed_microphone import FedMicrophone
from tests.fakes.gemini_live_server import WAIT_S
from tests.fakes.scripted_wake import WAKE_TAG, ScriptedWakeDetector
from voice.assistant import Assistant
from voice.audio.chunks import MIC_FORMAT, AudioChunk
from voice.audio.microphone_gate import MicrophoneGate
from voice.audio.synthetic import SyntheticSource
from voice.errors import NoAudioDevice
from voice.session import EndReason, Microphone
from voice.state import AssistantState, StateChanged, StateMachine
from voice.typed import TypedText
from voice.wake.protocol import PUSH_TO_TALK, TYPED_TEXT, WakeEvent

S = AssistantState
FRAME_MS = 80


def numbered_frames(count: int) -> list[AudioChunk]:
    """80 ms frames whose first sample is their number, so a test can tell which ones arrived."""
    frame_bytes = MIC_FORMAT.bytes_per_second * FRAME_MS // 1000
    return [
        AudioChunk(MIC_FORMAT, i.to_bytes(2, "little") + bytes(frame_bytes - 2), i * FRAME_MS) for i in range(count)
    ]


def number(chunk: AudioChunk) -> int:
    return int.from_bytes(chunk.pcm[:2], "little")


@dataclass
class ScriptedConversation:
    """Takes `texts` typed messages, listens to `frames` chunks (or until the audio ends), then ends
    with `reason`; a failed connection takes nothing."""

    frames: int
    texts: int = 0
    reason: EndReason = EndReason.IDLE
    heard: list[list[int]] = field(default_factory=list)
    read: list[str] = field(default_factory=list)

    async def converse(self, microphone: Microphone, typed: TypedText, states: StateMachine) -> EndReason:
        if self.reason is EndReason.CONNECTION_FAILED:
            self.heard.append([])
            return self.reason
        states.move(S.LISTENING)
        for _ in range(self.texts):
            self.read.append(await typed.next())
            typed.sent()
        heard: list[int] = []
        self.heard.append(heard)
        while len(heard) < self.frames and (chunk := await anext(microphone, None)) is not None:
            heard.append(number(chunk))
        return self.reason


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


class Running:
    """An assistant on a microphone the test feeds, behind the mute gate as in the app, running in a task."""

    def __init__(self, conversation: ScriptedConversation, *, wake: ScriptedWakeDetector | None = None) -> None:
        self.microphone = FedMicrophone()
        self.gate = MicrophoneGate(self.microphone)
        self.wake = wake or ScriptedWakeDetector()
        self.conversation = conversation
        self.typed = TypedText()
        self.states = StateMachine()
        self.changes: list[StateChanged] = []
        self.woken: list[WakeEvent] = []
        self._moved = asyncio.Event()
        self.states.subscribe(self._record)
        self.assistant = Assistant(
            source=self.gate,
            wake=self.wake,
            conversation=conversation,
            states=self.states,
            on_wake=self.on_wake,
            typed=self.typed,
            preroll_ms=240,
        )
        self.task = asyncio.create_task(self.assistant.run(), name="test-assistant")

    def _record(self, change: StateChanged) -> None:
        self.changes.append(change)
        self._moved.set()

    async def on_wake(self, event: WakeEvent) -> None:
        self.woken.append(event)

    async def until(self, new: AssistantState) -> None:
        """Wait until the assistant has been in `new` (now or before)."""
        async with asyncio.timeout(WAIT_S):
            while not any(c.new is new for c in self.changes):
                self._moved.clear()
                await self._moved.wait()

    async def finish(self) -> None:
        self.microphone.end()
        async with asyncio.timeout(WAIT_S):
            await self.task

    def moves(self) -> list[tuple[AssistantState, AssistantState]]:
        return [(c.old, c.new) for c in self.changes]


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


class Unpluggable:
    """A microphone the test feeds, and then unplugs: its stream fails as a real one does."""

    format = MIC_FORMAT

    def __init__(self) -> None:
        self._queue: asyncio.Queue[AudioChunk | NoAudioDevice] = asyncio.Queue()

    def put(self, *chunks: AudioChunk) -> None:
        for chunk in chunks:
            self._queue.put_nowait(chunk)

    def unplug(self) -> None:
        self._queue.put_nowait(NoAudioDevice("the microphone stopped: the input device went away"))

    async def chunks(self) -> AsyncIterator[AudioChunk]:
        while not isinstance(item := await self._queue.get(), NoAudioDevice):
            yield item
        raise item

    async def aclose(self) -> None:
        return None


class Deafened:
    """An assistant told to go on for typed messages when its microphone fails (as the window's is)."""

    def __init__(
        self, conversation: ScriptedConversation, *, microphone: Unpluggable | None, wake: ScriptedWakeDetector | None
    ) -> None:
        self.microphone = microphone
        self.wake = wake
        self.conversation = conversation
        self.typed = TypedText()
        self.states = StateMachine()
        self.lost: list[str] = []
        self.back = 0
        self.woken: list[str] = []
        self._news = asyncio.Event()
        self.states.subscribe(lambda _: self._news.set())
        self.assistant = Assistant(
            source=microphone,
            wake=wake,
            conversation=conversation,
            states=self.states,
            on_wake=self.on_wake,
            typed=self.typed,
            on_microphone_lost=self.on_lost,
            on_microphone_back=self.on_back,
        )
        self.task = asyncio.create_task(self.assistant.run(), name="test-assistant")

    async def on_wake(self, event: WakeEvent) -> None:
        self.woken.append(event.model)

    def on_lost(self, error: Exception) -> None:
        self.lost.append(str(error))
        self._news.set()

    def on_back(self) -> None:
        self.back += 1
        self._news.set()

    async def until(self, holds: Callable[[], bool]) -> None:
        async with asyncio.timeout(WAIT_S):
            while not holds():
                self._news.clear()
                await self._news.wait()

    async def conversations(self, count: int) -> None:
        """Wait until `count` conversations are over, the assistant asleep again."""
        await self.until(lambda: len(self.conversation.heard) >= count and self.states.state is S.SLEEPING)

    async def stop(self) -> None:
        assert not self.task.done()  # it was still waiting for what is typed
        self.task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await self.task
        assert self.states.state is S.STOPPED


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


async def test_without_a_microphone_nothing_is_overheard() -> None:
    deafened = Deafened(ScriptedConversation(frames=10, texts=1), microphone=None, wake=None)
    assert deafened.assistant.overhear() is None
    deafened.typed.put("Hello?")
    await deafened.conversations(1)
    assert deafened.assistant.overhear() is None
    await deafened.stop()
