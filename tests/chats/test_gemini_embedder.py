"""`GeminiEmbedder` driving the real `google-genai` client against the local fake of `batchEmbedContents`."""

from __future__ import annotations

import logging
import socket
from collections.abc import AsyncIterator, Iterator

import numpy as np
import numpy.typing as npt
import pytest
from google import genai
from google.genai import errors as genai_errors
from google.genai import types

from chats.embedders.gemini_embedder import DEFAULT_MODEL, DIMENSIONS, LIMITS, GeminiEmbedder
from chats.embedders.remote_embedding import MAX_RETRIES
from chats.errors import EmbeddingError
from tests.fakes.gemini_embeddings import MAX_BODY_BYTES, MAX_REQUESTS, expected_vector
from tests.fakes.gemini_server import FAKE_GEMINI_KEY, FakeGeminiServer, Reply

REFUSED = "the Gemini API refused the embedding request"


@pytest.fixture
async def embedder(gemini_server: FakeGeminiServer) -> AsyncIterator[GeminiEmbedder]:
    async with GeminiEmbedder(FAKE_GEMINI_KEY, base_url=gemini_server.base_url) as embedder:
        yield embedder


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port on 127.0.0.1 that accepts connections (into the kernel's backlog) and never answers."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        yield listener.getsockname()[1]


@pytest.fixture
def closed_port() -> Iterator[int]:
    """A port on 127.0.0.1 that refuses connections: bound, never listening, so nobody else takes it."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as holder:
        holder.bind(("127.0.0.1", 0))
        yield holder.getsockname()[1]


def unit(vector: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    scaled: npt.NDArray[np.float32] = vector / np.linalg.norm(vector)
    return scaled


async def test_vectors_are_unit_float32_rows_of_768(embedder: GeminiEmbedder) -> None:
    got = await embedder.embed(["turn on the lights", "what time is it", "play some jazz"])

    assert got.shape == (3, DIMENSIONS) == (3, 768)
    assert got.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-6)
    assert embedder.dimensions == 768
    assert embedder.model_name == "gemini-embedding-2@768"


async def test_vectors_are_the_servers_in_input_order(embedder: GeminiEmbedder) -> None:
    texts = ["first text", "second one", "and the third"]

    got = await embedder.embed(texts)

    expected = np.array([expected_vector(t, DEFAULT_MODEL, DIMENSIONS) for t in texts])
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-6)


async def test_truncated_vectors_of_gemini_embedding_001_are_made_unit_length(gemini_server: FakeGeminiServer) -> None:
    texts = ["the kitchen renovation budget", "a two-week holiday in Japan"]
    async with GeminiEmbedder(
        FAKE_GEMINI_KEY, model="gemini-embedding-001", base_url=gemini_server.base_url
    ) as embedder:
        got = await embedder.embed(texts)

    sent = [expected_vector(t, "gemini-embedding-001", DIMENSIONS) for t in texts]
    # The service cuts 001's unit 3,072-d vector as is, so what it sends is shorter than 1 ...
    assert all(float(np.linalg.norm(v)) < 0.9 for v in sent)
    # ... and the embedder rescales it: cosine is a plain dot product in every store.
    np.testing.assert_allclose(got, np.array([unit(v) for v in sent]), rtol=0, atol=1e-6)
    assert embedder.model_name == "gemini-embedding-001@768"


async def test_similar_texts_are_similar(embedder: GeminiEmbedder) -> None:
    warm, cold, taxes = await embedder.embed(
        ["my cat likes warm milk", "My cat likes cold milk!", "the quarterly tax return is due"]
    )

    assert float(warm @ cold) > 0.7
    assert float(warm @ cold) > float(warm @ taxes) + 0.5


async def test_each_text_is_its_own_content_with_the_dimension(
    embedder: GeminiEmbedder, gemini_server: FakeGeminiServer
) -> None:
    await embedder.embed(["hello there", "general kenobi"])

    [request] = gemini_server.embedding_requests
    assert request.path == f"/{request.api_version}/models/{DEFAULT_MODEL}:batchEmbedContents"
    assert request.api_key == FAKE_GEMINI_KEY
    assert request.embedded_texts == ["hello there", "general kenobi"]
    for sent in request.body["requests"]:
        assert sent["model"] == f"models/{DEFAULT_MODEL}"
        assert sent["outputDimensionality"] == DIMENSIONS
        assert "taskType" not in sent  # one space for queries and stored texts alike


async def test_plain_strings_would_come_back_as_one_aggregated_vector(gemini_server: FakeGeminiServer) -> None:
    # Why the embedder wraps each text in a Content: the SDK sends a list of strings to gemini-embedding-2 as
    # the parts of one content, and the service embeds them together (googleapis/python-genai#2523).
    client = genai.Client(api_key=FAKE_GEMINI_KEY, http_options=types.HttpOptions(base_url=gemini_server.base_url))
    try:
        response = await client.aio.models.embed_content(
            model=DEFAULT_MODEL, contents=["one text", "another text", "a third"]
        )
    finally:
        await client.aio.aclose()

    assert len(response.embeddings or []) == 1
    assert gemini_server.embedding_requests[0].embedded_texts == ["one textanother texta third"]


async def test_many_texts_go_in_batches_of_100_and_come_back_in_order(
    embedder: GeminiEmbedder, gemini_server: FakeGeminiServer
) -> None:
    texts = [f"note number {i} about topic {i % 7}" for i in range(250)]

    got = await embedder.embed(texts)

    assert [len(r.embedded_texts) for r in gemini_server.embedding_requests] == [100, 100, 50]
    assert [t for r in gemini_server.embedding_requests for t in r.embedded_texts] == texts
    for i in (0, 99, 100, 199, 200, 249):
        np.testing.assert_allclose(got[i], expected_vector(texts[i], DEFAULT_MODEL, DIMENSIONS), atol=1e-6)


async def test_long_texts_in_any_script_stay_under_the_body_limit(
    embedder: GeminiEmbedder, gemini_server: FakeGeminiServer
) -> None:
    # Characters outside the BMP are written as two \\u escapes: 12 bytes each in the JSON body, so these
    # four texts in one request would be refused (4.8 MB).
    texts = [f"entry {i} " + "\U0001f600" * 100_000 for i in range(4)]
    assert MAX_BODY_BYTES < 4 * 100_000 * 12

    got = await embedder.embed(texts)

    assert got.shape == (4, DIMENSIONS)
    assert [len(r.embedded_texts) for r in gemini_server.embedding_requests] == [1, 1, 1, 1]


async def test_an_empty_text_is_a_zero_row_and_is_not_sent(
    embedder: GeminiEmbedder, gemini_server: FakeGeminiServer
) -> None:
    got = await embedder.embed(["", "something", ""])

    assert not got[0].any()
    assert not got[2].any()
    assert float(np.linalg.norm(got[1])) == pytest.approx(1.0)
    [request] = gemini_server.embedding_requests
    assert request.embedded_texts == ["something"]


async def test_no_texts_make_no_request(embedder: GeminiEmbedder, gemini_server: FakeGeminiServer) -> None:
    got = await embedder.embed([])

    assert got.shape == (0, DIMENSIONS)
    assert got.dtype == np.float32
    assert gemini_server.requests == []


async def test_a_wrong_key_is_refused_in_one_line_without_showing_it(
    gemini_server: FakeGeminiServer, caplog: pytest.LogCaptureFixture
) -> None:
    wrong_key = "AIzaWrongKeyThatMustNotLeak42"
    caplog.set_level(logging.DEBUG)

    async with GeminiEmbedder(wrong_key, base_url=gemini_server.base_url) as embedder:
        with pytest.raises(EmbeddingError) as caught:
            await embedder.embed(["hello"])

    assert str(caught.value) == "the Gemini API key was refused"
    assert caught.value.__cause__ is None
    assert caught.value.__context__ is None
    assert wrong_key not in caplog.text
    assert len(gemini_server.embedding_requests) == 1, "a refused key is not retried"
    assert gemini_server.embedding_requests[0].api_key == wrong_key


async def test_the_service_down_is_retried_then_said_in_one_line(
    embedder: GeminiEmbedder, gemini_server: FakeGeminiServer
) -> None:
    unavailable = Reply.error(503, "UNAVAILABLE", f"The model is overloaded. Key {FAKE_GEMINI_KEY}.")
    gemini_server.fail_embeddings(*[unavailable] * (1 + MAX_RETRIES))

    with pytest.raises(EmbeddingError) as caught:
        await embedder.embed(["hello"])

    assert str(caught.value) == f"{REFUSED} (HTTP 503, UNAVAILABLE)"
    assert len(gemini_server.embedding_requests) == 1 + MAX_RETRIES


async def test_a_passing_outage_is_retried(embedder: GeminiEmbedder, gemini_server: FakeGeminiServer) -> None:
    gemini_server.fail_embeddings(*[Reply.error(500, "INTERNAL", "An internal error has occurred.")] * MAX_RETRIES)

    got = await embedder.embed(["still works"])

    assert got.shape == (1, DIMENSIONS)
    assert len(gemini_server.embedding_requests) == 1 + MAX_RETRIES


async def test_a_closed_port_is_reported_with_its_host(closed_port: int) -> None:
    # No retries here: the backoff between connection attempts is real time.
    base_url = f"http://127.0.0.1:{closed_port}"
    async with GeminiEmbedder(FAKE_GEMINI_KEY, base_url=base_url, max_retries=0) as embedder:
        with pytest.raises(EmbeddingError) as caught:
            await embedder.embed(["hello"])

    assert str(caught.value) == f"cannot reach the Gemini API at 127.0.0.1:{closed_port}"


async def test_a_silent_service_times_out(silent_port: int) -> None:
    base_url = f"http://127.0.0.1:{silent_port}"
    async with GeminiEmbedder(FAKE_GEMINI_KEY, base_url=base_url, timeout_seconds=0.3, max_retries=0) as embedder:
        with pytest.raises(EmbeddingError) as caught:
            await embedder.embed(["hello"])

    assert str(caught.value) == f"the Gemini API at 127.0.0.1:{silent_port} did not answer within 0.3 s"


@pytest.mark.parametrize(
    ("failure", "times", "message"),
    [
        (Reply.error(400, "INVALID_ARGUMENT", f"bad {FAKE_GEMINI_KEY}"), 1, f"{REFUSED} (HTTP 400, INVALID_ARGUMENT)"),
        (Reply.error(400, "not a\nname: AIza", "x"), 1, f"{REFUSED} (HTTP 400)"),
        (Reply.error(403, "PERMISSION_DENIED", "no"), 1, f"the Gemini API key may not use {DEFAULT_MODEL}"),
        (
            Reply.error(429, "RESOURCE_EXHAUSTED", "Quota exceeded"),
            1 + MAX_RETRIES,
            "the Gemini API is rate-limiting this key, or its quota is used up",
        ),
    ],
)
async def test_other_failures_have_short_messages(
    embedder: GeminiEmbedder, gemini_server: FakeGeminiServer, failure: Reply, times: int, message: str
) -> None:
    gemini_server.fail_embeddings(*[failure] * times)

    with pytest.raises(EmbeddingError) as caught:
        await embedder.embed(["hello"])

    assert str(caught.value) == message
    assert FAKE_GEMINI_KEY not in str(caught.value)
    assert len(gemini_server.embedding_requests) == times


@pytest.mark.parametrize("model", ["gemini-embedding-9", "gemini-3.5-flash-lite"])
async def test_a_model_that_does_not_embed_is_named(gemini_server: FakeGeminiServer, model: str) -> None:
    async with GeminiEmbedder(FAKE_GEMINI_KEY, model=model, base_url=gemini_server.base_url) as embedder:
        assert embedder.model_name == f"{model}@768"
        with pytest.raises(EmbeddingError) as caught:
            await embedder.embed(["hello"])

    assert str(caught.value) == f"the Gemini API does not offer the model {model}"


def test_an_empty_key_is_refused_at_once() -> None:
    with pytest.raises(EmbeddingError, match="no Gemini API key"):
        GeminiEmbedder("  ")


def test_the_limits_are_within_the_services() -> None:
    assert LIMITS.max_inputs == MAX_REQUESTS == 100
    # 12 bytes is the most one character takes in the SDK's JSON (a surrogate pair, escaped).
    assert LIMITS.max_chars * 12 < MAX_BODY_BYTES


# The fake itself refuses what the service refuses.


async def fake_call(
    server: FakeGeminiServer, contents: list[types.Content], **config: object
) -> types.EmbedContentResponse:
    client = genai.Client(api_key=FAKE_GEMINI_KEY, http_options=types.HttpOptions(base_url=server.base_url))
    try:
        return await client.aio.models.embed_content(model=DEFAULT_MODEL, contents=contents)
    finally:
        await client.aio.aclose()


def content(text: str) -> types.Content:
    return types.Content(role="user", parts=[types.Part(text=text)])


async def test_the_fake_refuses_more_than_100_requests_in_a_batch(gemini_server: FakeGeminiServer) -> None:
    with pytest.raises(genai_errors.ClientError) as caught:
        await fake_call(gemini_server, [content(f"t{i}") for i in range(101)])

    assert caught.value.code == 400
    assert "at most 100 requests can be in one batch" in (caught.value.message or "")


async def test_the_fake_refuses_a_body_over_4_mib(gemini_server: FakeGeminiServer) -> None:
    with pytest.raises(genai_errors.ClientError) as caught:
        await fake_call(gemini_server, [content("\U0001f600" * 400_000)])

    assert caught.value.code == 400
    assert caught.value.message == "Request payload size exceeds the limit: 4194304 bytes."


async def test_the_fake_answers_full_size_vectors_without_a_dimension(gemini_server: FakeGeminiServer) -> None:
    response = await fake_call(gemini_server, [content("hello")])

    [embedding] = response.embeddings or []
    values = np.array(embedding.values or [])
    assert values.shape == (3072,)
    assert float(np.linalg.norm(values)) == pytest.approx(1.0, abs=1e-6)
