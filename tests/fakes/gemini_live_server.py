"""A local fake of Gemini Live (`BidiGenerateContent` over WebSocket) for the real `google-genai` client.

It speaks TLS, because the SDK always turns the base URL into `wss://`: a throwaway CA from `trustme`
signs a certificate for 127.0.0.1, and the client trusts it through the `ssl.SSLContext` this module
hands out (`HttpOptions(async_client_args={"ssl": context})`). It runs on the test's own event loop.

The protocol as the service plays it:

- `GET /ws/google.ai.generativelanguage.{version}.GenerativeService.BidiGenerateContent`, key in the
  `x-goog-api-key` header; any other path is answered HTTP 404 without an upgrade.
- The client's first frame is `setup`. A wrong key: the service accepts the WebSocket, then closes it with
  1007 "API key not valid. Please pass a valid API key."; no key: 1008 "Method doesn't allow unregistered
  callers ..." (cut to the 123 bytes a close reason may hold): the close codes and reasons that public
  projects logged from the real service. A resumption handle this fake never issued is refused with 1007
  too (reported, reason text invented). Otherwise the answer is `{"setupComplete": {}}`.
- With `historyConfig.initialHistoryInClientContent`, `client_content` frames are history until one has
  `turnComplete: true`. This fake is strict where the service is picky: realtime input or a tool response
  before the history is complete, `client_content` outside that phase for a model that takes it only for
  seeding (Gemini 3.x; `RecordedConnection.takes_client_content_turns`) and a `functionResponse` without
  `id` all close the connection with 1007.
- Typed text: after the history, a Gemini 2.x model takes a `client_content` user turn; any model takes
  realtime `text`. Each is recorded in `texts` and counts for `AfterText`.

Then the connection's `ConnectionScript` plays: see `gemini_live_scenario`.
"""

from __future__ import annotations

import asyncio
import json
import re
import ssl
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from http import HTTPStatus
from types import TracebackType
from typing import Any

import pytest
import trustme
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from tests.fakes.gemini_live_scenario import (
    AfterAudio,
    AfterText,
    AfterToolResponse,
    AtOnce,
    Close,
    ConnectionScript,
    Drop,
    NewHandle,
    RecordedConnection,
    Step,
    decode_audio,
    pick,
    server_frame,
)

FAKE_LIVE_KEY = "fake-live-key-5c1e"
WAIT_S = 5.0
"""Safety net for waits on the fake's state: a test that needs it has already failed."""

_PATH = re.compile(r"^/ws/google\.ai\.generativelanguage\.(?P<version>v\w+)\.GenerativeService\.BidiGenerateContent$")
WRONG_KEY_REASON = "API key not valid. Please pass a valid API key."
NO_KEY_REASON = (
    "Method doesn't allow unregistered callers (callers without established identity)."
    " Please use API Key or other form of API consumer identity to call this API."
)
INVALID_ARGUMENT_REASON = "Request contains an invalid argument."


@dataclass(frozen=True, slots=True)
class LiveTLS:
    """A throwaway CA's server and client sides."""

    server_context: ssl.SSLContext
    client_context: ssl.SSLContext
    """What the client needs: trusts the CA (and nothing else)."""
    ca_pem: bytes
    """The CA certificate, for what is configured with a CA file (`PARLEY_CA_FILE`)."""


def make_live_tls() -> LiveTLS:
    ca = trustme.CA()
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1").configure_cert(server_context)
    client_context = ssl.create_default_context(ssl.Purpose.SERVER_AUTH, cadata=ca.cert_pem.bytes().decode())
    return LiveTLS(server_context, client_context, ca.cert_pem.bytes())


def _close_reason(text: str) -> str:
    """A close frame holds at most 123 bytes of reason; the service cuts longer ones."""
    return text.encode()[:123].decode(errors="ignore")


class _HungUp(Exception):
    """The script closed or dropped the connection: stop serving it."""


