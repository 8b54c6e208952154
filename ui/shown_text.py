"""The window as a surface for untrusted text: what it shows came in part from a user, an import, a model, a
tool or a file, and a control character in it would act instead of showing: a right-to-left override
(U+202E) between "invoice" and "exe.pdf" shows "invoicefdp.exe"; a bell or an escape shows nothing at all.
So every text of that kind passes through `for_window` before a widget shows it: each control character
(`chats.models.CONTROLS`, but a line break and a tab) becomes a visible sign, so that what is there can be
seen and none of it acts. HTML's own escaping (`html.escape`) comes after, where the widget reads HTML.
"""

from __future__ import annotations

import re

from chats.models import CONTROLS

_LAID_OUT = frozenset("\n\t")
_CONTROL_PICTURES = 0x2400
"""Unicode's Control Pictures block: U+2400 + n shows C0 control n ("␛" for ESC), U+2421 DEL."""


def for_window(text: str) -> str:
    """`text` with every control character shown as a sign: C0 and DEL as their control pictures, the rest
    (C1, the bidirectional controls) as "⟨U+202E⟩"."""
    return CONTROLS.sub(_visible, text)


def _visible(found: re.Match[str]) -> str:
    character = found.group()
    code = ord(character)
    if character in _LAID_OUT:
        return character
    if code < 0x20:
        return chr(_CONTROL_PICTURES + code)
    if code == 0x7F:
        return "\u2421"
    return f"\u27e8U+{code:04X}\u27e9"
