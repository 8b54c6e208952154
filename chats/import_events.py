"""The JSON events of an import file, read as a stream (ijson) within bounds a chat never needs: a nesting
depth and a text length, each refused in one line before it costs time or memory. A UTF-8 byte-order mark at
the start is skipped.

ijson's pure-Python backend, not its C one: the C backend turns a lone surrogate (`"\\ud800"`) into "?"
without a word, where this one hands it over for `storable_text` to repair and count.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO, Any

import ijson

from chats.errors import InvalidTurn

_PARSER = ijson.get_backend("python")
Events = Iterator[tuple[str, str, Any]]
"""ijson's `parse` events: (prefix, event, value)."""


class InvalidJSON(InvalidTurn):
    """The file is not JSON, or not UTF-8; the message follows the file's name ("is not valid JSON ...")."""


MAX_DEPTH = 64
"""How deep an import may nest: Parley's exports go 7 levels deep (export, chats, chat, history, turn,
parts, part) and working memory 8 more. ijson's Python backend spends time in proportion to the depth on
every value, so a file nested 30,000 deep (60 KB) took 39 s and 4.5 GB before it was refused."""
MAX_TEXT = 1_000_000
"""The longest text (a turn, a title, a key) an import may hold, in characters: each is read whole."""
BOM = b"\xef\xbb\xbf"
"""The UTF-8 byte-order mark some editors put first: not part of the JSON, and skipped."""


def events_of(file: IO[bytes]) -> Events:
    """`file`'s events, less a byte-order mark; `InvalidJSON` when it is not JSON, or past the bounds."""
    return _events(_WithoutBOM(file))


def end(events: Events) -> None:
    if next(events, None) is not None:
        raise InvalidJSON("is not valid JSON (more than one value)")


def _events(file: _WithoutBOM) -> Events:
    """ijson's `parse` events (prefix, event, value), with the prefixes made here: its own parse makes them
    for a whole 64 KB buffer at a time, each as long as the nesting is deep, before the first reaches the
    caller, so a depth check on its events came after 4.5 GB of prefixes. Here it comes first."""
    path: list[str] = []
    try:
        for event, value in _PARSER.basic_parse(file, use_float=True):
            if event == "map_key":
                prefix = ".".join(path[:-1])
                path[-1] = value
            elif event in ("start_map", "start_array"):
                if len(path) >= MAX_DEPTH:
                    raise InvalidJSON(
                        f"nests more than {MAX_DEPTH} levels deep, which no chat does: it is not an import"
                    )
                prefix = ".".join(path)
                path.append("" if event == "start_map" else "item")
            elif event in ("end_map", "end_array"):
                path.pop()
                prefix = ".".join(path)
            else:
                if isinstance(value, str) and len(value) > MAX_TEXT:
                    raise InvalidJSON(
                        f"holds a text of {len(value):,} characters; an import's texts are at most {MAX_TEXT:,}"
                    )
                prefix = ".".join(path)
            yield prefix, event, value
    except ijson.JSONError as error:
        cause = error.args[0] if error.args else error
        if isinstance(cause, UnicodeDecodeError):
            raise InvalidJSON("is not UTF-8 text") from None
        raise InvalidJSON(f"is not valid JSON ({cause})") from None


class _WithoutBOM:
    """`file` as ijson reads it, less a byte-order mark at its start."""

    def __init__(self, file: IO[bytes]) -> None:
        self._file = file
        head = file.read(len(BOM))
        self._head = b"" if head == BOM else head

    def read(self, size: int = -1) -> bytes:
        if self._head and size != 0:  # fewer bytes than asked is fine: a stream reader reads until it gets none
            head, self._head = self._head, b""
            return head
        return self._file.read(size)


def build(events: Events, event: str, value: Any) -> Any:
    """The whole JSON value that starts with `event`, read from `events`."""
    builder = ijson.ObjectBuilder()
    builder.event(event, value)
    depth = 1
    for _, inner, inner_value in events:
        builder.event(inner, inner_value)
        depth += inner in ("start_map", "start_array")
        depth -= inner in ("end_map", "end_array")
        if depth == 0:
            return builder.value
    raise InvalidJSON("is not valid JSON (it ends inside a turn)")
