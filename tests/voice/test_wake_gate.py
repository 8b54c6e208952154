"""The quiet gate in front of the wake word model: asleep on silence, exact on sound."""

from __future__ import annotations

import time

import numpy as np

from tests.voice.fixtures import read_pcm, silence, split, stream
from voice.wake.detector import OpenWakeWordDetector, _Scorer, resolve_model
from voice.wake.frames import FRAME_SAMPLES
from voice.wake.quiet_gate import GATE_HANGOVER_FRAMES, GATE_PREROLL_FRAMES, QuietGate


def frame(level: float) -> np.ndarray:
    """A frame of noise at `level` RMS (PCM16 units)."""
    noise = np.random.default_rng(int(level)).standard_normal(FRAME_SAMPLES)
    return np.asarray(noise / np.sqrt(np.mean(noise**2)) * level, dtype=np.int16)


def test_quiet_frames_are_held_back_and_handed_over_when_sound_comes() -> None:
    gate = QuietGate(floor_dbfs=-60.0, preroll=3, hangover=2)
    quiet, loud = frame(10.0), frame(1000.0)
    assert [len(gate.push(quiet)) for _ in range(5)] == [0] * 5
    due = gate.push(loud)
    assert len(due) == 4 and due[-1] is loud  # the last three quiet frames, then the loud one
    # Open: quiet frames go through until `hangover` of them in a row, then the gate closes.
    assert [len(gate.push(quiet)) for _ in range(4)] == [1, 1, 0, 0]
    assert len(gate.push(loud)) == 3


def test_the_floor_is_minus_60_dbfs() -> None:
    gate = QuietGate()
    assert gate.push(frame(30.0)) == []  # -60.8 dBFS
    assert len(gate.push(frame(36.0))) == 2  # -59.2 dBFS


def test_scores_are_the_same_with_and_without_the_gate() -> None:
    """The pre-roll refills every buffer the score depends on: from the frame that opens the gate on,
    the gated model scores what the ungated one does, to the last bit."""
    pcm = silence(4000) + read_pcm("wake_weather") + silence(3000) + read_pcm("wake_hey_jarvis")
    pcm = pcm[: len(pcm) - len(pcm) % (FRAME_SAMPLES * 2)]
    model = resolve_model("hey_jarvis")
    gated, plain = _Scorer(model, 0.0).score(pcm), _Scorer(model, 0.0, gate=False).score(pcm)
    opened = [i for i, (a, b) in enumerate(zip(gated, plain, strict=True)) if a != 0.0 or b > 1e-3]
    assert opened, "the model heard nothing"
    for index in opened:
        assert gated[index] == plain[index], index
    # What the gate skipped, the plain model scored as (almost) nothing.
    skipped = [plain[i] for i in range(len(plain)) if gated[i] == 0.0]
    assert len(skipped) > GATE_PREROLL_FRAMES and max(skipped) < 0.01


async def test_the_detector_fires_the_same_with_the_gate() -> None:
    pcm = silence(3000) + read_pcm("wake_switch_chat") + silence(2500) + read_pcm("wake_hey_jarvis_slow_female")
    async with OpenWakeWordDetector() as gated, OpenWakeWordDetector(quiet_gate=False) as plain:
        with_gate = [event async for event in gated.detections(stream(split(pcm)))]
        without = [event async for event in plain.detections(stream(split(pcm)))]
    assert len(with_gate) == 2
    assert with_gate == without


def test_silence_costs_next_to_nothing() -> None:
    """A quiet room: the model runs on none of it (goal: under 1 % of a core while sleeping)."""
    scorer = _Scorer(resolve_model("hey_jarvis"), 0.0)
    quiet = np.random.default_rng(0).normal(0, 10, FRAME_SAMPLES * 250).astype("<i2").tobytes()  # -70 dBFS
    started = time.process_time()
    scores = scorer.score(quiet)
    spent = time.process_time() - started
    assert scores == [0.0] * 250
    assert spent / 20.0 < 0.01  # 20 s of audio; measured about 0.05 %
    assert GATE_HANGOVER_FRAMES * 80 >= 1000  # the model hears a second past the last sound
