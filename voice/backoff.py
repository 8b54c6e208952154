"""Waiting between retries: a `Backoff` value with units, and the injected pause that waits it out.

It has nothing of voice in it: the voice session waits it out between reconnections, and `app.outbox`
between deliveries of the turn journal (voice may not import app; app may import voice).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Backoff:
    """Waits between attempts: `first_s`, then twice as long each time, at most `max_s`. No jitter: one
    desktop retries against its own service, there is no crowd of clients to spread out."""

    first_s: float = 1.0
    """The wait before the first retry (seconds)."""
    max_s: float = 60.0
    """The longest wait (seconds)."""

    def delay(self, attempt: int) -> float:
        """The wait before retry number `attempt` (0 for the first), in seconds."""
        return min(self.max_s, self.first_s * 2.0 ** min(attempt, 32))


Pause = Callable[[float], Awaitable[None]]
"""Waits the given seconds (`asyncio.sleep`); tests pass one they control."""
