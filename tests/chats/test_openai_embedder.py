"""`OpenAIEmbedder` driving the real `openai` client against the local fake embeddings server."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator

import numpy as np
import openai
import pytest

from chats.embedders.openai_embedder import (
    DEFAULT_MODEL,
    DIMENSIONS,
    MAX_CHARS_PER_REQUEST,
    MAX_INPUTS_PER_REQUEST,
    OpenAIEmbedder,
    plan_batches,
)
from chats.embedders.remote_embedding import MAX_RETRIES
from chats.errors import EmbeddingError
from tests.fakes.openai_server import FAKE_API_KEY, FakeOpenAIServer, ScriptedFailure, word_vector

REFUSED = "the OpenAI API refused the embedding request"


@pytest.fixture
async def embedder(openai_server: FakeOpenAIServer) -> AsyncIterator[OpenAIEmbedder]:
    async with OpenAIEmbedder(FAKE_API_KEY, base_url=openai_server.base_url) as embedder:
        yield embedder


async def test_vectors_are_unit_float32_rows_of_384(embedder: OpenAIEmbedder) -> None:
    got = await embedder.embed(["turn on the lights", "what time is it", "play some jazz"])

    assert got.shape == (3, DIMENSIONS) == (3, 384)
    assert got.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-6)
    assert embedder.dimensions == 384
    assert embedder.model_name == "text-embedding-3-small@384"


async def test_vectors_are_the_servers_in_input_order(embedder: OpenAIEmbedder) -> None:
    texts = ["first text", "second one", "and the third"]

    got = await embedder.embed(texts)

    expected = np.array([word_vector(t, DEFAULT_MODEL, DIMENSIONS) for t in texts])
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-7)


async def test_similar_texts_are_similar(embedder: OpenAIEmbedder) -> None:
    warm, cold, taxes = await embedder.embed(
        ["my cat likes warm milk", "My cat likes cold milk!", "the quarterly tax return is due"]
    )

    assert float(warm @ cold) > 0.7
    assert float(warm @ cold) > float(warm @ taxes) + 0.5


async def test_the_request_carries_model_and_dimensions(
    embedder: OpenAIEmbedder, openai_server: FakeOpenAIServer
) -> None:
    await embedder.embed(["hello there"])

    [request] = openai_server.embedding_requests
    assert request.body["model"] == DEFAULT_MODEL
    assert request.body["dimensions"] == DIMENSIONS
    assert request.body["input"] == ["hello there"]
    # The SDK's default, decoded by the SDK: this is the little-endian float32 path.
    assert request.body["encoding_format"] == "base64"
    assert request.authorization == f"Bearer {FAKE_API_KEY}"


async def test_many_texts_go_in_batches_of_512_and_come_back_in_order(
    embedder: OpenAIEmbedder, openai_server: FakeOpenAIServer
) -> None:
    texts = [f"note number {i} about topic {i % 7}" for i in range(1200)]

    got = await embedder.embed(texts)

    sizes = [len(request.inputs) for request in openai_server.embedding_requests]
    assert sizes == [512, 512, 176]
    assert [t for request in openai_server.embedding_requests for t in request.inputs] == texts
    for i in (0, 511, 512, 1023, 1024, 1199):
        np.testing.assert_allclose(got[i], word_vector(texts[i], DEFAULT_MODEL, DIMENSIONS), atol=1e-7)


async def test_an_empty_text_is_a_zero_row_and_is_not_sent(
    embedder: OpenAIEmbedder, openai_server: FakeOpenAIServer
) -> None:
    got = await embedder.embed(["", "something", ""])

    assert not got[0].any()
    assert not got[2].any()
    assert float(np.linalg.norm(got[1])) == pytest.approx(1.0)
    [request] = openai_server.embedding_requests
    assert request.inputs == ["something"]


async def test_no_texts_make_no_request(embedder: OpenAIEmbedder, openai_server: FakeOpenAIServer) -> None:
    got = await embedder.embed([])

    assert got.shape == (0, DIMENSIONS)
    assert got.dtype == np.float32
    assert openai_server.requests == []


async def test_a_wrong_key_is_refused_without_showing_it(
    openai_server: FakeOpenAIServer, caplog: pytest.LogCaptureFixture
) -> None:
    wrong_key = "sk-wrong-key-that-must-not-leak-42"
    caplog.set_level(logging.DEBUG)

    async with OpenAIEmbedder(wrong_key, base_url=openai_server.base_url) as embedder:
        with pytest.raises(EmbeddingError) as caught:
            await embedder.embed(["hello"])

    assert str(caught.value) == "the OpenAI API key was refused"
    assert caught.value.__cause__ is None
    assert caught.value.__context__ is None
    assert "401" in caplog.text, "the SDK's debug log was captured"
    assert wrong_key not in caplog.text
    assert len(openai_server.requests) == 1, "a refused key is not retried"


async def test_a_closed_port_is_reported_with_its_host(closed_port_url: str) -> None:
    # No retries here: the SDK's backoff between connection attempts is real time (0.5 s, 1 s).
    async with OpenAIEmbedder(FAKE_API_KEY, base_url=closed_port_url, max_retries=0) as embedder:
        with pytest.raises(EmbeddingError) as caught:
            await embedder.embed(["hello"])

    host = closed_port_url.removeprefix("http://").removesuffix("/v1")
    assert str(caught.value) == f"cannot reach the OpenAI API at {host}"
    assert FAKE_API_KEY not in str(caught.value)


async def test_server_errors_are_retried(embedder: OpenAIEmbedder, openai_server: FakeOpenAIServer) -> None:
    openai_server.fail_next = [ScriptedFailure(500, "server_error")] * MAX_RETRIES

    got = await embedder.embed(["still works"])

    assert got.shape == (1, DIMENSIONS)
    assert len(openai_server.embedding_requests) == 1 + MAX_RETRIES


@pytest.mark.parametrize(
    ("failure", "times", "message"),
    [
        (ScriptedFailure(400, "invalid_value"), 1, f"{REFUSED} (HTTP 400, invalid_value)"),
        (ScriptedFailure(400, "not a\ncode: sk-secret"), 1, f"{REFUSED} (HTTP 400)"),
        (ScriptedFailure(403, "unsupported_country"), 1, "the OpenAI API key may not use text-embedding-3-small"),
        (
            ScriptedFailure(429, "rate_limit_exceeded"),
            1 + MAX_RETRIES,
            "the OpenAI API is rate-limiting this key, or its quota is used up",
        ),
        (ScriptedFailure(503, "overloaded"), 1 + MAX_RETRIES, f"{REFUSED} (HTTP 503, overloaded)"),
    ],
)
async def test_other_failures_have_short_messages(
    embedder: OpenAIEmbedder, openai_server: FakeOpenAIServer, failure: ScriptedFailure, times: int, message: str
) -> None:
    openai_server.fail_next = [failure] * times

    with pytest.raises(EmbeddingError) as caught:
        await embedder.embed(["hello"])

    assert str(caught.value) == message
    assert len(openai_server.embedding_requests) == times


async def test_an_unknown_model_is_named(openai_server: FakeOpenAIServer) -> None:
    async with OpenAIEmbedder(FAKE_API_KEY, model="text-embedding-9", base_url=openai_server.base_url) as embedder:
        assert embedder.model_name == "text-embedding-9@384"
        with pytest.raises(EmbeddingError, match="does not offer the model text-embedding-9"):
            await embedder.embed(["hello"])


def test_an_empty_key_is_refused_at_once() -> None:
    with pytest.raises(EmbeddingError, match="no OpenAI API key"):
        OpenAIEmbedder("")


def test_batches_respect_the_input_limit() -> None:
    assert plan_batches([]) == []
    assert plan_batches([5] * 1200) == [range(0, 512), range(512, 1024), range(1024, 1200)]
    assert plan_batches([5] * MAX_INPUTS_PER_REQUEST) == [range(0, MAX_INPUTS_PER_REQUEST)]


def test_batches_respect_the_character_limit() -> None:
    half = MAX_CHARS_PER_REQUEST // 2

    assert plan_batches([half, half, 1, half]) == [range(0, 2), range(2, 4)]
    # A text over the limit on its own still goes, alone.
    assert plan_batches([10, MAX_CHARS_PER_REQUEST + 1, 10]) == [range(0, 1), range(1, 2), range(2, 3)]


async def test_the_fake_answers_float_and_base64_alike(openai_server: FakeOpenAIServer) -> None:
    async with openai.AsyncOpenAI(api_key=FAKE_API_KEY, base_url=openai_server.base_url) as client:
        floats = await client.embeddings.create(
            input=["same text"], model=DEFAULT_MODEL, dimensions=8, encoding_format="float"
        )
        decoded = await client.embeddings.create(input=["same text"], model=DEFAULT_MODEL, dimensions=8)

    assert [r.body["encoding_format"] for r in openai_server.embedding_requests] == ["float", "base64"]
    assert floats.data[0].embedding == pytest.approx(decoded.data[0].embedding, abs=1e-7)
    assert len(floats.data[0].embedding) == 8
