"""The settings dialog: keys into the (in-memory) keyring and never the config file, other values into the
file where a fresh `load_settings` sees them, refusals shown without changing anything; its controls, devices
and the window's way to it."""

from __future__ import annotations

from pathlib import Path

import pytest
from keyring.backends import fail
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QComboBox,
    QDialog,
    QDoubleSpinBox,
    QKeySequenceEdit,
    QLabel,
    QLineEdit,
    QPushButton,
    QWidget,
)
from pytestqt.qtbot import QtBot

from app.config.desktop_entry import DesktopPaths, autostart_is_on
from app.config.secrets import set_secret
from app.config.settings import Settings
from app.front.device_checks import DeviceLister
from app.runtime import Runtime
from tests.app import using_keyring
from tests.ui.conftest import TIMEOUT_MS
from tests.ui.settings_dialog_parts import (
    GEMINI_KEY,
    OPENAI_KEY,
    make_dialog,
    no_devices,
    reload,
    stored,
)
from ui.bridge import ChatBridge
from ui.main_window import MainWindow
from ui.settings.dialog import SettingsDialog
from ui.widgets import SYSTEM_DEFAULT


def test_typed_keys_go_to_the_keyring_and_never_to_the_config_file(
    qtbot: QtBot, settings: Settings, runtime: Runtime
) -> None:
    dialog = make_dialog(qtbot, settings, runtime)
    assert dialog.keys["gemini"].status.text() == "Not set."
    dialog.keys["gemini"].field.setText(GEMINI_KEY)
    dialog.keys["openai"].field.setText(OPENAI_KEY)
    dialog.wake_word.setCurrentText("alexa")  # so that the file is written too
    QTest.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)

    assert dialog.result() == QDialog.DialogCode.Accepted
    assert (stored("gemini"), stored("openai")) == (GEMINI_KEY, OPENAI_KEY)
    written = settings.config_file.read_bytes()
    assert b"alexa" in written
    assert GEMINI_KEY.encode() not in written and OPENAI_KEY.encode() not in written
    assert b"api_key" not in written
    fresh = reload(settings)
    assert fresh.gemini_api_key is not None and fresh.gemini_api_key.reveal() == GEMINI_KEY
    assert fresh.openai_api_key is not None and fresh.openai_api_key.reveal() == OPENAI_KEY
    assert dialog.keys["gemini"].field.text() == ""
    assert dialog.keys["gemini"].status.text() == "Stored in the OS keyring."


def test_the_key_fields_hide_what_is_typed_and_never_show_a_stored_key(
    qtbot: QtBot, settings: Settings, runtime: Runtime
) -> None:
    set_secret("openai", OPENAI_KEY)
    dialog = SettingsDialog(settings, runtime, devices=list, env={"GEMINI_API_KEY": GEMINI_KEY})
    qtbot.addWidget(dialog)
    for row in dialog.keys.values():
        assert row.field.echoMode() == QLineEdit.EchoMode.Password
        assert row.field.text() == ""
    gemini, openai = dialog.keys["gemini"], dialog.keys["openai"]
    assert gemini.status.text().startswith("Set in the environment (GEMINI_API_KEY or GOOGLE_API_KEY)")
    assert not gemini.clear_button.isEnabled()  # nothing in the keyring to clear
    assert openai.status.text() == "Stored in the OS keyring."
    shown = " ".join(
        [label.text() for label in dialog.findChildren(QLabel)] + [f.text() for f in dialog.findChildren(QLineEdit)]
    )
    assert GEMINI_KEY not in shown and OPENAI_KEY not in shown


def test_clear_removes_the_key_from_the_keyring(qtbot: QtBot, settings: Settings, runtime: Runtime) -> None:
    set_secret("openai", OPENAI_KEY)
    dialog = make_dialog(qtbot, settings, runtime)
    row = dialog.keys["openai"]
    assert row.clear_button.isEnabled()
    QTest.mouseClick(row.clear_button, Qt.MouseButton.LeftButton)
    assert stored("openai") is None
    assert row.status.text() == "Not set."
    assert not row.clear_button.isEnabled()


