"""The wake word across the room: `python -m bench.wake_rooms [--quick]` -> bench/results/wake_rooms.json.

hey_jarvis (openWakeWord 0.5.1, ONNX) on the fixtures put into the simulated rooms of tests/voice/rooms.py,
with and without each lever of issue 13 part 3. Everything is made in memory from the committed dry
fixtures and from espeak-ng (Debian), with fixed seeds.

What is measured, per room condition:
- False rejects: each positive (a "hey jarvis" voice, `VOICES`) is put into the room at `SEEDS`
  talker positions and `SHIFTS_MS` offsets within the 80 ms frame grid (bench/voice.py sweeps the grid the
  same way); a run is a hit when the detector fires between the wake phrase's start and 1 s after its end.
- False accepts: the negative fixtures, the positives' speech after the wake phrase, coughs and doors in
  the same rooms (any detection counts), plus `hour_s` (an hour in the full run) of other speech and noise
  made from the fixtures: babble, pink noise, coughs, doors, sentences without the wake phrase, each in a
  room of the grid.

Every clip is preceded by 2 s of the room's noise and the clips of a condition are streamed back to back
through one model, as a microphone would hear them: 2 s flush openWakeWord's feature buffers (its
window is 1.28 s), and the noise suppressors adapt to the room's noise as they would in use.

Levers (the audio that reaches openWakeWord):
- `raw`: the microphone as it is.
- `aec`: Parley's microphone path today: voice.echo.EchoCanceller (WebRTC AEC3 + high-pass filter, noise
  suppression and gain control off), with nothing playing.
- `webrtc_ns`, `webrtc_agc`, `webrtc_all`: WebRTC's audio processing module with noise suppression, with
  automatic gain control, with both (high-pass on in all three, as in the echo canceller).
- `speex`: openWakeWord's own Speex noise suppression (`enable_speex_noise_suppression`, package
  speexdsp-ns).
On top of each, decided on the same scores: the threshold, the VAD gate (`vad_threshold`, Silero VAD as
openWakeWord runs it: the score counts only where speech was heard 320-560 ms earlier) and a per-user
verifier (openWakeWord's logistic regression on the model's audio embeddings, trained per voice on three
enrolment utterances of that voice said in the condition's room from 1 m, and on the same recordings
played backwards, as `parley wake enrol` trains it: voice/wake_verifier.py), asked from a model score
of 0.05 or 0.1, under openWakeWord's rule, which Parley keeps (the verifier's probability replaces the
score: `verifier_overrides_*`), and the other one tried (the higher of score and verifier: `verifier_*`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import soxr
from numpy.typing import NDArray

from tests.voice.fixtures import read_pcm, silence, utterances, wake_phrase_end_ms
from tests.voice.rooms import (
    GOAL_CONDITION,
    ROOM_CONDITIONS,
    RoomCondition,
    SimulatedRoom,
    cough,
    door,
    floats,
    to_pcm,
)
from voice.audio import MIC_FORMAT
from voice.wake import FRAME_MS, FRAME_SAMPLES, Debounce, resolve_model

RESULTS = Path(__file__).resolve().parent / "results"
RATE = MIC_FORMAT.rate
LEAD_MS = 2000.0
"""Room noise before each clip: flushes openWakeWord's buffers (1.28 s window) between clips."""
HIT_AFTER_MS = 1000.0
"""A detection up to this long after the wake phrase's end counts as the wake (bench/voice.py: 0-590 ms)."""
REARM_MS = 400.0
SEEDS = (0, 1, 2)
SHIFTS_MS = (0.0, 40.0)

Floats = NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class Voice:
    name: str
    espeak: tuple[str, int] | None
    """(voice, words a minute) for espeak-ng, or None for a committed fixture (`name`)."""
    fixture: str | None = None


FIXTURE_VOICES = (
    Voice("en-us (fixture)", None, "wake_hey_jarvis"),
    Voice("en+f2 slow (fixture)", None, "wake_hey_jarvis_slow_female"),
    Voice("en-gb-x-rp fast (fixture)", None, "wake_hey_jarvis_fast_british"),
    Voice("en-us, then a question (fixture)", None, "wake_weather"),
)
ESPEAK_VOICES = (
    Voice("en-us+m3", ("en-us+m3", 165)),
    Voice("en-us+f3", ("en-us+f3", 175)),
    Voice("en-gb-scotland", ("en-gb-scotland", 170)),
    Voice("en-029", ("en-029", 180)),
    Voice("en-us-nyc+m5", ("en-us-nyc+m5", 185)),
    Voice("en-gb-x-gbclan+f4", ("en-gb-x-gbclan+f4", 160)),
    Voice("en-gb-x-gbcwmd+m7", ("en-gb-x-gbcwmd+m7", 175)),
    Voice("en-us+f5", ("en-us+f5", 150)),
)
"""Voices beyond the committed fixtures, spoken by espeak-ng in memory."""
VOICES = FIXTURE_VOICES + ESPEAK_VOICES


