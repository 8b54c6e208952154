"""Speech to text with faster-whisper on Whisper base (CTranslate2, int8): the only module that imports
`faster_whisper`.

Facts that shape it (measured on a 2-core machine, bench/offline.py):
- Whisper reads 30 s windows whatever the utterance's length, so one utterance costs about 0.7-1.0 s
  with 2 threads: the largest part of the delay between the end of speech and the answer. It runs while
  the chat model waits, so it takes both cores.
- Beam search (5) rather than greedy: on the espeak-ng fixtures it halves the word errors on short
  phrases ("hey jarvis" in other voices), for about 0.25 s more per utterance.
- One temperature (0), no fallback: the fallback re-decodes a doubtful window up to five more times with
  sampling, which makes transcripts differ from run to run and, on a short utterance, can triple its cost.
- A prompt naming the assistant (`voice.offline.text.whisper_prompt`) stands in for earlier text: it
  makes the wake word's name likelier without naming anything the user might ask.
- English, no timestamps, no conditioning on earlier windows; the pre-trimmed utterance needs no VAD
  filter of its own.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from faster_whisper import WhisperModel

from voice.offline.errors import OfflineVoiceError

WHISPER_THREADS = 2
LANGUAGE = "en"
BEAM_SIZE = 5


class WhisperTranscriber:
    """Blocking: call from a worker thread, one call at a time."""

    def __init__(self, model_folder: Path, *, threads: int = WHISPER_THREADS) -> None:
        try:
            self._model = WhisperModel(str(model_folder), device="cpu", compute_type="int8", cpu_threads=threads)
        except (RuntimeError, OSError, ValueError) as error:
            raise OfflineVoiceError(f"cannot load the Whisper model from {model_folder}: {error}") from error

    def transcribe(self, pcm: bytes, prompt: str | None = None) -> str:
        """16 kHz mono PCM16 in; what was said, as plain text ("" for nothing). `prompt` reads as text
        said before the utterance (see `voice.offline.text.whisper_prompt`)."""
        if not pcm:
            return ""
        samples = np.frombuffer(pcm, dtype="<i2").astype(np.float32) / 32768.0
        segments, _ = self._model.transcribe(
            samples,
            language=LANGUAGE,
            beam_size=BEAM_SIZE,
            temperature=0.0,
            initial_prompt=prompt,
            condition_on_previous_text=False,
            without_timestamps=True,
            vad_filter=False,
        )
        return " ".join(segment.text.strip() for segment in segments).strip()