def test_other_values_persist_to_the_config_file(qtbot: QtBot, settings: Settings, runtime: Runtime) -> None:
    dialog = make_dialog(qtbot, settings, runtime)
    dialog.wake_word.setCurrentText("hey_mycroft")
    dialog.threshold.setValue(0.3)
    dialog.idle_seconds.setValue(25)
    dialog.live_model.setText("gemini-live-test")
    dialog.models_release.setValue(90)
    dialog.input_device.setCurrentText("USB Microphone")
    dialog.output_device.setCurrentText("Headphones")
    dialog.close_to_tray.setChecked(False)
    assert dialog.save()

    assert "close_to_tray = false" in settings.config_file.read_text(encoding="utf-8")
    fresh = reload(settings)
    assert fresh.close_to_tray is False
    assert fresh.wake_word == "hey_mycroft"
    assert fresh.wake_threshold == 0.3
    assert fresh.idle_seconds == 25.0
    assert fresh.gemini_live_model == "gemini-live-test"
    assert fresh.models_release_s == 90.0
    assert (fresh.input_device, fresh.output_device) == ("USB Microphone", "Headphones")


def test_only_changed_values_are_written_and_system_default_removes_a_device(
    qtbot: QtBot, settings: Settings, runtime: Runtime
) -> None:
    settings.config_file.write_text('input_device = "USB Microphone"\n', encoding="utf-8")
    dialog = make_dialog(qtbot, reload(settings), runtime)
    assert dialog.input_device.currentText() == "USB Microphone"
    assert dialog.input_device.count() == 3  # listed once
    assert dialog.changes() == {}
    dialog.input_device.setCurrentText(SYSTEM_DEFAULT)
    assert dialog.changes() == {"input_device": None}
    assert dialog.save()
    assert settings.config_file.read_text(encoding="utf-8") == ""
    assert reload(settings).input_device is None


def test_an_unknown_wake_word_is_refused_and_nothing_changes(
    qtbot: QtBot, settings: Settings, runtime: Runtime, tmp_path: Path
) -> None:
    before = settings.config_file.read_bytes()
    dialog = make_dialog(qtbot, settings, runtime)
    dialog.keys["gemini"].field.setText(GEMINI_KEY)
    dialog.threshold.setValue(0.8)
    dialog.wake_word.setCurrentText(str(tmp_path / "missing.onnx"))
    QTest.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)

    assert dialog.result() != QDialog.DialogCode.Accepted
    assert not dialog.error.isHidden()
    assert dialog.error.text().startswith("Error: ")
    assert "missing.onnx" in dialog.error.text()
    assert settings.config_file.read_bytes() == before
    assert stored("gemini") is None
    assert dialog.keys["gemini"].field.text() == GEMINI_KEY  # kept, so the user can fix the rest and retry


def test_an_empty_live_model_is_refused_and_nothing_changes(qtbot: QtBot, settings: Settings, runtime: Runtime) -> None:
    before = settings.config_file.read_bytes()
    dialog = make_dialog(qtbot, settings, runtime)
    dialog.live_model.setText("  ")
    assert not dialog.save()
    assert "'gemini_live_model' must not be empty" in dialog.error.text()
    assert settings.config_file.read_bytes() == before


def test_a_failure_after_a_key_was_stored_says_so(qtbot: QtBot, settings: Settings, runtime: Runtime) -> None:
    settings.config_file.write_text("wake_word = \n", encoding="utf-8")  # broken since Parley started
    dialog = make_dialog(qtbot, settings, runtime)
    dialog.keys["gemini"].field.setText(GEMINI_KEY)
    assert not dialog.save()
    assert "invalid TOML at line 1" in dialog.error.text()
    assert dialog.error.text().endswith("(the Gemini key was stored before this)")
    assert stored("gemini") == GEMINI_KEY


