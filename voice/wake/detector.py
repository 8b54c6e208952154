"""Wake word detection with openWakeWord 0.5.1 and the ONNX models its wheel ships.

The only module that imports `openwakeword`. Facts that shape it:

- openWakeWord scores 80 ms frames (1280 samples of 16 kHz mono PCM16); chunks of any other size are
  cut into such frames here, so 30 ms chunks and 80 ms chunks give the same scores.
- Inference (about 1.5 ms of CPU per frame for one model, more at the microphone's pace with the
  caches cold between frames) runs on a single worker thread owned by the detector: never on the event loop,
  and the frames of a stream stay in order.
- A stream gets a fresh openWakeWord model: `Model.reset()` clears only the score history, not the
  audio feature buffers, and a wake word heard at the end of one stream fired again on the silence
  that opened the next.
- Each new model is fed about 2 s of digital silence before it hears the stream. Its feature extractor
  starts from features of random noise (`np.random` in `AudioFeatures.__init__`); flushing them makes
  the same audio always score the same, and the first frames of a stream count like any other.
- Scores stay above the threshold for 4-10 frames per utterance, sometimes with a one-frame dip:
  one detection per utterance, then nothing until the scores have stayed below the threshold for
  `rearm_ms`.
- Always `inference_framework="onnx"`: the tflite default crashes with numpy 2.
- In a room the bundled models lose wakes mostly to reverberation, not noise: at 2 m with RT60 0.45 s
  and no noise at all, hey_jarvis missed 21 of 72 (12 voices, bench/wake_rooms.py). WebRTC's and
  Speex's noise suppressors and WebRTC's gain control do not bring them back (as many or more misses);
  lowering the threshold does, but wakes on other speech. Dereverberation does not either: nara-wpe's
  WPE (10 taps, each clip dereverberated whole, better than it could be done live) lost 25 of 72 at the
  goal room against 26 without it; nor does slowing fast talkers down (12 % slower: 53 lost). What works
  is the user's own verifier (voice/wake/verifier.py), asked from `VERIFIER_THRESHOLD` on; except in
  babble, where it rejects more of the user's wakes than it saves.
- Its package's `__init__` imports its custom verifier's trainer, and with it scikit-learn and scipy: 80 MB
  resident and 3 s of import on a 2-core machine, for a function Parley never calls (its own verifier is
  voice/wake/verifier.py). `_model_class` imports the package with that one module stood in for.
- Silence costs nothing: `QuietGate` keeps frames under -60 dBFS from the model and hands the last
  2 s of them over when sound comes, so scores are exactly those of a model that heard everything.

The pretrained models (hey_jarvis, alexa, hey_mycroft, hey_rhasspy) are licensed CC BY-NC-SA 4.0.
"""

from __future__ import annotations

import asyncio
import math
import sys
from collections import deque
from collections.abc import AsyncGenerator, AsyncIterable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from importlib.util import find_spec
from pathlib import Path
from types import ModuleType, TracebackType
from typing import Any, Self, TypeVar

import numpy as np
from numpy.typing import NDArray

from voice.audio.chunks import MIC_FORMAT, AudioChunk
from voice.errors import WakeModelError
from voice.wake.frames import FRAME_BYTES, FRAME_MS, FRAME_SAMPLES, Debounce, Reframer
from voice.wake.protocol import WakeEvent
from voice.wake.quiet_gate import MEL_FLUSH_FRAMES, QuietGate
from voice.wake.verifier import Run, WakeVerifier, Windows
from voice.wake.verifier_file import VerifierFile

BUILT_IN_MODELS = ("hey_jarvis", "alexa", "hey_mycroft", "hey_rhasspy")
"""The wake words whose ONNX models come with openWakeWord 0.5.1 (`resources/models/<name>_v0.1.onnx`)."""
RAW_HISTORY_SAMPLES = 2 * FRAME_SAMPLES
"""Samples of raw audio the feature extractor keeps: a frame plus the 480 samples of context its
mel-spectrogram needs (openWakeWord's own 10 s are never read further back)."""

