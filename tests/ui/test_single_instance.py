"""One window per data folder: a second `parley` on the same chats brings the open window to the front
and exits; on other chats, or once the window has gone, a window opens as usual."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.config.settings import Settings
from ui.app import ALREADY_OPEN, run_window
from ui.main_window import MainWindow
from ui.single_instance import WindowSocket, show_open_window


def test_a_start_on_the_same_chats_reaches_the_open_window(qtbot: QtBot, tmp_path: Path) -> None:
    window = WindowSocket(tmp_path / "chats")
    with qtbot.waitSignal(window.show_requested):
        assert show_open_window(tmp_path / "chats")
    assert not show_open_window(tmp_path / "other chats")


def test_once_the_window_has_gone_nothing_answers(qtbot: QtBot, tmp_path: Path) -> None:
    window = WindowSocket(tmp_path)
    window.deleteLater()
    qtbot.waitUntil(lambda: not show_open_window(tmp_path))


def test_a_window_that_crashed_is_replaced(qtbot: QtBot, tmp_path: Path) -> None:
    # The socket file of a window that died without closing it stays behind; the next window takes over.
    # (The first socket is never closed here: closing would take its file away.)
    crashed = WindowSocket(tmp_path)
    reached_crashed: list[None] = []
    crashed.show_requested.connect(lambda: reached_crashed.append(None))
    replacement = WindowSocket(tmp_path)
    with qtbot.waitSignal(replacement.show_requested):
        assert show_open_window(tmp_path)
    assert not reached_crashed


def test_parley_while_its_window_is_open_shows_that_window_and_opens_none(
    qapp: QApplication, qtbot: QtBot, settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    window = WindowSocket(settings.data_dir)
    with qtbot.waitSignal(window.show_requested):
        assert run_window(settings) == 0
    assert capsys.readouterr().out.strip() == ALREADY_OPEN
    assert not [widget for widget in QApplication.topLevelWidgets() if isinstance(widget, MainWindow)]
