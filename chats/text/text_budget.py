"""Cutting text to a character budget without cutting a sentence, or at least a word, in half."""

from __future__ import annotations

import re

_SENTENCE_END = re.compile(r"[.!?…][\"'\u201d\u2019)\]]*(?=\s|$)")
"""A sentence ends at . ! ? or … (closing quotes and brackets included) before a space or the end,
so "3.5" and "e.g.x" never count as ends."""


def cut_at_sentence(text: str, max_chars: int) -> str:
    """`text` in at most `max_chars`: cut after the last sentence that fits, else at a word with "…"."""
    text = text.strip()
    if max_chars <= 0:
        return ""
    if len(text) <= max_chars:
        return text
    ends = [match.end() for match in _SENTENCE_END.finditer(text) if match.end() <= max_chars]
    if ends:
        return text[: ends[-1]]
    return cut_at_word(text, max_chars)


def cut_at_word(text: str, max_chars: int) -> str:
    """`text` in at most `max_chars`: cut at the last word that fits, marked with "…"."""
    if max_chars <= 0:
        return ""
    if len(text) <= max_chars:
        return text
    head = text[: max_chars - 1]
    # Drop a word cut in half, unless the cut fell exactly between two words.
    if not text[max_chars - 1].isspace() and " " in head:
        head = head[: head.rfind(" ")]
    return head.rstrip(" ,;:-\u2013\u2014\n") + "…"