VAD_THRESHOLD = 0.0
"""openWakeWord's Silero VAD gate stays off by default (issue 13 asked to switch it on only if it keeps
every wake and removes false ones). bench/wake_rooms.py, 12 rooms x 12 voices x 6 positions (864 wakes),
at the default threshold 0.5: with the gate at 0.5, 3 more wakes were missed (470 against 467) and 1
false wake in the rooms' negatives went away (1 to 0); over an hour of other speech and noise it changed
nothing (3 false wakes, all on near words like "Jarvis Cocker", with and without). It pays off only at
low thresholds (at 0.1: 35 false wakes in the hour without it, 23 with it), which Parley does not use.
Its CPU is lost in the noise behind the quiet gate (1.96 % against 1.97 % of a core with speech around)."""
VERIFIER_THRESHOLD = 0.1
"""openWakeWord's `custom_verifier_threshold` (its default too): the model's score at which the verifier
is asked. bench/wake_rooms.py, goal room, 12 users' verifiers: asked from 0.1, 10 of 72 wakes missed
(plain threshold 0.5: 27) and no false wake over their hours of other speech. Asked from lower scores, a
wake needs a surer verifier to keep those hours clean, and misses more: from 0.05, 9 missed and 2 false
wakes (at a verifier probability of 0.6: 11 and 0); from 0.02, 9 and 10 (0.7: 14 and 0); from 0.01, 8
and 14 (0.7: 13 and 0)."""
ENROLMENT_SHIFTS_MS = (0.0, 40.0)
"""An enrolment recording is scored at two offsets within the 80 ms frame grid, so the verifier learns the
phrase at two phases. Not five (openWakeWord's own enrolment takes five random ones): more phases put more
wake word windows against the same negatives and raise the verifier's prior. bench/wake_rooms.py, goal
room, 12 users' verifiers: five phases (0-64 ms) missed 10 of 72 and woke 7 times over their hours of other
speech (19 asked from 0.05); four, 10 and 4; two, 10 and 0 (the other speech's best verifier score 0.45)."""

_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class WakeModel:
    name: str
    """The name events carry: a built-in model's name, or a custom file's stem."""
    path: Path
    """The ONNX file."""


def resolve_model(model: str | Path) -> WakeModel:
    """A built-in model's name ("hey_jarvis", "alexa", "hey_mycroft", "hey_rhasspy") or the path of a
    custom `.onnx` model. Raises `WakeModelError` for an unknown name or a missing or non-ONNX file."""
    if isinstance(model, str) and (name := model.strip().lower().replace(" ", "_")) in BUILT_IN_MODELS:
        return WakeModel(name, _bundled_models() / f"{name}_v0.1.onnx")
    path = Path(model)
    if isinstance(model, str) and path.suffix == "" and len(path.parts) == 1:
        known = ", ".join(BUILT_IN_MODELS)
        raise WakeModelError(f"unknown wake word model {model!r}: use one of {known}, or the path of a .onnx model")
    if path.suffix.lower() != ".onnx":
        raise WakeModelError(f"the wake word model {path} is not an ONNX (.onnx) file")
    if not path.is_file():
        raise WakeModelError(f"the wake word model {path} does not exist")
    return WakeModel(path.stem, path)


def _bundled_models() -> Path:
    # find_spec locates the package without importing it: the import takes over a second
    # (scipy, scikit-learn) and happens later, on the detector's worker thread.
    spec = find_spec("openwakeword")
    if spec is None or not spec.submodule_search_locations:
        raise WakeModelError("openWakeWord is not installed: pip install openwakeword==0.5.1")
    return Path(next(iter(spec.submodule_search_locations))) / "resources" / "models"


TRAINER_MODULE = "openwakeword.custom_verifier_model"


def _model_class() -> Any:
    """`openwakeword.model.Model`, its package imported with a stand-in for the verifier trainer (see the module's
    notes), taken away once imported: whoever imports the trainer itself later gets the real one."""
    stand_in = None
    if "openwakeword" not in sys.modules:
        stand_in = sys.modules.setdefault(TRAINER_MODULE, _untrained())
    try:
        from openwakeword.model import Model
    except ImportError as error:
        raise WakeModelError("openWakeWord is not installed: pip install --no-deps openwakeword==0.5.1") from error
    finally:
        if stand_in is not None and sys.modules.get(TRAINER_MODULE) is stand_in:
            del sys.modules[TRAINER_MODULE]
    return Model


