"""The microphone level test and "Enrol my voice", as the first-start guide and Settings both show them.

The level test listens to the chosen microphone for a few seconds, a meter moving as it hears, and says how
loud it was. The enrolment records the wake word three times from the chosen microphone and trains the
user's verifier, as `parley wake enrol` does. Both run on the runtime thread; the live level, each prompt
and the last line come back as signals to bound slots here. Whoever shows one cancels it on closing.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
from collections.abc import Callable
from functools import partial

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QProgressBar, QVBoxLayout

from app.config.settings import Settings
from app.front.device_checks import LEVEL_TEST_S, MicrophoneFactory, level_line, metered
from app.runtime import Runtime
from app.wake_enrolment import ENROLMENT_UTTERANCES, enrol_by_voice, spoken
from ui.runtime_answers import submit_for_answer
from ui.tray.status import meter_percent
from ui.widgets import push_button, stacked, text_line

HoldMicrophone = Callable[[], Callable[[], None]]
"""Mutes the running Parley's microphone; the call it returns puts it back as it was."""


class LevelTest(QObject):
    """ "Test level" beside the microphone chooser, with a live meter and the loudest level under it."""

    _level = Signal(float)
    """The live level (dBFS), from the runtime thread as the microphone is read."""
    _measured = Signal(str)
    """The one-line answer, from the runtime thread."""

    def __init__(self, runtime: Runtime, microphones: QComboBox, microphone: MicrophoneFactory) -> None:
        """`microphones` chooses the device; `microphone` opens it."""
        super().__init__(microphones)
        self._runtime = runtime
        self._microphones = microphones
        self._microphone = metered(microphone, self._report_level)
        self._work: concurrent.futures.Future[str] | None = None
        self.button = push_button(
            "Test le&vel",
            "Test the microphone level",
            f"Listen to the chosen microphone for {LEVEL_TEST_S:g} s and show how loud it was",
        )
        self.meter = QProgressBar()
        self.meter.setRange(0, 100)
        self.meter.setTextVisible(False)
        self.meter.setMaximumHeight(12)  # as the status bar's: a strip, not a field
        self.meter.setAccessibleName("Microphone level")
        self.result = text_line("Microphone test result", hidden=True)  # until a test says something
        self.button.clicked.connect(self.test)
        self._level.connect(self._show_level)
        self._measured.connect(self._show_measured)

    def form_row(self) -> QVBoxLayout:
        """The chooser with the button beside it, then the meter and the answer: one form row."""
        row = QHBoxLayout()
        row.addWidget(self._microphones, 1)
        row.addWidget(self.button)
        return stacked(row, self.meter, self.result)

    @Slot()
    def test(self) -> None:
        """Listen to the chosen microphone on the runtime; the loudest level shows below it."""
        self.result.setText(f"Listening for {LEVEL_TEST_S:g} s: say something…")
        self.result.show()
        self.button.setEnabled(False)
        self._work = submit_for_answer(
            self._runtime,
            level_line(self._microphone, self._microphones.currentData()),
            self._measured.emit,
            refused="Not tested",
        )

    def cancel(self) -> None:
        if self._work is not None:
            self._work.cancel()

    def _report_level(self, dbfs: float) -> None:
        # The runtime thread, as the microphone is read.
        with contextlib.suppress(RuntimeError):  # the window was deleted meanwhile
            self._level.emit(dbfs)

    @Slot(float)
    def _show_level(self, dbfs: float) -> None:
        self.meter.setValue(meter_percent(dbfs))

    @Slot(str)
    def _show_measured(self, line: str) -> None:
        self.result.setText(line)
        self.button.setEnabled(True)
        self.meter.setValue(0)


class Enrolment(QObject):
    """ "Enrol my voice" and the line under it: the wake word said three times into the chosen microphone,
    from where the user will usually sit, with the running Parley's microphone muted meanwhile (its "hey
    Jarvis" must not wake Parley)."""

    _said = Signal(str, bool)
    """A prompt or the last line, and whether the enrolment is over, from the runtime thread to `_show`."""

    def __init__(
        self,
        settings: Settings,
        runtime: Runtime,
        microphones: QComboBox,
        microphone: MicrophoneFactory,
        hold_microphone: HoldMicrophone | None = None,
    ) -> None:
        """`microphones` chooses the device, `microphone` opens it; `hold_microphone`: None when no Parley
        listens beside, or when it is muted already (the first-start guide mutes it while it runs)."""
        super().__init__(microphones)
        self._settings = settings
        self._runtime = runtime
        self._microphones = microphones
        self._microphone = microphone
        self._hold_microphone = hold_microphone
        self._release: Callable[[], None] | None = None
        self._work: concurrent.futures.Future[str] | None = None
        # Alt+O: Alt+N is the guide's Next, Alt+E the Supabase email's in Settings.
        self.button = push_button("Enr&ol my voice", "Enrol my voice for the wake word")
        self.button.setToolTip(
            f'Say "{spoken(settings.wake_word)}" {ENROLMENT_UTTERANCES} times: the wake word learns your voice and room'
        )
        self.result = text_line("Wake word enrolment", hidden=True)  # until an enrolment says something
        self.button.clicked.connect(self.enrol)
        self._said.connect(self._show)

    @property
    def running(self) -> bool:
        """Recording or learning now."""
        return self._work is not None and not self._work.done()

    @Slot()
    def enrol(self) -> None:
        """Record the wake word from the chosen microphone on the runtime and train the user's verifier."""
        self.button.setEnabled(False)
        if self._hold_microphone is not None:
            self._release = self._hold_microphone()
        self._work = submit_for_answer(
            self._runtime,
            enrol_by_voice(partial(self._microphone, self._microphones.currentData()), self._settings, self._say),
            lambda answer: self._said.emit(answer, True),
            refused="Not enrolled",
            failed="Not enrolled",
        )

    def cancel(self) -> None:
        """The page or dialog closed: an enrolment still recording stops, and the microphone is given back."""
        if self._work is not None:
            self._work.cancel()
        self._give_back()

    def _say(self, prompt: str) -> None:
        # The runtime thread, between recordings.
        with contextlib.suppress(RuntimeError):  # the window was deleted meanwhile
            self._said.emit(prompt, False)

    @Slot(str, bool)
    def _show(self, message: str, over: bool) -> None:
        self.result.setText(message)
        self.result.show()
        self.button.setEnabled(over)
        if over:
            self._give_back()

    def _give_back(self) -> None:
        release, self._release = self._release, None
        if release is not None:
            release()
