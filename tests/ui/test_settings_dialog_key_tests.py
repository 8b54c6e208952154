"""Each key's "Test" in the settings dialog against a fake service: the fake Live server on a thread of its
own, the fake OpenAI server; a refusal is one line without the key."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from app.config.secrets import set_secret
from app.config.settings import Settings, load_settings
from app.runtime import Runtime
from tests.fakes.gemini_live_server import FakeGeminiLiveServer
from tests.fakes.openai_server import FAKE_API_KEY, FakeOpenAIServer
from tests.ui.conftest import TIMEOUT_MS, settings_on_live_server
from tests.ui.settings_dialog_parts import (
    make_dialog,
    stored,
)


@pytest.fixture
def live_settings(tmp_path: Path, live_server: FakeGeminiLiveServer) -> Iterator[Settings]:
    yield from settings_on_live_server(tmp_path, live_server, {})


def test_the_gemini_test_opens_a_live_session_with_the_typed_key(
    qtbot: QtBot, runtime: Runtime, live_settings: Settings, live_server: FakeGeminiLiveServer
) -> None:
    dialog = make_dialog(qtbot, live_settings, runtime)
    row = dialog.keys["gemini"]
    row.field.setText(live_server.api_key)
    QTest.mouseClick(row.test_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: row.result.text().startswith("The Gemini key works"), timeout=TIMEOUT_MS)
    assert live_settings.gemini_live_model in row.result.text()
    assert row.test_button.isEnabled()
    assert [c.api_key for c in live_server.connections] == [live_server.api_key]
    assert live_server.connections[0].setup["model"].endswith(live_settings.gemini_live_model)
    assert stored("gemini") is None  # testing does not store


def test_the_gemini_test_uses_the_stored_key_when_none_is_typed(
    qtbot: QtBot, runtime: Runtime, live_settings: Settings, live_server: FakeGeminiLiveServer
) -> None:
    set_secret("gemini", live_server.api_key)
    dialog = make_dialog(qtbot, live_settings, runtime)
    row = dialog.keys["gemini"]
    QTest.mouseClick(row.test_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: row.result.text().startswith("The Gemini key works"), timeout=TIMEOUT_MS)


def test_a_refused_gemini_key_is_one_line_without_the_key(
    qtbot: QtBot, runtime: Runtime, live_settings: Settings, live_server: FakeGeminiLiveServer
) -> None:
    wrong = "AIza-wrong-key-9999"
    dialog = make_dialog(qtbot, live_settings, runtime)
    row = dialog.keys["gemini"]
    row.field.setText(wrong)
    QTest.mouseClick(row.test_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: row.result.text().startswith("Failed: "), timeout=TIMEOUT_MS)
    assert "Gemini Live refused the API key" in row.result.text()
    assert wrong not in row.result.text() and "\n" not in row.result.text()


def test_testing_without_any_key_says_so(qtbot: QtBot, settings: Settings, runtime: Runtime) -> None:
    dialog = make_dialog(qtbot, settings, runtime)
    row = dialog.keys["gemini"]
    QTest.mouseClick(row.test_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: row.result.text().startswith("Failed: "), timeout=TIMEOUT_MS)
    assert "no Gemini key to test" in row.result.text()


def openai_settings(settings: Settings, base_url: str) -> Settings:
    return load_settings(
        {"data_dir": str(settings.data_dir), "config_file": str(settings.config_file)},
        env={"PARLEY_OPENAI_BASE_URL": base_url},
    )


def test_the_openai_test_embeds_one_word(
    qtbot: QtBot, settings: Settings, runtime: Runtime, openai_server: FakeOpenAIServer
) -> None:
    dialog = make_dialog(qtbot, openai_settings(settings, openai_server.base_url), runtime)
    row = dialog.keys["openai"]
    row.field.setText(FAKE_API_KEY)
    QTest.mouseClick(row.test_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: row.result.text().startswith("The OpenAI key works"), timeout=TIMEOUT_MS)
    assert [r.inputs for r in openai_server.embedding_requests] == [["test"]]


def test_a_refused_openai_key_is_one_line_without_the_key(
    qtbot: QtBot, settings: Settings, runtime: Runtime, openai_server: FakeOpenAIServer
) -> None:
    wrong = "sk-wrong-key-0000"
    dialog = make_dialog(qtbot, openai_settings(settings, openai_server.base_url), runtime)
    row = dialog.keys["openai"]
    row.field.setText(wrong)
    QTest.mouseClick(row.test_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: row.result.text().startswith("Failed: "), timeout=TIMEOUT_MS)
    assert row.result.text() == "Failed: the OpenAI API key was refused"


# -- the main window's way in ------------------------------------------------------------------------