def _untrained() -> ModuleType:
    stand_in = ModuleType(TRAINER_MODULE)

    def train_custom_verifier(*_args: object, **_kwargs: object) -> None:
        raise NotImplementedError("Parley trains its own verifier: voice/wake/verifier.py")

    stand_in.train_custom_verifier = train_custom_verifier  # type: ignore[attr-defined]
    return stand_in


class _Scorer:
    """One openWakeWord model, for one stream. Built and used on the detector's worker thread only."""

    def __init__(
        self,
        model: WakeModel,
        vad_threshold: float,
        verifier: Callable[[], WakeVerifier | None] = lambda: None,
        verifier_threshold: float = 0.1,
        gate: bool = True,
    ) -> None:
        """`verifier`: the user's verifier now, asked at each wake check (it may change between two)."""
        self._verifier = verifier
        self._verifier_threshold = verifier_threshold
        self._gate = QuietGate() if gate else None
        try:
            self._model = _model_class()(
                wakeword_models=[str(model.path)], inference_framework="onnx", vad_threshold=vad_threshold
            )
            # openWakeWord 0.5.1 keeps 10 s of samples in a deque of Python ints and copies all of it
            # into a list on every frame to use the last 1760 samples: once full, that is a third of
            # the CPU of a frame (2.2 ms instead of 1.4). Nothing else reads the deque, and a short
            # one gives the same scores to the last bit.
            features = self._model.preprocessor
            features.raw_data_buffer = deque(features.raw_data_buffer, maxlen=RAW_HISTORY_SAMPLES)
            windows = list(self._model.model_inputs.values())
            if not all(isinstance(n, int) for n in windows):
                # A wake word model takes a window of N audio embeddings; other ONNX models load but
                # declare other inputs (the mel-spectrogram model's is "samples").
                raise ValueError(f"not a wake word model (input length {windows[0]!r}, not a number of frames)")
            self._window = int(windows[0])
            if (first := verifier()) is not None and first.frames != self._window:
                raise ValueError(f"the verifier reads {first.frames} embeddings, the model {self._window}")
            self._silence = bytes(FRAME_BYTES * (MEL_FLUSH_FRAMES + max(windows)))
            self.reset()
        except Exception as error:
            reason = str(error).strip().splitlines()[0][:200] if str(error).strip() else type(error).__name__
            raise WakeModelError(f"the wake word model {model.path} cannot be loaded: {reason}") from error

    def reset(self) -> None:
        """Forget every stream heard so far, as a new model would: no past predictions, then silence
        through every buffer (the model's first five predictions count as 0: silence takes them)."""
        self._model.reset()
        vad = getattr(self._model, "vad", None)
        if vad is not None:
            vad.reset_states()
            vad.prediction_buffer.clear()
        silence = np.frombuffer(self._silence, dtype="<i2")
        for start in range(0, len(silence), FRAME_SAMPLES):
            self._predict(silence[start : start + FRAME_SAMPLES])
        if self._gate is not None:
            self._gate.reset()

    def score(self, frames: bytes) -> list[float]:
        """The score of each 80 ms frame in `frames` (a multiple of `FRAME_BYTES`); 0 for a frame the
        quiet gate keeps from the model."""
        samples = np.frombuffer(frames, dtype="<i2")
        scores = []
        for start in range(0, len(samples), FRAME_SAMPLES):
            frame = samples[start : start + FRAME_SAMPLES]
            due = [frame] if self._gate is None else self._gate.push(frame)
            score = 0.0
            for heard in due:
                score = self._predict(heard)
            scores.append(score)
        return scores

    def windows(self, frames: bytes) -> tuple[NDArray[np.float64], Windows]:
        """Every frame's raw score (no verifier, no gate) and the model's input window after it, shape
        (frames, 16, 96): what an enrolment learns from."""
        samples = np.frombuffer(frames, dtype="<i2")
        scores, windows = [], []
        for start in range(0, len(samples), FRAME_SAMPLES):
            predictions = self._model.predict(samples[start : start + FRAME_SAMPLES])
            scores.append(max(float(value) for value in predictions.values()))
            windows.append(np.asarray(self._model.preprocessor.get_features(self._window)[0], dtype=np.float32))
        return np.array(scores), np.stack(windows)

    def _predict(self, frame: NDArray[np.int16]) -> float:
        score = max(float(value) for value in self._model.predict(frame).values())
        # openWakeWord's custom verifier step, done here so that the verifier can be plain numbers instead
        # of a pickle (voice/wake/verifier.py): at or above `verifier_threshold` the verifier's probability
        # replaces the score, so it can also veto a wake the model is sure of. bench/wake_rooms.py tried
        # the higher of the two instead: it kept more wakes in babble (58 of 72 missed at 10 dB against
        # 69) but also the model's own false wakes on near words (3 an hour, against none). One frame decides:
        # the mean or the lowest of two or three frames' probabilities missed 16-21 of 72 at the goal room
        # with no false wake, against 10. A frame the VAD gate has zeroed never gets this far, as in
        # openWakeWord. The verifier is asked for here, at the wake check, so that an enrolment made while
        # Parley listens counts from the next one (voice/wake/verifier_file.py).
        if score >= self._verifier_threshold and (verifier := self._verifier()) is not None:
            window = self._model.preprocessor.get_features(self._window)
            score = float(verifier.probability(window)[0])
        return score