class _Refused(Exception):
    def __init__(self, code: int, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


class FakeGeminiLiveServer:
    """Gemini Live on 127.0.0.1 (an ephemeral port) with TLS; an async context manager."""

    def __init__(self, tls: LiveTLS, api_key: str = FAKE_LIVE_KEY) -> None:
        self.api_key = api_key
        self.ssl_context = tls.client_context
        self.ca_pem = tls.ca_pem
        self.connections: list[RecordedConnection] = []
        self.errors: list[BaseException] = []
        """Failures of the fake itself; the fixture fails the test on any."""
        self._tls = tls
        self._scripts: deque[ConnectionScript] = deque()
        self._handles: set[str] = set()
        self._changed = asyncio.Condition()
        self._server: Server | None = None

    @property
    def base_url(self) -> str:
        assert self._server is not None, "the fake Gemini Live server is not running"
        port = next(iter(self._server.sockets)).getsockname()[1]
        return f"https://127.0.0.1:{port}"

    def script(self, *scripts: ConnectionScript) -> None:
        """Queue what the next accepted connections do, one script each, in order."""
        self._scripts.extend(scripts)

    async def wait_until(self, predicate: Callable[[], bool]) -> None:
        """Wait until `predicate()` holds; it is checked each time a client frame is recorded. `WAIT_S` is
        only a safety net: a test that reaches it has failed."""
        async with asyncio.timeout(WAIT_S), self._changed:
            await self._changed.wait_for(predicate)

    async def connection(self, index: int) -> RecordedConnection:
        """The `index`-th connection (0-based), once its setup has been recorded."""
        await self.wait_until(lambda: len(self.connections) > index and bool(self.connections[index].setup))
        return self.connections[index]

    async def __aenter__(self) -> FakeGeminiLiveServer:
        self._server = await serve(
            self._serve,
            "127.0.0.1",
            0,
            ssl=self._tls.server_context,
            process_request=self._check_path,
            logger=None,
        )
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        assert self._server is not None
        self._server.close()
        await self._server.wait_closed()

    # -- one connection ----------------------------------------------------------------------------

    def _check_path(self, connection: ServerConnection, request: Request) -> Response | None:
        if _PATH.match(request.path) is None:
            return connection.respond(HTTPStatus.NOT_FOUND, "Not Found\n")
        return None

    async def _serve(self, ws: ServerConnection) -> None:
        match = _PATH.match(ws.request.path if ws.request else "")
        assert match is not None
        record = RecordedConnection(
            path=match.string,
            api_version=match["version"],
            api_key=ws.request.headers.get("x-goog-api-key") if ws.request else None,
        )
        self.connections.append(record)
        try:
            await self._converse(ws, record)
        except _Refused as refused:
            await ws.close(refused.code, _close_reason(refused.reason))
        except (ConnectionClosed, _HungUp):
            pass  # the client left, or the script hung up; what the client sent is recorded
        except Exception as error:  # the fake's own bug: fail the test, not just a log line
            self.errors.append(error)
            await ws.close(1011, "fake server error")
        finally:
            record.closed = True
            await self._notify()

    async def _converse(self, ws: ServerConnection, record: RecordedConnection) -> None:
        first = json.loads(await ws.recv())
        record.setup = first.get("setup") or {}
        await self._notify()
        if "setup" not in first:
            raise _Refused(1007, INVALID_ARGUMENT_REASON)
        if record.api_key is None:
            raise _Refused(1008, NO_KEY_REASON)
        if record.api_key != self.api_key:
            raise _Refused(1007, WRONG_KEY_REASON)
        handle = pick(record.session_resumption or {}, "handle")
        if handle is not None and handle not in self._handles:
            raise _Refused(1007, "Invalid session handle.")
        await ws.send(json.dumps({"setupComplete": {}}))
        record.history_complete = not record.history_in_client_content
        player = _Player(ws, self._scripts.popleft() if self._scripts else ConnectionScript(), self._handles)
        if record.history_complete:
            await player.advance()
        async for raw in ws:
            frame = json.loads(raw)
            record.frames.append(frame)
            self._take(frame, record, player)
            await self._notify()
            if record.history_complete:
                await player.advance()

    def _take(self, frame: dict[str, Any], record: RecordedConnection, player: _Player) -> None:
        if content := frame.get("client_content"):
            self._take_content(content, record, player)
        elif (realtime := frame.get("realtime_input")) is not None:
            if not record.history_complete:
                raise _Refused(1007, INVALID_ARGUMENT_REASON)
            if (text := realtime.get("text")) is not None:
                record.texts.append(text)
                player.texts += 1
            if (audio := realtime.get("audio")) is not None:
                pcm = decode_audio(audio["data"])
                record.audio.extend(pcm)
                record.audio_mime_types.append(pick(audio, "mime_type"))
                player.audio_bytes += len(pcm)
        elif (response := frame.get("tool_response")) is not None:
            if not record.history_complete:
                raise _Refused(1007, INVALID_ARGUMENT_REASON)
            for function_response in pick(response, "function_responses") or []:
                if not function_response.get("id"):
                    raise _Refused(1007, INVALID_ARGUMENT_REASON)
                record.tool_responses.append(function_response)
                player.answered.add(function_response["id"])
        else:
            raise _Refused(1007, INVALID_ARGUMENT_REASON)

    def _take_content(self, content: dict[str, Any], record: RecordedConnection, player: _Player) -> None:
        if not record.history_complete:
            record.history.extend(content.get("turns") or [])
            record.history_complete = bool(pick(content, "turn_complete"))
            return
        if not record.takes_client_content_turns:
            raise _Refused(1007, INVALID_ARGUMENT_REASON)
        for turn in content.get("turns") or []:
            if turn.get("role") != "user":
                raise _Refused(1007, INVALID_ARGUMENT_REASON)
            record.texts.append("".join(part.get("text", "") for part in turn.get("parts") or []))
        if pick(content, "turn_complete"):
            player.texts += 1

    async def _notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()


class _Player:
    """Plays a connection's script: fires each step once its trigger holds."""

    def __init__(self, ws: ServerConnection, script: ConnectionScript, handles: set[str]) -> None:
        self.audio_bytes = 0
        """Audio received since the last step fired."""
        self.answered: set[str] = set()
        """Tool call ids answered since the last step fired."""
        self.texts = 0
        """Typed user turns received since the last step fired."""
        self._ws = ws
        self._steps = deque(script.steps)
        self._handles = handles

    def _ready(self, step: Step) -> bool:
        match step.when:
            case AtOnce():
                return True
            case AfterAudio(min_bytes):
                return self.audio_bytes >= min_bytes
            case AfterText(count):
                return self.texts >= count
            case AfterToolResponse(call_id):
                return bool(self.answered) if call_id is None else call_id in self.answered
        return False

    async def advance(self) -> None:
        while self._steps and self._ready(self._steps[0]):
            step = self._steps.popleft()
            self.audio_bytes = 0
            self.texts = 0
            self.answered.clear()
            for action in step.then:
                match action:
                    case Drop():
                        self._ws.transport.abort()
                        raise _HungUp
                    case Close(code, reason):
                        await self._ws.close(code, _close_reason(reason))
                        raise _HungUp
                    case NewHandle(handle, resumable) if resumable:
                        self._handles.add(handle)
                frame = server_frame(action)
                if frame is not None:
                    await self._ws.send(json.dumps(frame))


@pytest.fixture(scope="session")
def live_tls() -> LiveTLS:
    """One throwaway CA per test run."""
    return make_live_tls()


@pytest.fixture
def gemini_live_ssl_context(live_tls: LiveTLS) -> ssl.SSLContext:
    """The context the client needs to trust the fake server."""
    return live_tls.client_context


@pytest.fixture
async def gemini_live_server(live_tls: LiveTLS) -> AsyncIterator[FakeGeminiLiveServer]:
    """A running fake Gemini Live that accepts `FAKE_LIVE_KEY`; fails the test if the fake itself broke."""
    async with FakeGeminiLiveServer(live_tls) as server:
        yield server
    assert not server.errors, f"the fake Gemini Live server failed: {server.errors!r}"
