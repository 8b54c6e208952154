"""The terminal as a surface for untrusted text: what `parley` prints came in part from a user, an import, a
model, a tool or a file, and a control character in it would act on the terminal instead of showing (ESC
sequences clear the screen, retitle the window, plant a link; a right-to-left override shows "evil.exe" as
"exe.live"). So every command's standard output and error pass through `for_terminal`, which shows each such
character as its `\\uXXXX` escape, the form git's `quote_path` and JSON use: inside a JSON string it reads
back as the same character, so `--json` output stays exact.

Parley's own control characters (the level meter's carriage return, the import's progress bar) are written
to `raw`, the stream as it was, and only there.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

from chats.models import CONTROLS

LAID_OUT = frozenset("\n\t")
"""The control characters a terminal lays text out with, shown as they are."""


def for_terminal(text: str) -> str:
    """`text` with every control character (`chats.models.CONTROLS`) but a line break and a tab shown as its
    escape (ESC -> `\\u001b`)."""
    return CONTROLS.sub(_escaped, text)


def _escaped(found: re.Match[str]) -> str:
    character = found.group()
    return character if character in LAID_OUT else f"\\u{ord(character):04x}"


class _Escaping:
    """A text stream that writes what it is given through `for_terminal` to the stream it wraps."""

    def __init__(self, stream: TextIO) -> None:
        self.raw = stream

    def write(self, text: str) -> int:
        self.raw.write(for_terminal(text))
        return len(text)

    def __getattr__(self, name: str) -> object:  # flush, isatty, fileno, encoding...: the wrapped stream's
        return getattr(self.raw, name)


def raw(stream: TextIO) -> TextIO:
    """The stream under `stream`'s escaping, for Parley's own control characters; `stream` when unwrapped."""
    return stream.raw if isinstance(stream, _Escaping) else stream


@contextmanager
def escaped_output() -> Iterator[None]:
    """Standard output and error written through `for_terminal` while the block runs."""
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _Escaping(out), _Escaping(err)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = out, err
