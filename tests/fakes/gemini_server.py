"""A local fake of the Gemini REST API (`generateContent`, `batchEmbedContents`), for the real `google-genai` client.

It speaks the real wire format: `POST /{version}/models/{model}:generateContent` with the key in the
`x-goog-api-key` header, answers `{"candidates": [{"content": {"parts": [{"text": ...}]}}]}`, and refuses
keys the way the API does (400 INVALID_ARGUMENT / API_KEY_INVALID for a wrong key, 403 PERMISSION_DENIED
for none). It is driven by data: script the answers, then read what the client sent. It also answers the
models calls (`GET /{version}/models[/{name}]`) from its `models` (`gemini_models.CATALOGUE` by default),
and embeds with the models there that list `embedContent`, as `gemini_embeddings` describes; `fail_embeddings`
scripts error answers for those calls, and `break_down` an outage of either kind of call until `restore`
(`outages`).
"""

from __future__ import annotations

import json
import re
import threading
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.fakes import gemini_embeddings
from tests.fakes.gemini_models import CATALOGUE, KnownModel, find, is_models_path, models_answer
from tests.fakes.outages import MALFORMED_PAGE, RETRY_AFTER_SECONDS, Hold, Outage

FAKE_GEMINI_KEY = "fake-gemini-key-7f3a"

_PATH = re.compile(r"^/(?P<version>v\d+\w*)/models/(?P<model>[^/:]+):(?P<method>generateContent|batchEmbedContents)$")
EMBED = "batchEmbedContents"


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    """One request as the fake received it."""

    path: str
    api_version: str
    """"v1", "v1beta", ...: the path's first segment."""
    model: str
    """The model id from the path, without "models/"."""
    api_key: str | None
    body: Mapping[str, Any]
    method: str = "generateContent"
    """The path's method: "generateContent" or "batchEmbedContents"."""

    @property
    def embedded_texts(self) -> list[str]:
        """Of an embedding call: each request's text (its parts joined), in order."""
        return [
            "".join(part.get("text", "") for part in (request.get("content") or {}).get("parts", []))
            for request in self.body.get("requests", [])
        ]

    @property
    def system_text(self) -> str:
        instruction = self.body.get("systemInstruction") or {}
        return "".join(part.get("text", "") for part in instruction.get("parts", []))

    @property
    def prompt_text(self) -> str:
        """The text of every part of every content, in order, one content per line."""
        return "\n".join(
            "".join(part.get("text", "") for part in content.get("parts", []))
            for content in self.body.get("contents", [])
        )

    @property
    def generation_config(self) -> Mapping[str, Any]:
        config: Mapping[str, Any] = self.body.get("generationConfig") or {}
        return config


@dataclass(frozen=True, slots=True)
class Reply:
    """What the fake answers to one request: model text, an empty answer, or an API error."""

    status: int = 200
    text: str | None = None
    finish_reason: str = "STOP"
    error_status: str = ""
    message: str = ""
    details: tuple[Mapping[str, Any], ...] = field(default=())

    @classmethod
    def answer(cls, text: str) -> Reply:
        return cls(text=text)

    @classmethod
    def empty(cls, finish_reason: str = "SAFETY") -> Reply:
        """A candidate with no text parts, as when the answer was blocked."""
        return cls(finish_reason=finish_reason)

    @classmethod
    def error(cls, status: int, error_status: str, message: str) -> Reply:
        return cls(status=status, error_status=error_status, message=message)

    def body(self, model: str) -> dict[str, Any]:
        if self.status != 200:
            error: dict[str, Any] = {"code": self.status, "message": self.message, "status": self.error_status}
            if self.details:
                error["details"] = list(self.details)
            return {"error": error}
        content: dict[str, Any] = {"role": "model", "parts": []}
        if self.text is not None:
            content["parts"] = [{"text": self.text}]
        return {
            "candidates": [{"content": content, "finishReason": self.finish_reason, "index": 0}],
            "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
            "modelVersion": model,
            "responseId": "fake-response",
        }


