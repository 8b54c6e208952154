"""The tray icon on a real (offscreen) window: closing hides to the tray or quits, the icon follows the
state and the mute switch, its menu shows, hides and quits."""

from __future__ import annotations

import gc
import weakref

from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication, QMainWindow
from pytestqt.qtbot import QtBot

from app.config.settings import Settings
from app.core.status import VoiceStatus
from app.runtime import Runtime
from ui.app import open_window
from ui.tray.icon import Tray, app_icon
from ui.voice.controls import VoiceControls


def make_window(qtbot: QtBot) -> tuple[QMainWindow, VoiceControls]:
    window = QMainWindow()
    qtbot.addWidget(window)
    controls = VoiceControls(window)
    window.show()
    qtbot.waitExposed(window)
    return window, controls


def test_closing_hides_the_window_and_parley_keeps_running(qtbot: QtBot, qapp: QApplication) -> None:
    window, controls = make_window(qtbot)
    tray = Tray(window, controls.mute_action, close_to_tray=True, available=True)
    try:
        assert not qapp.quitOnLastWindowClosed()
        assert not window.close()  # the close is refused: the window hides instead
        assert not window.isVisible()
        tray.menu.aboutToShow.emit()
        assert tray.show_action.text() == "Show Parley"
        tray.show_action.trigger()
        assert window.isVisible()
        tray.menu.aboutToShow.emit()
        assert tray.show_action.text() == "Hide Parley"
    finally:
        qapp.setQuitOnLastWindowClosed(True)


def test_without_a_tray_closing_closes(qtbot: QtBot, qapp: QApplication) -> None:
    window, controls = make_window(qtbot)
    tray = Tray(window, controls.mute_action, close_to_tray=True, available=False)
    assert not tray.keeps_running
    assert qapp.quitOnLastWindowClosed()
    assert window.close()
    assert not window.isVisible()


def test_close_to_tray_can_be_switched_off(qtbot: QtBot, qapp: QApplication) -> None:
    window, controls = make_window(qtbot)
    tray = Tray(window, controls.mute_action, close_to_tray=False, available=True)
    assert not tray.keeps_running
    assert window.close()


def test_the_icon_follows_the_state_and_the_mute_switch(qtbot: QtBot) -> None:
    window, controls = make_window(qtbot)
    tray = Tray(window, controls.mute_action, close_to_tray=False, available=False)
    sleeping = tray.icon.icon().pixmap(32).toImage()
    tray.show_state(VoiceStatus.RESPONDING)
    assert tray.icon.toolTip() == "Parley: speaking"
    assert tray.icon.icon().pixmap(32).toImage() != sleeping
    controls.mute_action.trigger()  # the window's mute and the tray's are one action
    assert tray.icon.toolTip() == "Parley: speaking, microphone muted"
    assert controls.mute_action in tray.menu.actions()
    assert controls.mute_action.text() == "Unm&ute microphone"


def test_the_composed_window_is_freed_without_the_garbage_collector(
    qtbot: QtBot, qapp: QApplication, runtime: Runtime, settings: Settings
) -> None:
    """No reference cycle through the window: the collector could otherwise delete its widgets from the
    runtime thread, where Qt crashes."""
    gc.collect()
    gc.disable()
    try:
        opened = open_window(settings, runtime, tray_available=True)
        window = weakref.ref(opened.main)
        opened.tray.quit_action.setEnabled(False)  # nothing here may quit the test's application
        opened.main.hide()
        del opened
        assert window() is None
    finally:
        gc.enable()
        qapp.setQuitOnLastWindowClosed(True)


def test_the_window_and_the_tray_show_parleys_own_icon(qtbot: QtBot) -> None:
    window, controls = make_window(qtbot)
    tray = Tray(window, controls.mute_action, close_to_tray=False, available=False)
    own = app_icon().pixmap(32).toImage()
    shown = tray.icon.icon().pixmap(32).toImage()
    bubble = QColor("#2563eb")  # the speech bubble of app/icons/parley.svg

    def near(colour: QColor, other: QColor) -> bool:
        return all(abs(a - b) <= 12 for a, b in zip(rgb(colour), rgb(other), strict=True))

    def rgb(colour: QColor) -> tuple[int, int, int]:
        return colour.red(), colour.green(), colour.blue()

    # The icon, with the state's dot at its lower right: the upper left is the icon's own bubble.
    assert near(own.pixelColor(8, 8), bubble) and near(shown.pixelColor(8, 8), bubble)
    assert not near(shown.pixelColor(25, 25), own.pixelColor(25, 25))


def test_started_hidden_it_waits_in_the_tray_unless_there_is_none(
    qtbot: QtBot, qapp: QApplication, runtime: Runtime, settings: Settings
) -> None:
    try:
        for available in (True, False):
            opened = open_window(settings, runtime, tray_available=available, hidden=True)
            opened.tray.quit_action.setEnabled(False)  # nothing here may quit the test's application
            assert opened.main.isVisible() is not available  # without a tray, hiding would lose the window
            assert not opened.main.windowIcon().isNull()
            opened.main.hide()
    finally:
        qapp.setQuitOnLastWindowClosed(True)
