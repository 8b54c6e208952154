"""A `TextModel` driven by data, for tests of the code that calls one."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from chats.models import Turn


class ScriptedTextModel:
    """Answers with the next scripted summary (or a default that names how many turns it covered), and
    titles from a script. `gate`, when set, holds every summary until the test opens it."""

    def __init__(self, summaries: Sequence[str] = (), titles: Sequence[str] = ()) -> None:
        self._summaries = list(summaries)
        self._titles = list(titles)
        self.summarized: list[tuple[Turn, ...]] = []
        self.gate: asyncio.Event | None = None
        self.waiting = asyncio.Event()

    @property
    def name(self) -> str:
        return "scripted"

    async def summarize(self, turns: Sequence[Turn], max_chars: int) -> str:
        self.summarized.append(tuple(turns))
        if self.gate is not None:
            self.waiting.set()
            await self.gate.wait()
        text = self._summaries.pop(0) if self._summaries else f"Summary of {len(turns)} turns."
        return text

    async def title(self, text: str) -> str:
        return self._titles.pop(0) if self._titles else "Untitled"
