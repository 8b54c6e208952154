"""The periodicity the barge-in detector asks of a voice: high on voiced speech, low on a cough, a door and
noise, and only from audio already heard."""

from __future__ import annotations

import numpy as np
import pytest

from tests.voice.fixtures import read_pcm, utterances
from tests.voice.room_sounds import RATE, Signal, cough, door, floats
from tests.voice.rooms import GOAL_CONDITION, SimulatedRoom
from voice.echo.voicing import Voicing

WINDOW = 512
"""Silero's window: 32 ms."""


def periodicities(signal: Signal) -> Signal:
    voicing = Voicing(RATE, WINDOW)
    return np.array([voicing.push(signal[at : at + WINDOW]) for at in range(0, len(signal) - WINDOW + 1, WINDOW)])


def loud(signal: Signal, within_db: float = 20.0) -> Signal:
    """Which windows are within `within_db` of the loudest: the only ones the detector can count."""
    windows = signal[: len(signal) // WINDOW * WINDOW].reshape(-1, WINDOW)
    power = np.mean(windows**2, axis=1)
    return np.asarray(power >= power.max() * 10 ** (-within_db / 10))


def test_a_voiced_sound_is_periodic_and_noise_is_not() -> None:
    t = np.arange(RATE) / RATE
    vowel = np.sum([np.sin(2 * np.pi * 120 * k * t) / k for k in range(1, 20)], axis=0)  # 120 Hz, harmonics
    assert periodicities(0.1 * vowel)[2:].min() >= 0.95
    noise = np.random.default_rng(1).standard_normal(RATE) * 0.1
    assert periodicities(noise).max() < 0.3


def test_a_low_thud_is_not_taken_for_a_voice() -> None:
    # A door's body rings at 50-120 Hz: perfectly periodic, and under the band the voicing is measured in.
    t = np.arange(RATE) / RATE
    assert periodicities(0.5 * np.sin(2 * np.pi * 80 * t)).max() < 0.3


def test_silence_has_no_periodicity() -> None:
    assert not periodicities(np.zeros(RATE)).any()


@pytest.fixture(scope="module")
def room() -> SimulatedRoom:
    return SimulatedRoom(GOAL_CONDITION, seed=3)


def test_coughs_and_doors_in_a_room_are_not_voiced(room: SimulatedRoom) -> None:
    for sound in [*(cough(seed) for seed in range(8)), *(door(seed) for seed in range(8))]:
        heard = np.convolve(sound, room.talker_response)
        heard = heard + room.noise(len(heard), room.speech_rms)
        assert periodicities(heard)[loud(heard)].max() < 0.5


@pytest.mark.parametrize("fixture", ["speech_hello", "wake_weather", "wake_recall", "wake_goodbye"])
def test_speech_in_a_room_is_voiced_within_150_ms_of_its_start(room: SimulatedRoom, fixture: str) -> None:
    pcm = read_pcm(fixture)
    heard = room.talker(pcm)
    heard = heard + room.noise(len(heard), room.speech_rms)
    onset_window = int(utterances(pcm)[0][0] * RATE / 1000) // WINDOW
    voiced = np.flatnonzero(periodicities(heard) >= 0.5)
    assert (
        voiced.size and onset_window <= voiced[voiced >= onset_window][0] <= onset_window + 150 * RATE // 1000 // WINDOW
    )


def test_it_takes_only_whole_windows() -> None:
    with pytest.raises(ValueError, match="window of 512"):
        Voicing(RATE, WINDOW).push(np.zeros(100))


def test_only_the_past_is_heard() -> None:
    # A window's score does not change with what follows it: no look-ahead, so no delay.
    speech = floats(read_pcm("speech_hello"))[: 40 * WINDOW]
    other = speech.copy()
    other[20 * WINDOW :] = np.random.default_rng(2).standard_normal(20 * WINDOW) * 0.1
    assert list(periodicities(speech)[:20]) == list(periodicities(other)[:20])
    assert list(periodicities(speech)[20:]) != list(periodicities(other)[20:])
