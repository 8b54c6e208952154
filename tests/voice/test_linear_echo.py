"""The linear echo canceller that feeds the barge-in detector: it learns an echo path from Parley's voice,
cuts the echo, leaves the user's voice whole, and keeps the reference in place when it comes late."""

from __future__ import annotations

import numpy as np
import pytest
import soxr
from scipy import signal as sig

from tests.voice.fixtures import read_pcm
from tests.voice.laptop_room import parley_voice
from tests.voice.room_sounds import RATE, Signal, floats
from voice.echo.linear_canceller import HIGH_PASS_HZ, LinearEchoFilter

CHUNK = RATE * 80 // 1000
DELAY = RATE * 50 // 1000
"""The echo comes back 50 ms after it is played."""


def voice(seconds: float, seed: int) -> Signal:
    return np.asarray(soxr.resample(floats(parley_voice(seconds, seed=seed)), 24_000, RATE), dtype=np.float64)


def echo_of(played: Signal) -> Signal:
    # A direct path at half volume and two weaker reflections, as a small room gives.
    echo = np.zeros(len(played) + DELAY + 800)
    for delay, gain in ((DELAY, 0.5), (DELAY + 300, -0.2), (DELAY + 800, 0.1)):
        echo[delay : delay + len(played)] += gain * played
    return echo[: len(played)]


def db(signal: Signal) -> float:
    return float(10.0 * np.log10(np.mean(signal**2)))


def play(linear: LinearEchoFilter, played: Signal) -> None:
    linear.played(np.clip(np.rint(played * 32768.0), -32768, 32767).astype(np.int16), RATE)


def run(linear: LinearEchoFilter, played: Signal, mic: Signal) -> tuple[Signal, Signal]:
    residual, estimate = [], []
    for start in range(0, len(mic) - CHUNK + 1, CHUNK):
        play(linear, played[start : start + CHUNK])
        out, predicted = linear.cleaned(mic[start : start + CHUNK])
        residual.append(out)
        estimate.append(predicted)
    return np.concatenate(residual), np.concatenate(estimate)


def test_the_echo_path_is_learnt_and_its_echo_cut() -> None:
    played = voice(20.0, seed=1)
    linear = LinearEchoFilter(RATE)
    assert not linear.converged
    residual, estimate = run(linear, played, echo_of(played))
    last = slice(-5 * RATE, None)
    assert db(echo_of(played)[last]) - db(residual[last]) >= 20.0
    assert db(estimate[last]) == pytest.approx(db(echo_of(played)[last]), abs=1.0)
    assert linear.converged and linear.erle_db >= 18.0


def test_the_users_voice_is_left_at_full_strength_over_the_echo() -> None:
    linear = LinearEchoFilter(RATE)
    learnt = voice(20.0, seed=2)
    run(linear, learnt, echo_of(learnt))
    played = voice(4.0, seed=3)
    user = np.zeros(len(played))
    speech = floats(read_pcm("speech_hello"))[: len(played)] * 0.3  # about 12 dB under Parley's echo
    user[: len(speech)] = speech
    echo = echo_of(played)
    residual, _ = run(linear, played, echo + user)
    # The filter hears the microphone through its 100 Hz high-pass, as AEC3 does.
    user = sig.sosfilt(sig.butter(2, HIGH_PASS_HZ, btype="highpass", fs=RATE, output="sos"), user)
    spoken = np.abs(user) > 0.003
    left_of_echo = residual[spoken] - user[spoken]
    assert db(residual[spoken]) == pytest.approx(db(user[spoken]), abs=1.0)
    # The echo is still cut while the user talks (measured: 25 dB; 8 dB before the step shrank in double
    # talk, against 31 dB with no user).
    assert db(echo[spoken]) - db(left_of_echo) >= 15.0


def test_a_reference_that_comes_after_its_echo_keeps_its_place() -> None:
    # Now and then the microphone is cleaned before the speaker's block has been reported: that much is
    # taken as silence and dropped when it comes, so the rest still meets its own echo.
    played = voice(20.0, seed=4)
    mic = echo_of(played)
    linear = LinearEchoFilter(RATE)
    late = 0
    residual = []
    for index, start in enumerate(range(0, len(mic) - CHUNK + 1, CHUNK)):
        held_back = 480 if index % 25 == 10 else 0
        play(linear, played[start - late : start + CHUNK - held_back])
        late = held_back
        residual.append(linear.cleaned(mic[start : start + CHUNK])[0])
    last = slice(-5 * RATE, None)
    assert db(mic[last]) - db(np.concatenate(residual)[last]) >= 15.0


def test_with_nothing_played_it_is_not_trusted() -> None:
    linear = LinearEchoFilter(RATE)
    noise = np.random.default_rng(5).standard_normal(5 * RATE) * 0.01
    _, estimate = run(linear, np.zeros(len(noise)), noise)
    assert not linear.converged and linear.erle_db == 0.0
    assert not estimate.any()


def test_only_whole_frames_are_taken() -> None:
    with pytest.raises(ValueError, match="160-sample frames"):
        LinearEchoFilter(RATE).cleaned(np.zeros(100))