def test_settings_the_environment_overrides_are_named(qtbot: QtBot, settings: Settings, runtime: Runtime) -> None:
    quiet = SettingsDialog(settings, runtime, devices=list, env={})
    qtbot.addWidget(quiet)
    assert quiet.environment_note.isHidden()
    dialog = SettingsDialog(settings, runtime, devices=list, env={"PARLEY_IDLE_SECONDS": "5", "PARLEY_USER_ID": "x"})
    qtbot.addWidget(dialog)
    assert not dialog.environment_note.isHidden()
    assert dialog.environment_note.text() == (
        "Set in the environment, which wins over what is saved here: PARLEY_IDLE_SECONDS."
    )


def test_the_threshold_cannot_leave_its_range(qtbot: QtBot, settings: Settings, runtime: Runtime) -> None:
    dialog = make_dialog(qtbot, settings, runtime)
    dialog.threshold.setValue(1.5)
    assert dialog.threshold.value() == 1.0
    dialog.threshold.setValue(-0.5)
    assert dialog.threshold.value() == 0.0


def test_without_a_keyring_storing_a_key_is_an_inline_error(qtbot: QtBot, settings: Settings, runtime: Runtime) -> None:
    dialog = make_dialog(qtbot, settings, runtime)
    dialog.keys["openai"].field.setText(OPENAI_KEY)
    with using_keyring(fail.Keyring()):  # type: ignore[no-untyped-call]  # keyring has no hints here
        assert not dialog.save()
    assert "no OS keyring is available; set OPENAI_API_KEY" in dialog.error.text()
    assert OPENAI_KEY not in dialog.error.text()


def test_device_combos_list_inputs_and_outputs_after_the_system_default(
    qtbot: QtBot, settings: Settings, runtime: Runtime
) -> None:
    dialog = make_dialog(qtbot, settings, runtime)
    inputs = [dialog.input_device.itemText(i) for i in range(dialog.input_device.count())]
    outputs = [dialog.output_device.itemText(i) for i in range(dialog.output_device.count())]
    assert inputs == [SYSTEM_DEFAULT, "Built-in Audio", "USB Microphone"]
    assert outputs == [SYSTEM_DEFAULT, "Built-in Audio", "Headphones"]
    assert dialog.input_device.isEnabled() and dialog.device_message.isHidden()


def test_tab_walks_the_controls_in_reading_order(qtbot: QtBot, settings: Settings, runtime: Runtime) -> None:
    dialog = make_dialog(qtbot, settings, runtime)
    dialog.show()
    qtbot.waitExposed(dialog)
    gemini, openai = dialog.keys["gemini"], dialog.keys["openai"]
    expected = [
        gemini.field,
        gemini.test_button,
        openai.field,
        openai.test_button,
        dialog.wake_word,
        dialog.enrolment.button,
        dialog.threshold,
        dialog.language,
        dialog.idle_seconds,
        dialog.talk_shortcut.edit,
        dialog.live_model,
        dialog.models_release,
        dialog.close_to_tray,
        dialog.start_at_login,
        dialog.input_device,
        dialog.level.button,
        dialog.output_device,
        dialog.storage,
        dialog.tools_button,
        dialog.ok_button,
        dialog.cancel_button,
    ]  # the Clear buttons are disabled: no key is in the keyring
    dialog.activateWindow()
    qtbot.waitUntil(dialog.isActiveWindow, timeout=TIMEOUT_MS)
    gemini.field.setFocus()
    walked: list[str] = []
    for _ in expected:
        focused = dialog.focusWidget()
        assert focused is not None
        # The line edit inside an editable combo box, a spin box or a key sequence edit stands for its control.
        parent = focused.parentWidget()
        control = parent if isinstance(parent, QComboBox | QAbstractSpinBox | QKeySequenceEdit) else focused
        walked.append(control.accessibleName())
        QTest.keyClick(focused, Qt.Key.Key_Tab)
    assert walked == [w.accessibleName() for w in expected]


