from __future__ import annotations

import pytest

from chats.embedders.minilm import MiniLMEmbedder


@pytest.fixture(scope="session")
def minilm() -> MiniLMEmbedder:
    """The real local embedder, loaded once for the whole run."""
    return MiniLMEmbedder()
