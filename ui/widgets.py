"""Small makers of the controls every page builds the same way: a named button, a line that wraps, a form
label that reaches its control, a form row of several lines. Each control gets the name a screen reader says."""

from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget


def push_button(text: str, name: str, tip: str = "") -> QPushButton:
    """A button showing `text` (its `&` marks the Alt+letter), called `name` by a screen reader, with an
    optional tooltip."""
    button = QPushButton(text)
    button.setAccessibleName(name)
    if tip:
        button.setToolTip(tip)
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
