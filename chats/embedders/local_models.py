"""Which local embedder serves a user's language (how memory search reads its cosines:
`chats.memory.ranking.memory_ranking_for`).

Measured on bench/language_set.json and LoCoMo (bench/languages.py, bench/chats.py, bench/memory.py):
- all-MiniLM-L6-v2 stays the English model: on LoCoMo it leads the multilingual model (switch hit@3
  0.862 against 0.847 with given summaries; facts recall@5 0.617 against 0.555 fused), and it found
  every English request and memory of the multilingual set.
- Universal Sentence Encoder Multilingual v3 (`chats.embedders.use_multilingual`) serves every other language and
  "auto": with MiniLM a memory said in English was found by a question in another language 26% of the
  time (recall@5), with it 69-100%; it is also 50 times faster per query and takes a fifth of the memory.

A store holds the vectors of the model that made them (each row names it) and search compares only like
with like, so a change of language setting that changes the model is a change of model: the turn
backfill re-embeds (`chats.maintenance.TurnIndexer`), as for any other change of embedder.

A memory said in another language than English, with the setting on English, is embedded by the
multilingual model all the same (`OtherLanguages`): with MiniLM, 27 short English questions found 6 of 23
Italian memories they were about (13 of 23 German ones at its 0.22 floor); with the multilingual model 22 and
21 (tests/app/test_honest_memory.py's `LABELLED`, translated).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chats.embedders.embedding import Embedder
from chats.embedders.local_embedder import InProcessEmbedder
from chats.embedders.minilm import MODEL_NAME as MINILM_MODEL_NAME
from chats.embedders.minilm import MiniLMEmbedder
from chats.embedders.use_multilingual import MODEL_NAME as USE_MODEL_NAME
from chats.embedders.use_multilingual import MultilingualEmbedder
from chats.language.words import detect
from languages.registry import Language


def local_model_for(language: str | None) -> str:
    """The name of the local model for a user's language (an ISO 639-1 code; None or "auto": not known)."""
    return MINILM_MODEL_NAME if language == "en" else USE_MODEL_NAME


def local_embedder_for(language: str | None, cache: Path | None = None) -> InProcessEmbedder[Any]:
    """A new local embedder for a user's language (see `local_model_for`); `cache`: where the multilingual
    model is kept ready to read fast (None: read as its package reads it)."""
    return local_embedder_named(local_model_for(language), cache)


def local_embedder_named(model: str, cache: Path | None = None) -> InProcessEmbedder[Any]:
    """A new local embedder of the model named `model` (MiniLM's or the multilingual encoder's, read from `cache`
    when given); its weights load on its first use."""
    if model == MINILM_MODEL_NAME:
        return MiniLMEmbedder()
    if model == USE_MODEL_NAME:
        return MultilingualEmbedder(cache=cache)
    raise ValueError(f"no local embedding model is named {model!r}: {MINILM_MODEL_NAME} or {USE_MODEL_NAME}")


@dataclass(frozen=True, slots=True)
class OtherLanguages:
    """The embedder of the texts another embedder cannot read, which reads `reads` alone (MiniLM: English):
    a text in another language is embedded by `embedder`."""

    reads: Language
    embedder: Embedder

    def takes(self, text: str) -> bool:
        """Whether `text` is for `embedder`: said in another language than `reads` (a text too short to tell
        is taken to be in `reads`, the user's language, as `chats.language.words.detect` takes it)."""
        return detect(text, hint=self.reads) != self.reads


def other_languages_for(language: str | None, cache: Path | None = None) -> OtherLanguages | None:
    """What embeds a memory the local embedder of a user's `language` cannot read: the multilingual model
    beside MiniLM; None beside the multilingual model, which reads them all."""
    if language is None or local_model_for(language) != MINILM_MODEL_NAME:
        return None
    return OtherLanguages(language, MultilingualEmbedder(cache=cache))
