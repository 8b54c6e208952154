"""The user's MCP tool calls waiting for a yes, each with what it would run (tool, server, arguments) and
Allow / Deny buttons: a click answers that one call as a spoken yes or no would. Hidden while none waits."""

from __future__ import annotations

import json

from PySide6.QtCore import Signal, Slot
from PySide6.QtWidgets import QHBoxLayout, QVBoxLayout, QWidget

from app.core.events import ConfirmationAsked
from ui.shown_text import for_window
from ui.widgets import push_button, text_line


def asked_text(event: ConfirmationAsked) -> str:
    """ "delete_note (from notes) asks to run with {"title": "shopping"}"."""
    return f"{event.tool} (from {event.server}) asks to run with {json.dumps(dict(event.args), ensure_ascii=False)}"


class HeldCall(QWidget):
    """One held call's line and its two buttons."""

    def __init__(self, event: ConfirmationAsked) -> None:
        super().__init__()
        self.label = text_line("Tool call waiting for your yes")
        self.label.setText(for_window(asked_text(event)))
        self.allow = push_button("&Allow", f"Allow {event.tool}", "Run it: counts as your yes")
        self.deny = push_button("&Deny", f"Deny {event.tool}", "Do not run it")
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.label, 1)
        row.addWidget(self.allow)
        row.addWidget(self.deny)


class ConfirmationsPanel(QWidget):
    answered = Signal(str, bool)
    """(confirmation id, allowed): the user clicked Allow (True) or Deny."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName("Tool calls waiting for your yes")
        self.rows: dict[str, HeldCall] = {}
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self.hide()

    @Slot(object)
    def show_asked(self, event: ConfirmationAsked) -> None:
        row = HeldCall(event)
        row.allow.clicked.connect(lambda: self._answer(event.confirmation, True))
        row.deny.clicked.connect(lambda: self._answer(event.confirmation, False))
        self.rows[event.confirmation] = row
        self._layout.addWidget(row)
        self.show()

    @Slot(str)
    def show_settled(self, confirmation: str) -> None:
        row = self.rows.pop(confirmation, None)
        if row is not None:
            row.hide()
            row.deleteLater()
        if not self.rows:
            self.hide()

    def _answer(self, confirmation: str, allowed: bool) -> None:
        self.show_settled(confirmation)  # answered: the core's settled event follows, and finds nothing
        self.answered.emit(confirmation, allowed)