WRONG_KEY = Reply(
    status=400,
    error_status="INVALID_ARGUMENT",
    message="API key not valid. Please pass a valid API key.",
    details=(
        {
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            "reason": "API_KEY_INVALID",
            "domain": "googleapis.com",
            "metadata": {"service": "generativelanguage.googleapis.com"},
        },
        {
            "@type": "type.googleapis.com/google.rpc.LocalizedMessage",
            "locale": "en-US",
            "message": "API key not valid. Please pass a valid API key.",
        },
    ),
)
NO_KEY = Reply.error(
    403,
    "PERMISSION_DENIED",
    "Method doesn't allow unregistered callers (callers without established identity). Please use API"
    " Key or other form of API consumer identity to call this API.",
)
NOT_SCRIPTED = Reply.error(500, "INTERNAL", "The fake Gemini server has no scripted answer left.")
QUOTA_SPENT = Reply(
    status=429,
    error_status="RESOURCE_EXHAUSTED",
    message="You exceeded your current quota, please check your plan and billing details.",
    details=({"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": f"{RETRY_AFTER_SECONDS}s"},),
)
INTERNAL = Reply.error(
    500,
    "INTERNAL",
    "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting",
)

Responder = Callable[[RecordedRequest], "Reply | str"]


class FakeGeminiServer:
    """`generateContent` on 127.0.0.1 (an ephemeral port), in a thread; a context manager."""

    def __init__(self, api_key: str = FAKE_GEMINI_KEY, models: tuple[KnownModel, ...] = CATALOGUE) -> None:
        self.api_key = api_key
        self.models = models
        """What `GET /{version}/models` lists."""
        self._lock = threading.Lock()
        self._script: deque[Reply | str] = deque()
        self._embedding_failures: deque[Reply] = deque()
        self._responder: Responder | None = None
        self._requests: list[RecordedRequest] = []
        self._outages: dict[str, Outage] = {}
        """By method ("generateContent", "batchEmbedContents"): how those calls fail until `restore`."""
        self.hold = Hold()
        """Where a `hang` holds its requests."""
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="fake-gemini"
        )

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    @property
    def embedding_requests(self) -> list[RecordedRequest]:
        return [request for request in self.requests if request.method == EMBED]

    @property
    def last_request(self) -> RecordedRequest:
        requests = self.requests
        assert requests, "the fake Gemini server received no request"
        return requests[-1]

    def script(self, *replies: Reply | str) -> None:
        """Queue answers, used one per authorised request in order; a str is a plain text answer."""
        with self._lock:
            self._script.extend(replies)

    def fail_embeddings(self, *replies: Reply) -> None:
        """Answer the next authorised embedding calls with these errors, one each, in order."""
        with self._lock:
            self._embedding_failures.extend(replies)

    def break_down(self, outage: Outage, *, embeddings: bool = True, text: bool = True) -> None:
        """Fail every embedding (`embeddings`) and text (`text`) call this way until `restore`."""
        with self._lock:
            for method, wanted in ((EMBED, embeddings), ("generateContent", text)):
                if wanted:
                    self._outages[method] = outage
            self.hold.renew()

    def restore(self) -> None:
        """End the outage: held requests go (their clients gave up), and calls are answered again."""
        with self._lock:
            self._outages.clear()
        self.hold.release()

    def outage_for(self, request: RecordedRequest) -> Outage | None:
        """Record `request` and say how it fails, when the server is broken down for its kind of call."""
        with self._lock:
            outage = self._outages.get(request.method)
            if outage is not None:
                self._requests.append(request)
            return outage

    def respond_with(self, responder: Responder) -> None:
        """Answer every request the script does not cover by calling `responder` (on the server thread)."""
        with self._lock:
            self._responder = responder

    def __enter__(self) -> FakeGeminiServer:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.hold.release()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join()

    def _reply_to(self, request: RecordedRequest) -> Reply:
        with self._lock:
            self._requests.append(request)
            if request.api_key is None:
                return NO_KEY
            if request.api_key != self.api_key:
                return WRONG_KEY
            if self._script:
                reply = self._script.popleft()
            elif self._responder is not None:
                reply = self._responder(request)
            else:
                reply = NOT_SCRIPTED
        return Reply.answer(reply) if isinstance(reply, str) else reply

    def _embed(self, request: RecordedRequest) -> tuple[int, Mapping[str, Any]]:
        with self._lock:
            self._requests.append(request)
            refusal = NO_KEY if request.api_key is None else WRONG_KEY if request.api_key != self.api_key else None
            if refusal is None and self._embedding_failures:
                refusal = self._embedding_failures.popleft()
        if refusal is not None:
            return refusal.status, refusal.body("")
        model = find(self.models, request.model)
        if model is None or "embedContent" not in model.methods:
            return gemini_embeddings.unknown_model(request.model, request.api_version)
        return gemini_embeddings.embeddings_answer(model.name, request.body)


