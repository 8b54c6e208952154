"""Text as every store and file can hold it, checked where text enters Parley.

A Python string may hold a lone surrogate (U+D800 to U+DFFF): valid JSON can spell one (`"\\ud800"`), and
a stream of JSON messages can split an emoji's surrogate pair between two of them. No UTF-8 file or
database can hold one: SQLite's driver and every UTF-8 encoder raise `UnicodeEncodeError`. Imports,
transcripts reaching the chat store and memories all pass their text through `storable_text`.
"""

from __future__ import annotations

import re
from dataclasses import replace

from chats.models import Source, Turn

_SURROGATE = re.compile("[\ud800-\udfff]")
REPLACEMENT = "\ufffd"


def storable_text(text: str) -> str:
    """`text` itself when it holds no surrogate (the common case, one regex scan); otherwise a copy with
    each split surrogate pair joined into its character and each lone surrogate replaced by U+FFFD."""
    if _SURROGATE.search(text) is None:
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def storable_turn(turn: Turn) -> Turn:
    """`turn` itself when its text, thinking and web sources and searches are storable, else a copy with them
    repaired."""
    text = storable_text(turn.text)
    thinking = None if turn.thinking is None else storable_text(turn.thinking)
    sources = tuple(Source(storable_text(s.title), storable_text(s.uri)) for s in turn.sources)
    searches = tuple(storable_text(query) for query in turn.searches)
    if text is turn.text and thinking is turn.thinking and (sources, searches) == (turn.sources, turn.searches):
        return turn
    return replace(turn, text=text, thinking=thinking, sources=sources, searches=searches)
