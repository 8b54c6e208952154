"""A per-user wake word verifier: openWakeWord's custom verifier, trained on the user's own "hey Jarvis".

openWakeWord 0.5.1 can put a second opinion behind a wake word model: a logistic regression on the same
16 x 96 audio embeddings the model reads, trained on a few recordings of one user saying the wake word
(positives) and anything else heard then (negatives). When the model scores a frame at or above the
verifier's threshold, the verifier's probability takes the score's place. Trained in the user's own
room, it brings back wakes the room takes away (reverberation, distance) without waking on other
speech; in babble it rejects more of the user's wakes than it saves: bench/wake_rooms.py measures it.

The classifier is openWakeWord's own recipe (`custom_verifier_model.train_verifier_model`: flatten,
`StandardScaler`, `LogisticRegression(C=0.001)`), trained here with scikit-learn. It is kept as plain
numbers in an `.npz` file (the scaler's mean and scale, the weights and the bias), not as the pickle
openWakeWord writes: unpickling runs whatever code the file names, and a file in the user's data folder
must never be able to do that. Loading reads arrays only (`allow_pickle=False`) and checks their shapes.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from voice.errors import WakeModelError

EMBEDDING_SIZE = 96
"""openWakeWord's audio embedding: 96 numbers per 80 ms frame."""
FORMAT_VERSION = 1

Windows = NDArray[np.float32]
"""Model inputs, shape (n, frames, 96): `frames` audio embeddings (16 for the built-in models) each."""
Run = tuple[NDArray[np.float64], Windows]
"""A recording scored frame by frame: each frame's score, and the model's input window after it."""


@dataclass(frozen=True, slots=True, eq=False)
class WakeVerifier:
    """A trained verifier: the probability that a model input window is the enrolled user's wake word."""

    model: str
    """The wake word model it was trained behind (`WakeModel.name`)."""
    mean: NDArray[np.float64]
    """StandardScaler mean, one per flattened feature (frames x 96)."""
    scale: NDArray[np.float64]
    """StandardScaler scale, same shape."""
    weights: NDArray[np.float64]
    """Logistic regression weights, same shape."""
    bias: float

    @property
    def frames(self) -> int:
        """Embeddings per window (the wake model's input length)."""
        return len(self.weights) // EMBEDDING_SIZE

    def probability(self, windows: Windows) -> NDArray[np.float64]:
        """P(wake word) for each window, shape (n,): scikit-learn's `predict_proba(...)[:, 1]`."""
        flat = np.asarray(windows, dtype=np.float64).reshape(len(windows), -1)
        if flat.shape[1] != len(self.weights):
            raise ValueError(f"windows of {flat.shape[1]} numbers for a verifier of {len(self.weights)}")
        logits = ((flat - self.mean) / self.scale) @ self.weights + self.bias
        return np.asarray(1.0 / (1.0 + np.exp(-logits)), dtype=np.float64)

    def save(self, path: Path) -> None:
        """Write atomically (a temporary file in the same folder, then a rename)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=path.name, suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(handle, "wb") as file:
                np.savez(
                    file,
                    version=np.array(FORMAT_VERSION),
                    model=np.array(self.model),
                    mean=self.mean,
                    scale=self.scale,
                    weights=self.weights,
                    bias=np.array(self.bias),
                )
                file.flush()
                os.fsync(file.fileno())
            Path(temporary).replace(path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise

    @classmethod
    def load(cls, path: Path) -> WakeVerifier:
        """Read a file `save` wrote; `WakeModelError` for anything else."""
        try:
            with np.load(path, allow_pickle=False) as data:
                if int(data["version"]) != FORMAT_VERSION:
                    raise ValueError(f"format {int(data['version'])}, not {FORMAT_VERSION}")
                verifier = cls(
                    model=str(data["model"]),
                    mean=np.asarray(data["mean"], dtype=np.float64),
                    scale=np.asarray(data["scale"], dtype=np.float64),
                    weights=np.asarray(data["weights"], dtype=np.float64),
                    bias=float(data["bias"]),
                )
        except (OSError, EOFError, ValueError, KeyError, TypeError) as error:
            raise WakeModelError(f"the wake word verifier {path} cannot be read: {error}") from error
        size = len(verifier.weights)
        if size == 0 or size % EMBEDDING_SIZE or verifier.mean.shape != (size,) or verifier.scale.shape != (size,):
            raise WakeModelError(f"the wake word verifier {path} is damaged (inconsistent shapes)")
        if not np.all(np.isfinite(verifier.weights)) or not np.all(verifier.scale > 0):
            raise WakeModelError(f"the wake word verifier {path} is damaged (bad numbers)")
        return verifier


MIN_POSITIVES = 3


def train_verifier(model: str, positives: Windows, negatives: Windows) -> WakeVerifier:
    """openWakeWord's verifier recipe on these windows (positives: the wake word; negatives: the rest).
    Takes well under a second for a few hundred windows."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    if len(positives) < MIN_POSITIVES or len(negatives) == 0:
        raise ValueError(f"a verifier needs at least {MIN_POSITIVES} wake word windows and some others")
    features = np.concatenate([positives, negatives]).reshape(len(positives) + len(negatives), -1)
    labels = np.array([1] * len(positives) + [0] * len(negatives))
    scaler = StandardScaler().fit(features)
    # openWakeWord: "C value matters a lot here, depending on dataset size".  0.001 is its choice for a
    # few utterances. bench/wake_rooms.py's goal room, 12 users' verifiers, at the best threshold for
    # each with no false wake over their hours of other speech: C 0.001 missed 10 of 72 wakes; 0.0001, 10;
    # 0.01, 10. Also no better there: classes weighted equally (`class_weight="balanced"`: 98 false
    # wakes at 0.5, against 0), and the recordings also put through made-up reverberation (an
    # exponential tail, RT60 0.45-0.6 s, 6-9 dB under the direct sound: 10 missed, 33 false wakes).
    classifier = LogisticRegression(random_state=0, max_iter=2000, C=0.001).fit(scaler.transform(features), labels)
    scale = np.asarray(scaler.scale_, dtype=np.float64)
    return WakeVerifier(
        model=model,
        mean=np.asarray(scaler.mean_, dtype=np.float64),
        scale=np.where(scale > 0, scale, 1.0),
        weights=np.asarray(classifier.coef_[0], dtype=np.float64),
        bias=float(classifier.intercept_[0]),
    )


