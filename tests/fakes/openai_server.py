"""A local stand-in for the OpenAI embeddings endpoint, for the real `openai` client to talk to.

It serves `POST /v1/embeddings` on 127.0.0.1 the way the API does: bearer-key check, `input` as a
string or a list of at most 2,048 non-empty strings, `model`, `dimensions`, and `encoding_format`
("float" or "base64"; the `openai` client asks for base64 unless told otherwise). Vectors are a
hashed bag of lowercase words, so texts that share words are close and unrelated texts are not.

Every request is recorded for assertions; `fail_next` scripts error answers, and `outage` fails every
request one way until it is set back to None (`outages`; `hold.release()` lets hung requests go). Use the
`openai_server` fixture (wired up in `tests/conftest.py`), or `closed_port_url` for an address
where nothing answers.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np
import pytest

from tests.fakes.outages import MALFORMED_PAGE, RETRY_AFTER_SECONDS, Hold, Outage

FAKE_API_KEY = "sk-fake-test-key-0123456789abcdef"
NATIVE_DIMENSIONS = {"text-embedding-3-small": 1536, "text-embedding-3-large": 3072}
"""The models the fake knows, with the length of their vectors when `dimensions` is not sent."""
MAX_INPUTS = 2048
"""The API's limit on inputs per request."""


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    path: str
    authorization: str | None
    """The `Authorization` header as received."""
    body: Any
    """The decoded JSON body (None when it was not JSON)."""

    @property
    def inputs(self) -> list[str]:
        value = self.body.get("input") if isinstance(self.body, dict) else None
        return [value] if isinstance(value, str) else list(value or [])


@dataclass(frozen=True, slots=True)
class ScriptedFailure:
    status: int
    code: str
    retry_after_ms: int = 1
    """Sent as `retry-after-ms`, which the client honours: retries in tests take no real time."""


def word_vector(text: str, model: str, dimensions: int) -> np.ndarray[Any, np.dtype[np.float32]]:
    """The fake's embedding: each lowercase word adds +-1 to one hashed bucket, then unit length.

    The model name seeds the hash, so two models never agree. A text without words hashes whole.
    """
    vector = np.zeros(dimensions, dtype=np.float64)
    for word in re.findall(r"\w+", text.lower()) or [text]:
        digest = hashlib.blake2b(f"{model}\0{word}".encode(), digest_size=8).digest()
        number = int.from_bytes(digest, "little")
        vector[number % dimensions] += 1.0 if (number >> 63) else -1.0
    norm = np.linalg.norm(vector)
    return (vector / norm if norm else vector).astype(np.float32)


