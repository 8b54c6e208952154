"""The running timers and reminders, each with its time left, cancellable; and, while one rings, the button
that stops it. Hidden while there is nothing to show."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from PySide6.QtCore import QTimer, Signal, Slot
from PySide6.QtWidgets import QHBoxLayout, QLabel, QListWidget, QListWidgetItem, QPushButton, QVBoxLayout, QWidget

from app.core.events import TimerRinging
from app.core.timer import Timer
from ui.shown_text import for_window

TICK_MS = 1000
"""The time left is redrawn every second."""
ID_ROLE = 256  # Qt.ItemDataRole.UserRole


def left_text(timer: Timer, now: datetime) -> str:
    """ "pasta: 8:42 left", "Reminder: call the plumber at 09:00 (16:59:12 left)"."""
    seconds = timer.seconds_left(now)
    hours, rest = divmod(seconds, 3600)
    left = f"{hours}:{rest // 60:02}:{rest % 60:02}" if hours else f"{rest // 60}:{rest % 60:02}"
    if timer.kind == "reminder":
        at = timer.due_at.astimezone().strftime("%H:%M")
        return f"Reminder: {timer.label} at {at} ({left} left)"
    return f"{timer.label or 'Timer'}: {left} left"


class TimersPanel(QWidget):
    cancel_requested = Signal(str)
    """A timer's id: cancel it."""
    stop_requested = Signal(str)
    """A ringing timer's id: stop it."""

    def __init__(self, parent: QWidget | None = None, *, clock: Callable[[], datetime] | None = None) -> None:
        super().__init__(parent)
        self._clock = clock or (lambda: datetime.now(UTC))
        self._timers: tuple[Timer, ...] = ()
        self._ringing: dict[str, str] = {}
        """Ringing timer id -> what it says."""
        self.setAccessibleName("Timers and reminders")
        self.ringing_label = QLabel()
        self.stop_button = QPushButton("&Stop")
        self.stop_button.setAccessibleName("Stop the ringing timer")
        self.stop_button.clicked.connect(self._stop)
        self.list = QListWidget()
        self.list.setAccessibleName("Running timers and reminders")
        self.list.setMaximumHeight(90)
        self.cancel_button = QPushButton("Cancel timer")
        self.cancel_button.setAccessibleName("Cancel the selected timer or reminder")
        self.cancel_button.clicked.connect(self._cancel)
        ringing_row = QHBoxLayout()
        ringing_row.addWidget(self.ringing_label, 1)
        ringing_row.addWidget(self.stop_button)
        list_row = QHBoxLayout()
        list_row.addWidget(self.list, 1)
        list_row.addWidget(self.cancel_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(ringing_row)
        layout.addLayout(list_row)
        self._tick = QTimer(self)
        self._tick.setInterval(TICK_MS)
        self._tick.timeout.connect(self._redraw)
        self._redraw()

    def focus_chain(self) -> list[QWidget]:
        """Its controls in Tab order (those hidden are skipped by Qt)."""
        return [self.stop_button, self.list, self.cancel_button]

    @Slot(object)
    def show_timers(self, timers: tuple[Timer, ...]) -> None:
        self._timers = timers
        self._redraw()

    @Slot(object)
    def show_ringing(self, event: TimerRinging) -> None:
        self._ringing[event.timer.id] = event.message
        self._redraw()

    @Slot(str)
    def show_stopped(self, timer_id: str) -> None:
        self._ringing.pop(timer_id, None)
        self._redraw()

    @Slot()
    def _redraw(self) -> None:
        now = self._clock()
        selected = self._selected()
        self.list.clear()
        for timer in self._timers:
            item = QListWidgetItem(for_window(left_text(timer, now)))
            item.setData(ID_ROLE, timer.id)
            self.list.addItem(item)
            if timer.id == selected:
                self.list.setCurrentItem(item)
        ringing = list(self._ringing.values())
        self.ringing_label.setText(" ".join(ringing))
        self.ringing_label.setVisible(bool(ringing))
        self.stop_button.setVisible(bool(ringing))
        self.list.setVisible(bool(self._timers))
        self.cancel_button.setVisible(bool(self._timers))
        self.setVisible(bool(self._timers or ringing))
        if self._timers and not self._tick.isActive():
            self._tick.start()
        elif not self._timers:
            self._tick.stop()

    def _selected(self) -> str | None:
        item = self.list.currentItem()
        return None if item is None else str(item.data(ID_ROLE))

    @Slot()
    def _cancel(self) -> None:
        chosen = self._selected() or (self._timers[0].id if len(self._timers) == 1 else None)
        if chosen is not None:
            self.cancel_requested.emit(chosen)

    @Slot()
    def _stop(self) -> None:
        for timer_id in list(self._ringing):
            self.stop_requested.emit(timer_id)
