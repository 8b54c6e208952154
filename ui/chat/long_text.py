"""The whole text of a very long turn, a page at a time.

A page is `PAGE_CHARS` characters in a read-only plain-text box: Qt lays a paragraph out whole, so even a
50 MB message with no line break shows at once and scrolls smoothly; Previous and Next move through it,
and Copy all puts the whole text on the clipboard.
"""

from __future__ import annotations

from PySide6.QtCore import Slot
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QHBoxLayout, QPlainTextEdit, QVBoxLayout, QWidget

from ui.widgets import push_button, text_line

PAGE_CHARS = 100_000


def page_count(length: int) -> int:
    return max((length + PAGE_CHARS - 1) // PAGE_CHARS, 1)


class LongTextDialog(QDialog):
    def __init__(self, title: str, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._text = text
        self._page = 0
        self.setWindowTitle(title)
        self.setAccessibleName(title)
        self.resize(720, 560)
        self.view = QPlainTextEdit()
        self.view.setReadOnly(True)
        self.view.setAccessibleName("Whole message")
        self.where = text_line("Position in the message")
        self.previous_button = push_button("&Previous", "Previous page")
        self.next_button = push_button("&Next", "Next page")
        self.copy_button = push_button("&Copy all", "Copy the whole message")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        row = QHBoxLayout()
        row.addWidget(self.previous_button)
        row.addWidget(self.next_button)
        row.addWidget(self.where, 1)
        row.addWidget(self.copy_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.view, 1)
        layout.addLayout(row)
        layout.addWidget(buttons)
        self.previous_button.clicked.connect(self.show_previous)
        self.next_button.clicked.connect(self.show_next)
        self.copy_button.clicked.connect(self.copy_all)
        buttons.rejected.connect(self.reject)
        self.show_page(0)

    @property
    def page(self) -> int:
        return self._page

    @Slot(int)
    def show_page(self, page: int) -> None:
        pages = page_count(len(self._text))
        self._page = min(max(page, 0), pages - 1)
        start = self._page * PAGE_CHARS
        end = min(start + PAGE_CHARS, len(self._text))
        self.view.setPlainText(self._text[start:end])
        self.where.setText(f"Characters {start + 1:,} to {end:,} of {len(self._text):,}")
        self.previous_button.setEnabled(self._page > 0)
        self.next_button.setEnabled(self._page < pages - 1)

    @Slot()
    def show_previous(self) -> None:
        self.show_page(self._page - 1)

    @Slot()
    def show_next(self) -> None:
        self.show_page(self._page + 1)

    @Slot()
    def copy_all(self) -> None:
        QGuiApplication.clipboard().setText(self._text)
