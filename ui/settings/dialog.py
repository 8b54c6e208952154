"""The settings window: keys into the OS keyring, start at login into autostart, the rest into the config file.

It lays out and binds. The keys are `ui.settings.keys.KeysBox`'s, through `app.config.secrets` (never shown, never
written to the file); other values go through `app.config.config_writer.save_config`, which refuses what
`load_settings` would refuse. The microphone level test and "Enrol my voice" are `ui.sound_checks`'s, as in
the first-start guide. The dialog shows the settings as `load_settings` gives them (the config file, then the
environment: `as_saved`); a saved change applies at once where the running Parley can (`app.live_settings`),
the rest when Parley next starts.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping

from PySide6.QtCore import Signal, Slot
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from app.config.config_file import SettingsError
from app.config.config_writer import ConfigValue, save_config
from app.config.secrets import SecretsError
from app.config.settings import LANGUAGES, SETTINGS, Settings, check_config_values, load_settings
from app.front.device_checks import (
    WAKE_WORDS,
    DeviceLister,
    MicrophoneFactory,
    open_microphone,
    survey_devices,
    wake_model_problem,
)
from app.front.shortcut.talk import shortcut_support
from app.live_settings import saved_changes
from app.runtime import Runtime
from ui.settings.keys import KeysBox
from ui.settings.shortcut import TalkShortcutRow
from ui.settings.startup import StartAtLogin
from ui.settings.storage import StorageBox
from ui.settings.tools import ToolsButton
from ui.sound_checks import Enrolment, HoldMicrophone, LevelTest
from ui.widgets import fill_devices, form_label, push_button, stacked, text_line

RESTART_NOTE = (
    "The threshold, idle timeout, language (with Gemini's voice), talk shortcut, devices and tray apply at once; "
    "the others, and keys, when Parley next starts."
)
GuideFactory = Callable[[QWidget], QDialog]
"""Makes the first-start guide, parented to the dialog."""
THRESHOLD_DECIMALS = 3
"""Enough to show any threshold a config file holds as it is (0.425 is not 0.43)."""


def as_saved(settings: Settings, env: Mapping[str, str] | None = None) -> Settings:
    """The settings as the config file and the environment give them now (saved since start-up included),
    for the same data folder and config file; `settings` when the file can no longer be read."""
    try:
        return load_settings(
            {"data_dir": str(settings.data_dir), "config_file": str(settings.config_file)},
            env=os.environ if env is None else env,
        )
    except SettingsError:
        return settings


# Dark red on a light fill, as the main window's banner: readable, and named "Error" for screen readers.
_ERROR_STYLE = "QLabel { background: #fde2e1; color: #7f1d1d; padding: 6px; }"


class SettingsDialog(QDialog):
    saved = Signal(object)
    """The `Settings` as saved (`as_saved`), once OK wrote them: the window applies what it can at once."""

    def __init__(
        self,
        settings: Settings,
        runtime: Runtime,
        parent: QWidget | None = None,
        *,
        devices: DeviceLister | None = None,
        microphone: MicrophoneFactory = open_microphone,
        env: Mapping[str, str] | None = None,
        guide: GuideFactory | None = None,
        hold_microphone: HoldMicrophone | None = None,
    ) -> None:
        """`devices` lists the sound cards (None: PortAudio's), `microphone` opens one for the level test;
        `env` is where keys set in the environment are looked for (None: `os.environ`); `guide` makes the
        first-start guide, run again by a button (None: no button); `hold_microphone` mutes the running Parley
        while "Enrol my voice" records (None: no Parley listens beside the dialog)."""
        super().__init__(parent)
        self._settings = settings
        self._runtime = runtime
        self._env = env
        self._guide = guide
        self.saved_note = ""
        """After a save: what applies now and what at Parley's next start, in one line."""
        self.setWindowTitle("Parley settings")
        self.setAccessibleName("Parley settings")
        self.setMinimumWidth(560)
        self.key_box = KeysBox(settings, runtime, env)
        self.keys = self.key_box.rows
        self._make_voice_controls()
        self._make_device_controls(devices, microphone, hold_microphone)
        self.storage_box = StorageBox(settings, runtime)
        self.storage = self.storage_box.storage
        self.tools_button = ToolsButton(settings.config_file, runtime)
        self._make_footer()
        self._lay_out()
        self._bind()

    # -- making the controls ------------------------------------------------------------------------

    def _make_voice_controls(self) -> None:
        settings = self._settings
        self.wake_word = QComboBox()
        self.wake_word.setEditable(True)
        self.wake_word.addItems(WAKE_WORDS)
        self.wake_word.setCurrentText(settings.wake_word)
        self.wake_word.setAccessibleName("Wake word")
        self.wake_word.setAccessibleDescription("A built-in wake word, or the path of a custom .onnx model")
        self.threshold = QDoubleSpinBox()
        self.threshold.setRange(0.0, 1.0)  # the setting's own range: any value in force shows as it is
        self.threshold.setSingleStep(0.05)
        self.threshold.setDecimals(THRESHOLD_DECIMALS)
        self.threshold.setValue(settings.wake_threshold)
        self.threshold.setAccessibleName("Wake word threshold")
        self.threshold.setAccessibleDescription("Lower wakes more easily; higher wakes less often by mistake")
        self.idle_seconds = QDoubleSpinBox()
        self.idle_seconds.setRange(0.1, 3600.0)
        self.idle_seconds.setDecimals(1)
        self.idle_seconds.setSuffix(" s")
        self.idle_seconds.setValue(settings.idle_seconds)
        self.idle_seconds.setAccessibleName("Idle timeout in seconds")
        self.language = QComboBox()
        for code, name in LANGUAGES:
            self.language.addItem(name, code)
        self.language.setCurrentIndex(max(self.language.findData(settings.language or "auto"), 0))
        self.language.setAccessibleName("Language you speak")
        self.language.setAccessibleDescription("Parley answers in it; the window stays in English")
        self.live_model = QLineEdit(settings.gemini_live_model)
        self.live_model.setAccessibleName("Gemini Live model name")
        self.models_release = QDoubleSpinBox()
        self.models_release.setRange(0.1, 86400.0)  # a day at most: past that they are as good as kept
        self.models_release.setDecimals(1)
        self.models_release.setSingleStep(60.0)
        self.models_release.setSuffix(" s")
        self.models_release.setValue(settings.models_release_s)
        self.models_release.setAccessibleName("Free the models after, in seconds")
        why = (
            "Seconds unused before the offline voice, the language detector and the local embedding models are "
            "let go: shorter keeps Parley smaller asleep, longer answers the next conversation sooner"
        )
        self.models_release.setToolTip(why)
        self.models_release.setAccessibleDescription(why)
        self.close_to_tray = QCheckBox("Keep listening in the tray when the window is &closed")
        self.close_to_tray.setChecked(settings.close_to_tray)
        self.close_to_tray.setAccessibleName("Keep listening in the tray when the window is closed")
        self.start_at_login = StartAtLogin()
        environ = os.environ if self._env is None else self._env
        self.talk_shortcut = TalkShortcutRow(settings.talk_shortcut, shortcut_support(environ))

    def _make_device_controls(
        self, devices: DeviceLister | None, microphone: MicrophoneFactory, hold_microphone: HoldMicrophone | None
    ) -> None:
        self.input_device = QComboBox()
        self.input_device.setAccessibleName("Microphone")
        self.enrolment = Enrolment(self._settings, self._runtime, self.input_device, microphone, hold_microphone)
        self.level = LevelTest(self._runtime, self.input_device, microphone)
        self.output_device = QComboBox()
        self.output_device.setAccessibleName("Speaker")
        self.device_message = text_line("Audio devices message", hidden=True)
        found = survey_devices(devices)
        fill_devices(self.input_device, found.inputs, self._settings.input_device)
        fill_devices(self.output_device, found.outputs, self._settings.output_device)
        self.level.button.setEnabled(bool(found.inputs))
        self.enrolment.button.setEnabled(bool(found.inputs))
        if not found.inputs and not found.outputs:
            self.input_device.setEnabled(False)
            self.output_device.setEnabled(False)
            self.device_message.setText(found.problem[:1].upper() + found.problem[1:])
            self.device_message.show()

    def _make_footer(self) -> None:
        self.error = QLabel()
        self.error.setStyleSheet(_ERROR_STYLE)
        self.error.setWordWrap(True)
        self.error.setAccessibleName("Settings error")
        self.error.hide()
        overridden = [
            var
            for spec in SETTINGS
            if spec.config_key in self._values()
            for var in spec.env_vars
            if (os.environ if self._env is None else self._env).get(var, "").strip()
        ]
        self.environment_note = QLabel(
            f"Set in the environment, which wins over what is saved here: {', '.join(overridden)}."
        )
        self.environment_note.setWordWrap(True)
        self.environment_note.setAccessibleName("Environment note")
        if not overridden:
            self.environment_note.hide()  # never setVisible(True) before it has a parent: that opens a window
        self.guide_button = push_button(
            "&Run the first-start guide…", "Run the first-start guide", "Microphone, speaker, your voice, language, key"
        )
        if self._guide is None:
            self.guide_button.hide()
        self.restart_note = QLabel(RESTART_NOTE)
        self.restart_note.setWordWrap(True)
        self.restart_note.setAccessibleName("Restart note")
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.ok_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok_button.setAccessibleName("Save settings")
        self.cancel_button = self.buttons.button(QDialogButtonBox.StandardButton.Cancel)
        self.cancel_button.setAccessibleName("Cancel")

    def _lay_out(self) -> None:
        voice = QGroupBox("Voice")
        voice_form = QFormLayout(voice)
        voice_form.addRow("&Wake word:", self.wake_word)
        enrolment = self.enrolment
        voice_form.addRow(form_label("Your voice:", enrolment.button), stacked(enrolment.button, enrolment.result))
        voice_form.addRow("T&hreshold:", self.threshold)
        voice_form.addRow("Lan&guage:", self.language)
        voice_form.addRow("&Idle timeout:", self.idle_seconds)
        shortcut = self.talk_shortcut
        voice_form.addRow(form_label("T&alk shortcut:", shortcut.edit), stacked(shortcut.edit, shortcut.support))
        voice_form.addRow("&Live model:", self.live_model)
        voice_form.addRow("&Free the models after:", self.models_release)
        voice_form.addRow(self.close_to_tray)
        voice_form.addRow(self.start_at_login)
        audio = QGroupBox("Audio devices")
        audio_form = QFormLayout(audio)
        audio_form.addRow(form_label("&Microphone:", self.input_device), self.level.form_row())
        audio_form.addRow(form_label("&Speaker:", self.output_device), stacked(self.output_device, self.device_message))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 16, 16, 12)
        layout.setSpacing(12)
        for widget in (
            self.error,
            self.key_box,
            voice,
            audio,
            self.storage_box,
            self.tools_button,
            self.environment_note,
            self.guide_button,
            self.restart_note,
            self.buttons,
        ):
            layout.addWidget(widget)

    def _bind(self) -> None:
        self.key_box.cleared.connect(self._show_cleared)
        self.buttons.accepted.connect(self.save)
        self.buttons.rejected.connect(self.reject)
        self.finished.connect(self._cancel_checks)
        self.guide_button.clicked.connect(self.run_guide)

    # -- actions -----------------------------------------------------------------------------------

    @Slot()
    def save(self) -> bool:
        """Store typed keys and write changed values; close on success, else show why and change nothing
        (short of a keyring or disk failing half-way, which the message then says)."""
        self.error.hide()
        changes = self.changes()
        stored: list[str] = []
        try:
            # Every check that can refuse runs before anything is stored or written.
            if (wrong := wake_model_problem(self.wake_word.currentText())) is not None:
                raise SettingsError(wrong)
            if (wrong := self.talk_shortcut.problem()) is not None:
                raise SettingsError(wrong)
            self.storage_box.check()
            check_config_values(self._settings.config_file, {k: v for k, v in changes.items() if v is not None})
            self.key_box.store_typed(stored)
            save_config(self._settings.config_file, changes)
            self.start_at_login.apply()
        except (SettingsError, SecretsError) as error:
            done = f" (the {' and '.join(stored)} key was stored before this)" if stored else ""
            self._show_error(f"{error}{done}")
            return False
        written = [*changes, *(f"{name} key" for name in stored)]
        self.saved_note = saved_changes(written, offline_voice=self._settings.effective_voice_model == "offline").note()
        self.saved.emit(as_saved(self._settings, self._env))
        self.accept()
        return True

    def changes(self) -> dict[str, ConfigValue | None]:
        """What differs from the settings Parley started with, by config key (None: back to the default)."""
        return {key: new for key, (new, old) in self._values().items() if new != old}

    def _values(self) -> dict[str, tuple[ConfigValue | None, ConfigValue | None]]:
        """Every config key this dialog edits: (shown now, what Parley started with)."""
        settings = self._settings
        return {
            "wake_word": (self.wake_word.currentText().strip(), settings.wake_word),
            "wake_threshold": (
                round(self.threshold.value(), THRESHOLD_DECIMALS),
                round(settings.wake_threshold, THRESHOLD_DECIMALS),
            ),
            "language": (self.language.currentData(), settings.language),
            "idle_seconds": (round(self.idle_seconds.value(), 1), round(settings.idle_seconds, 1)),
            "gemini_live_model": (self.live_model.text().strip(), settings.gemini_live_model),
            "models_release_s": (round(self.models_release.value(), 1), round(settings.models_release_s, 1)),
            "input_device": (self.input_device.currentData(), settings.input_device),
            "output_device": (self.output_device.currentData(), settings.output_device),
            "close_to_tray": (self.close_to_tray.isChecked(), settings.close_to_tray),
            "talk_shortcut": (self.talk_shortcut.text(), settings.talk_shortcut or ""),
            **self.storage_box.values(),
        }

    @Slot()
    def run_guide(self) -> None:
        """The first-start guide over this dialog; what it saved shows here once it closes."""
        if self._guide is not None:
            guide = self._guide(self)
            guide.finished.connect(self._after_guide)
            guide.open()

    @Slot()
    def _after_guide(self) -> None:
        self._settings = as_saved(self._settings, self._env)
        self.language.setCurrentIndex(max(self.language.findData(self._settings.language or "auto"), 0))
        for combo, device in (
            (self.input_device, self._settings.input_device),
            (self.output_device, self._settings.output_device),
        ):
            combo.setCurrentIndex(0 if device is None else max(combo.findData(device), 0))
        self.key_box.show_statuses()

    # -- answers -----------------------------------------------------------------------------------

    @Slot(str)
    def _show_cleared(self, problem: str) -> None:
        """A key's "Clear" hides the last error, or shows why the key could not be removed."""
        self.error.hide()
        if problem:
            self._show_error(problem)

    @Slot()
    def _cancel_checks(self) -> None:
        self.level.cancel()
        self.enrolment.cancel()
        self.key_box.cancel_checks()
        self.storage_box.cancel_checks()

    def _show_error(self, message: str) -> None:
        self.error.setText(f"Error: {message}")
        self.error.show()
