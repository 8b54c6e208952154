"""Settings loaded from a given config file, and the keys the settings tests use (the config file itself is
`tests/app/conftest.py`'s `config` fixture)."""

from __future__ import annotations

from pathlib import Path

from app.config.settings import Override, Settings, load_settings

GEMINI_KEY = "AIzaSyTest-gemini-key-0123456789abcdef"
OPENAI_KEY = "sk-test-openai-key-0123456789abcdef"


def load(config: Path, env: dict[str, str] | None = None, overrides: dict[str, Override] | None = None) -> Settings:
    return load_settings(overrides, {"PARLEY_CONFIG": str(config), **(env or {})})
