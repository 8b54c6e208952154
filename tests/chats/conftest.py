from __future__ import annotations

import pytest

from chats.minilm import MiniLMEmbedder


@pytest.fixture(scope="session")
def minilm() -> MiniLMEmbedder:
    """The real local embedder, loaded once for the whole run."""
    return MiniLMEmbedder()
