"""The settings dialog's sound: the level test on the chosen microphone, and enrolling the wake word
(three recordings through a simulated room, the verifier trained and stored)."""

from __future__ import annotations

from collections.abc import AsyncIterator

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from app.config.settings import Settings
from app.runtime import Runtime
from app.wake_enrolment import load_verifier, verifier_path
from tests.ui.conftest import TIMEOUT_MS
from tests.ui.settings_dialog_parts import DEVICES, Talker
from ui.settings.dialog import SettingsDialog
from voice.audio.chunks import MIC_FORMAT, AudioChunk, AudioSource
from voice.audio.synthetic import SyntheticSource, frames, silence, tone
from voice.errors import NoAudioDevice
from voice.wake.verifier import WakeVerifier


class BrokenMicrophone:
    """A microphone that cannot be opened, as `MicrophoneSource` fails on a machine without one."""

    format = MIC_FORMAT

    async def chunks(self) -> AsyncIterator[AudioChunk]:
        raise NoAudioDevice("no microphone found: the device is busy (test)")
        yield  # a generator, as a real source is

    async def aclose(self) -> None:
        return None


def test_the_level_test_listens_to_the_chosen_microphone(qtbot: QtBot, settings: Settings, runtime: Runtime) -> None:
    opened: list[str | None] = []

    def microphone(device: str | None) -> AudioSource:
        opened.append(device)
        return SyntheticSource(frames(silence(200), tone(400, amplitude=0.1)))

    dialog = SettingsDialog(settings, runtime, devices=lambda: DEVICES, microphone=microphone, env={})
    qtbot.addWidget(dialog)
    dialog.input_device.setCurrentText("USB Microphone")
    QTest.mouseClick(dialog.level.button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.level.result.text().startswith("Loudest"), timeout=TIMEOUT_MS)
    assert dialog.level.result.text() == "Loudest in 3 s: -20 dBFS"
    assert opened == ["USB Microphone"]
    assert dialog.level.button.isEnabled()


def test_a_microphone_that_cannot_be_opened_is_one_line(qtbot: QtBot, settings: Settings, runtime: Runtime) -> None:
    dialog = SettingsDialog(settings, runtime, devices=lambda: DEVICES, microphone=lambda _: BrokenMicrophone(), env={})
    qtbot.addWidget(dialog)
    QTest.mouseClick(dialog.level.button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.level.result.text().startswith("Failed"), timeout=TIMEOUT_MS)
    assert dialog.level.result.text() == "Failed: no microphone found: the device is busy (test)"


def enrolment_dialog(qtbot: QtBot, settings: Settings, runtime: Runtime, talker: Talker) -> SettingsDialog:
    dialog = SettingsDialog(settings, runtime, devices=lambda: DEVICES, microphone=talker, env={})
    qtbot.addWidget(dialog)
    dialog.input_device.setCurrentText("USB Microphone")
    dialog.show()
    qtbot.waitExposed(dialog)
    return dialog


def test_enrol_records_the_wake_word_three_times_and_trains_the_verifier(
    qtbot: QtBot, settings: Settings, runtime: Runtime
) -> None:
    talker = Talker("wake_hey_jarvis")
    dialog = enrolment_dialog(qtbot, settings, runtime, talker)
    assert dialog.enrolment.result.isHidden() and not verifier_path(settings).exists()
    QTest.mouseClick(dialog.enrolment.button, Qt.MouseButton.LeftButton)
    assert not dialog.enrolment.button.isEnabled()  # one enrolment at a time
    qtbot.waitUntil(lambda: dialog.enrolment.result.text().startswith("Enrolled"), timeout=60_000)
    assert dialog.enrolment.result.text() == "Enrolled: the wake word listens for your voice now."
    assert talker.opened == ["USB Microphone"] * 3
    assert dialog.enrolment.button.isEnabled()
    # The same file `parley wake enrol` writes, and the detector Parley builds uses it.
    assert isinstance(load_verifier(settings), WakeVerifier)


def test_enrol_without_the_wake_word_says_so_and_stores_nothing(
    qtbot: QtBot, settings: Settings, runtime: Runtime
) -> None:
    dialog = enrolment_dialog(qtbot, settings, runtime, Talker("speech_hello"))
    QTest.mouseClick(dialog.enrolment.button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.enrolment.result.text().startswith("Not enrolled"), timeout=60_000)
    assert dialog.enrolment.result.text().startswith("Not enrolled: recording 1: no wake word heard (best score 0.0")
    assert dialog.enrolment.button.isEnabled()
    assert not verifier_path(settings).exists()


def test_enrol_with_a_microphone_that_cannot_be_opened_is_one_line(
    qtbot: QtBot, settings: Settings, runtime: Runtime
) -> None:
    dialog = SettingsDialog(settings, runtime, devices=lambda: DEVICES, microphone=lambda _: BrokenMicrophone(), env={})
    qtbot.addWidget(dialog)
    QTest.mouseClick(dialog.enrolment.button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.enrolment.result.text().startswith("Not enrolled"), timeout=TIMEOUT_MS)
    assert dialog.enrolment.result.text() == "Not enrolled: no microphone found: the device is busy (test)"
    assert dialog.enrolment.button.isEnabled()


def test_a_quiet_microphone_gets_a_hint(qtbot: QtBot, settings: Settings, runtime: Runtime) -> None:
    dialog = SettingsDialog(
        settings, runtime, devices=lambda: DEVICES, microphone=lambda _: SyntheticSource([silence(400)]), env={}
    )
    qtbot.addWidget(dialog)
    QTest.mouseClick(dialog.level.button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.level.result.text().startswith("Loudest"), timeout=TIMEOUT_MS)
    assert dialog.level.result.text() == (
        "Loudest in 3 s: -96 dBFS (very quiet: is this the right microphone, and is it muted?)"
    )


# -- the key tests, against fake services ------------------------------------------------------------
