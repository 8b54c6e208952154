"""Voice activity detection with Silero VAD v6, the ONNX model faster-whisper's wheel ships
(`faster_whisper/assets/silero_vad_v6.onnx`), run with onnxruntime.

Facts that shape it (from faster-whisper's own `SileroVADModel`):

- The model scores windows of 512 samples (32 ms at 16 kHz). Each window is fed with the 64 samples
  before it as context, so the input is 576 samples; the recurrent state (`h`, `c`, each 1x1x128)
  carries from one window to the next. Streaming keeps both: chunks of any size give the same scores.
- About 0.1-0.3 ms of CPU a window on one thread: cheap, but still run off the event loop by the caller.
"""

from __future__ import annotations

from importlib.util import find_spec
from pathlib import Path

import numpy as np
import onnxruntime

from voice.errors import VadModelError

WINDOW_SAMPLES = 512
WINDOW_BYTES = 2 * WINDOW_SAMPLES
CONTEXT_SAMPLES = 64


def silero_model_path() -> Path:
    """The Silero VAD v6 model inside the installed faster-whisper package (found without importing it)."""
    spec = find_spec("faster_whisper")
    if spec is None or not spec.submodule_search_locations:
        raise VadModelError("faster-whisper is not installed: run scripts/setup.sh")
    path = Path(next(iter(spec.submodule_search_locations))) / "assets" / "silero_vad_v6.onnx"
    if not path.is_file():
        raise VadModelError(f"the Silero VAD model is missing from faster-whisper ({path.name})")
    return path


def load_session(path: Path | None = None) -> onnxruntime.InferenceSession:
    """The ONNX session, on one thread; shared by every `SileroVad` (it keeps no state of its own)."""
    options = onnxruntime.SessionOptions()
    options.inter_op_num_threads = 1
    options.intra_op_num_threads = 1
    options.log_severity_level = 4
    return onnxruntime.InferenceSession(
        str(path or silero_model_path()), sess_options=options, providers=["CPUExecutionProvider"]
    )


class SileroVad:
    """Speech probabilities of one stream, window by window; a new one for each stream."""

    def __init__(self, session: onnxruntime.InferenceSession) -> None:
        self._session = session
        self._state = np.zeros((2, 1, 1, 128), dtype=np.float32)
        self._context = np.zeros((1, CONTEXT_SAMPLES), dtype=np.float32)
        self._pending = bytearray()

    def push(self, pcm: bytes) -> list[tuple[bytes, float]]:
        """16 kHz mono PCM16 in; each whole 32 ms window now available, with its speech probability (0-1).
        The rest waits for the next call."""
        self._pending += pcm
        whole = len(self._pending) - len(self._pending) % WINDOW_BYTES
        scored: list[tuple[bytes, float]] = []
        for offset in range(0, whole, WINDOW_BYTES):
            window = bytes(self._pending[offset : offset + WINDOW_BYTES])
            scored.append((window, self._score(window)))
        del self._pending[:whole]
        return scored

    def _score(self, window: bytes) -> float:
        samples = (np.frombuffer(window, dtype="<i2").astype(np.float32) / 32768.0)[None, :]
        batch = np.concatenate([self._context, samples], axis=1)
        output, h, c = self._session.run(None, {"input": batch, "h": self._state[0], "c": self._state[1]})
        self._state = np.stack([h, c])
        self._context = samples[:, -CONTEXT_SAMPLES:]
        return float(np.asarray(output).reshape(-1)[0])
