"""Small makers of the controls every page builds the same way: a named button, a line that wraps, a form
label that reaches its control, a form row of several lines; and the Yes/No question every page asks. Each
control gets the name a screen reader says."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QSize
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QMessageBox, QPushButton, QVBoxLayout, QWidget

ICONS = Path(__file__).resolve().parent / "icons"
ICON_PX = 18
SYSTEM_DEFAULT = "System default"

Confirm = Callable[[QWidget, str], bool]
"""Asks the user a Yes/No question: (parent, question) -> yes."""


def ask_to_confirm(parent: QWidget, question: str) -> bool:
    """The default `Confirm`: a Yes/No dialog, No focused."""
    answer = QMessageBox.question(
        parent,
        "Parley",
        question,
        QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
        QMessageBox.StandardButton.No,
    )
    return answer == QMessageBox.StandardButton.Yes


def push_button(text: str, name: str, tip: str = "") -> QPushButton:
    """A button showing `text` (its `&` marks the Alt+letter), called `name` by a screen reader, with an
    optional tooltip."""
    button = QPushButton(text)
    button.setAccessibleName(name)
    if tip:
        button.setToolTip(tip)
    return button


def icon(name: str) -> QIcon:
    """One of the window's line icons (`ui/icons/<name>.svg`); Qt greys it out on a disabled control."""
    return QIcon(str(ICONS / f"{name}.svg"))


def icon_button(icon_name: str, name: str, tip: str, text: str = "") -> QPushButton:
    """A button showing an icon (and `text`, if any, beside it): where words would crowd a row. Its
    screen-reader name and tooltip say what it does."""
    button = push_button(text, name, tip)
    button.setIcon(icon(icon_name))
    button.setIconSize(QSize(ICON_PX, ICON_PX))
    return button


def text_line(name: str, *, hidden: bool = False) -> QLabel:
    """A label that wraps, called `name` by a screen reader; `hidden` until it has something to say.
    (Hidden by `hide()`, never `setVisible(True)` before it has a parent: that would open a window.)"""
    label = QLabel()
    label.setAccessibleName(name)
    label.setWordWrap(True)
    if hidden:
        label.hide()
    return label


def form_label(text: str, buddy: QWidget) -> QLabel:
    """A form label whose Alt+letter reaches `buddy` (a form row holding a layout gets no buddy itself)."""
    label = QLabel(text)
    label.setBuddy(buddy)
    return label


def stacked(*parts: QWidget | QHBoxLayout) -> QVBoxLayout:
    """One form row of several lines: a control (or a row of them), then the notes under it."""
    column = QVBoxLayout()
    column.setSpacing(2)
    for part in parts:
        if isinstance(part, QWidget):
            column.addWidget(part)
        else:
            column.addLayout(part)
    return column


def fill_devices(combo: QComboBox, names: tuple[str, ...], current: str | None) -> None:
    """The system default, then every device, the current one selected. A configured device that is not
    found stays listed (and selected), so that saving other settings does not drop it."""
    combo.addItem(SYSTEM_DEFAULT, None)
    for name in names:
        combo.addItem(name, name)
    if current is not None:
        if combo.findData(current) < 0:
            combo.addItem(f"{current} (not found)", current)
        combo.setCurrentIndex(combo.findData(current))
