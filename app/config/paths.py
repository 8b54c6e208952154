"""Where Parley keeps its files by default: the config file, the data folder, the prepared offline models."""

from __future__ import annotations

from pathlib import Path

import platformdirs

APP_NAME = "parley"


def default_config_file() -> Path:
    return platformdirs.user_config_path(APP_NAME) / "config.toml"


def default_data_dir() -> Path:
    return platformdirs.user_data_path(APP_NAME)


def model_cache() -> Path:
    """Where the offline models are prepared once (the joined Whisper model, the converted chat model)."""
    return platformdirs.user_cache_path(APP_NAME) / "models"
