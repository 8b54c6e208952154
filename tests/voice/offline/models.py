"""Where the tests prepare the offline models: once per test session, in a cache folder laid out as the
app's (`<XDG_CACHE_HOME>/parley/models`), shared by the voice and the app tests; and the chat model that
keeps what it was asked."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from voice.offline.chat_model import ChatModel
from voice.offline.engine import ModelFolders, prepare_files
from voice.offline.prompt import ChatMessage


def xdg_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The session's XDG cache folder (for `XDG_CACHE_HOME`)."""
    return tmp_path_factory.getbasetemp() / "xdg-cache"


def prepared_models(tmp_path_factory: pytest.TempPathFactory) -> ModelFolders:
    """The prepared model folders (made the first time, about 5 s; found after that)."""
    return prepare_files(xdg_cache(tmp_path_factory) / "parley" / "models")


class AskedChatModel(ChatModel):
    """The real chat model, keeping what it was asked to answer: the seam where a connection's prompt and
    history reach the model, to assert on when its words are too weak to (a greedy answer of the 135M
    model is the same run to run on one machine, but CTranslate2's int8 kernels differ between CPUs)."""

    def __init__(self, folder: Path) -> None:
        super().__init__(folder)
        self.asked: list[tuple[str, list[ChatMessage]]] = []
        """(system prompt, messages) for each answer started, in order."""
        self.warmed: list[str] = []
        """The system prompt of each warm-up, in order."""

    def warm(self, system: str) -> None:
        self.warmed.append(system)
        super().warm(system)

    def stream(self, system: str, messages: Sequence[ChatMessage], cancel: threading.Event) -> Iterator[str]:
        self.asked.append((system, list(messages)))
        return super().stream(system, messages, cancel)
