"""What the user typed to the assistant, waiting for a live connection to take it.

The window's text box puts messages here at any time; the assistant wakes for them, and the session
sends them once a connection is open. A message leaves only once it was sent, so one that meets a
dropped connection goes out on the resumed one.
"""

from __future__ import annotations

import asyncio
from collections import deque


class TypedText:
    """Typed messages in order, until sent. On the event loop only."""

    def __init__(self) -> None:
        self._waiting: deque[str] = deque()
        self._arrived = asyncio.Event()
        self._head_recorded = False

    @property
    def pending(self) -> int:
        """Messages not sent yet."""
        return len(self._waiting)

    def put(self, text: str) -> None:
        self._waiting.append(text)
        self._arrived.set()

    async def wait(self) -> None:
        """Return once a message is waiting (at once if one is)."""
        await self._arrived.wait()

    async def next(self) -> str:
        """The oldest message, once there is one; it stays until `sent()`."""
        await self._arrived.wait()
        return self._waiting[0]

    @property
    def head_recorded(self) -> bool:
        """The oldest message is already in the conversation's turns (it is being sent, or sent again)."""
        return self._head_recorded

    def record_head(self) -> None:
        self._head_recorded = True

    def sent(self) -> None:
        """The oldest message went out: drop it."""
        self._head_recorded = False
        self._waiting.popleft()
        if not self._waiting:
            self._arrived.clear()

    def drop_all(self) -> int:
        """Forget every waiting message (no connection could take them); how many there were."""
        dropped = len(self._waiting)
        self._head_recorded = False
        self._waiting.clear()
        self._arrived.clear()
        return dropped
