"""The first-start guide's pages of sound: the microphone and speaker (a live level, a test sound), and
the wake word enrolment ("say hey Jarvis three times", as Settings' "Enrol my voice" and `parley wake enrol`).

They lay out and bind. The level test, the test sound and the enrolment run on the runtime thread; their
answers (and the live level) come back as signals to bound slots here. Each page's `validatePage` is what
its Next does; the guide's "Skip this step" moves on without it.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
from functools import partial

from PySide6.QtCore import Signal, Slot
from PySide6.QtWidgets import QComboBox, QFormLayout, QHBoxLayout, QLabel, QProgressBar, QVBoxLayout, QWizardPage

from app.config.config_file import SettingsError
from app.config.config_writer import ConfigValue, save_config
from app.config.settings import Settings
from app.front.device_checks import (
    LEVEL_TEST_S,
    AudioDevices,
    MicrophoneFactory,
    SpeakerFactory,
    level_line,
    metered,
    play_test_sound,
)
from app.runtime import Runtime
from app.wake_enrolment import ENROLMENT_UTTERANCES, enrol_by_voice, spoken
from ui.runtime_answers import submit_for_answer
from ui.tray.status import meter_percent
from ui.widgets import fill_devices, form_label, push_button, stacked, text_line


def explanation(text: str) -> QLabel:
    """A page's opening words, wrapped."""
    label = QLabel(text)
    label.setWordWrap(True)
    return label


class DevicesPage(QWizardPage):
    """Which microphone and speaker, with a live level while the microphone is tested and a chime to
    hear the speaker. Next saves the devices chosen (when they changed) in the config file."""

    _level = Signal(float)
    """The live level (dBFS), from the runtime thread."""
    _level_measured = Signal(str)
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
        self._microphone = microphone
        self._speaker = speaker
        self.checks: list[concurrent.futures.Future[str]] = []
        self.setTitle("Your microphone and speaker")
        self.input_device = QComboBox()
        self.input_device.setAccessibleName("Microphone")
        self.output_device = QComboBox()
        self.output_device.setAccessibleName("Speaker")
        fill_devices(self.input_device, found.inputs, settings.input_device)
        fill_devices(self.output_device, found.outputs, settings.output_device)
        self.level_button = push_button(
            "Test the &microphone", "Test the microphone", f"Listen for {LEVEL_TEST_S:g} s and show how loud it was"
        )
        self.meter = QProgressBar()
        self.meter.setRange(0, 100)
        self.meter.setTextVisible(False)
        self.meter.setMaximumHeight(12)  # as the status bar's: a strip, not a field
        self.meter.setAccessibleName("Microphone level")
        self.level_result = text_line("Microphone test result", hidden=True)
        self.sound_button = push_button("Play a test soun&d", "Play a test sound on the speaker")
        self.sound_result = text_line("Speaker test result", hidden=True)
        self.problem = text_line("Audio devices message", hidden=found.inputs != () or found.outputs != ())
        self.problem.setText(found.problem[:1].upper() + found.problem[1:] + ": skip this step for now.")
        self.level_button.setEnabled(bool(found.inputs))
        self.sound_button.setEnabled(bool(found.outputs))
        self._lay_out()
        self.level_button.clicked.connect(self.test_microphone)
        self.sound_button.clicked.connect(self.play_sound)
        self._level.connect(self._show_level)
        self._level_measured.connect(self._show_measured)
        self._sound_played.connect(self._show_played)

    def _lay_out(self) -> None:
        layout = QVBoxLayout(self)
        layout.addWidget(explanation("Choose what Parley hears you with and speaks on, and try both."))
        form = QFormLayout()
        microphone = QHBoxLayout()
        microphone.addWidget(self.input_device, 1)
        microphone.addWidget(self.level_button)
        form.addRow(form_label("Micro&phone:", self.input_device), stacked(microphone, self.meter, self.level_result))
        speaker = QHBoxLayout()
        speaker.addWidget(self.output_device, 1)
        speaker.addWidget(self.sound_button)
        form.addRow(form_label("Spea&ker:", self.output_device), stacked(speaker, self.sound_result))
        layout.addLayout(form)
        layout.addWidget(self.problem)

    @property
    def microphone_device(self) -> str | None:
        device: str | None = self.input_device.currentData()
        return device

    @Slot()
    def test_microphone(self) -> None:
        """Listen to the chosen microphone on the runtime, the meter moving as it hears."""
        self.level_result.setText(f"Listening for {LEVEL_TEST_S:g} s: say something…")
        self.level_result.show()
        self.level_button.setEnabled(False)
        listening = metered(self._microphone, self._report_level)
        self._track(
            submit_for_answer(
                self._runtime,
                level_line(listening, self.microphone_device),
                self._level_measured.emit,
                refused="Not tested",
            )
        )

    @Slot()
    def play_sound(self) -> None:
        self.sound_result.setText("Playing…")
        self.sound_result.show()
        self.sound_button.setEnabled(False)
        device: str | None = self.output_device.currentData()
        self._track(
            submit_for_answer(
                self._runtime, play_test_sound(self._speaker, device), self._sound_played.emit, refused="Not played"
            )
        )

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

    def _report_level(self, dbfs: float) -> None:
        # The runtime thread, as the microphone is read.
        with contextlib.suppress(RuntimeError):  # the page was deleted meanwhile
            self._level.emit(dbfs)

    def _track(self, future: concurrent.futures.Future[str] | None) -> None:
        if future is not None:
            self.checks.append(future)

    @Slot(float)
    def _show_level(self, dbfs: float) -> None:
        self.meter.setValue(meter_percent(dbfs))

    @Slot(str)
    def _show_measured(self, line: str) -> None:
        self.level_result.setText(line)
        self.level_button.setEnabled(True)
        self.meter.setValue(0)

    @Slot(str)
    def _show_played(self, line: str) -> None:
        self.sound_result.setText(line)
        self.sound_button.setEnabled(True)