class OpenWakeWordDetector:
    """The wake word detector: openWakeWord on a single worker thread, one model reset for each stream
    (a new one costs 0.1 s of CPU, much of it holding the interpreter's lock the window needs)."""

    def __init__(
        self,
        model: str | Path = "hey_jarvis",
        *,
        threshold: float = 0.5,
        vad_threshold: float = VAD_THRESHOLD,
        rearm_ms: float = 400.0,
        verifier: WakeVerifier | VerifierFile | None = None,
        verifier_threshold: float = VERIFIER_THRESHOLD,
        quiet_gate: bool = True,
    ) -> None:
        """`model`: a built-in name (`BUILT_IN_MODELS`) or a custom `.onnx` path; a missing file or an
        unknown name raises `WakeModelError` here, an unreadable file on `warm_up` or the first stream.
        `threshold`: the score (0-1) at which a frame counts as the wake word.
        `vad_threshold`: above 0, scores count only where Silero VAD heard speech 320-560 ms earlier
        (`VAD_THRESHOLD`, the default: see there); 0 turns the VAD off.
        `rearm_ms`: how long (milliseconds) the score must stay below the threshold before the wake
        word can fire again on the same stream.
        `verifier`: the user's enrolled verifier (voice/wake/verifier.py), asked about every frame the
        model scores at or above `verifier_threshold`; its probability then stands for the score. As a
        `VerifierFile`, the file's verifier at each such frame: an enrolment (or `forget`) counts at once.
        `quiet_gate`: keep the model asleep on silence (`QuietGate`); scores are the same either way."""
        if not 0.0 < threshold < 1.0:
            raise ValueError(f"threshold must be between 0 and 1, not {threshold}")
        if not 0.0 <= vad_threshold < 1.0:
            raise ValueError(f"vad_threshold must be at least 0 and below 1, not {vad_threshold}")
        if rearm_ms < 0:
            raise ValueError(f"rearm_ms must not be negative, not {rearm_ms}")
        if not 0.0 < verifier_threshold < 1.0:
            raise ValueError(f"verifier_threshold must be between 0 and 1, not {verifier_threshold}")
        self._model = resolve_model(model)
        if isinstance(verifier, WakeVerifier) and verifier.model != self._model.name:
            raise WakeModelError(f"the wake word verifier was trained for {verifier.model}, not {self._model.name}")
        self._verifier: Callable[[], WakeVerifier | None] = (
            verifier.current if isinstance(verifier, VerifierFile) else lambda: verifier
        )
        self._verifier_threshold = verifier_threshold
        self._quiet_gate = quiet_gate
        self._threshold = threshold
        self._vad_threshold = vad_threshold
        self._rearm_frames = max(1, math.ceil(rearm_ms / FRAME_MS))
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="parley-wake")
        self._scorer: _Scorer | None = None
        self._fresh = False
        """Whether the scorer has heard nothing since it was built or reset."""

    @property
    def model_name(self) -> str:
        return self._model.name

    @property
    def threshold(self) -> float:
        """The score (0-1) at which a frame counts as the wake word."""
        return self._threshold

    @threshold.setter
    def threshold(self, threshold: float) -> None:
        """A new threshold counts from the next chunk on, in a stream already being read too (Settings
        change it while Parley sleeps)."""
        if not 0.0 < threshold < 1.0:
            raise ValueError(f"threshold must be between 0 and 1, not {threshold}")
        self._threshold = threshold

    async def warm_up(self) -> None:
        """Load the model now (about 0.1 s of CPU, plus the import of openWakeWord the first time) and
        keep it for the next stream, so a corrupt model file fails at start-up, not at the first wake."""
        if self._scorer is None:
            self._scorer = await self._run(self._new_scorer)
            self._fresh = True

    async def detections(self, chunks: AsyncIterable[AudioChunk]) -> AsyncGenerator[WakeEvent, None]:
        """One `WakeEvent` per wake word in `chunks` (`MIC_FORMAT`, any chunk size), until they end.
        Offsets count the samples received since the first chunk's `start_ms`. Every call is a fresh
        stream, one at a time. Close the generator (`contextlib.aclosing`) when you stop before `chunks`
        ends."""
        scorer = await self._stream_scorer()
        framer = Reframer()
        debounce = Debounce(self._threshold, self._rearm_frames)
        start_ms: float | None = None
        frames_done = 0
        async for chunk in chunks:
            if chunk.format != MIC_FORMAT:
                raise ValueError(f"wake word detection takes 16 kHz mono PCM16 audio, not {chunk.format}")
            if start_ms is None:
                start_ms = chunk.start_ms
            frames = framer.push(chunk.pcm)
            if not frames:
                continue
            debounce.threshold = self._threshold
            for score in await self._run(partial(scorer.score, frames)):
                frames_done += 1
                if debounce.update(score):
                    yield WakeEvent(self._model.name, score, start_ms + frames_done * FRAME_MS)

    async def enrolment_windows(
        self, recording: bytes, shifts_ms: tuple[float, ...] = ENROLMENT_SHIFTS_MS
    ) -> list[Run]:
        """For each shift, `recording` (16 kHz mono PCM16) behind that much silence through a fresh copy
        of the model (no VAD, no verifier, no gate): every frame's score and the model's input window.
        On the worker thread; the detector's own model is left as it was."""

        def run() -> list[Run]:
            scorer = _Scorer(self._model, 0.0, gate=False)
            found = []
            for shift in shifts_ms:
                scorer.reset()
                padded = bytes(round(shift * MIC_FORMAT.rate / 1000) * MIC_FORMAT.width) + recording
                found.append(scorer.windows(padded[: len(padded) - len(padded) % FRAME_BYTES]))
            return found

        return await self._run(run)

    async def aclose(self) -> None:
        """Drop the loaded model and stop the worker thread (after the frame it is scoring, if any)."""
        self._scorer = None
        await asyncio.to_thread(self._executor.shutdown, wait=True, cancel_futures=True)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        await self.aclose()

    async def _stream_scorer(self) -> _Scorer:
        """The model, ready for a new stream: loaded, or reset after the last one."""
        scorer = self._scorer
        if scorer is None:
            scorer = self._scorer = await self._run(self._new_scorer)
        elif not self._fresh:
            await self._run(scorer.reset)
        self._fresh = False
        return scorer

    def _new_scorer(self) -> _Scorer:
        return _Scorer(self._model, self._vad_threshold, self._verifier, self._verifier_threshold, self._quiet_gate)

    async def _run(self, call: Callable[[], _T]) -> _T:
        return await asyncio.get_running_loop().run_in_executor(self._executor, call)