@dataclass
class FakeOpenAIServer:
    """The server's configuration and what it has seen; `start` and `stop` run it on a thread."""

    api_key: str = FAKE_API_KEY
    requests: list[RecordedRequest] = field(default_factory=list)
    fail_next: list[ScriptedFailure] = field(default_factory=list)
    """Answered in order, one per request, before any normal answer (after the key check)."""
    outage: Outage | None = None
    """How every request fails (after the key check) while set."""
    hold: Hold = field(default_factory=Hold)
    """Where a `hang` holds its requests."""
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _http: ThreadingHTTPServer | None = field(default=None, repr=False)
    _thread: threading.Thread | None = field(default=None, repr=False)

    @property
    def base_url(self) -> str:
        """What to give the client as `base_url`."""
        assert self._http is not None, "the fake server is not running"
        host, port = self._http.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    @property
    def embedding_requests(self) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self.requests if r.path == "/v1/embeddings"]

    def start(self) -> None:
        self._http = _HTTPServer(("127.0.0.1", 0), _Handler, self)
        # `stop` waits for the serving loop to notice, which it does once per poll interval.
        self._thread = threading.Thread(target=self._http.serve_forever, args=(0.01,), name="fake-openai", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self.hold.release()
        if self._http is not None:
            self._http.shutdown()
            self._http.server_close()
        if self._thread is not None:
            self._thread.join()

    def answer(self, path: str, authorization: str | None, raw: bytes) -> tuple[int, dict[str, str], Any]:
        """Record the request and decide the reply: (status, extra headers, JSON body or raw bytes)."""
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        with self._lock:
            self.requests.append(RecordedRequest(path, authorization, body))
            if authorization != f"Bearer {self.api_key}":
                # The real API echoes a masked key; echoing it whole makes a leak in our messages visible.
                given = (authorization or "").removeprefix("Bearer ")
                return _error(401, f"Incorrect API key provided: {given}.", "invalid_api_key")
            if path != "/v1/embeddings":
                return _error(404, f"Unknown request URL: POST {path}.", "unknown_url")
            outage = self.outage
            if outage is None and self.fail_next:
                failure = self.fail_next.pop(0)
                status, _, reply = _error(failure.status, "scripted failure", failure.code)
                return status, {"retry-after-ms": str(failure.retry_after_ms)}, reply
        if outage is not None:
            return self._fail(outage)
        return _embeddings(body)

    def _fail(self, outage: Outage) -> tuple[int, dict[str, str], Any]:
        if outage == "hang":
            self.hold.hang()  # until the test or `stop` lets it go: the client has given up by then
            return _error(500, "released", "server_error")
        if outage == "malformed":
            return 200, {"Content-Type": "text/html"}, MALFORMED_PAGE
        if outage == "quota":
            _, _, reply = _error(429, "You exceeded your current quota.", "insufficient_quota")
            return 429, {"retry-after": str(RETRY_AFTER_SECONDS)}, reply
        return _error(500, "The server had an error while processing your request.", "server_error")


def _error(status: int, message: str, code: str) -> tuple[int, dict[str, str], Any]:
    error = {"message": message, "type": "invalid_request_error", "param": None, "code": code}
    return status, {}, {"error": error}


def _embeddings(body: Any) -> tuple[int, dict[str, str], Any]:
    if not isinstance(body, dict):
        return _error(400, "We could not parse the JSON body of your request.", "invalid_json")
    model = body.get("model")
    if model not in NATIVE_DIMENSIONS:
        return _error(404, f"The model `{model}` does not exist.", "model_not_found")
    inputs = body.get("input")
    texts = [inputs] if isinstance(inputs, str) else inputs
    if not isinstance(texts, list) or not all(isinstance(t, str) and t for t in texts) or not texts:
        return _error(400, "'$.input' is invalid.", "invalid_input")
    if len(texts) > MAX_INPUTS:
        return _error(400, f"'$.input' has more than {MAX_INPUTS} items.", "invalid_input")
    native = NATIVE_DIMENSIONS[model]
    dimensions = body.get("dimensions", native)
    if not isinstance(dimensions, int) or not 1 <= dimensions <= native:
        return _error(400, f"dimensions must be between 1 and {native}.", "invalid_value")
    encoding = body.get("encoding_format", "float")
    if encoding not in ("float", "base64"):
        return _error(400, "encoding_format must be 'float' or 'base64'.", "invalid_value")
    data = []
    for index, text in enumerate(texts):
        vector = word_vector(text, model, dimensions)
        embedding: Any = (
            base64.b64encode(vector.astype("<f4").tobytes()).decode("ascii")
            if encoding == "base64"
            else [float(x) for x in vector]
        )
        data.append({"object": "embedding", "index": index, "embedding": embedding})
    tokens = sum(len(text.split()) for text in texts)
    usage = {"prompt_tokens": tokens, "total_tokens": tokens}
    return 200, {}, {"object": "list", "data": data, "model": model, "usage": usage}


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler], fake: FakeOpenAIServer) -> None:
        super().__init__(address, handler)
        self.fake = fake


class _Handler(BaseHTTPRequestHandler):
    # HTTP/1.0: one request per connection, so `stop` never waits on an idle keep-alive socket.
    protocol_version = "HTTP/1.0"

    def do_POST(self) -> None:
        assert isinstance(self.server, _HTTPServer)
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        status, headers, reply = self.server.fake.answer(self.path, self.headers.get("Authorization"), raw)
        payload = reply if isinstance(reply, bytes) else json.dumps(reply).encode()
        self.send_response(status, HTTPStatus(status).phrase)
        self.send_header("Content-Type", headers.pop("Content-Type", "application/json"))
        self.send_header("Content-Length", str(len(payload)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: pytest shows the test's own output, not an access log."""


@pytest.fixture
def openai_server() -> Iterator[FakeOpenAIServer]:
    """A running fake that accepts `FAKE_API_KEY`."""
    server = FakeOpenAIServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def closed_port_url() -> Iterator[str]:
    """A base URL on 127.0.0.1 where connections are refused.

    The port stays bound but never listens, so no other process can take it during the test and
    Linux answers a connect with a reset at once (no timeout to wait out).
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as holder:
        holder.bind(("127.0.0.1", 0))
        yield f"http://127.0.0.1:{holder.getsockname()[1]}/v1"