ENROL_MIN_SCORE = 0.05
"""An enrolment recording whose best frame scores under this holds no wake word the model can hear."""
POSITIVES_PER_RUN = 3
"""The best frames of a recording (the phrase fills the model's window there) are the positives."""
NEGATIVE_GAP_FRAMES = 24
"""Frames at least this far (80 ms each) from a recording's best frame are negatives: the model's
window (16 frames) then holds no part of the phrase (about 8 frames long) nor its echo."""


def enrolment_examples(runs: list[Run], backwards: list[Run] = []) -> tuple[Windows, Windows]:  # noqa: B006 (never mutated)
    """(positives, negatives) from enrolment recordings scored frame by frame (each run: scores and
    model input windows, as `OpenWakeWordDetector.enrolment_windows` gives them), and from the same
    recordings played backwards (`backwards`: every window a negative). `ValueError` when a run holds
    nothing the model takes for the wake word (`ENROL_MIN_SCORE`).

    Why backwards: the recordings alone give the verifier only room noise as negatives, and it then
    learns "speech" rather than "this user's wake word": in bench/wake_rooms.py such verifiers woke on
    other speech 61-81 times in 12 users' quarter hours. The same recordings reversed are the user's
    voice, in the user's room, with the wake word's sounds but not the wake word; with them the same
    verifiers woke once, and on no fixture, cough or door (and missed 1 more wake in 72; asked from
    0.05)."""
    positives, negatives = [], [windows for _, windows in backwards]
    for scores, windows in runs:
        best = int(np.argmax(scores))
        if scores[best] < ENROL_MIN_SCORE:
            raise ValueError(f"no wake word heard (best score {scores[best]:.2f})")
        near = range(max(0, best - 3), min(len(scores), best + 4))
        positives += [windows[i] for i in sorted(near, key=lambda i: scores[i])[-POSITIVES_PER_RUN:]]
        far = [i for i in range(len(scores)) if abs(i - best) >= NEGATIVE_GAP_FRAMES]
        if far:
            negatives.append(windows[far])
    if not negatives:
        raise ValueError("the recordings hold no sound but the wake word: record a second more around it")
    return np.stack(positives), np.concatenate([np.reshape(n, (-1, *positives[0].shape)) for n in negatives])