def _handler_for(server: FakeGeminiServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            url = urlsplit(self.path)
            if not is_models_path(url.path):
                not_found = Reply.error(404, "NOT_FOUND", f"Unknown path {url.path}.")
                self._send(not_found.status, not_found.body(""))
                return
            query = parse_qs(url.query)
            key = self.headers.get("x-goog-api-key") or next(iter(query.get("key") or []), None)
            if key is None:
                self._send(NO_KEY.status, NO_KEY.body(""))
            elif key != server.api_key:
                self._send(WRONG_KEY.status, WRONG_KEY.body(""))
            else:
                self._send(*models_answer(server.models, url.path, query))

        def do_POST(self) -> None:
            url = urlsplit(self.path)
            match = _PATH.match(url.path)
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b"{}"
            if match is None:
                not_found = Reply.error(404, "NOT_FOUND", f"Unknown path {url.path}.")
                self._send(not_found.status, not_found.body(""))
                return
            if len(raw) > gemini_embeddings.MAX_BODY_BYTES:
                self._send(*gemini_embeddings.too_large())
                return
            # Like the real API, the key may also come as a `key` query parameter.
            key = self.headers.get("x-goog-api-key") or parse_qs(url.query).get("key", [None])[0]
            request = RecordedRequest(
                path=url.path,
                api_version=match["version"],
                model=match["model"],
                api_key=key,
                body=json.loads(raw or b"{}"),
                method=match["method"],
            )
            outage = server.outage_for(request)
            if outage is not None:
                self._fail(outage)
                return
            if request.method == EMBED:
                self._send(*server._embed(request))
                return
            reply = server._reply_to(request)
            self._send(reply.status, reply.body(request.model))

        def _fail(self, outage: Outage) -> None:
            if outage == "hang":
                server.hold.hang()
                self.close_connection = True
            elif outage == "malformed":
                self._send(200, MALFORMED_PAGE, content_type="text/html; charset=UTF-8")
            else:
                reply = QUOTA_SPENT if outage == "quota" else INTERNAL
                self._send(reply.status, reply.body(""), retry_after=RETRY_AFTER_SECONDS if outage == "quota" else None)

        def _send(
            self,
            status: int,
            body: Mapping[str, Any] | bytes,
            *,
            content_type: str = "application/json; charset=UTF-8",
            retry_after: int | None = None,
        ) -> None:
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            self.send_response(status)
            if retry_after is not None:
                self.send_header("Retry-After", str(retry_after))
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            """Silent: the test output is not the place for an access log."""

    return Handler


@pytest.fixture
def gemini_server() -> Iterator[FakeGeminiServer]:
    """A running fake Gemini API that accepts `FAKE_GEMINI_KEY`."""
    with FakeGeminiServer() as server:
        yield server
