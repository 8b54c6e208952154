"""Where the tests prepare the offline models: once per test session, in a cache folder laid out as the
app's (`<XDG_CACHE_HOME>/parley/models`), shared by the voice and the app tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from voice.offline.engine import ModelFolders, prepare_files


def xdg_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The session's XDG cache folder (for `XDG_CACHE_HOME`)."""
    return tmp_path_factory.getbasetemp() / "xdg-cache"


def prepared_models(tmp_path_factory: pytest.TempPathFactory) -> ModelFolders:
    """The prepared model folders (made the first time, about 5 s; found after that)."""
    return prepare_files(xdg_cache(tmp_path_factory) / "parley" / "models")
