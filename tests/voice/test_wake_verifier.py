"""The per-user wake word verifier: openWakeWord's recipe, kept as plain arrays, never a pickle."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest

from voice.errors import WakeModelError
from voice.wake.verifier import (
    NEGATIVE_GAP_FRAMES,
    WakeVerifier,
    enrolment_examples,
    train_verifier,
)


def windows(rng: np.random.Generator, count: int, centre: float) -> np.ndarray:
    return (rng.standard_normal((count, 16, 96)) + centre).astype(np.float32)


def test_the_verifier_is_openwakewords_classifier_to_the_last_bit() -> None:
    from openwakeword.custom_verifier_model import train_verifier_model

    rng = np.random.default_rng(0)
    positives, negatives = windows(rng, 30, 0.3), windows(rng, 200, -0.3)
    ours = train_verifier("hey_jarvis", positives, negatives)
    theirs = train_verifier_model(np.concatenate([positives, negatives]), np.array([1] * 30 + [0] * 200))
    probe = windows(rng, 50, 0.0)
    assert np.allclose(ours.probability(probe), theirs.predict_proba(probe)[:, 1], atol=1e-9)
    assert ours.probability(windows(rng, 20, 0.3)).mean() > 0.5 > ours.probability(windows(rng, 20, -0.3)).mean()


def test_it_round_trips_through_an_npz_file_and_nothing_else(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    verifier = train_verifier("hey_jarvis", windows(rng, 10, 1.0), windows(rng, 40, -1.0))
    path = tmp_path / "wake" / "hey_jarvis.verifier.npz"
    verifier.save(path)
    loaded = WakeVerifier.load(path)
    probe = windows(rng, 5, 0.0)
    assert loaded.model == "hey_jarvis" and loaded.frames == 16
    assert np.array_equal(loaded.probability(probe), verifier.probability(probe))
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary file left behind


@pytest.mark.parametrize(
    "content",
    [b"", b"not numpy at all", pickle.dumps({"weights": [1.0, 2.0]})],
    ids=["empty", "garbage", "a pickle"],
)
def test_anything_parley_did_not_write_is_refused(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "hey_jarvis.verifier.npz"
    path.write_bytes(content)
    with pytest.raises(WakeModelError, match="cannot be read"):
        WakeVerifier.load(path)


def test_an_npz_holding_objects_is_refused_without_unpickling(tmp_path: Path) -> None:
    path = tmp_path / "hey_jarvis.verifier.npz"
    with path.open("wb") as file:
        np.savez(file, version=np.array(1), model=np.array([object()], dtype=object))
    with pytest.raises(WakeModelError, match="cannot be read"):
        WakeVerifier.load(path)


def test_enrolment_takes_the_best_frames_and_the_far_ones() -> None:
    rng = np.random.default_rng(2)
    scores = np.zeros(60)
    scores[30:34] = [0.2, 0.6, 0.9, 0.4]
    found = windows(rng, 60, 0.0)
    positives, negatives = enrolment_examples([(scores, found)])
    assert len(positives) == 3
    assert {int(np.argmax(np.all(found == p, axis=(1, 2)))) for p in positives} == {31, 32, 33}
    assert len(negatives) == len([i for i in range(60) if abs(i - 32) >= NEGATIVE_GAP_FRAMES])


def test_enrolment_refuses_a_recording_without_the_wake_word() -> None:
    with pytest.raises(ValueError, match="no wake word heard"):
        enrolment_examples([(np.full(60, 0.01), windows(np.random.default_rng(3), 60, 0.0))])
