"""How bench/wake_rooms.py turns audio into wakes: each lever's audio path in front of openWakeWord, one
pass per stream recording every frame's score (`trace`), and the decisions applied to those records
(threshold, VAD gate, a verifier), counted against where the wakes should be."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from bench.wake_streams import Stream
from voice.audio.chunks import MIC_FORMAT
from voice.wake.detector import resolve_model
from voice.wake.frames import FRAME_MS, FRAME_SAMPLES, Debounce
from voice.wake.verifier import WakeVerifier

RATE = MIC_FORMAT.rate
REARM_MS = 400.0
Floats = NDArray[np.float64]


# Scoring: one pass per lever records every frame's raw score, the VAD's gate value and, where the score
# could matter to a verifier, the model's input window; thresholds, the gate and verifiers are then
# applied to those records, as openWakeWord applies them (verifier first, then the VAD gate).

CANDIDATE_FLOOR = 0.01
"""Frames scoring under this never reach a verifier (whose own threshold is higher): no window kept."""
LEVERS = ("raw", "aec", "webrtc_ns", "webrtc_agc", "webrtc_all", "speex")
"""`speex` needs the `speexdsp-ns` package (PyPI, 0.1.2: Linux x86-64 wheels), which Parley does not
depend on (it did not help: see the results); without it that lever is left out."""


def available(levers: Sequence[str]) -> list[str]:
    from importlib.util import find_spec

    return [lever for lever in levers if lever != "speex" or find_spec("speexdsp_ns") is not None]


@dataclass(slots=True)
class Trace:
    scores: Floats
    """hey_jarvis score per 80 ms frame."""
    vad: Floats
    """Silero VAD's gate value per frame: its highest score 320-560 ms before (openWakeWord's window)."""
    windows: dict[int, NDArray[np.float32]]
    """Frame -> the wake model's input (16 x 96 audio embeddings), for frames scoring >= CANDIDATE_FLOOR."""
    cpu_s: float


def preprocessor(lever: str) -> Callable[[bytes], bytes]:
    """The audio path in front of openWakeWord for `lever` (stateful: one per stream, fed in order)."""
    if lever in ("raw", "speex"):
        return lambda pcm: pcm
    if lever == "aec":
        from voice.audio.chunks import AudioChunk
        from voice.echo.canceller import EchoCanceller

        canceller = EchoCanceller()
        return lambda pcm: canceller.cleaned(AudioChunk(MIC_FORMAT, pcm, 0.0)).pcm
    from livekit import rtc

    apm = rtc.AudioProcessingModule(
        high_pass_filter=True,
        noise_suppression=lever in ("webrtc_ns", "webrtc_all"),
        auto_gain_control=lever in ("webrtc_agc", "webrtc_all"),
    )

    def process(pcm: bytes) -> bytes:
        out = bytearray()
        for at in range(0, len(pcm), 320):
            frame = bytearray(pcm[at : at + 320])
            apm.process_stream(rtc.AudioFrame(frame, RATE, 1, 160))
            out += frame
        return bytes(out)

    return process


def trace(pcm: bytes, lever: str, keep_all: bool = False) -> Trace:
    """Every frame of `pcm` (whole frames) through `lever` and hey_jarvis, after 2 s of silence."""
    from openwakeword.model import Model
    from openwakeword.vad import VAD

    model = Model(
        wakeword_models=[str(resolve_model("hey_jarvis").path)],
        inference_framework="onnx",
        enable_speex_noise_suppression=lever == "speex",
    )
    (name,) = model.models
    vad = VAD()
    clean = preprocessor(lever)
    warm = np.zeros(FRAME_SAMPLES * 26, dtype=np.int16)
    for at in range(0, len(warm), FRAME_SAMPLES):
        model.predict(warm[at : at + FRAME_SAMPLES])
        vad(warm[at : at + FRAME_SAMPLES])
    frames = len(pcm) // (FRAME_SAMPLES * 2)
    scores, gate = np.zeros(frames), np.zeros(frames)
    windows: dict[int, NDArray[np.float32]] = {}
    started = time.process_time()
    for index in range(frames):
        chunk = pcm[index * FRAME_SAMPLES * 2 : (index + 1) * FRAME_SAMPLES * 2]
        raw = np.frombuffer(chunk, dtype="<i2")
        samples = np.frombuffer(clean(chunk), dtype="<i2")
        scores[index] = float(model.predict(samples)[name])
        # openWakeWord runs its VAD on the frame it was given (before its own Speex suppression).
        vad(samples if lever != "speex" else raw)
        recent = list(vad.prediction_buffer)[-7:-4]
        gate[index] = max(recent) if recent else 0.0
        if keep_all or scores[index] >= CANDIDATE_FLOOR:
            windows[index] = np.asarray(model.preprocessor.get_features(model.model_inputs[name])[0], np.float32)
    return Trace(scores, gate, windows, time.process_time() - started)


@dataclass(frozen=True, slots=True)
class Decision:
    """How frame scores become wakes."""

    threshold: float = 0.5
    vad_threshold: float = 0.0
    verifier: WakeVerifier | None = None
    """A user's enrolled verifier (voice/wake/verifier.py), or None."""
    verifier_threshold: float = 0.1
    """openWakeWord's `custom_verifier_threshold`: the raw score at which the verifier is asked."""
    overrides: bool = False
    """True: the verifier's probability replaces the score, as in openWakeWord and Parley (it can veto a
    confident model). False: the higher of the two counts (the verifier can only add wakes)."""

    def scores(self, trace: Trace) -> Floats:
        scores = trace.scores.copy()
        if self.verifier is not None:
            asked = [int(i) for i in np.flatnonzero(scores >= self.verifier_threshold) if int(i) in trace.windows]
            if asked:
                windows = np.stack([trace.windows[i] for i in asked])
                heard = self.verifier.probability(windows)
                scores[asked] = heard if self.overrides else np.maximum(scores[asked], heard)
        if self.vad_threshold > 0:
            scores[trace.vad < self.vad_threshold] = 0.0
        return scores

    def detections(self, trace: Trace) -> list[int]:
        debounce = Debounce(self.threshold, max(1, round(REARM_MS / FRAME_MS)))
        return [index for index, score in enumerate(self.scores(trace)) if debounce.update(float(score))]


def count(stream: Stream, trace: Trace, decision: Decision) -> tuple[int, int, int]:
    """(wakes missed, positives, false accepts) of `decision` on `stream`."""
    detections = decision.detections(trace)
    missed = positives = false = 0
    for segment in stream.segments:
        inside = [d for d in detections if segment.first_frame <= d < segment.first_frame + segment.frames]
        if segment.wake_frames is None:
            false += len(inside)
            continue
        positives += 1
        start, end = segment.wake_frames
        hits = [d for d in inside if start <= d <= end]
        missed += not hits
        false += len(inside) - min(1, len(hits))
    return missed, positives, false


def false_accepts_by_kind(stream: Stream, trace: Trace, decision: Decision) -> dict[str, int]:
    detections = decision.detections(trace)
    found: dict[str, int] = {}
    for segment in stream.segments:
        hits = sum(segment.first_frame <= d < segment.first_frame + segment.frames for d in detections)
        found[segment.label] = found.get(segment.label, 0) + hits
    return found
