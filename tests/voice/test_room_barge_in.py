"""Barge-in in a room: the product's echo canceller and barge-in detector on a laptop 2 m from its user,
in a room with 0.45 s of reverberation and pink noise 15 dB under the user's voice (tests/voice/rooms.py),
run in lockstep (tests/voice/laptop_room.py). Parley's own voice comes back through the laptop's speaker,
louder at the microphone than the user. A new echo canceller is Parley's first answer; a warmed one
(`warmed_canceller`) has heard half a minute of Parley's voice, as in every later answer, and its linear
filter is what the detector hears (voice/echo/linear_canceller.py)."""

from __future__ import annotations

import pytest

from tests.voice.fixtures import read_pcm, stream, utterances
from tests.voice.laptop_room import hear, parley_voice, sounds_at, speech_onset_ms, talker_says, warmed_canceller
from tests.voice.room_sounds import cough, door
from tests.voice.rooms import GOAL_CONDITION, SimulatedRoom
from voice.echo.barge_in import SpeechOverPlaybackFactory, speech_over_playback
from voice.wake.detector import OpenWakeWordDetector


@pytest.fixture(scope="module")
def barge_in() -> SpeechOverPlaybackFactory:
    return speech_over_playback()


@pytest.fixture(scope="module")
def room() -> SimulatedRoom:
    return SimulatedRoom(GOAL_CONDITION, seed=7)


async def test_a_minute_of_parleys_own_voice_interrupts_nothing_and_wakes_nothing(
    room: SimulatedRoom, barge_in: SpeechOverPlaybackFactory
) -> None:
    # Its answers say "hey Jarvis" too: the worst case for waking itself.
    heard = await hear(room, parley_voice(60.0, seed=11), [], barge_in)
    assert heard.barge_ins_ms == []
    async with OpenWakeWordDetector() as wake:
        await wake.warm_up()
        assert [event async for event in wake.detections(stream(heard.cleaned))] == []


@pytest.mark.parametrize("warmed", [False, True], ids=["first answer", "later answer"])
@pytest.mark.parametrize(
    ("fixture", "at_ms"), [("speech_hello", 1_300.0), ("wake_weather", 2_900.0), ("wake_goodbye", 4_100.0)]
)
async def test_the_user_speaking_over_the_voice_is_noticed_while_they_speak(
    room: SimulatedRoom, barge_in: SpeechOverPlaybackFactory, fixture: str, at_ms: float, warmed: bool
) -> None:
    pcm = read_pcm(fixture)
    onset_ms, end_ms = at_ms + speech_onset_ms(pcm), at_ms + utterances(pcm)[-1][1]
    canceller = await warmed_canceller(room, barge_in, 30.0, seed=15) if warmed else None
    heard = await hear(room, parley_voice(8.0, seed=12), [talker_says(room, at_ms, pcm)], barge_in, canceller=canceller)
    assert heard.barge_ins_ms, "the user's voice was not noticed over Parley's"
    assert onset_ms < heard.barge_ins_ms[0] < end_ms


@pytest.mark.parametrize("warmed", [False, True], ids=["first answer", "later answer"])
@pytest.mark.parametrize("seed", [1, 2])
async def test_a_cough_or_a_door_over_the_voice_stops_nothing(
    room: SimulatedRoom, barge_in: SpeechOverPlaybackFactory, seed: int, warmed: bool
) -> None:
    sounds = [sounds_at(room, 1_000.0, cough(seed)), sounds_at(room, 3_000.0, door(seed))]
    canceller = await warmed_canceller(room, barge_in, 30.0, seed=16) if warmed else None
    heard = await hear(room, parley_voice(5.0, seed=13), sounds, barge_in, canceller=canceller)
    assert heard.barge_ins_ms == []


async def test_after_the_user_spoke_over_it_parleys_next_answer_interrupts_nothing(
    room: SimulatedRoom, barge_in: SpeechOverPlaybackFactory
) -> None:
    # The user's voice is what a linear filter must not learn as echo: after it, the filter still holds
    # the echo path, and the next answer's own voice stops nothing.
    canceller = await warmed_canceller(room, barge_in, 30.0, seed=17)
    user = [talker_says(room, 2_000.0, read_pcm("speech_hello"))]
    spoken_over = await hear(room, parley_voice(6.0, seed=18), user, barge_in, canceller=canceller)
    assert spoken_over.barge_ins_ms
    next_answer = await hear(room, parley_voice(30.0, seed=19), [], barge_in, canceller=canceller)
    assert next_answer.barge_ins_ms == []


async def test_nothing_counts_once_the_voice_has_stopped(
    room: SimulatedRoom, barge_in: SpeechOverPlaybackFactory
) -> None:
    # The same user speech, after the answer has played out: a new question, not a barge-in.
    heard = await hear(
        room, parley_voice(2.0, seed=14), [talker_says(room, 3_000.0, read_pcm("speech_hello"))], barge_in
    )
    assert heard.barge_ins_ms == []
