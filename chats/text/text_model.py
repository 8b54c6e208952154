"""The `TextModel` protocol: the summaries and titles compaction needs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from chats.models import Turn


class TextModel(Protocol):
    @property
    def name(self) -> str: ...

    async def summarize(self, turns: Sequence[Turn], max_chars: int) -> str:
        """One summary of `turns` in at most `max_chars` characters.

        It keeps names, numbers, dates, decisions, commitments, preferences and open questions;
        an earlier summary turn among `turns` is consolidated truth and is carried forward.
        Raises `TextModelError` when the model cannot answer.
        """
        ...

    async def title(self, text: str) -> str:
        """A short chat title (at most about 6 words, no quotes) for a summary or a transcript."""
        ...
