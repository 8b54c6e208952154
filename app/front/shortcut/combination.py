"""A key combination as Settings write it (Qt's portable text, "Ctrl+Alt+Space"), read into the parts a
desktop grabs: its modifiers and its key, named as X11 and the XDG portal name keys (keysym names)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Modifier = Literal["ctrl", "alt", "shift", "super"]

_MODIFIERS: dict[str, Modifier] = {"ctrl": "ctrl", "control": "ctrl", "alt": "alt", "shift": "shift", "meta": "super"}
"""Qt's modifier names (lower case) -> ours. Qt calls the Super ("Windows") key Meta on Linux."""
_KEYSYMS = {
    "space": "space",
    "esc": "Escape",
    "escape": "Escape",
    "return": "Return",
    "enter": "KP_Enter",
    "tab": "Tab",
    "backspace": "BackSpace",
    "del": "Delete",
    "ins": "Insert",
    "home": "Home",
    "end": "End",
    "pgup": "Prior",
    "pgdown": "Next",
    "left": "Left",
    "right": "Right",
    "up": "Up",
    "down": "Down",
    "print": "Print",
    "pause": "Pause",
}
"""Qt's names of keys without a character -> their keysym names, where the two differ in more than case."""
_PUNCTUATION = {
    ",": "comma",
    ".": "period",
    "/": "slash",
    ";": "semicolon",
    "'": "apostrophe",
    "[": "bracketleft",
    "]": "bracketright",
    "\\": "backslash",
    "-": "minus",
    "=": "equal",
    "`": "grave",
}
_PORTAL_MODIFIERS: dict[Modifier, str] = {"ctrl": "CTRL", "alt": "ALT", "shift": "SHIFT", "super": "LOGO"}
"""How the XDG shortcuts specification names each modifier in a trigger ("CTRL+ALT+space")."""


class ShortcutError(Exception):
    """The shortcut cannot work: one line that says what to do."""


@dataclass(frozen=True, slots=True)
class KeyCombination:
    text: str
    """As the user wrote it ("Ctrl+Alt+Space"): how messages name it."""
    modifiers: frozenset[Modifier]
    key: str
    """The keysym name of the key pressed with the modifiers: "space", "k", "F12", "comma"."""

    @classmethod
    def parse(cls, text: str) -> KeyCombination:
        """Qt's portable text of one combination ("Ctrl+Alt+Space", "Meta+F12"); `ShortcutError` when it names
        no key, an unknown modifier, or no Ctrl, Alt or Meta (a key grabbed alone, or with Shift only, would be
        taken from every application's typing)."""
        chord = text.strip()
        *named, last = chord.replace("++", "+plus").split("+")
        if ", " in chord or not last or any(name.lower() not in _MODIFIERS for name in named):
            raise ShortcutError(f"'{text}' is not one key combination: write it as Ctrl+Alt+Space")
        modifiers = frozenset(_MODIFIERS[name.lower()] for name in named)
        if not modifiers - {"shift"}:
            raise ShortcutError(f"'{text}' would take that key from every application: add Ctrl, Alt or Meta")
        return cls(chord, modifiers, _keysym(last))

    @property
    def portal_trigger(self) -> str:
        """The trigger the GlobalShortcuts portal is offered, as the XDG shortcuts specification writes it."""
        return "+".join([*(name for m, name in _PORTAL_MODIFIERS.items() if m in self.modifiers), self.key])


def _keysym(key: str) -> str:
    if key == "plus":
        return "plus"
    if len(key) == 1:
        return _PUNCTUATION.get(key, key.lower())
    return _KEYSYMS.get(key.lower(), key)
