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
"""

from __future__ import annotations

from typing import Any

from chats.embedders.local_embedder import InProcessEmbedder
from chats.embedders.minilm import MODEL_NAME as MINILM_MODEL_NAME
from chats.embedders.minilm import MiniLMEmbedder
from chats.embedders.use_multilingual import MODEL_NAME as USE_MODEL_NAME
from chats.embedders.use_multilingual import MultilingualEmbedder


def local_model_for(language: str | None) -> str:
    """The name of the local model for a user's language (an ISO 639-1 code; None or "auto": not known)."""
    return MINILM_MODEL_NAME if language == "en" else USE_MODEL_NAME


def local_embedder_for(language: str | None) -> InProcessEmbedder[Any]:
    """A new local embedder for a user's language (see `local_model_for`)."""
    return local_embedder_named(local_model_for(language))


def local_embedder_named(model: str) -> InProcessEmbedder[Any]:
    """A new local embedder of the model named `model` (MiniLM's or the multilingual encoder's); its weights load
    on its first use."""
    if model == MINILM_MODEL_NAME:
        return MiniLMEmbedder()
    if model == USE_MODEL_NAME:
        return MultilingualEmbedder()
    raise ValueError(f"no local embedding model is named {model!r}: {MINILM_MODEL_NAME} or {USE_MODEL_NAME}")
