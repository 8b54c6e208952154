"""Parley's own barge-in detector: the decision on speech probabilities, and Silero VAD on the fixtures."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from tests.voice.fixtures import read_pcm, split
from voice.echo.barge_in import (
    BargeInConfig,
    HeardWindow,
    LinearWindow,
    OverlapDetector,
    SpeechOverPlaybackFactory,
    level_dbfs,
    speech_over_playback,
)

WINDOW_MS = 32.0
LOUD = -30.0
"""dBFS: a talker a couple of metres away."""
CONFIG = BargeInConfig(
    threshold=0.5,
    min_level_dbfs=-40.0,
    linear_threshold=0.3,
    linear_min_level_dbfs=-35.0,
    over_echo_db=-12.0,
    min_speech_ms=160.0,
    max_gap_ms=64.0,
    settle_ms=0.0,
    min_voicing=0.0,
)


def fired_at(
    probabilities: list[float],
    *,
    playing: bool = True,
    level: float = LOUD,
    echo: float | None = None,
    config: BargeInConfig = CONFIG,
    voicing: list[float] | None = None,
) -> list[int]:
    """Windows where the detector fires; with `echo`, each window is also the trusted linear canceller's,
    with that much of Parley's voice predicted in it; `voicing`, each window's periodicity (default 1)."""
    detector = OverlapDetector(config)
    return [
        i
        for i, p in enumerate(probabilities)
        if detector.push(
            window(p, level, playing, echo, 1.0 if voicing is None else voicing[i]),
        )
    ]


def window(
    probability: float, level: float = LOUD, playing: bool = True, echo: float | None = None, voicing: float = 1.0
) -> HeardWindow:
    linear = None if echo is None else LinearWindow(probability, level, echo)
    return HeardWindow(probability, level, WINDOW_MS, playing, voicing, linear, linear_trusted=echo is not None)


def test_speech_over_playback_counts_once_it_has_lasted_the_minimum() -> None:
    assert fired_at([0.1, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9]) == [5]  # the 5th speech window: 160 ms


def test_a_stretch_of_speech_fires_once() -> None:
    assert fired_at([0.9] * 40) == [4]


def test_short_dips_are_bridged_and_long_pauses_start_over() -> None:
    bridged = [0.9, 0.9, 0.9, 0.2, 0.2, 0.9, 0.9]  # 64 ms dip: still one stretch, 160 ms at the 5th speech
    assert fired_at(bridged) == [6]
    restarted = [0.9, 0.9, 0.9, 0.2, 0.2, 0.2, 0.9, 0.9, 0.9, 0.9]  # 96 ms pause: the count starts over
    assert fired_at(restarted) == []


def test_a_bang_shorter_than_the_minimum_stops_nothing() -> None:
    assert fired_at([0.1, 0.99, 0.99, 0.99, 0.1, 0.1, 0.1, 0.1]) == []


def test_a_voice_quieter_than_the_floor_is_what_the_echo_canceller_left() -> None:
    assert fired_at([0.9] * 20, level=-46.0) == []
    assert fired_at([0.9] * 20, level=-40.0) == [4]


def test_a_voice_far_under_the_echo_predicted_is_what_the_linear_canceller_left() -> None:
    assert fired_at([0.9] * 20, level=-30.0, echo=-15.0) == []  # 15 dB under Parley's voice in the window
    assert fired_at([0.9] * 20, level=-30.0, echo=-18.0) == [4]  # 12 dB under: the user is there too


def test_the_linear_cancellers_output_has_thresholds_of_its_own() -> None:
    assert fired_at([0.4] * 20, level=-30.0) == []  # AEC3's output: under its threshold of 0.5
    assert fired_at([0.4] * 20, level=-30.0, echo=-40.0) == [4]  # the linear canceller's: over 0.3
    assert fired_at([0.9] * 20, level=-38.0, echo=-40.0) == []  # ...but under its floor of -35 dBFS


def test_in_parleys_pauses_aec3s_output_is_heard() -> None:
    # Nothing of Parley's voice predicted: AEC3 has nothing to suppress, and Silero judges its output.
    detector = OverlapDetector(CONFIG)
    pause = LinearWindow(probability=0.9, level_dbfs=-30.0, echo_dbfs=-70.0)  # a door, to the linear side
    door = HeardWindow(0.01, -30.0, WINDOW_MS, True, linear=pause, linear_trusted=True)
    assert not any(detector.push(door) for _ in range(20))
    voice = replace(door, probability=0.9)
    assert [detector.push(voice) for _ in range(5)].index(True) == 4


def test_the_echo_predicted_is_held_while_the_room_rings_on() -> None:
    # Parley's word ends (predicted -15 dBFS, then nothing): the prediction a window is held against falls
    # 60 dB a second, so what the room still rings with, 12 dB under it, stops nothing for a while.
    detector = OverlapDetector(CONFIG)
    assert not detector.push(window(0.9, -30.0, echo=-15.0))
    ringing = [detector.push(window(0.9, -30.0, echo=-45.0)) for _ in range(10)]
    assert ringing.index(True) == 5  # held over -18 dBFS for one more window, then 160 ms of speech


def test_a_stretch_counts_only_once_it_has_been_voiced() -> None:
    voiced = replace(CONFIG, min_voicing=0.5)
    # A cough: Silero takes it for speech, but no window of it repeats at a pitch.
    assert fired_at([0.9] * 12, config=voiced, voicing=[0.3] * 12) == []
    # A word starting on a consonant: it counts at the first voiced window once it has lasted 160 ms...
    assert fired_at([0.9] * 12, config=voiced, voicing=[0.2] * 7 + [0.7] * 5) == [7]
    # ...and at 160 ms when its voicing came earlier.
    assert fired_at([0.9] * 12, config=voiced, voicing=[0.2, 0.7] + [0.2] * 10) == [4]


def test_voicing_is_forgotten_with_the_stretch() -> None:
    voiced = replace(CONFIG, min_voicing=0.5)
    probabilities = [0.9, 0.9, 0.1, 0.1, 0.1] + [0.9] * 8  # a voiced blip, 96 ms of quiet, then a bang
    voicing = [0.8, 0.8, 0.0, 0.0, 0.0] + [0.3] * 8
    assert fired_at(probabilities, config=voiced, voicing=voicing) == []


def test_nothing_counts_until_the_canceller_has_heard_enough_of_parleys_voice() -> None:
    detector = OverlapDetector(replace(CONFIG, armed_after_ms=3000.0))
    early = HeardWindow(0.9, LOUD, WINDOW_MS, True, voice_heard_ms=2900.0)
    assert not any(detector.push(early) for _ in range(10))
    assert [detector.push(replace(early, voice_heard_ms=3000.0)) for _ in range(5)].index(True) == 4


def test_an_untrusted_linear_canceller_is_not_heard() -> None:
    # Its output still holds Parley's voice nearly whole: AEC3's output decides.
    untrusted = replace(window(0.9, -30.0, echo=-20.0), probability=0.05, linear_trusted=False)
    detector = OverlapDetector(CONFIG)
    assert not any(detector.push(untrusted) for _ in range(20))


def test_nothing_counts_while_the_voice_is_not_playing() -> None:
    assert fired_at([0.9] * 20, playing=False) == []
    detector = OverlapDetector(CONFIG)
    for _ in range(4):
        assert not detector.push(window(0.9, playing=False))
    assert not detector.push(window(0.9))  # speech begun before playback counts from now


def test_nothing_counts_in_the_first_moments_of_the_voice() -> None:
    settling = replace(CONFIG, settle_ms=320.0)
    assert fired_at([0.9] * 20, config=settling) == [14]  # ten windows settle, then 160 ms of speech
    detector = OverlapDetector(settling)
    pushes = [detector.push(window(0.9, playing=playing)) for playing in [True] * 10 + [False] + [True] * 15]
    assert pushes.index(True) == 25  # the voice stopped: its next start settles again


def test_the_level_of_a_window_is_its_rms_in_dbfs() -> None:
    half_scale_square = (np.array([16384, -16384] * 256, dtype="<i2")).tobytes()
    assert level_dbfs(half_scale_square) == pytest.approx(-6.02, abs=0.01)
    assert level_dbfs(bytes(1024)) == -math.inf


@pytest.fixture(scope="module")
def barge_in() -> SpeechOverPlaybackFactory:
    return speech_over_playback()


async def first_barge_in_ms(barge_in: SpeechOverPlaybackFactory, pcm: bytes) -> float | None:
    detector = barge_in()
    for chunk in split(pcm):
        if await detector.heard(chunk, playing=True):
            return chunk.end_ms
    return None


async def test_a_voice_over_playback_is_noticed_within_a_quarter_second_of_its_start(
    barge_in: SpeechOverPlaybackFactory,
) -> None:
    pcm = read_pcm("speech_hello")
    start_ms = 1000.0 * next(i for i, s in enumerate(memoryview(pcm).cast("h")) if abs(s) > 327) / 16_000
    noticed = await first_barge_in_ms(barge_in, pcm)
    assert noticed is not None and start_ms < noticed <= start_ms + 250.0  # 80 ms chunks: up to 80 ms late


@pytest.mark.parametrize("fixture", ["silence", "pink_noise", "white_noise"])
async def test_noise_over_playback_is_not_a_voice(barge_in: SpeechOverPlaybackFactory, fixture: str) -> None:
    assert await first_barge_in_ms(barge_in, read_pcm(fixture)) is None
