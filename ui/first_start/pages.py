"""The first-start guide's pages of sound: the microphone and speaker (a live level, a test sound), and
the wake word enrolment (`ui.sound_checks`, as in Settings).

They lay out and bind. The test sound runs on the runtime thread; its answer comes back as a signal to a
bound slot here. Each page's `validatePage` is what
its Next does; the guide's "Skip this step" moves on without it.
"""

from __future__ import annotations

import concurrent.futures

from PySide6.QtCore import Signal, Slot
from PySide6.QtWidgets import QComboBox, QFormLayout, QHBoxLayout, QLabel, QVBoxLayout, QWizardPage

from app.config.config_file import SettingsError
from app.config.config_writer import ConfigValue, save_config
from app.config.settings import Settings
from app.front.device_checks import AudioDevices, MicrophoneFactory, SpeakerFactory, play_test_sound
from app.runtime import Runtime
from app.wake_enrolment import ENROLMENT_UTTERANCES, spoken
from ui.runtime_answers import submit_for_answer
from ui.sound_checks import Enrolment, LevelTest
from ui.widgets import fill_devices, form_label, push_button, stacked, text_line


def explanation(text: str) -> QLabel:
    """A page's opening words, wrapped."""
    label = QLabel(text)
    label.setWordWrap(True)
    return label


class DevicesPage(QWizardPage):
    """Which microphone and speaker, with a live level while the microphone is tested and a chime to
    hear the speaker. Next saves the devices chosen (when they changed) in the config file."""

    _sound_played = Signal(str)

    def __init__(
        self,
        settings: Settings,
        runtime: Runtime,
        found: AudioDevices,
        microphone: MicrophoneFactory,
        speaker: SpeakerFactory,
    ) -> None:
        super().__init__()
        self._settings = settings
        self._runtime = runtime
        self._speaker = speaker
        self.sound_check: concurrent.futures.Future[str] | None = None
        self.setTitle("Your microphone and speaker")
        self.input_device = QComboBox()
        self.input_device.setAccessibleName("Microphone")
        self.output_device = QComboBox()
        self.output_device.setAccessibleName("Speaker")
        fill_devices(self.input_device, found.inputs, settings.input_device)
        fill_devices(self.output_device, found.outputs, settings.output_device)
        self.level = LevelTest(runtime, self.input_device, microphone)
        self.sound_button = push_button("Play a test soun&d", "Play a test sound on the speaker")
        self.sound_result = text_line("Speaker test result", hidden=True)
        self.problem = text_line("Audio devices message", hidden=found.inputs != () or found.outputs != ())
        self.problem.setText(found.problem[:1].upper() + found.problem[1:] + ": skip this step for now.")
        self.level.button.setEnabled(bool(found.inputs))
        self.sound_button.setEnabled(bool(found.outputs))
        layout = QVBoxLayout(self)
        layout.addWidget(explanation("Choose what Parley hears you with and speaks on, and try both."))
        form = QFormLayout()
        form.addRow(form_label("Micro&phone:", self.input_device), self.level.form_row())
        speaker_row = QHBoxLayout()
        speaker_row.addWidget(self.output_device, 1)
        speaker_row.addWidget(self.sound_button)
        form.addRow(form_label("Spea&ker:", self.output_device), stacked(speaker_row, self.sound_result))
        layout.addLayout(form)
        layout.addWidget(self.problem)
        self.sound_button.clicked.connect(self.play_sound)
        self._sound_played.connect(self._show_played)

    @Slot()
    def play_sound(self) -> None:
        self.sound_result.setText("Playing…")
        self.sound_result.show()
        self.sound_button.setEnabled(False)
        device: str | None = self.output_device.currentData()
        self.sound_check = submit_for_answer(
            self._runtime, play_test_sound(self._speaker, device), self._sound_played.emit, refused="Not played"
        )

    def cancel(self) -> None:
        """The guide closed: a test still running stops."""
        self.level.cancel()
        if self.sound_check is not None:
            self.sound_check.cancel()

    def validatePage(self) -> bool:
        """Next: the devices chosen go to the config file; a refusal shows and keeps the page."""
        changes: dict[str, ConfigValue | None] = {
            key: new
            for key, new, old in (
                ("input_device", self.input_device.currentData(), self._settings.input_device),
                ("output_device", self.output_device.currentData(), self._settings.output_device),
            )
            if new != old
        }
        try:
            if changes:
                save_config(self._settings.config_file, changes)
        except SettingsError as error:
            self.problem.setText(f"Error: {error}")
            self.problem.show()
            return False
        return True

    @Slot(str)
    def _show_played(self, line: str) -> None:
        self.sound_result.setText(line)
        self.sound_button.setEnabled(True)


class EnrolPage(QWizardPage):
    """The wake word learns the user's voice and room: three recordings from the microphone chosen on the
    devices page, said from where the user will usually sit."""

    def __init__(
        self, settings: Settings, runtime: Runtime, devices: DevicesPage, microphone: MicrophoneFactory
    ) -> None:
        super().__init__()
        word = spoken(settings.wake_word)
        self.setTitle("Teach the wake word your voice")
        # The guide mutes the running Parley while it runs: nothing to hold here.
        self.enrolment = Enrolment(settings, runtime, devices.input_device, microphone)
        self.enrolment.button.setEnabled(devices.level.button.isEnabled())
        layout = QVBoxLayout(self)
        layout.addWidget(
            explanation(
                f'Sit where you usually will when you talk to Parley. Press "Enrol my voice", then say "{word}" '
                f"each time you are asked ({ENROLMENT_UTTERANCES} times, a few seconds each). Parley then wakes "
                "more reliably for you, across the room too."
            )
        )
        layout.addWidget(self.enrolment.button)
        layout.addWidget(self.enrolment.result)
        layout.addStretch(1)

    def validatePage(self) -> bool:
        """Next waits while the enrolment records or learns."""
        return not self.enrolment.running