def espeak(voice: str, speed: int, text: str, pitch: int = 50) -> bytes:
    """espeak-ng's speech at 16 kHz PCM16, its own silence trimmed (under 0.1 % of full scale), as
    scripts/make_audio_fixtures.sh makes the fixtures (there with sox; here with soxr)."""
    wav = subprocess.run(
        ["espeak-ng", "-v", voice, "-s", str(speed), "-p", str(pitch), "--stdout", text],
        check=True,
        capture_output=True,
    ).stdout
    # espeak-ng's --stdout WAV header is 44 bytes; 22.05 kHz mono PCM16.
    audio = np.frombuffer(wav[44:], dtype="<i2").astype(np.float64) / 32768.0
    audio = np.asarray(soxr.resample(audio, 22_050, RATE), dtype=np.float64)
    loud = np.flatnonzero(np.abs(audio) >= 0.001)
    return to_pcm(audio[loud[0] : loud[-1] + 1]) if len(loud) else b""


@cache
def positive(voice: Voice, lead_ms: float = 800.0) -> bytes:
    """The voice saying "hey jarvis", `lead_ms` of silence before and 0.8 s after (as the fixtures)."""
    if voice.fixture is not None:
        return read_pcm(voice.fixture)
    assert voice.espeak is not None
    return silence(lead_ms) + espeak(*voice.espeak, "hey jarvis") + silence(800.0)


ENROLMENT_VARIANTS = ((-15, 44), (0, 56), (12, 50))
"""(words a minute added, pitch) of the three enrolment utterances: the same voice, said a little
differently each time."""


def enrolment_utterances(voice: Voice) -> list[bytes]:
    """Three dry "hey jarvis" of `voice`, none the same as the positive it is tested on."""
    if voice.espeak is not None:
        name, speed = voice.espeak
    else:
        name, speed = {
            "wake_hey_jarvis": ("en-us", 175),
            "wake_weather": ("en-us", 175),
            "wake_hey_jarvis_slow_female": ("en+f2", 140),
            "wake_hey_jarvis_fast_british": ("en-gb-x-rp", 200),
        }[voice.fixture or ""]
    return [
        silence(700.0) + espeak(name, speed + extra, "hey jarvis", pitch) + silence(800.0)
        for extra, pitch in ENROLMENT_VARIANTS
    ]


NEGATIVE_FIXTURES = ("speech_hello", "speech_hey_travis", "silence", "white_noise", "pink_noise")
AFTER_WAKE = ("wake_weather", "wake_switch_chat", "wake_goodbye", "wake_remember", "wake_recall")
OTHER_SENTENCES = (
    "hello there, how are you today?",
    "hey Travis, pass me the jar",
    "have you seen the car keys anywhere?",
    "the garden needs watering again, it has not rained for weeks",
    "he says the service was good but the dessert was far too sweet",
    "turn the radio down a little, please",
    "Jarvis Cocker was the singer of Pulp",
    "hey, are you coming to dinner on Friday?",
    "a harvest of jars, chairs and jackets",
    "hey there, is this the bus to Jarrow?",
)
"""Speech for the hour of negatives: ordinary sentences and near words (Travis, Jarvis alone, hey there)."""


def after_wake(name: str) -> bytes:
    """What a positive fixture says after its wake phrase (the rest of the file)."""
    pcm = read_pcm(name)
    cut = round((wake_phrase_end_ms(pcm) + 150.0) * RATE / 1000) * 2
    return pcm[cut:]


@dataclass(slots=True)
class Segment:
    """One clip of a stream: where it lies (frames) and, for a positive, where a wake must land."""

    label: str
    first_frame: int
    frames: int
    wake_frames: tuple[int, int] | None = None
    """Frames (within the stream) in which a detection is the wake: phrase start to end + 1 s."""


