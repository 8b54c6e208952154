from __future__ import annotations

import pytest

from chats.minilm import MiniLMEmbedder

# The local Supabase project (Postgres with pgvector, GoTrue and PostgREST doubles), started once per run.
from tests.fakes.supabase_stack import postgres_cluster, supabase_stack  # noqa: F401


@pytest.fixture(scope="session")
def minilm() -> MiniLMEmbedder:
    """The real local embedder, loaded once for the whole run."""
    return MiniLMEmbedder()