class EnrolPage(QWizardPage):
    """The wake word learns the user's voice and room: three recordings from the microphone chosen on the
    devices page, said from where the user will usually sit."""

    _said = Signal(str, bool)
    """The enrolment's prompt or answer and whether it is over, from the runtime thread."""

    def __init__(
        self, settings: Settings, runtime: Runtime, devices: DevicesPage, microphone: MicrophoneFactory
    ) -> None:
        super().__init__()
        self._settings = settings
        self._runtime = runtime
        self._devices = devices
        self._microphone = microphone
        self.enrolment: concurrent.futures.Future[str] | None = None
        word = spoken(settings.wake_word)
        self.setTitle("Teach the wake word your voice")
        self.start_button = push_button(
            "&Start", "Start the wake word enrolment", f'Record "{word}" {ENROLMENT_UTTERANCES} times'
        )
        self.start_button.setEnabled(devices.level_button.isEnabled())
        self.result = text_line("Wake word enrolment", hidden=True)
        layout = QVBoxLayout(self)
        layout.addWidget(
            explanation(
                f'Sit where you usually will when you talk to Parley. Press Start, then say "{word}" each time '
                f"you are asked ({ENROLMENT_UTTERANCES} times, a few seconds each). Parley then wakes more "
                "reliably for you, across the room too."
            )
        )
        layout.addWidget(self.start_button)
        layout.addWidget(self.result)
        layout.addStretch(1)
        self.start_button.clicked.connect(self.enrol)
        self._said.connect(self._show)

    @Slot()
    def enrol(self) -> None:
        self.start_button.setEnabled(False)
        self.enrolment = submit_for_answer(
            self._runtime,
            enrol_by_voice(partial(self._microphone, self._devices.microphone_device), self._settings, self._say),
            lambda answer: self._said.emit(answer, True),
            refused="Not enrolled",
            failed="Not enrolled",
        )

    def validatePage(self) -> bool:
        """Next waits while the enrolment records or learns."""
        return self.enrolment is None or self.enrolment.done()

    def _say(self, prompt: str) -> None:
        with contextlib.suppress(RuntimeError):  # the page was deleted meanwhile
            self._said.emit(prompt, False)

    @Slot(str, bool)
    def _show(self, message: str, over: bool) -> None:
        self.result.setText(message)
        self.result.show()
        self.start_button.setEnabled(over)
