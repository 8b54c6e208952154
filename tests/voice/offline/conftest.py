"""The real offline models, loaded once per test session: Whisper base, SmolLM2 on CTranslate2, Silero VAD,
espeak-ng. The model files are prepared into one cache folder for the session (about 5 s the first time)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.voice.offline.models import AskedChatModel, prepared_models
from voice.echo.vad import load_session
from voice.offline.engine import LoadedTranscriber, ModelFolders, OfflineVoice
from voice.offline.transcriber import WhisperTranscriber


@pytest.fixture(scope="session")
def model_folders(tmp_path_factory: pytest.TempPathFactory) -> ModelFolders:
    return prepared_models(tmp_path_factory)


@pytest.fixture(scope="session")
def asked_model(model_folders: ModelFolders) -> AskedChatModel:
    return AskedChatModel(model_folders.chat)


@pytest.fixture(scope="session")
def loaded_whisper(model_folders: ModelFolders) -> WhisperTranscriber:
    return WhisperTranscriber(model_folders.whisper)


@pytest.fixture(scope="session")
def offline_voice(loaded_whisper: WhisperTranscriber, asked_model: AskedChatModel) -> Iterator[OfflineVoice]:
    voice = OfflineVoice(transcribers=LoadedTranscriber(loaded_whisper), chat=asked_model, vad=load_session())
    yield voice
    voice.close()
