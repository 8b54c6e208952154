"""The turn journal as an outbox: delivered to the chat store when a conversation is saved, and again,
with exponential backoff, for as long as the store cannot take it (Supabase unreachable, a network
gone). Turns carry ids and the store keeps each id once per chat, so a delivery repeated after one that
reached the store but never heard back adds nothing: every turn arrives exactly once.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from contextlib import suppress
from itertools import count
from types import TracebackType

from chats.journal import Delivery, TurnJournal
from chats.store import ChatStore
from voice.backoff import Backoff, Pause

log = logging.getLogger(__name__)

DELIVERY_BACKOFF = Backoff(first_s=1.0, max_s=60.0)
"""A store back after a long outage gets its turns within a minute."""


class Outbox:
    """Use as `async with`: it owns the retrying task, which ends with the block."""

    def __init__(
        self,
        journal: TurnJournal,
        store: ChatStore,
        *,
        on_retry_delivered: Callable[[Delivery], Awaitable[None]],
        backoff: Backoff = DELIVERY_BACKOFF,
        pause: Pause = asyncio.sleep,
    ) -> None:
        """`on_retry_delivered` hears of each retry that delivered turns (a conversation's own delivery
        answers its caller); `pause` waits between attempts (tests pass one they control)."""
        self._journal = journal
        self._store = store
        self._on_retry_delivered = on_retry_delivered
        self._backoff = backoff
        self._pause = pause
        self._undelivered = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> Outbox:
        self._task = asyncio.create_task(self._retry(), name="outbox-retry")
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if self._task is not None:
            self._task.cancel()
            with suppress(asyncio.CancelledError):
                await self._task

    async def deliver(self) -> Delivery:
        """Deliver the journal now; what the store could not take is retried in the background."""
        delivery = await self._journal.deliver(self._store)
        if delivery.pending:
            self._undelivered.set()
        return delivery

    async def _retry(self) -> None:
        while True:
            await self._undelivered.wait()
            # Cleared before the attempts: a delivery that fails meanwhile sets it again, and is retried.
            self._undelivered.clear()
            for attempt in count():
                delay = self._backoff.delay(attempt)
                log.info("the chat store could not take every turn: retry %d in %.0f s", attempt + 1, delay)
                await self._pause(delay)
                try:
                    delivery = await self._journal.deliver(self._store)
                except Exception:
                    # Whatever went wrong (a keyring that would not give the session, a full disk), the
                    # turns are safe in the journal: say so and keep trying.
                    log.exception("a delivery of the journal failed")
                    continue
                if delivery.delivered:
                    await self._on_retry_delivered(delivery)
                if not delivery.pending:
                    log.info("the journal is delivered after %d retr%s", attempt + 1, "y" if attempt == 0 else "ies")
                    break