@dataclass(slots=True)
class Stream:
    """Clips of one room condition back to back, each after `LEAD_MS` of the room's noise."""

    pcm: bytearray = field(default_factory=bytearray)
    segments: list[Segment] = field(default_factory=list)

    def add(
        self,
        room: SimulatedRoom,
        talker: bytes,
        label: str,
        phrase_ms: tuple[float, float] | None,
        lead_ms: float = LEAD_MS,
    ) -> None:
        lead = silence(lead_ms)
        heard = room.microphone(lead + talker)
        heard = heard[: len(heard) - len(heard) % (FRAME_SAMPLES * 2)]
        first = len(self.pcm) // (FRAME_SAMPLES * 2)
        frames = len(heard) // (FRAME_SAMPLES * 2)
        wake = None
        if phrase_ms is not None:
            start, end = (first + round((lead_ms + ms) / FRAME_MS) for ms in phrase_ms)
            wake = (start, end + round(HIT_AFTER_MS / FRAME_MS))
        self.segments.append(Segment(label, first, frames, wake))
        self.pcm += heard


def condition_streams(
    condition: RoomCondition, voices: Sequence[Voice], seeds: Sequence[int], shifts: Sequence[float]
) -> tuple[Stream, Stream]:
    """(positives, negatives) of one condition: every voice at every seed and shift; the negative
    fixtures, the positives' speech after their wake phrase, a cough and a door at every seed."""
    positives, negatives = Stream(), Stream()
    for seed in seeds:
        room = SimulatedRoom(condition, seed)
        for voice in voices:
            for shift in shifts:
                pcm = silence(shift) + positive(voice)
                start, end = utterances(pcm)[0]
                positives.add(room, pcm, f"{voice.name} seed {seed} shift {shift:g}", (start, end))
        for name in NEGATIVE_FIXTURES:
            negatives.add(room, read_pcm(name), f"{name} seed {seed}", None)
        for name in AFTER_WAKE:
            negatives.add(room, after_wake(name), f"{name} after the wake phrase, seed {seed}", None)
        negatives.add(room, to_pcm(np.concatenate([cough(seed), np.zeros(RATE // 2), door(seed)])), "cough, door", None)
    return positives, negatives


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
        from voice.audio import AudioChunk
        from voice.echo import EchoCanceller

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
    verifier: Any = None
    """A fitted scikit-learn pipeline (openWakeWord's custom verifier), or None."""
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


ENROL_SHIFTS_MS = (0.0, 40.0)
"""Each enrolment recording is scored at two offsets within the frame grid (openWakeWord's own
`get_reference_clip_features` takes five random ones), so the verifier sees the phrase at two phases."""


def enrolment_room(condition: RoomCondition) -> SimulatedRoom:
    """Where a user of `condition`'s room enrols: the same room and noise, at the laptop (1 m), elsewhere."""
    if condition.rt60_s <= 0:
        return SimulatedRoom(condition, 100)
    near = RoomCondition(condition.name + "_enrol", condition.rt60_s, 1.0, condition.noise, condition.snr_db)
    return SimulatedRoom(near, 100)


def enrolment_windows(
    voice: Voice, condition: RoomCondition, lever: str
) -> tuple[NDArray[np.float32], NDArray[np.float32]] | None:
    """(positive, negative) model input windows from `voice`'s enrolment in `condition`'s room: three
    recordings, each through `lever`, chosen as `parley wake enrol` chooses them. A recording in which the
    model hears no wake word is refused there ("enrol again"); here it is left out, as if said again
    no better. None when no recording is left."""
    from voice.wake_verifier import ENROL_MIN_SCORE, enrolment_examples

    room = enrolment_room(condition)
    runs: list[tuple[Floats, NDArray[np.float32]]] = []
    backwards: list[tuple[Floats, NDArray[np.float32]]] = []
    for pcm in enrolment_utterances(voice):
        recorded = room.microphone(silence(1000.0) + pcm)
        for shift in ENROL_SHIFTS_MS:
            for played, kept in ((recorded, runs), (to_pcm(floats(recorded)[::-1]), backwards)):
                heard = trace(silence(shift) + played, lever, keep_all=True)
                if kept is backwards or heard.scores.max() >= ENROL_MIN_SCORE:
                    kept.append((heard.scores, np.stack([heard.windows[i] for i in range(len(heard.scores))])))
    return enrolment_examples(runs, backwards) if runs else None


def enrolled_verifier(voice: Voice, condition: RoomCondition, lever: str) -> Any:
    """`voice`'s verifier, trained as `parley wake enrol` trains it, in `condition`'s room."""
    from voice.wake_verifier import train_verifier

    found = enrolment_windows(voice, condition, lever)
    return None if found is None else train_verifier("hey_jarvis", *found)


# The hour of other speech and noise.

HOUR_PIECE_S = 30.0


def hour_streams(seconds: float, seed: int = 7) -> Iterator[Stream]:
    """`seconds` of other speech and noise in `HOUR_PIECE_S` streams, each in a room of the grid (its noise
    throughout): the negative fixtures, what the positives say after their wake phrase, coughs and doors
    ("fixtures"), and sentences without the wake phrase in the voices of `VOICES`, some with near words
    ("near words"), each after a pause of 0.2-1.5 s."""
    rng = np.random.default_rng(seed)
    sentences = [espeak(*(v.espeak or ("en-us", 175)), text) for v in VOICES for text in OTHER_SENTENCES]
    fixtures = [*(read_pcm(n) for n in NEGATIVE_FIXTURES), *(after_wake(n) for n in AFTER_WAKE)]
    made = 0.0
    while made < seconds:
        condition = ROOM_CONDITIONS[int(rng.integers(len(ROOM_CONDITIONS)))]
        room = SimulatedRoom(condition, 10 + int(rng.integers(4)))
        stream = Stream()
        while len(stream.pcm) < HOUR_PIECE_S * RATE * 2:
            kind = rng.random()
            if kind < 0.1:
                label, sound = "cough", to_pcm(cough(int(rng.integers(1000))) * rng.uniform(0.5, 2.0))
            elif kind < 0.15:
                label, sound = "door", to_pcm(door(int(rng.integers(1000))) * rng.uniform(0.5, 1.5))
            elif kind < 0.55:
                label, sound = "fixtures", fixtures[int(rng.integers(len(fixtures)))]
            else:
                label, sound = "near words", sentences[int(rng.integers(len(sentences)))]
            stream.add(room, sound, label, None, lead_ms=float(rng.uniform(200, 1500)))
        made += len(stream.pcm) / (2 * RATE)
        yield stream


def false_accepts_by_kind(stream: Stream, trace: Trace, decision: Decision) -> dict[str, int]:
    detections = decision.detections(trace)
    found: dict[str, int] = {}
    for segment in stream.segments:
        hits = sum(segment.first_frame <= d < segment.first_frame + segment.frames for d in detections)
        found[segment.label] = found.get(segment.label, 0) + hits
    return found


# Measuring.

THRESHOLDS = (0.5, 0.3, 0.2, 0.15, 0.1, 0.05)
VAD_THRESHOLDS = (0.0, 0.5)
VERIFIER_ASK_AT = (0.05, 0.1)
"""openWakeWord's `custom_verifier_threshold` values tried (the verifier's own threshold stays 0.5)."""


def decisions() -> dict[str, Decision]:
    return {f"t{t:g}_vad{v:g}": Decision(t, v) for t in THRESHOLDS for v in VAD_THRESHOLDS}


def verifier_decisions(verifier: Any) -> dict[str, Decision]:
    """Parley's rule (the verifier adds wakes) and openWakeWord's (it replaces the score)."""
    return {
        f"verifier{'_overrides' if overrides else ''}_ask{ask:g}_vad{vad:g}": Decision(
            0.5, vad, verifier, ask, overrides
        )
        for ask in VERIFIER_ASK_AT
        for vad in VAD_THRESHOLDS
        for overrides in (False, True)
    }


def tally(rows: list[tuple[int, int, int]]) -> dict[str, int]:
    return {
        "missed": sum(r[0] for r in rows),
        "positives": sum(r[1] for r in rows),
        "false_accepts": sum(r[2] for r in rows),
    }


def measure_condition(
    condition: RoomCondition, lever: str, seeds: Sequence[int], shifts: Sequence[float], verifier: bool
) -> dict[str, Any]:
    """Misses and false accepts of every decision (and, with `verifier`, of each voice's enrolled
    verifier on its own positives and on all the negatives) in one condition through one lever."""
    positives, negatives = condition_streams(condition, VOICES, seeds, shifts)
    heard_pos, heard_neg = trace(bytes(positives.pcm), lever), trace(bytes(negatives.pcm), lever)
    results: dict[str, Any] = {
        name: tally([count(positives, heard_pos, d), count(negatives, heard_neg, d)]) for name, d in decisions().items()
    }
    if verifier:
        rows: dict[str, list[tuple[int, int, int]]] = {}
        for voice in VOICES:
            mine = Stream(positives.pcm, [s for s in positives.segments if s.label.startswith(voice.name + " seed")])
            for name, decision in verifier_decisions(enrolled_verifier(voice, condition, lever)).items():
                rows.setdefault(name, []).extend(
                    [count(mine, heard_pos, decision), count(negatives, heard_neg, decision)]
                )
        results |= {name: tally(r) for name, r in rows.items()}
        results["verifier_note"] = f"negatives' false accepts summed over the {len(VOICES)} voices' verifiers"
    audio_s = (len(positives.pcm) + len(negatives.pcm)) / (2 * RATE)
    results["cpu_share_percent"] = round(100 * (heard_pos.cpu_s + heard_neg.cpu_s) / audio_s, 2)
    return results


def measure_hour(lever: str, seconds: float, verifier_condition: RoomCondition | None) -> dict[str, Any]:
    """False accepts of every decision over `seconds` of other speech and noise, by kind; with
    `verifier_condition`, also of each voice's verifier enrolled in that condition's room (summed)."""
    verifiers = {v.name: enrolled_verifier(v, verifier_condition, lever) for v in VOICES} if verifier_condition else {}
    found: dict[str, dict[str, int]] = {}
    heard_s = 0.0
    for stream in hour_streams(seconds):
        heard = trace(bytes(stream.pcm), lever)
        heard_s += len(stream.pcm) / (2 * RATE)
        chosen = dict(decisions())
        for voice, verifier in verifiers.items():
            chosen |= {f"{name}[{voice}]": d for name, d in verifier_decisions(verifier).items()}
        for name, decision in chosen.items():
            key = name.split("[")[0]
            for kind, hits in false_accepts_by_kind(stream, heard, decision).items():
                found.setdefault(key, {}).setdefault(kind, 0)
                found[key][kind] += hits
    return {"lever": lever, "seconds": round(heard_s)} | found


async def measure(
    *,
    conditions: Sequence[RoomCondition] = ROOM_CONDITIONS,
    lever_conditions: Sequence[RoomCondition] = (GOAL_CONDITION,),
    levers: Sequence[str] = LEVERS,
    main_lever: str = "aec",
    seeds: Sequence[int] = SEEDS,
    shifts: Sequence[float] = SHIFTS_MS,
    hour_s: float = 3600.0,
    log: Callable[[str], None] = print,
) -> dict[str, Any]:
    """False rejects and false accepts (JSON-able): every condition through `main_lever` (Parley's
    microphone path) with every decision and the verifier; `lever_conditions` through every lever; the
    hour of other speech through `main_lever`. Scoring runs on a worker thread."""

    def run() -> dict[str, Any]:
        started = time.perf_counter()
        per_condition: dict[str, Any] = {}
        for condition in conditions:
            chosen = available(levers) if condition in lever_conditions else [main_lever]
            per_condition[condition.name] = {}
            for lever in chosen:
                result = measure_condition(condition, lever, seeds, shifts, verifier=lever == main_lever)
                per_condition[condition.name][lever] = result
                log(
                    f"{condition.name:20} {lever:10} missed at t0.5 {result['t0.5_vad0']['missed']}"
                    f"/{result['t0.5_vad0']['positives']}, t0.15 {result['t0.15_vad0']['missed']}, t0.1 "
                    f"{result['t0.1_vad0']['missed']}; {time.perf_counter() - started:.0f} s"
                )
        hour = measure_hour(main_lever, hour_s, GOAL_CONDITION) if hour_s > 0 else {}
        return {
            "model": "hey_jarvis (openWakeWord 0.5.1, onnx)",
            "voices": [v.name for v in VOICES],
            "seeds": list(seeds),
            "shifts_ms": list(shifts),
            "conditions": per_condition,
            "hour": hour,
        }

    return await asyncio.to_thread(run)


# Sleeping CPU with the chosen levers.

QUIET_ROOM_DBFS = -70.0
"""A quiet room through a laptop microphone: its own noise, about -70 dBFS."""


async def sleeping_cpu(
    vad_threshold: float, quiet_gate: bool = True, seconds: float = 60.0, lever: str = "aec"
) -> dict[str, Any]:
    """CPU share (% of one core) of the wake detector, paced at the microphone's rate as it runs asleep:
    in a quiet room (noise at `QUIET_ROOM_DBFS`) and with speech around (the hour's streams), each
    `seconds` long, fed in 80 ms chunks through `lever` (the echo canceller's cost is counted too)."""
    from bench.voice import TimedSource, run_stream
    from tests.voice.fixtures import split
    from voice.wake import OpenWakeWordDetector

    rng = np.random.default_rng(0)
    quiet = to_pcm(rng.standard_normal(round(seconds * RATE)) * 10 ** (QUIET_ROOM_DBFS / 20))
    talk = b"".join(bytes(s.pcm) for s in hour_streams(seconds, seed=11))[: round(seconds * RATE) * 2]
    found: dict[str, Any] = {"vad_threshold": vad_threshold, "quiet_gate": quiet_gate, "lever": lever}
    for name, pcm in (("quiet_room", quiet), ("speech_around", talk)):
        clean = preprocessor(lever)
        started = time.process_time()
        heard = b"".join(clean(pcm[at : at + FRAME_SAMPLES * 2]) for at in range(0, len(pcm), FRAME_SAMPLES * 2))
        cleaning = time.process_time() - started
        async with OpenWakeWordDetector(vad_threshold=vad_threshold, quiet_gate=quiet_gate) as detector:
            events, cpu_s, wall_s = await run_stream(detector, TimedSource(split(heard, FRAME_MS), pace=True))
        found[name] = {
            "audio_s": round(len(pcm) / (2 * RATE), 1),
            "cpu_share_percent": round(100 * (cpu_s + cleaning) / wall_s, 2),
            "of_which_echo_canceller_percent": round(100 * cleaning / wall_s, 2),
            "wakes": len(events),
        }
    return found


def report(results: dict[str, Any]) -> None:
    """A summary: misses (of the positives) and false accepts per condition, at the default and the
    lowest thresholds and with an enrolled verifier; the hour; the CPU."""
    print(f"Wake word across the room: {results['model']}, {len(results['voices'])} voices")
    columns = ("t0.5_vad0", "t0.5_vad0.5", "t0.2_vad0.5", "t0.1_vad0.5", "verifier_overrides_ask0.1_vad0")
    print(f"  {'condition':22} {'lever':10} " + " ".join(f"{c:>24}" for c in columns) + "   (missed/positives, false)")
    for condition, by_lever in results["conditions"].items():
        for lever, row in by_lever.items():
            cells = [
                f"{row[c]['missed']}/{row[c]['positives']} ({100 * row[c]['missed'] / row[c]['positives']:.0f} %), "
                f"{row[c]['false_accepts']}"
                if c in row
                else "-"
                for c in columns
            ]
            print(f"  {condition:22} {lever:10} " + " ".join(f"{cell:>24}" for cell in cells))
    hour = results.get("hour") or {}
    if hour:
        print(f"  hour of other speech and noise ({hour['seconds']} s, {hour['lever']}); false wakes by kind:")
        for name, kinds in hour.items():
            if isinstance(kinds, dict):
                print(f"    {name:26} " + ", ".join(f"{kind} {n}" for kind, n in sorted(kinds.items())))
    for row in results.get("sleeping_cpu", []):
        print(
            f"  sleeping CPU (vad {row['vad_threshold']}, quiet gate {row['quiet_gate']}): quiet room "
            f"{row['quiet_room']['cpu_share_percent']} %, speech around {row['speech_around']['cpu_share_percent']} %"
        )


async def measure_all(quick: bool = False) -> dict[str, Any]:
    """`measure` (the goal room only, one seed and 5 minutes of other speech when `quick`), then the
    sleeping CPU share with and without the quiet gate and the VAD gate."""
    if quick:
        found = await measure(conditions=(GOAL_CONDITION,), levers=("raw", "aec"), seeds=(0,), hour_s=300.0)
    else:
        found = await measure()
    found["sleeping_cpu"] = [await sleeping_cpu(vad, gate) for vad in (0.0, 0.5) for gate in (False, True)]
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the goal room only, one seed, 5 minutes of other speech")
    parser.add_argument("--out", type=Path, default=RESULTS / "wake_rooms.json")
    arguments = parser.parse_args()
    results = asyncio.run(measure_all(quick=arguments.quick))
    arguments.out.parent.mkdir(parents=True, exist_ok=True)
    arguments.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    report(results)


if __name__ == "__main__":
    main()
