"""The first-start guide, as a user goes through it: the microphone heard on a live meter and a chime played,
"hey Jarvis" said three times from a simulated room (the enrolment the next wake detector uses), the
language saved, a Gemini key tested against the fake Live server, and every step skipped. Also the window
offering it at its first start only, and Settings running it again."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import aclosing
from pathlib import Path

import keyring
import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QComboBox, QDialog, QLineEdit, QProgressBar, QPushButton, QWidget
from pytestqt.qtbot import QtBot

from app.config.secrets import KEYRING_SERVICE
from app.config.settings import Settings, load_settings
from app.front.device_checks import MicrophoneFactory
from app.front.first_start import guide_done
from app.runtime import Runtime
from app.wake_enrolment import as_heard, verifier_path, wake_detector
from tests.fakes.gemini_live_server import FakeGeminiLiveServer
from tests.ui.conftest import TIMEOUT_MS, settings_on_live_server
from tests.ui.settings_dialog_parts import DEVICES, Talker
from tests.voice.fixtures import read_pcm, split, stream
from tests.voice.rooms import GOAL_CONDITION, SimulatedRoom
from tests.voice.session_harness import RecordingSink
from ui.app import offer_first_start_guide, open_window
from ui.first_start.guide import FirstStartGuide
from ui.settings.dialog import SettingsDialog
from voice.audio.chunks import AudioSource
from voice.audio.synthetic import SyntheticSource, frames, silence, tone

CLICK = Qt.MouseButton.LeftButton


def make_guide(
    qtbot: QtBot,
    settings: Settings,
    runtime: Runtime,
    microphone: MicrophoneFactory | None = None,
    speaker: RecordingSink | None = None,
) -> FirstStartGuide:
    sink = speaker or RecordingSink()
    guide = FirstStartGuide(
        settings,
        runtime,
        devices=lambda: list(DEVICES),
        microphone=microphone or Talker("wake_hey_jarvis"),
        speaker=lambda _device: sink,
        env={},
    )
    qtbot.addWidget(guide)
    guide.show()
    qtbot.waitExposed(guide)
    return guide


def reload(settings: Settings) -> Settings:
    return load_settings({"data_dir": str(settings.data_dir), "config_file": str(settings.config_file)}, env={})


def stored_gemini_key() -> str | None:
    return keyring.get_password(KEYRING_SERVICE, "gemini_api_key")


async def wakes(settings: Settings, pcm: bytes) -> int:
    async with wake_detector(settings) as detector, aclosing(detector.detections(stream(split(pcm)))) as events:
        return len([event async for event in events])


def test_the_guide_enrols_the_voice_saves_the_choices_and_the_next_detector_uses_them(
    qtbot: QtBot, settings: Settings, runtime: Runtime
) -> None:
    talker = Talker("wake_hey_jarvis")
    guide = make_guide(qtbot, settings, runtime, talker)
    assert guide.currentPage() is guide.devices_page
    guide.devices_page.input_device.setCurrentText("USB Microphone")
    QTest.mouseClick(guide.button(guide.WizardButton.NextButton), CLICK)

    assert guide.currentPage() is guide.enrol_page
    QTest.mouseClick(guide.enrol_page.enrolment.button, CLICK)
    assert not guide.validateCurrentPage()  # Next waits for the enrolment
    qtbot.waitUntil(lambda: guide.enrol_page.enrolment.result.text().startswith("Enrolled"), timeout=90_000)
    assert talker.opened == ["USB Microphone"] * 3
    QTest.mouseClick(guide.button(guide.WizardButton.NextButton), CLICK)

    assert guide.currentPage() is guide.language_page
    guide.language_page.language.setCurrentIndex(guide.language_page.language.findData("it"))
    QTest.mouseClick(guide.button(guide.WizardButton.NextButton), CLICK)
    assert guide.currentPage() is guide.key_page
    QTest.mouseClick(guide.skip_button, CLICK)  # stay offline

    assert guide.result() == QDialog.DialogCode.Accepted
    fresh = reload(settings)
    assert (fresh.language, fresh.input_device) == ("it", "USB Microphone")
    assert stored_gemini_key() is None
    assert guide_done(settings)
    assert verifier_path(settings).is_file()
    # From where the plain model misses it (seed 1 of the goal room), the user's wake word wakes the
    # detector Parley builds next; other speech there still does not.
    room = SimulatedRoom(GOAL_CONDITION, 1)
    assert asyncio.run(wakes(fresh, as_heard(room.microphone(read_pcm("wake_hey_jarvis"))))) == 1
    assert asyncio.run(wakes(fresh, as_heard(room.microphone(read_pcm("speech_hello"))))) == 0


def test_every_step_can_be_skipped_and_nothing_is_saved(qtbot: QtBot, settings: Settings, runtime: Runtime) -> None:
    before = settings.config_file.read_bytes()
    guide = make_guide(qtbot, settings, runtime)
    guide.devices_page.input_device.setCurrentText("USB Microphone")  # chosen, then skipped
    guide.language_page.language.setCurrentIndex(guide.language_page.language.findData("de"))
    guide.key_page.key.setText("AIza-never-tested")
    for page in (guide.devices_page, guide.enrol_page, guide.language_page, guide.key_page):
        assert guide.currentPage() is page
        QTest.mouseClick(guide.skip_button, CLICK)
    assert guide.result() == QDialog.DialogCode.Accepted
    assert settings.config_file.read_bytes() == before
    assert not verifier_path(settings).exists()
    assert stored_gemini_key() is None
    assert guide_done(settings)  # skipped through is through: it does not come back on its own


def test_the_microphone_test_moves_the_meter_and_the_speaker_plays_the_chime(
    qtbot: QtBot, settings: Settings, runtime: Runtime
) -> None:
    def speaking(_device: str | None) -> AudioSource:
        return SyntheticSource(frames(silence(400), tone(1_000, 440, amplitude=0.3), silence(2_000)))

    sink = RecordingSink()
    guide = make_guide(qtbot, settings, runtime, speaking, sink)
    page = guide.devices_page
    seen: list[int] = []
    page.level.meter.valueChanged.connect(seen.append)
    QTest.mouseClick(page.level.button, CLICK)
    qtbot.waitUntil(lambda: page.level.result.text().startswith("Loudest"), timeout=TIMEOUT_MS)
    assert page.level.result.text() == "Loudest in 3 s: -10 dBFS"
    qtbot.waitUntil(lambda: max(seen) == 83, timeout=TIMEOUT_MS)  # -10 dBFS: it moved with the voice
    QTest.mouseClick(page.sound_button, CLICK)
    qtbot.waitUntil(lambda: page.sound_result.text().startswith("Played"), timeout=TIMEOUT_MS)
    assert len(b"".join(sink.played)) > 0


@pytest.fixture
def live_settings(tmp_path: Path, live_server: FakeGeminiLiveServer) -> Iterator[Settings]:
    yield from settings_on_live_server(tmp_path, live_server, {})


def to_key_page(qtbot: QtBot, settings: Settings, runtime: Runtime) -> FirstStartGuide:
    guide = make_guide(qtbot, settings, runtime)
    for _ in range(3):
        QTest.mouseClick(guide.skip_button, CLICK)
    assert guide.currentPage() is guide.key_page
    return guide


def test_a_refused_key_is_one_line_and_a_working_one_is_stored_at_finish(
    qtbot: QtBot, runtime: Runtime, live_settings: Settings, live_server: FakeGeminiLiveServer
) -> None:
    guide = to_key_page(qtbot, live_settings, runtime)
    page = guide.key_page
    wrong = "AIza-wrong-key-9999"
    page.key.setText(wrong)
    QTest.mouseClick(guide.button(guide.WizardButton.FinishButton), CLICK)
    qtbot.waitUntil(lambda: page.result.text().startswith("Failed: "), timeout=TIMEOUT_MS)
    assert "Gemini Live refused the API key" in page.result.text()
    assert wrong not in page.result.text() and "\n" not in page.result.text()
    assert guide.isVisible() and stored_gemini_key() is None  # still on the page, nothing stored

    page.key.setText(live_server.api_key)
    QTest.mouseClick(guide.button(guide.WizardButton.FinishButton), CLICK)
    qtbot.waitUntil(lambda: guide.result() == QDialog.DialogCode.Accepted, timeout=TIMEOUT_MS)
    assert page.result.text().startswith("The Gemini key works") and page.result.text().endswith("OS keyring.")
    assert stored_gemini_key() == live_server.api_key
    assert b"AIza" not in live_settings.config_file.read_bytes()


def test_the_window_offers_the_guide_at_its_first_start_only(
    qtbot: QtBot, settings: Settings, runtime: Runtime
) -> None:
    window = open_window(settings, runtime, tray_available=False)
    qtbot.addWidget(window.main)
    mute = window.main.voice.mute_action
    guide = offer_first_start_guide(window, settings)
    assert guide is not None and guide.isVisible()
    assert mute.isChecked()  # the enrolment's "hey Jarvis" must not wake Parley
    guide.reject()  # closed: through as well
    assert not mute.isChecked()
    assert guide_done(settings)
    assert offer_first_start_guide(window, settings) is None


def test_settings_runs_the_guide_again_and_shows_what_it_saved(
    qtbot: QtBot, settings: Settings, runtime: Runtime
) -> None:
    opened: list[FirstStartGuide] = []

    def guide(parent: QWidget) -> FirstStartGuide:
        opened.append(FirstStartGuide(settings, runtime, parent, devices=lambda: list(DEVICES), env={}))
        return opened[-1]

    dialog = SettingsDialog(settings, runtime, devices=lambda: list(DEVICES), env={}, guide=guide)
    qtbot.addWidget(dialog)
    QTest.mouseClick(dialog.guide_button, CLICK)
    assert len(opened) == 1 and opened[0].isVisible()
    opened[0].devices_page.output_device.setCurrentText("Headphones")
    QTest.mouseClick(opened[0].button(opened[0].WizardButton.NextButton), CLICK)
    QTest.mouseClick(opened[0].skip_button, CLICK)
    opened[0].language_page.language.setCurrentIndex(opened[0].language_page.language.findData("fr"))
    QTest.mouseClick(opened[0].button(opened[0].WizardButton.NextButton), CLICK)
    QTest.mouseClick(opened[0].skip_button, CLICK)
    assert dialog.language.currentData() == "fr"
    assert dialog.output_device.currentData() == "Headphones"
    assert dialog.changes() == {}  # what the guide saved is not a change of the dialog's to save again


def test_without_a_settings_guide_there_is_no_button(qtbot: QtBot, settings: Settings, runtime: Runtime) -> None:
    dialog = SettingsDialog(settings, runtime, devices=list, env={})
    qtbot.addWidget(dialog)
    assert dialog.guide_button.isHidden()


def test_every_control_of_the_guide_has_an_accessible_name(qtbot: QtBot, settings: Settings, runtime: Runtime) -> None:
    guide = make_guide(qtbot, settings, runtime)
    controls = [
        widget
        for page in (guide.devices_page, guide.enrol_page, guide.language_page, guide.key_page)
        for widget in page.findChildren(QWidget)
        if isinstance(widget, QLineEdit | QComboBox | QPushButton | QProgressBar)
    ]
    assert len(controls) == 9
    assert [w for w in controls if not w.accessibleName()] == []
    assert guide.skip_button.accessibleName() == "Skip this step"


def test_a_start_hidden_in_the_tray_leaves_the_guide_for_a_start_in_view(
    qtbot: QtBot, settings: Settings, runtime: Runtime
) -> None:
    window = open_window(settings, runtime, tray_available=True, hidden=True)
    qtbot.addWidget(window.main)
    window.tray.quit_action.setEnabled(False)  # nothing here may quit the test's application
    assert offer_first_start_guide(window, settings) is None
    assert not guide_done(settings)


def test_without_a_sound_card_the_guide_says_so_and_goes_on(qtbot: QtBot, settings: Settings, runtime: Runtime) -> None:
    guide = FirstStartGuide(settings, runtime, devices=list, env={})
    qtbot.addWidget(guide)
    guide.show()
    qtbot.waitExposed(guide)
    page = guide.devices_page
    assert (
        page.problem.text()
        == "No audio devices found: no sound card, and no sound server running: skip this step for now."
    )
    assert not page.level.button.isEnabled() and not page.sound_button.isEnabled()
    assert not guide.enrol_page.enrolment.button.isEnabled()
    QTest.mouseClick(guide.button(guide.WizardButton.NextButton), CLICK)  # nothing chosen, nothing to save
    assert guide.currentPage() is guide.enrol_page
