"""The mute gate in front of the microphone, and the levels it reports of what it lets through."""

from __future__ import annotations

import pytest

from tests.fakes.fed_microphone import FedMicrophone
from voice.audio.chunks import AudioChunk
from voice.audio.level import SILENCE_DBFS
from voice.audio.microphone_gate import MicrophoneGate
from voice.audio.synthetic import SyntheticSource, frames, silence, tone


async def test_while_muted_silence_of_the_same_length_and_timing_passes_instead() -> None:
    heard = frames(tone(240, amplitude=0.5))
    gate = MicrophoneGate(SyntheticSource(heard))
    assert gate.set_muted(True)
    passed = [chunk async for chunk in gate.chunks()]
    assert passed == [AudioChunk(c.format, bytes(len(c.pcm)), c.start_ms) for c in heard]


async def test_unmuting_lets_the_microphone_through_again_from_the_next_chunk() -> None:
    microphone = FedMicrophone()
    levels: list[float] = []
    gate = MicrophoneGate(microphone, on_level=levels.append)
    chunks = aiter(gate.chunks())
    said = microphone.feed(tone(80, amplitude=0.5))
    assert await anext(chunks) == said[0]
    gate.set_muted(True)
    muted = microphone.feed(tone(800, amplitude=0.5))
    assert [await anext(chunks) for _ in muted] == [AudioChunk(c.format, bytes(len(c.pcm)), c.start_ms) for c in muted]
    assert levels == []  # no level while muted, and none of what was muted later
    assert gate.set_muted(False)
    said = microphone.feed(tone(160, amplitude=0.1))
    assert [await anext(chunks) for _ in said] == said
    assert levels == [pytest.approx(-20.0, abs=0.1)]


async def test_levels_come_about_every_100_ms_of_what_is_heard() -> None:
    levels: list[float] = []
    gate = MicrophoneGate(SyntheticSource(frames(silence(400), tone(400, amplitude=0.1))), on_level=levels.append)
    assert len([chunk async for chunk in gate.chunks()]) == 10
    assert levels == [SILENCE_DBFS] * 4 + [pytest.approx(-20.0, abs=0.1)] * 4


def test_setting_the_same_state_again_changes_nothing() -> None:
    gate = MicrophoneGate(SyntheticSource([]))
    assert not gate.set_muted(False)
    assert gate.set_muted(True) and gate.muted
    assert not gate.set_muted(True)
