"""Degrade, never die: what a remote part (the Gemini or OpenAI embeddings, Gemini's summaries and titles)
does when its service fails, so that its local twin answers in its place.

A failure puts the part in a rest: until it ends, calls go straight to the twin instead of waiting on a
service that just failed. A quota refusal (HTTP 429, RESOURCE_EXHAUSTED) rests as long as the service
asked (`Retry-After`, Google's `RetryInfo`) or `QUOTA_REST` when it did not say; any other failure (a
refused connection, a server error, a hang past the timeout, an answer that is not one) rests
`FAILURE_REST`, so that a service that hangs costs one timeout, not one per request. The first call after
the rest asks the service again: an answer ends the degradation.

`Health`, `rest_after` and the `parse_*` helpers are pure; `RemotePart` is the thin shell that holds a
part's health, reads an injected clock and says in the log, once each, that the part degraded and that it
recovered (never per call).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.utils import parsedate_to_datetime
from typing import Generic, Protocol, TypeVar, runtime_checkable

from chats.errors import EmbeddingError, QuotaRefusal, TextModelError
from chats.models import utc_now

log = logging.getLogger(__name__)

T = TypeVar("T")

FAILURE_REST = timedelta(seconds=30)
"""After a failure other than quota: long enough that a hanging service costs one timeout per half minute
of use, short enough that a blip is soon forgotten."""
QUOTA_REST = timedelta(minutes=5)
"""After a quota refusal that names no wait: Gemini's free tier counts requests per minute, and a daily
quota spent stays spent; asking every few minutes costs nothing either way."""
MAX_REST = timedelta(hours=1)
"""The longest rest, whatever the service asks: a part is tried again at least this often."""

RemoteFailure = EmbeddingError | TextModelError


@dataclass(frozen=True, slots=True)
class Health:
    """What is known of a remote part."""

    degraded: bool = False
    """The last call failed: its local twin answers."""
    resting_until: datetime | None = None
    """Until then (UTC) the service is not asked; None: ask it."""


def should_ask(health: Health, now: datetime) -> bool:
    """Whether the service is asked now (else the twin answers at once)."""
    return health.resting_until is None or now >= health.resting_until


def rest_after(quota: QuotaRefusal | None) -> timedelta:
    """How long a part rests after a failure: what a quota refusal asked (within `MAX_REST`), `QUOTA_REST`
    when it named no wait, `FAILURE_REST` after any other failure."""
    if quota is None:
        return FAILURE_REST
    if quota.retry_after_seconds is None:
        return QUOTA_REST
    return min(timedelta(seconds=max(quota.retry_after_seconds, 0.0)), MAX_REST)


def failed(now: datetime, quota: QuotaRefusal | None) -> Health:
    return Health(degraded=True, resting_until=now + rest_after(quota))


def is_outage(status: int | None) -> bool:
    """Whether a failure with this HTTP status (None: no answer, or one that is not the service's) is the
    service's rather than the request's: a refused key or an unknown model is the user's to fix, and falling
    back would hide it."""
    return status is None or status in (408, 429) or status >= 500


def parse_retry_after(value: str | None, now: datetime) -> float | None:
    """Seconds from an HTTP `Retry-After` header: a number of seconds or an HTTP date; None when absent or
    unreadable."""
    if not value:
        return None
    value = value.strip()
    if re.fullmatch(r"\d+(?:\.\d+)?", value):
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max((when - now).total_seconds(), 0.0) if when.tzinfo is not None else None


def parse_duration(value: object) -> float | None:
    """Seconds from a protobuf `Duration` in JSON ("34s", "1.5s"), as Google's `RetryInfo.retryDelay` is
    written; None otherwise."""
    if not isinstance(value, str):
        return None
    match = re.fullmatch(r"(\d+(?:\.\d+)?)s", value.strip())
    return float(match[1]) if match else None


class RemotePart:
    """One remote part's health over time. `call` asks the service (unless it rests) and, when that fails,
    the local twin; the log says once that the part degraded (with the one-line reason, which never holds a
    key nor a transcript) and once that it recovered."""

    def __init__(self, name: str, twin: str, *, clock: Callable[[], datetime] = utc_now) -> None:
        """`name` says which part ("Gemini embeddings"), `twin` what answers instead ("the local model
        all-MiniLM-L6-v2"): both only for the log. `clock` gives UTC now."""
        self.name = name
        self._twin = twin
        self._clock = clock
        self._health = Health()

    @property
    def health(self) -> Health:
        return self._health

    def should_ask(self) -> bool:
        return should_ask(self._health, self._clock())

    def failed(self, error: RemoteFailure) -> None:
        was_degraded = self._health.degraded
        self._health = failed(self._clock(), error.quota)
        if not was_degraded:
            rest = rest_after(error.quota).total_seconds()
            log.warning(
                "%s degraded: %s; %s answers, the service is asked again in %g s", self.name, error, self._twin, rest
            )

    def succeeded(self) -> None:
        if self._health.degraded:
            log.info("%s recovered: the service answers again", self.name)
        self._health = Health()

    async def call(self, remote: Callable[[], Awaitable[T]], twin: Callable[[], Awaitable[T]]) -> tuple[T, bool]:
        """`remote()`'s answer and True, or, while the part rests or when `remote()` raises an
        `EmbeddingError` or `TextModelError` of an outage, `twin()`'s and False. Anything else (a refused key)
        goes up unchanged."""
        if self.should_ask():
            try:
                answer = await remote()
            except (EmbeddingError, TextModelError) as error:
                if not error.outage:
                    raise
                self.failed(error)
            else:
                self.succeeded()
                return answer, True
        return await twin(), False


class WithTwin(Generic[T]):
    """A remote model (`T`) and its local twin, which answers while the remote part rests: the owner of what
    `FallbackEmbedder` and `FallbackTextModel` share."""

    def __init__(self, remote: T, twin: T, part: RemotePart) -> None:
        self._remote = remote
        self._twin = twin
        self._part = part

    @property
    def part(self) -> RemotePart:
        """The remote part's health, which maintenance reads too (`Degradable`)."""
        return self._part


@runtime_checkable
class Degradable(Protocol):
    """A model with a remote part that can degrade (`FallbackEmbedder`, `FallbackTextModel`)."""

    @property
    def part(self) -> RemotePart: ...


def part_of(model: object) -> RemotePart | None:
    """The remote part of an embedder or text model that falls back; None for one that does not (or for a
    model made on first use that will have none: its `part` is None)."""
    return model.part if isinstance(model, Degradable) else None
