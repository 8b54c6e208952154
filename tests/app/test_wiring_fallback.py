"""What `app.wiring` composes when a key chooses a remote model: the service, with its local twin behind it."""

from __future__ import annotations

from contextlib import AsyncExitStack
from pathlib import Path

import pytest

from app.config.settings import load_settings
from app.wiring import make_embedder, make_text_model, open_chat_services
from chats.degrade import part_of
from chats.embedders.fallback_embedder import FallbackEmbedder
from chats.embedders.minilm import MODEL_NAME as MINILM
from chats.text.fallback_text import FallbackTextModel
from chats.text.offline_text import NAME as OFFLINE
from tests.app import MemoryKeyring, using_keyring


def config(tmp_path: Path) -> str:
    path = tmp_path / "config.toml"
    path.write_text("", encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(
    ("env", "part", "model"),
    [
        ({"GEMINI_API_KEY": "g-key"}, "Gemini embeddings", "gemini-embedding-2@768"),
        ({"OPENAI_API_KEY": "sk-key"}, "OpenAI embeddings", "text-embedding-3-small@384"),
    ],
)
async def test_a_remote_embedder_comes_with_the_local_model_behind_it(
    tmp_path: Path, env: dict[str, str], part: str, model: str
) -> None:
    with using_keyring(MemoryKeyring()):
        settings = load_settings(env={"PARLEY_CONFIG": config(tmp_path), "PARLEY_LANGUAGE": "en", **env})
    async with AsyncExitStack() as closing:
        embedder = make_embedder(settings, closing)
        assert isinstance(embedder, FallbackEmbedder)
        assert (embedder.model_name, embedder.twin.model_name, embedder.part.name) == (model, MINILM, part)


async def test_gemini_text_comes_with_the_offline_writer_behind_it(tmp_path: Path) -> None:
    with using_keyring(MemoryKeyring()):
        settings = load_settings(env={"PARLEY_CONFIG": config(tmp_path), "GEMINI_API_KEY": "g-key"})
    async with AsyncExitStack() as closing:
        text = make_text_model(settings, closing)
        offline = make_text_model(load_settings(env={"PARLEY_CONFIG": config(tmp_path)}), closing)
    assert isinstance(text, FallbackTextModel) and text.part.name == "Gemini summaries and titles"
    assert offline.name == OFFLINE


async def test_the_text_model_made_on_first_use_shows_its_part_before_and_after(tmp_path: Path) -> None:
    # Maintenance reads the remote part when it is made, before any title is asked for: the catch-up after
    # an outage depends on it.
    with using_keyring(MemoryKeyring()):
        gemini = load_settings(
            env={"PARLEY_CONFIG": config(tmp_path), "GEMINI_API_KEY": "g-key", "PARLEY_DATA_DIR": str(tmp_path / "g")}
        )
        offline = load_settings(env={"PARLEY_CONFIG": config(tmp_path), "PARLEY_DATA_DIR": str(tmp_path / "o")})
    async with open_chat_services(gemini) as services:
        part = part_of(services.text_model)
        assert part is not None and part.name == "Gemini summaries and titles"
        assert services.text_model.name != OFFLINE  # now made: the Gemini model, behind the same part
        assert part_of(services.text_model) is part
    async with open_chat_services(offline) as services:
        assert part_of(services.text_model) is None
