"""Speech to text with faster-whisper on Whisper base (CTranslate2, int8): the only module that imports
`faster_whisper`.

Facts that shape it (measured on a 2-core machine):
- Whisper reads 30 s windows whatever the utterance's length, so one utterance costs about 0.55-0.7 s
  with 2 threads (0.9 s with one): the largest part of the delay between the end of speech and the
  answer. It runs while the chat model waits, so it takes both cores.
- Greedy decoding (beam 1), English, no timestamps, no conditioning on earlier text: the same words as
  beam 5 on clear speech, at half the time. The pre-trimmed utterance needs no VAD filter of its own.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from faster_whisper import WhisperModel

from voice.offline.errors import OfflineVoiceError

WHISPER_THREADS = 2
LANGUAGE = "en"


class WhisperTranscriber:
    """Blocking: call from a worker thread, one call at a time."""

    def __init__(self, model_folder: Path, *, threads: int = WHISPER_THREADS) -> None:
        try:
            self._model = WhisperModel(str(model_folder), device="cpu", compute_type="int8", cpu_threads=threads)
        except (RuntimeError, OSError, ValueError) as error:
            raise OfflineVoiceError(f"cannot load the Whisper model from {model_folder}: {error}") from error

    def transcribe(self, pcm: bytes) -> str:
        """16 kHz mono PCM16 in; what was said, as plain text ("" for nothing)."""
        if not pcm:
            return ""
        samples = np.frombuffer(pcm, dtype="<i2").astype(np.float32) / 32768.0
        segments, _ = self._model.transcribe(
            samples,
            language=LANGUAGE,
            beam_size=1,
            condition_on_previous_text=False,
            without_timestamps=True,
            vad_filter=False,
        )
        return " ".join(segment.text.strip() for segment in segments).strip()
