"""The `voice_model` setting: who answers voice conversations."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.config.config_file import SettingsError
from app.config.settings import load_settings
from tests.app import MemoryKeyring, using_keyring


@pytest.fixture(autouse=True)
def empty_keyring() -> Iterator[None]:
    with using_keyring(MemoryKeyring()):
        yield


def voice_models(tmp_path: Path, **env: str) -> tuple[str, str]:
    config = tmp_path / "config.toml"
    config.write_text("", encoding="utf-8")
    settings = load_settings(env={"PARLEY_CONFIG": str(config), **env})
    return settings.voice_model, settings.effective_voice_model


def test_auto_is_gemini_with_a_key_and_offline_without(tmp_path: Path) -> None:
    assert voice_models(tmp_path) == ("auto", "offline")
    assert voice_models(tmp_path, GEMINI_API_KEY="a-key") == ("auto", "gemini")
    assert voice_models(tmp_path, GEMINI_API_KEY="a-key", PARLEY_VOICE_MODEL="offline") == ("offline", "offline")
    assert voice_models(tmp_path, PARLEY_VOICE_MODEL="gemini") == ("gemini", "gemini")


def test_an_unknown_voice_model_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match="PARLEY_VOICE_MODEL must be one of auto, gemini, offline"):
        voice_models(tmp_path, PARLEY_VOICE_MODEL="llama")
