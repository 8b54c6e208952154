"""The voice controls: what they ask for, and how they show the state, the level and the mute switch."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QMainWindow, QWidget
from pytestqt.qtbot import QtBot

from app.core.status import VoiceStatus
from ui.tray.status import meter_percent
from ui.voice.controls import VoiceControls


class ControlsWindow(QMainWindow):
    def __init__(self) -> None:
        super().__init__()
        self.controls = VoiceControls(self)
        central = QWidget()
        central.setLayout(self.controls.talk_row())
        self.setCentralWidget(central)
        self.controls.add_to(self.statusBar())


def make_window(qtbot: QtBot) -> ControlsWindow:
    window = ControlsWindow()
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    return window


def test_typing_sends_the_text_once_and_clears_the_box(qtbot: QtBot) -> None:
    window = make_window(qtbot)
    controls = window.controls
    typed: list[str] = []
    controls.text_typed.connect(typed.append)
    QTest.keyClicks(controls.text_box, "  what's on my list?  ")
    QTest.keyClick(controls.text_box, Qt.Key.Key_Return)
    QTest.keyClick(controls.text_box, Qt.Key.Key_Return)  # an empty box sends nothing
    assert typed == ["what's on my list?"]
    assert controls.text_box.text() == ""


def test_the_first_character_of_each_message_says_typing_started(qtbot: QtBot) -> None:
    window = make_window(qtbot)
    controls = window.controls
    started: list[bool] = []
    controls.typing_started.connect(lambda: started.append(True))
    QTest.keyClicks(controls.text_box, "hello")
    assert started == [True]  # once, not at every character
    QTest.keyClick(controls.text_box, Qt.Key.Key_Return)
    QTest.keyClicks(controls.text_box, "again")
    assert started == [True, True]


def test_push_to_talk_from_the_button(qtbot: QtBot) -> None:
    window = make_window(qtbot)
    controls = window.controls
    with qtbot.waitSignal(controls.talk_requested, timeout=1000):
        controls.talk_button.click()


def test_no_voice_means_no_talking_or_typing(qtbot: QtBot) -> None:
    window = make_window(qtbot)
    controls = window.controls
    controls.show_level(-20.0)
    controls.show_state(VoiceStatus.OFF)
    assert controls.state_label.text() == "Assistant: off"
    assert not controls.talk_button.isEnabled() and not controls.text_box.isEnabled()
    assert not controls.talk_shortcut.isEnabled()
    assert controls.level_meter.value() == 0
    controls.show_state(VoiceStatus.RESPONDING)
    assert controls.state_label.text() == "Assistant: speaking"
    assert controls.talk_button.isEnabled() and controls.text_box.isEnabled()


def test_the_meter_shows_the_level_unless_muted(qtbot: QtBot) -> None:
    window = make_window(qtbot)
    controls = window.controls
    controls.show_level(-30.0)
    assert controls.level_meter.value() == 50
    controls.mute_action.trigger()
    assert controls.level_meter.value() == 0
    controls.show_level(-10.0)
    assert controls.level_meter.value() == 0
    assert controls.mute_action.text() == "Unm&ute microphone"


def test_the_meter_scale() -> None:
    assert [meter_percent(db) for db in (-90.0, -60.0, -45.0, -6.0, 0.0, 3.0)] == [0, 0, 25, 90, 100, 100]
