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
  makes the wake word's name likelier without naming anything the user might ask. Given audio with no
  speech it can read, Whisper says the prompt back: that transcript is dropped (`echoes`).
- Whisper base is multilingual: it is told the user's language, or, with none given ("auto"), finds it
  in the first 30 s window and says which it found (`Heard.language`), among the languages the caller
  speaks (`among`): on espeak-ng's Italian and French, Whisper base named Czech and Japanese (at 0.55),
  and transcribed gibberish in them; told its best guess among the supported ones, it hears the words.
  No timestamps, no conditioning on earlier windows; the pre-trimmed utterance needs no VAD filter.
- A short command ("stop" over a ringing timer) needs no 30 s window: CTranslate2 4.x runs Whisper's
  encoder on fewer frames, and the encoder is most of the cost (`transcribe_command`).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
from faster_whisper import WhisperModel
from faster_whisper.audio import pad_or_trim
from faster_whisper.tokenizer import Tokenizer
from faster_whisper.transcribe import get_ctranslate2_storage

from languages.registry import codes
from voice.offline.errors import OfflineVoiceError
from voice.offline.heard import Heard

WHISPER_THREADS = 2
LANGUAGE = "en"
_WHISPER = codes("whisper")
"""Whisper's code of each language Parley speaks: callers and `Heard.language` use Parley's codes."""
_PARLEY = {whisper: code for code, whisper in _WHISPER.items()}
BEAM_SIZE = 5
COMMAND_WINDOW_S = 10
"""Seconds of audio Whisper's encoder reads for a short command (`transcribe_command`), where a whole
utterance reads 30: on one core at load 8, 0.37 s of encoder against 2.2 s, and espeak-ng's "stop" still
"Stop." (mean log probability -0.19 against -0.05); at 5 s and under, Whisper base repeated the word until
its token limit. bench/tools_stop_over_ring.py measures the spotter with it."""
COMMAND_TOKENS = 24
"""A command's transcript is cut at this many tokens: a few words, and a model that repeats itself stops."""
_WORDS = re.compile(r"\w+")
FRAMES_PER_SECOND = 100
"""Whisper's log-Mel frames: one every 10 ms."""


class WhisperTranscriber:
    """Blocking: call from a worker thread, one call at a time."""

    def __init__(self, model_folder: Path, *, threads: int = WHISPER_THREADS) -> None:
        try:
            self._model = WhisperModel(str(model_folder), device="cpu", compute_type="int8", cpu_threads=threads)
        except (RuntimeError, OSError, ValueError) as error:
            raise OfflineVoiceError(f"cannot load the Whisper model from {model_folder}: {error}") from error

    def transcribe(
        self, pcm: bytes, prompt: str | None = None, language: str | None = LANGUAGE, among: Collection[str] = ()
    ) -> Heard:
        """16 kHz mono PCM16 in; what was said, as plain text ("" for nothing). `prompt` reads as text
        said before the utterance (see `voice.offline.text.whisper_prompt`); `language`: the code of the
        language spoken, None to let Whisper find it, among the codes `among` when given (then
        `language_probability` is the share of its probability among them)."""
        if not pcm:
            return Heard("", language or LANGUAGE, 1.0 if language else 0.0)
        samples = np.frombuffer(pcm, dtype="<i2").astype(np.float32) / 32768.0
        heard = self._decode(samples, prompt, language)
        if language is not None or not among or not heard.probabilities:
            return heard.heard
        chances = {code: p for code, p in heard.probabilities if code in among}
        best = max(chances, key=lambda code: chances[code], default=None)
        if best is None:
            return heard.heard
        share = chances[best] / sum(chances.values())
        if best == heard.heard.language:
            return replace(heard.heard, language=best, language_probability=share)
        return replace(self._decode(samples, prompt, best).heard, language=best, language_probability=share)

    def transcribe_command(self, pcm: bytes, prompt: str, language: str) -> Heard:
        """A short utterance (under `COMMAND_WINDOW_S`, a command such as "stop") in `language` (a code), read
        on a `COMMAND_WINDOW_S` window: the same model and prompt as `transcribe`, about 5 times faster. Its
        prompt is the commands listened for (`voice.offline.spotter`): a transcript in its words is kept."""
        samples = np.frombuffer(pcm, dtype="<i2").astype(np.float32) / 32768.0
        model = self._model
        features = pad_or_trim(model.feature_extractor(samples), COMMAND_WINDOW_S * FRAMES_PER_SECOND)
        encoded = model.model.encode(get_ctranslate2_storage(features[np.newaxis]), to_cpu=False)
        tokenizer = Tokenizer(
            model.hf_tokenizer, model.model.is_multilingual, task="transcribe", language=_WHISPER[language]
        )
        asked = model.get_prompt(tokenizer, tokenizer.encode(" " + prompt.strip()), without_timestamps=True)
        [result] = model.model.generate(
            encoded,
            [asked],
            beam_size=BEAM_SIZE,
            max_length=len(asked) + COMMAND_TOKENS,
            return_scores=True,
            suppress_blank=True,
            suppress_tokens=[-1],
        )
        tokens = [token for token in result.sequences_ids[0] if token < tokenizer.eot]
        # As faster-whisper averages a segment's log probability (its length penalty is 1).
        log_probability = result.scores[0] * len(result.sequences_ids[0]) / (len(result.sequences_ids[0]) + 1)
        return Heard(tokenizer.decode(tokens).strip(), language, 1.0, log_probability if tokens else 0.0)

    def _decode(self, samples: np.ndarray, prompt: str | None, language: str | None) -> _Decoded:
        segments, info = self._model.transcribe(
            samples,
            language=None if language is None else _WHISPER[language],
            beam_size=BEAM_SIZE,
            temperature=0.0,
            initial_prompt=prompt,
            condition_on_previous_text=False,
            without_timestamps=True,
            vad_filter=False,
        )
        segments = list(segments)
        text = " ".join(segment.text.strip() for segment in segments).strip()
        found = _PARLEY.get(info.language, info.language)
        if echoes(text, prompt):  # nothing said: nor a language to find in it, nor to decode again in
            return _Decoded(Heard("", found, 0.0), ())
        tokens = sum(len(segment.tokens) for segment in segments)
        log_probability = sum(s.avg_logprob * len(s.tokens) for s in segments) / tokens if tokens else 0.0
        heard = Heard(text, found, 1.0 if language else info.language_probability, log_probability)
        return _Decoded(heard, tuple((_PARLEY.get(code, code), p) for code, p in info.all_language_probs or ()))


def echoes(text: str, prompt: str | None) -> bool:
    """`text` is only words of `prompt`, in its order: what Whisper says of audio with no speech it can
    read (silence, noise, the two channels of a stereo recording that cancel out), its prompt said back
    ("A user speaks to Jarvis."), as if it were the user's."""
    words = " ".join(_WORDS.findall(text.lower()))
    return bool(words) and prompt is not None and f" {words} " in f" {' '.join(_WORDS.findall(prompt.lower()))} "


@dataclass(frozen=True, slots=True)
class _Decoded:
    heard: Heard
    probabilities: tuple[tuple[str, float], ...]
    """Every language's probability, when Whisper found the language itself."""
