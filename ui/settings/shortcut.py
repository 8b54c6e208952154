"""The settings window's talk shortcut: the key combination that starts a conversation from any application
(`app.front.shortcut.talk`), recorded by pressing it, and one line that says whether this desktop lets it
work."""

from __future__ import annotations

from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QKeySequenceEdit, QLabel, QLineEdit, QSizePolicy

from app.front.shortcut.combination import KeyCombination, ShortcutError
from app.front.shortcut.talk import Support
from ui.shown_text import for_window

_PORTABLE = QKeySequence.SequenceFormat.PortableText
"""The text the setting holds: Qt's names in English ("Ctrl+Alt+Space"), whatever the desktop's language."""


class TalkShortcutRow:
    """The key field and, under it, the line about this desktop (the form stacks them: `ui.widgets.stacked`)."""

    def __init__(self, shortcut: str | None, support: Support) -> None:
        """`shortcut`: the setting as saved (None: none); `support`: what this desktop allows."""
        self.edit = QKeySequenceEdit(QKeySequence.fromString(shortcut or "", _PORTABLE))
        self.edit.setMaximumSequenceLength(1)  # one combination, not a sequence of them
        self.edit.setClearButtonEnabled(True)
        # The line edit inside takes the focus for it (its focus proxy): a screen reader names that one.
        for part in (self.edit, *self.edit.findChildren(QLineEdit)):
            part.setAccessibleName("Talk shortcut")
            part.setAccessibleDescription("Press the keys that start a conversation from any application")
        # Settings' own line, but it names the combination the user typed: shown as text, never acted on.
        self.support = QLabel(for_window(support.line))
        self.support.setWordWrap(True)
        self.support.setAccessibleName("Talk shortcut availability")
        # Neither is squeezed when the dialog is taller than the screen (a small laptop's): the other rows are
        # fields of a fixed height too.
        for part in (self.edit, self.support):
            part.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)

    def text(self) -> str:
        """The combination shown, as the setting writes it ("" for none)."""
        return self.edit.keySequence().toString(_PORTABLE)

    def problem(self) -> str | None:
        """Why the combination shown cannot be a talk shortcut (a key alone, Shift and a key), or None."""
        try:
            if self.text():
                KeyCombination.parse(self.text())
        except ShortcutError as problem:
            return str(problem)
        return None
