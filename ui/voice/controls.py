"""The window's voice controls: push-to-talk, a box to type to Parley, mute, and in the status bar the
assistant's state and the microphone's level. They lay out and bind; what they ask for leaves as signals.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QStatusBar,
    QToolButton,
    QWidget,
)

from app.core.status import VoiceStatus
from ui.tray.status import meter_percent, state_words
from ui.widgets import icon_button, text_line


def first_sentence(text: str) -> str:
    """Up to the first full stop followed by a space (the whole text when it has none)."""
    end = text.find(". ")
    return text if end < 0 else text[: end + 1]


TALK_TIP = "Start talking without the wake word (Ctrl+K)"
LOOK_TIP = "Ask Parley to look at your screen: it takes one picture and shows it to Gemini (look_at_screen in Settings)"


class VoiceControls(QObject):
    talk_requested = Signal()
    """Push-to-talk: start a conversation as the wake word does."""
    text_typed = Signal(str)
    """A message typed to the assistant instead of spoken."""
    look_requested = Signal()
    """The user asks the assistant to look at the screen (the Look button)."""
    typing_started = Signal()
    """The first character of a message typed into an empty box: its answer's models may start loading."""

    def __init__(self, window: QWidget) -> None:
        """Shortcuts (Ctrl+K talk, Ctrl+M mute) work anywhere in `window`."""
        super().__init__(window)
        self.talk_button = icon_button("talk", "Talk to Parley", TALK_TIP, "Tal&k")
        self.talk_shortcut = QShortcut(QKeySequence("Ctrl+K"), window)
        self.text_box = QLineEdit()
        self.text_box.setPlaceholderText("Type to Parley instead of speaking, then press Enter")
        self.text_box.setAccessibleName("Message to Parley")
        self.text_box.setAccessibleDescription("Sent to the assistant in the selected chat when you press Enter")
        self.send_button = icon_button("send", "Send the message", "Send (Enter)", "S&end")
        self.look_button = icon_button("screen", "Look at my screen", LOOK_TIP, "&Look")
        self.mute_action = QAction("M&ute microphone", window)
        self.mute_action.setCheckable(True)
        self.mute_action.setShortcut(QKeySequence("Ctrl+M"))
        self.mute_action.setToolTip("Stop Parley hearing the microphone, wake word included (Ctrl+M)")
        window.addAction(self.mute_action)  # its shortcut works wherever the focus is in the window

        self.state_label = QLabel()
        self.state_label.setAccessibleName("Assistant state")
        self.notice = text_line("Voice model", hidden=True)  # until there is something to say
        self.level_meter = QProgressBar()
        self.level_meter.setRange(0, 100)
        self.level_meter.setTextVisible(False)
        self.level_meter.setFixedWidth(90)
        self.level_meter.setMaximumHeight(12)
        self.level_meter.setAccessibleName("Microphone level")
        self.mute_button = QToolButton()
        self.mute_button.setDefaultAction(self.mute_action)
        self.mute_button.setAccessibleName("Mute microphone")

        self.talk_shortcut.activated.connect(self.talk_requested)
        self.talk_button.clicked.connect(self.talk_requested)
        self.text_box.returnPressed.connect(self.send_text)
        self.text_box.textEdited.connect(self._edited)
        self.send_button.clicked.connect(self.send_text)
        self.look_button.clicked.connect(self.look_requested)
        self.mute_action.toggled.connect(self.show_muted)
        self._state = VoiceStatus.SLEEPING
        self._no_microphone: str | None = None
        """Why no microphone works, once one failed: Talk and Mute stay off and the state says so."""
        self.show_state(VoiceStatus.SLEEPING)

    def talk_row(self) -> QHBoxLayout:
        """Talk button, text box and Send, in a row under the transcript."""
        row = QHBoxLayout()
        row.setSpacing(8)
        row.addWidget(self.talk_button)
        row.addWidget(self.text_box, 1)
        row.addWidget(self.send_button)
        row.addWidget(self.look_button)
        return row

    def add_to(self, bar: QStatusBar) -> None:
        bar.addWidget(self.notice, 1)
        bar.addPermanentWidget(self.state_label)
        bar.addPermanentWidget(self.level_meter)
        bar.addPermanentWidget(self.mute_button)

    def focus_chain(self) -> list[QWidget]:
        return [self.talk_button, self.text_box, self.send_button, self.look_button, self.mute_button]

    @Slot(str)
    def _edited(self, text: str) -> None:
        if len(text) == 1:
            self.typing_started.emit()

    @Slot()
    def send_text(self) -> None:
        text = self.text_box.text().strip()
        if text:
            self.text_box.clear()
            self.text_typed.emit(text)

    @Slot(object)
    def show_state(self, state: VoiceStatus) -> None:
        """Typing to Parley works while a voice loop runs; talking and muting also need a microphone."""
        self._state = state
        heard = self._no_microphone is None
        words = state_words(state, microphone=heard)
        self.state_label.setText(f"Assistant: {words}")
        self.state_label.setAccessibleDescription(f"The assistant is {words}")
        voice_on = state.listens
        for control in (self.text_box, self.send_button, self.look_button):
            control.setEnabled(voice_on)
        for button in (self.talk_button, self.mute_button):
            button.setEnabled(voice_on and heard)
        self.talk_shortcut.setEnabled(voice_on and heard)
        self.mute_action.setEnabled(voice_on and heard)
        if not voice_on or not heard:
            self.level_meter.setValue(0)

    @Slot(str, str)
    def show_device_lost(self, device: str, problem: str) -> None:
        """Without a microphone, Talk and Mute are off, saying why, and the state says only typing works."""
        if device == "microphone":
            self._show_microphone(problem)

    @Slot(str)
    def show_device_back(self, device: str) -> None:
        """The microphone is heard again (opened again from Settings): Talk and Mute come back."""
        if device == "microphone":
            self._show_microphone(None)

    def _show_microphone(self, problem: str | None) -> None:
        self._no_microphone = problem
        why = None if problem is None else f"Talk needs a microphone: {problem}. Type to Parley instead."
        self.talk_button.setToolTip(why or TALK_TIP)
        self.talk_button.setAccessibleDescription(why or "")
        self.mute_button.setToolTip(why or self.mute_action.toolTip())
        self.level_meter.setToolTip(why or "")
        self.show_state(self._state)

    @Slot(str)
    def show_notice(self, text: str) -> None:
        """News that is not a problem (the offline model is small; Supabase answers again): its first
        sentence, the whole text as the tooltip. The newest replaces the one shown."""
        self.notice.setText(first_sentence(text))
        self.notice.setToolTip(text)
        self.notice.setAccessibleDescription(text)
        self.notice.show()

    @Slot(float)
    def show_level(self, dbfs: float) -> None:
        """The microphone's level in dBFS, on the status bar's meter."""
        self.level_meter.setValue(0 if self.mute_action.isChecked() else meter_percent(dbfs))

    @Slot(bool)
    def show_muted(self, muted: bool) -> None:
        self.mute_action.setText("Unm&ute microphone" if muted else "M&ute microphone")
        self.level_meter.setValue(0)
        self.level_meter.setAccessibleDescription("Muted" if muted else "")
