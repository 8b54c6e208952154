"""A remote text model with its offline twin: Gemini's summaries and titles while it answers, the offline
ones (`chats.text.offline_text`) when it does not (`chats.degrade`).

What it writes says nothing of who wrote it: `ChatMaintainer` asks `part` whether the service answered
everything, and catches up a chat maintained while it did not, once, when it answers again.
"""

from __future__ import annotations

from collections.abc import Sequence

from chats.degrade import WithTwin
from chats.models import Turn
from chats.text.text_model import TextModel


class FallbackTextModel(WithTwin[TextModel]):
    """A `TextModel` named as the remote one, that falls back to `twin`."""

    @property
    def name(self) -> str:
        return self._remote.name

    async def summarize(self, turns: Sequence[Turn], max_chars: int) -> str:
        summary, _ = await self.part.call(
            lambda: self._remote.summarize(turns, max_chars), lambda: self._twin.summarize(turns, max_chars)
        )
        return summary

    async def title(self, text: str) -> str:
        title, _ = await self.part.call(lambda: self._remote.title(text), lambda: self._twin.title(text))
        return title
