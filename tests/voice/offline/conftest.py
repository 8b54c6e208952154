"""The real offline models, loaded once per test session: Whisper base, SmolLM2 on CTranslate2, Silero VAD,
espeak-ng. The model files are prepared into one cache folder for the session (about 5 s the first time)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.voice.offline.models import prepared_models
from voice.offline.engine import ModelFolders, OfflineVoice


@pytest.fixture(scope="session")
def model_folders(tmp_path_factory: pytest.TempPathFactory) -> ModelFolders:
    return prepared_models(tmp_path_factory)


@pytest.fixture(scope="session")
def offline_voice(model_folders: ModelFolders) -> Iterator[OfflineVoice]:
    voice = OfflineVoice.load_sync(model_folders.whisper.parent)
    yield voice
    voice.close()
