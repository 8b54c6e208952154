"""The decisions of `chats.degrade`: how long a failed remote part rests, what a service asked, and what the
log says (once when a part degrades, once when it recovers), on an injected clock."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

import pytest

from chats.degrade import (
    FAILURE_REST,
    MAX_REST,
    QUOTA_REST,
    Health,
    RemotePart,
    failed,
    is_outage,
    parse_duration,
    parse_retry_after,
    rest_after,
    should_ask,
)
from chats.errors import EmbeddingError, QuotaRefusal, TextModelError

NOW = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> datetime:
        return self.now


def test_a_quota_refusal_rests_as_long_as_the_service_asked_within_an_hour() -> None:
    assert rest_after(QuotaRefusal(42.0)) == timedelta(seconds=42)
    assert rest_after(QuotaRefusal(None)) == QUOTA_REST == timedelta(minutes=5)
    assert rest_after(QuotaRefusal(86_400.0)) == MAX_REST
    assert rest_after(QuotaRefusal(-3.0)) == timedelta(0)


def test_any_other_failure_rests_briefly() -> None:
    assert rest_after(None) == FAILURE_REST == timedelta(seconds=30)


def test_a_healthy_part_is_asked_and_a_resting_one_only_once_its_rest_is_over() -> None:
    assert should_ask(Health(), NOW)
    resting = failed(NOW, QuotaRefusal(42.0))
    assert resting == Health(degraded=True, resting_until=NOW + timedelta(seconds=42))
    assert not should_ask(resting, NOW + timedelta(seconds=41))
    assert should_ask(resting, NOW + timedelta(seconds=42))


@pytest.mark.parametrize(
    ("header", "seconds"),
    [("42", 42.0), ("1.5", 1.5), ("Fri, 27 Nov 2026 12:01:00 GMT", 60.0), ("soon", None), (None, None), ("", None)],
)
def test_retry_after_is_seconds_or_a_date(header: str | None, seconds: float | None) -> None:
    assert parse_retry_after(header, NOW) == seconds


@pytest.mark.parametrize(("value", "seconds"), [("34s", 34.0), ("0.5s", 0.5), ("34", None), (34, None)])
def test_a_retry_delay_is_a_protobuf_duration(value: object, seconds: float | None) -> None:
    assert parse_duration(value) == seconds


async def test_a_resting_part_sends_calls_to_its_twin_without_asking_the_service(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = Clock()
    part = RemotePart("Gemini embeddings", "the local model m", clock=clock)
    asked: list[str] = []

    async def refusing() -> str:
        asked.append("service")
        raise EmbeddingError("the Gemini API is rate-limiting this key", quota=QuotaRefusal(42.0))

    async def answering() -> str:
        asked.append("service")
        return "remote"

    async def twin() -> str:
        return "local"

    with caplog.at_level(logging.INFO, logger="chats.degrade"):
        assert await part.call(refusing, twin) == ("local", False)
        clock.now += timedelta(seconds=41)
        assert await part.call(answering, twin) == ("local", False)
        assert asked == ["service"]  # the refusal is remembered: not asked again within its 42 s
        clock.now += timedelta(seconds=1)
        assert await part.call(answering, twin) == ("remote", True)
        assert await part.call(answering, twin) == ("remote", True)
    assert asked == ["service"] * 3
    assert [r.getMessage() for r in caplog.records] == [
        "Gemini embeddings degraded: the Gemini API is rate-limiting this key; the local model m answers,"
        " the service is asked again in 42 s",
        "Gemini embeddings recovered: the service answers again",
    ]


async def test_the_log_says_once_that_a_part_degraded_however_often_it_fails(caplog: pytest.LogCaptureFixture) -> None:
    clock = Clock()
    part = RemotePart("Gemini summaries and titles", "the offline writer", clock=clock)

    async def failing() -> str:
        raise TextModelError("cannot reach the Gemini API", outage=True)

    async def twin() -> str:
        return "offline"

    with caplog.at_level(logging.INFO, logger="chats.degrade"):
        for _ in range(5):
            assert await part.call(failing, twin) == ("offline", False)
            clock.now += FAILURE_REST
    assert len(caplog.records) == 1
    assert caplog.records[0].levelno == logging.WARNING
    assert part.health.degraded


async def test_other_errors_are_not_outages() -> None:
    part = RemotePart("Gemini embeddings", "the local model m", clock=Clock())

    async def broken() -> str:
        raise RuntimeError("a bug")

    async def twin() -> str:
        return "local"

    with pytest.raises(RuntimeError):
        await part.call(broken, twin)
    assert part.health == Health()


@pytest.mark.parametrize(
    ("status", "outage"),
    [(None, True), (408, True), (429, True), (500, True), (503, True), (400, False), (401, False), (404, False)],
)
def test_the_service_failing_is_an_outage_and_a_refused_request_is_not(status: int | None, outage: bool) -> None:
    assert is_outage(status) is outage


async def test_a_refused_key_is_said_not_hidden_behind_the_twin() -> None:
    part = RemotePart("Gemini embeddings", "the local model m", clock=Clock())

    async def refused() -> str:
        raise EmbeddingError("the Gemini API key was refused")

    async def twin() -> str:
        return "local"

    with pytest.raises(EmbeddingError, match="key was refused"):
        await part.call(refused, twin)
    assert part.health == Health()
