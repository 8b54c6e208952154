"""The settings window's "Enrol my voice": the wake word said three times into the chosen microphone, as
`parley wake enrol` does, with the running Parley's microphone muted meanwhile (its "hey Jarvis" must not
wake Parley), as the first-start guide does.

The recording and the training run on the runtime thread; each prompt and the last line come back as a
signal to a bound slot here.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
from collections.abc import Callable
from functools import partial

from PySide6.QtCore import QObject, Signal, Slot

from app.config.settings import Settings
from app.front.device_checks import MicrophoneFactory
from app.runtime import Runtime
from app.wake_enrolment import ENROLMENT_UTTERANCES, enrol_by_voice, spoken
from ui.runtime_answers import submit_for_answer
from ui.widgets import push_button, text_line

HoldMicrophone = Callable[[], Callable[[], None]]
"""Mutes the running Parley's microphone; the call it returns puts it back as it was."""


class Enrolment(QObject):
    _said = Signal(str, bool)
    """A prompt or the last line, and whether the enrolment is over, from the runtime thread to `_show`."""

    def __init__(
        self,
        settings: Settings,
        runtime: Runtime,
        *,
        device: Callable[[], str | None],
        microphone: MicrophoneFactory,
        hold_microphone: HoldMicrophone | None,
        parent: QObject | None = None,
    ) -> None:
        """`device`: the microphone chosen now; `hold_microphone`: None when no Parley listens beside."""
        super().__init__(parent)
        self._settings = settings
        self._runtime = runtime
        self._device = device
        self._microphone = microphone
        self._hold_microphone = hold_microphone
        self._release: Callable[[], None] | None = None
        self._work: concurrent.futures.Future[str] | None = None
        # Alt+N: Alt+E is the Supabase email's.
        self.button = push_button("E&nrol my voice", "Enrol my voice for the wake word")
        self.button.setToolTip(
            f'Say "{spoken(settings.wake_word)}" {ENROLMENT_UTTERANCES} times: the wake word learns your voice and room'
        )
        self.result = text_line("Wake word enrolment", hidden=True)  # until an enrolment says something
        self.button.clicked.connect(self.enrol)
        self._said.connect(self._show)

    @Slot()
    def enrol(self) -> None:
        """Record the wake word from the chosen microphone on the runtime and train the user's verifier."""
        self.button.setEnabled(False)
        if self._hold_microphone is not None:
            self._release = self._hold_microphone()
        self._work = submit_for_answer(
            self._runtime,
            enrol_by_voice(partial(self._microphone, self._device()), self._settings, self._say),
            lambda answer: self._said.emit(answer, True),
            refused="Not enrolled",
            failed="Not enrolled",
        )

    def cancel(self) -> None:
        """The dialog closed: an enrolment still recording stops, and the microphone is given back."""
        if self._work is not None:
            self._work.cancel()
        self._give_back()

    def _say(self, prompt: str) -> None:
        # The runtime thread, between recordings.
        with contextlib.suppress(RuntimeError):  # the dialog was deleted meanwhile
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
