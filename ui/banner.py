"""The problem banner at the top of the window: what stops something working, one problem a line.

A problem said again shows once; a resolved one leaves and the others stay; Dismiss clears them all.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Slot
from PySide6.QtWidgets import QHBoxLayout, QLabel, QWidget

from ui.widgets import icon, push_button

# Dark red on a light fill: readable (above 7:1) and named "Error" in words for screen readers.
_STYLE = "#bannerRow { background: #fde2e1; border-radius: 6px; } QLabel { color: #7f1d1d; }"


class ProblemBanner(QWidget):
    def __init__(self, margin: int, parent: QWidget | None = None) -> None:
        """`margin`: pixels before the warning icon."""
        super().__init__(parent)
        self._problems: list[str] = []
        self.label = QLabel()
        self.label.setObjectName("errorBanner")
        self.label.setWordWrap(True)
        self.label.setAccessibleName("Error")
        warning = QLabel()
        warning.setPixmap(icon("warning").pixmap(20, 20))
        warning.setAccessibleName("Warning")
        self.dismiss_button = push_button("&Dismiss", "Dismiss the error")
        self.setObjectName("bannerRow")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground)
        self.setStyleSheet(_STYLE)
        row = QHBoxLayout(self)
        row.setContentsMargins(margin, 6, 6, 6)
        row.addWidget(warning, 0, Qt.AlignmentFlag.AlignTop)
        row.addWidget(self.label, 1)
        row.addWidget(self.dismiss_button, 0, Qt.AlignmentFlag.AlignTop)
        self.dismiss_button.clicked.connect(self.dismiss)
        self.hide()

    @property
    def messages(self) -> tuple[str, ...]:
        """The problems shown, oldest first."""
        return tuple(self._problems)

    @Slot(str)
    def say(self, message: str) -> None:
        if message not in self._problems:
            self._problems.append(message)
        self._show()

    @Slot(str)
    def resolve(self, message: str) -> None:
        if message in self._problems:
            self._problems.remove(message)
            self._show()

    @Slot()
    def dismiss(self) -> None:
        self._problems.clear()
        self._show()

    def _show(self) -> None:
        self.label.setText("\n".join(self._problems))
        self.label.setAccessibleDescription(" ".join(self._problems))
        self.setHidden(not self._problems)
