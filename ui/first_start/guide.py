"""The first-start guide: a wizard of four steps, each of which can be skipped. (1) The microphone and
speaker, (2) the wake word learns the user's voice, (3) the language, (4) a Gemini key, tested at once, or
staying offline. `parley setup` runs the same steps in a terminal.

The window shows it at its first start (`app.front.first_start`: a file in the data folder remembers that
it has been through, finished or closed); Settings runs it again. Values go where Settings puts them: the
language and devices into the config file (`save_config`), the key into the OS keyring, the enrolment into
the data folder (`app.wake_enrolment`). Work runs on the runtime thread, answers come back as signals.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import logging
from collections.abc import Mapping

from PySide6.QtCore import Signal, Slot
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLineEdit, QVBoxLayout, QWidget, QWizard, QWizardPage

from app.config.config_file import SettingsError
from app.config.config_writer import save_config
from app.config.key_checks import KeyCheckFailed, check_gemini_key
from app.config.secrets import SecretsError, secret_source, set_secret
from app.config.settings import LANGUAGES, Settings
from app.front.device_checks import (
    DeviceLister,
    MicrophoneFactory,
    SpeakerFactory,
    open_microphone,
    open_speaker,
    survey_devices,
)
from app.front.first_start import mark_guide_done
from app.runtime import Runtime
from ui.first_start.pages import DevicesPage, EnrolPage, explanation
from ui.runtime_answers import submit_for_answer
from ui.widgets import push_button, text_line

log = logging.getLogger(__name__)

SKIP = QWizard.WizardButton.CustomButton1


class LanguagePage(QWizardPage):
    """The language the user speaks; Next saves it in the config file."""

    def __init__(self, settings: Settings) -> None:
        super().__init__()
        self._settings = settings
        self.setTitle("The language you speak")
        self.language = QComboBox()
        for code, name in LANGUAGES:
            self.language.addItem(name, code)
        self.language.setCurrentIndex(max(self.language.findData(settings.language or "auto"), 0))
        self.language.setAccessibleName("Language you speak")
        self.error = text_line("Language error", hidden=True)
        layout = QVBoxLayout(self)
        layout.addWidget(explanation("Parley answers in it. The window stays in English."))
        layout.addWidget(self.language)
        layout.addWidget(self.error)
        layout.addStretch(1)

    def validatePage(self) -> bool:
        try:
            save_config(self._settings.config_file, {"language": self.language.currentData()})
        except SettingsError as error:
            self.error.setText(f"Error: {error}")
            self.error.show()
            return False
        return True


class KeyPage(QWizardPage):
    """A Gemini key, tested at once and stored in the OS keyring when it works; or none, to stay offline.
    Finish with a key typed and not yet stored tests it first, and finishes once it works."""

    _stored = Signal()
    """The typed key worked and is in the keyring (from the runtime thread, before its answer)."""
    _answered = Signal(str)

    def __init__(self, settings: Settings, runtime: Runtime, env: Mapping[str, str] | None) -> None:
        super().__init__()
        self._settings = settings
        self._runtime = runtime
        self.check: concurrent.futures.Future[str] | None = None
        self._finish_when_stored = False
        self.setTitle("Gemini, or offline")
        self.key = QLineEdit()
        self.key.setEchoMode(QLineEdit.EchoMode.Password)
        self.key.setPlaceholderText("Paste a Gemini API key")
        self.key.setAccessibleName("Gemini API key")
        self.test_button = push_button("&Test and store", "Test the Gemini key and store it")
        self.result = text_line("Gemini key test result", hidden=True)
        source = secret_source("gemini", env)
        status = {
            "keyring": "A Gemini key is already stored.",
            "environment": "A Gemini key is set in the environment.",
        }
        layout = QVBoxLayout(self)
        layout.addWidget(
            explanation(
                "With a Gemini API key (from Google AI Studio), Gemini Live answers: a capable assistant. "
                "Without one, a small voice on this computer answers, and nothing leaves it: skip this step "
                "to stay offline. The key goes to the OS keyring, never a file. " + status.get(source or "", "")
            )
        )
        row = QHBoxLayout()
        row.addWidget(self.key, 1)
        row.addWidget(self.test_button)
        layout.addLayout(row)
        layout.addWidget(self.result)
        layout.addStretch(1)
        self.test_button.clicked.connect(self.test_key)
        self._stored.connect(self._on_stored)
        self._answered.connect(self._show)

    @Slot()
    def test_key(self) -> None:
        self.result.setText("Testing…")
        self.result.show()
        self.test_button.setEnabled(False)
        self.check = submit_for_answer(
            self._runtime, self._test_and_store(self.key.text().strip()), self._answered.emit, refused="Not tested"
        )

    def validatePage(self) -> bool:
        if not self.key.text().strip():
            return True
        self._finish_when_stored = True
        if self.check is None or self.check.done():
            self.test_key()
        return False

    async def _test_and_store(self, key: str) -> str:
        try:
            works = await check_gemini_key(self._settings, key)
            set_secret("gemini", key)
        except (KeyCheckFailed, SecretsError) as failed:
            return f"Failed: {failed}"
        with contextlib.suppress(RuntimeError):  # the page was deleted meanwhile
            self._stored.emit()
        return f"{works} Stored in the OS keyring."

    @Slot()
    def _on_stored(self) -> None:
        self.key.clear()

    @Slot(str)
    def _show(self, line: str) -> None:
        self.result.setText(line)
        self.test_button.setEnabled(True)
        if not self.key.text() and self._finish_when_stored:
            self.wizard().accept()
        self._finish_when_stored = False


class FirstStartGuide(QWizard):
    """The guide; `finished` (whichever way) marks it as been through."""

    def __init__(
        self,
        settings: Settings,
        runtime: Runtime,
        parent: QWidget | None = None,
        *,
        devices: DeviceLister | None = None,
        microphone: MicrophoneFactory = open_microphone,
        speaker: SpeakerFactory = open_speaker,
        env: Mapping[str, str] | None = None,
    ) -> None:
        """`devices` lists the sound cards (None: PortAudio's); `microphone` and `speaker` open a device;
        `env` is where a key set in the environment is looked for (None: `os.environ`)."""
        super().__init__(parent)
        self._settings = settings
        self._skipping = False
        self.setWindowTitle("Welcome to Parley")
        self.setAccessibleName("First-start guide")
        self.setWizardStyle(QWizard.WizardStyle.ClassicStyle)
        self.setMinimumWidth(560)
        self.devices_page = DevicesPage(settings, runtime, survey_devices(devices), microphone, speaker)
        self.enrol_page = EnrolPage(settings, runtime, self.devices_page, microphone)
        self.language_page = LanguagePage(settings)
        self.key_page = KeyPage(settings, runtime, env)
        for page in (self.devices_page, self.enrol_page, self.language_page, self.key_page):
            self.addPage(page)
        self.setOption(QWizard.WizardOption.HaveCustomButton1, True)
        self.setButtonText(SKIP, "&Skip this step")
        self.skip_button = self.button(SKIP)
        self.skip_button.setAccessibleName("Skip this step")
        self.setButtonLayout(
            [
                QWizard.WizardButton.Stretch,
                SKIP,
                QWizard.WizardButton.BackButton,
                QWizard.WizardButton.NextButton,
                QWizard.WizardButton.FinishButton,
                QWizard.WizardButton.CancelButton,
            ]
        )
        self.customButtonClicked.connect(self.skip)
        self.finished.connect(self._on_finished)

    @Slot()
    def skip(self) -> None:
        """Move on (or finish, on the last page) without what this page's Next would do."""
        self._skipping = True
        try:
            if self.nextId() == -1:
                self.accept()
            else:
                self.next()
        finally:
            self._skipping = False

    def validateCurrentPage(self) -> bool:
        return self._skipping or super().validateCurrentPage()

    @Slot()
    def _on_finished(self) -> None:
        self.devices_page.cancel()
        self.enrol_page.enrolment.cancel()
        if self.key_page.check is not None:
            self.key_page.check.cancel()
        try:
            mark_guide_done(self._settings)
        except OSError as error:  # the guide comes back next time: annoying, not harmful
            log.warning("could not remember that the first-start guide was done: %s", error)
