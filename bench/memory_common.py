"""What every section of `bench.memory` shares: the embedder, LoCoMo, a scratch folder and the options
(`Bench`), how many memories a search returns, and the 95th percentile."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from bench import locomo
from chats.embedders.embedding import Matrix
from chats.embedders.minilm import MiniLMEmbedder

TOP = 5


@dataclass
class Bench:
    """What every section shares: the embedder, LoCoMo, a scratch folder and the options."""

    embedder: MiniLMEmbedder
    corpus: list[locomo.Conversation]
    folder: Path
    sizes: list[int]
    _vectors: dict[str, Matrix] = field(default_factory=dict)

    def embed(self, key: str, texts: Sequence[str]) -> Matrix:
        """Embed once per run: several sections use the same facts and questions."""
        if key not in self._vectors:
            self._vectors[key] = self.embedder.embed_sync(texts)
        return self._vectors[key]

    def facts(self) -> list[locomo.Observation]:
        return [o for c in self.corpus for o in c.observations]

    def fact_vectors(self) -> Matrix:
        return self.embed("facts", [o.text for o in self.facts()])

    def questions(self) -> list[locomo.Question]:
        return [q for c in self.corpus for q in c.questions]

    def question_vectors(self) -> Matrix:
        return self.embed("questions", [q.text for q in self.questions()])


def p95(values: Sequence[float]) -> float:
    return float(np.percentile(values, 95))
