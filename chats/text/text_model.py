"""The `TextModel` protocol: the summaries and titles compaction needs; and a text model made on first use."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cached_property
from typing import Protocol

from chats.degrade import RemotePart
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


class TextModelOnFirstUse:
    """The text model `make(part)` makes, made when first asked for a summary or a title: the offline one
    takes most of a second to import (yake, its cue tables), which a command or a conversation that writes
    neither would pay at its start. `part` gives the health of the remote model it will make (None for the
    offline one), known before it is made, so that maintenance reads it (`chats.degrade.part_of`); asked for
    when first read, since choosing the model may read the OS keyring."""

    def __init__(
        self, make: Callable[[RemotePart | None], TextModel], part: Callable[[], RemotePart | None] = lambda: None
    ) -> None:
        self._make = make
        self._model: TextModel | None = None
        self._part = part

    @cached_property
    def part(self) -> RemotePart | None:
        return self._part()

    def _made(self) -> TextModel:
        if self._model is None:
            self._model = self._make(self.part)
        return self._model

    @property
    def name(self) -> str:
        return self._made().name

    async def summarize(self, turns: Sequence[Turn], max_chars: int) -> str:
        return await self._made().summarize(turns, max_chars)

    async def title(self, text: str) -> str:
        return await self._made().title(text)