def test_a_configured_device_that_is_not_found_stays_chosen(qtbot: QtBot, settings: Settings, runtime: Runtime) -> None:
    settings.config_file.write_text('output_device = "Old Headset"\n', encoding="utf-8")
    dialog = make_dialog(qtbot, reload(settings), runtime)
    assert dialog.output_device.currentText() == "Old Headset (not found)"
    assert dialog.changes() == {}


@pytest.mark.parametrize(
    ("devices", "message"),
    [
        (no_devices, "No audio device found: the PortAudio library is missing (test)"),
        (list, "No audio devices found: no sound card, and no sound server running"),
    ],
)
def test_without_audio_devices_the_combos_are_disabled_with_the_message(
    qtbot: QtBot, settings: Settings, runtime: Runtime, devices: DeviceLister, message: str
) -> None:
    dialog = SettingsDialog(settings, runtime, devices=devices, env={})
    qtbot.addWidget(dialog)
    assert not dialog.input_device.isEnabled()
    assert not dialog.output_device.isEnabled()
    assert not dialog.level.button.isEnabled()
    assert not dialog.enrolment.button.isEnabled()
    assert not dialog.device_message.isHidden()
    assert dialog.device_message.text() == message
    assert dialog.save()  # the rest of the dialog still works


def test_every_control_has_an_accessible_name(qtbot: QtBot, settings: Settings, runtime: Runtime) -> None:
    dialog = make_dialog(qtbot, settings, runtime)
    controls = [
        widget
        for widget in dialog.findChildren(QWidget)
        if isinstance(widget, QLineEdit | QComboBox | QDoubleSpinBox | QPushButton)
        # The line edits inside a combo box or a spin box are parts of that control.
        and not isinstance(widget.parentWidget(), QComboBox | QAbstractSpinBox)
    ]
    assert len(controls) >= 14
    assert [w for w in controls if not w.accessibleName()] == []


def test_the_main_window_has_no_settings_button_without_a_dialog(qtbot: QtBot, bridge: ChatBridge) -> None:
    window = MainWindow(bridge)
    qtbot.addWidget(window)
    assert window.settings_button.isHidden()


def test_ctrl_comma_opens_the_settings_and_a_save_is_announced(
    qtbot: QtBot, bridge: ChatBridge, settings: Settings, runtime: Runtime
) -> None:
    window = MainWindow(
        bridge, settings_dialog=lambda parent: SettingsDialog(settings, runtime, parent, devices=list, env={})
    )
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    assert not window.settings_button.isHidden()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=TIMEOUT_MS)
    window.chat_list.setFocus()
    QTest.keyClick(window, Qt.Key.Key_Comma, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: window.settings_dialog is not None and window.settings_dialog.isVisible())
    dialog = window.settings_dialog
    assert isinstance(dialog, SettingsDialog)
    dialog.wake_word.setCurrentText("alexa")
    QTest.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    assert window.statusBar().currentMessage() == "Settings saved: the wake word when Parley restarts."
    assert reload(settings).wake_word == "alexa"


def test_start_at_login_writes_and_removes_the_autostart_entry_on_save(
    qtbot: QtBot, runtime: Runtime, settings: Settings
) -> None:
    paths = DesktopPaths.of_user()
    for on in (True, False):
        dialog = SettingsDialog(settings, runtime, devices=list, env={})
        qtbot.addWidget(dialog)
        assert dialog.start_at_login.isChecked() is not on  # it shows what is there
        dialog.start_at_login.setChecked(on)
        assert dialog.save()
        assert autostart_is_on(paths) is on


def test_the_models_release_shows_the_saved_seconds_and_takes_effect_at_the_next_start(
    qtbot: QtBot, settings: Settings, runtime: Runtime
) -> None:
    settings.config_file.write_text("models_release_s = 20.5\n", encoding="utf-8")
    dialog = make_dialog(qtbot, reload(settings), runtime)
    assert dialog.models_release.text() == "20.5 s"
    assert dialog.changes() == {}
    dialog.models_release.setValue(900)
    assert dialog.save()
    assert reload(settings).models_release_s == 900.0
    assert dialog.saved_note == "Settings saved: the time before the models are freed when Parley restarts."
