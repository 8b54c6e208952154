"""A local fake of Gemini Live (`BidiGenerateContent` over WebSocket) for the real `google-genai` client.

It speaks TLS, because the SDK always turns the base URL into `wss://` (`tests.fakes.live_tls`). It runs
on the test's own event loop.

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
- A picture goes as realtime `video` (a JPEG blob): recorded in `video`, it makes the model answer nothing
  by itself (the service reads it with the next turn or tool response).
- Typed text: after the history, a Gemini 2.x model takes a `client_content` user turn; any model takes
  realtime `text`. Each is recorded in `texts` and counts for `AfterText`.
- A model the service does not know, or one without `bidiGenerateContent` (the fake's `models`,
  `gemini_models.CATALOGUE` by default): 1008 "models/X is not found for API version v1, or is not
  supported for bidiGenerateContent. Call ..." (the close code and reason projects logged from the real
  service: livekit/agents#4414, google/adk-python#3964, google-gemini/cookbook#904).
- A history sent without its config (`client_content` after `setupComplete` when the setup did not set
  `historyConfig.initialHistoryInClientContent`) to a model that takes `client_content` only for seeding
  (3.1 Flash Live): 1007 "Request contains an invalid argument." (as reported from the real service:
  google/adk-python#5018, yagudaev/voiceclaw#248, mastra-ai/mastra#18363).

In time, as the service behaves (all on the event loop's clock, never the wall clock):

- A `Speak` answer is generated `speed` times faster than real time (4 by default): its audio chunks
  arrive well ahead of playback, and `generationComplete` + `turnComplete` come when generation ends,
  while the client still has most of the answer to play.
- `interrupted` comes only while an answer is being generated, when the server hears the user speak, or
  a typed turn arrives. The server's voice activity detection, modelled simply: client audio whose RMS is
  at least `speech_rms` (int16 units) for `speech_start_ms` of consecutive audio is the start of speech
  (recorded in `speech_heard_at` whether or not it interrupts), and `speech_end_ms` of unvoiced audio after
  it is its end (`speech_ended_at`; it fires `AfterSpeech`). The service's detector is a model, not a
  level; what this keeps is what the client can rely on: loud speech for a few hundred milliseconds during
  generation interrupts it, silence and speech after generation do not. After `interrupted` comes
  `turnComplete` and nothing more of that answer (the SDK's `generation_complete` docstring: "interrupted
  > turn_complete").
- The connection lasts `connection_limit_s` (about 10 minutes at the service); `go_away_before_s` before
  the end it sends `goAway` (the service: about 50 s, "timeLeft": "50s"), and at the limit it closes with
  1011 "Deadline expired before operation could complete." (as logged from the service:
  kizuna-ai-lab/sokuji#179).

It also answers the REST models calls (`GET /{version}/models[/{name}]`, `gemini_models`) on the same
origin, as Google's endpoint does, so that what is configured with one base URL finds both.

Then the connection's `ConnectionScript` plays: see `gemini_live_scenario`.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections import deque
from collections.abc import AsyncIterator, Callable, Sequence
from http import HTTPStatus
from types import TracebackType
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from tests.fakes.gemini_live_player import HungUp, ScriptPlayer, close_reason
from tests.fakes.gemini_live_record import RecordedConnection, decode_audio, pick
from tests.fakes.gemini_live_scenario import ConnectionScript, GoAwaySoon
from tests.fakes.gemini_models import CATALOGUE, KnownModel, find, is_models_path, models_answer, unknown_model_reason
from tests.fakes.gemini_server import NO_KEY, WRONG_KEY
from tests.fakes.live_tls import LiveTLS

FAKE_LIVE_KEY = "fake-live-key-5c1e"
WAIT_S = 5.0
"""Safety net for waits on the fake's state: a test that needs it has already failed."""
IDLE_SECONDS = "2"
"""`PARLEY_IDLE_SECONDS` for Parley answered by this fake from a recording read as fast as it goes. The idle
countdown runs in wall time from the moment the connection opens, and the fake's first answer must come
inside it, or the conversation ends unanswered: at load 18 on 2 cores it came up to 0.46 s after (0.3 s,
the value before, failed 3 of `tests/app/test_listen.py`'s 13 tests there). It is also how long such a
conversation stays open after its answer, so no longer than that."""

_PATH = re.compile(r"^/ws/google\.ai\.generativelanguage\.(?P<version>v\w+)\.GenerativeService\.BidiGenerateContent$")
WRONG_KEY_REASON = "API key not valid. Please pass a valid API key."
NO_KEY_REASON = (
    "Method doesn't allow unregistered callers (callers without established identity)."
    " Please use API Key or other form of API consumer identity to call this API."
)
INVALID_ARGUMENT_REASON = "Request contains an invalid argument."
DEADLINE_REASON = "Deadline expired before operation could complete."
# As logged from the service (GoogleCloudPlatform/generative-ai#1576), cut where a close reason ends.
SESSIONS_REASON = (
    "Request trace id: f102afa6f090070d, [ORIGINAL ERROR] generic::resource_exhausted: RESOURCE_EXHAUSTED: "
    "Maximum concurrent se"
)

SPEED = 4.0
"""How many times faster than real time the fake generates a `Speak` answer."""
CONNECTION_LIMIT_S = 600.0
"""How long a connection lasts: about 10 minutes at the service."""
GO_AWAY_BEFORE_S = 50.0
"""How long before the limit `goAway` comes ("timeLeft": "50s" in logs of the service)."""
SPEECH_RMS = 500.0
"""Int16 RMS from which client audio counts as voiced for the fake's voice activity detection (about
-36 dBFS: speech at a microphone, well above a quiet room)."""
SPEECH_START_MS = 200.0
"""Consecutive voiced audio that makes the start of speech (milliseconds)."""
SPEECH_END_MS = 500.0
"""Consecutive unvoiced audio that ends speech (milliseconds)."""


class _Refused(Exception):
    def __init__(self, code: int, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


class FakeGeminiLiveServer:
    """Gemini Live on 127.0.0.1 (an ephemeral port) with TLS; an async context manager.

    Its timing (`speed`, `connection_limit_s`, `go_away_before_s`) and its voice activity detection
    (`speech_rms`, `speech_start_ms`) are attributes: set them before the connection they should apply to
    opens. `models` is what it knows; `max_sessions` (None: no limit), how many sessions may be open at once:
    one more is closed at its setup with 1011 and the service's RESOURCE_EXHAUSTED reason."""

    def __init__(
        self,
        tls: LiveTLS,
        api_key: str = FAKE_LIVE_KEY,
        *,
        speed: float = SPEED,
        connection_limit_s: float = CONNECTION_LIMIT_S,
        go_away_before_s: float = GO_AWAY_BEFORE_S,
        speech_rms: float = SPEECH_RMS,
        speech_start_ms: float = SPEECH_START_MS,
        speech_end_ms: float = SPEECH_END_MS,
        models: Sequence[KnownModel] = CATALOGUE,
    ) -> None:
        self.api_key = api_key
        self.ssl_context = tls.client_context
        self.ca_pem = tls.ca_pem
        self.speed = speed
        self.connection_limit_s = connection_limit_s
        self.go_away_before_s = go_away_before_s
        self.speech_rms = speech_rms
        self.speech_start_ms = speech_start_ms
        self.speech_end_ms = speech_end_ms
        self.max_sessions: int | None = None
        self.models = tuple(models)
        self.connections: list[RecordedConnection] = []
        self.rest_requests: list[str] = []
        """The path (and query) of every REST request, in order."""
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

    def expire_handles(self) -> None:
        """Forget every resumption handle issued, as the service does two hours on: resuming one is refused."""
        self._handles.clear()

    async def wait_until(self, predicate: Callable[[], bool], timeout_s: float = WAIT_S) -> None:
        """Wait until `predicate()` holds; it is checked each time a client frame is recorded. `timeout_s`
        is only a safety net: a test that reaches it has failed (a client in another process, which
        takes seconds to start, needs a longer one)."""
        async with asyncio.timeout(timeout_s), self._changed:
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
        url = urlsplit(request.path)
        if is_models_path(url.path) and "upgrade" not in request.headers.get("connection", "").lower():
            return self._models(connection, request, url.path, parse_qs(url.query))
        if _PATH.match(request.path) is None:
            return connection.respond(HTTPStatus.NOT_FOUND, "Not Found\n")
        return None

    def _models(
        self, connection: ServerConnection, request: Request, path: str, query: dict[str, list[str]]
    ) -> Response:
        self.rest_requests.append(request.path)
        # Like the REST API, the key may also come as a `key` query parameter.
        key = request.headers.get("x-goog-api-key") or next(iter(query.get("key") or []), None)
        if key is None:
            status, body = NO_KEY.status, NO_KEY.body("")
        elif key != self.api_key:
            status, body = WRONG_KEY.status, WRONG_KEY.body("")
        else:
            status, body = models_answer(self.models, path, query)
        response = connection.respond(HTTPStatus(status), json.dumps(body))
        del response.headers["Content-Type"]
        response.headers["Content-Type"] = "application/json; charset=UTF-8"
        return response

    async def _serve(self, ws: ServerConnection) -> None:
        match = _PATH.match(ws.request.path if ws.request else "")
        assert match is not None
        record = RecordedConnection(
            path=match.string,
            api_version=match["version"],
            api_key=ws.request.headers.get("x-goog-api-key") if ws.request else None,
        )
        record.opened_at = asyncio.get_running_loop().time()
        self.connections.append(record)
        try:
            await self._converse(ws, record)
        except _Refused as refused:
            record.close_code = refused.code
            await ws.close(refused.code, close_reason(refused.reason))
        except (ConnectionClosed, HungUp):
            pass  # the client left, or the script hung up; what the client sent is recorded
        except Exception as error:  # the fake's own bug: fail the test, not just a log line
            self.errors.append(error)
            await ws.close(1011, "fake server error")
        finally:
            record.closed, record.closed_at = True, asyncio.get_running_loop().time()
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
        known = find(self.models, record.model)
        if known is None or "bidiGenerateContent" not in known.methods:
            raise _Refused(1008, unknown_model_reason(record.model, record.api_version))
        if self.max_sessions is not None and sum(not c.closed for c in self.connections) > self.max_sessions:
            raise _Refused(1011, SESSIONS_REASON)
        handle = pick(record.session_resumption or {}, "handle")
        if handle is not None and handle not in self._handles:
            raise _Refused(1007, "Invalid session handle.")
        await ws.send(json.dumps({"setupComplete": {}}))
        record.history_complete = not record.history_in_client_content
        script = self._scripts.popleft() if self._scripts else ConnectionScript()
        player = ScriptPlayer(ws, record, script, self._handles, self)
        limit = asyncio.create_task(self._limit(ws, record, player), name="fake-live-limit")
        try:
            if record.history_complete:
                await player.advance()
            async for raw in ws:
                record.received_at.append(asyncio.get_running_loop().time())
                frame = json.loads(raw)
                record.frames.append(frame)
                self._take(frame, record, player)
                await self._notify()
                if record.history_complete:
                    await player.advance()
        finally:
            limit.cancel()
            await player.stop()
            await asyncio.gather(limit, return_exceptions=True)

    async def _limit(self, ws: ServerConnection, record: RecordedConnection, player: ScriptPlayer) -> None:
        """`goAway` ahead of the connection limit, then the service's close at it."""
        loop = asyncio.get_running_loop()
        limit = self.connection_limit_s
        before = min(self.go_away_before_s, limit)
        await asyncio.sleep(max(0.0, record.opened_at + limit - before - loop.time()))
        await player.send(GoAwaySoon(f"{before:g}s"))
        await asyncio.sleep(max(0.0, record.opened_at + limit - loop.time()))
        record.close_code = 1011
        await ws.close(1011, DEADLINE_REASON)

    def _take(self, frame: dict[str, Any], record: RecordedConnection, player: ScriptPlayer) -> None:
        if content := frame.get("client_content"):
            self._take_content(content, record, player)
        elif (realtime := frame.get("realtime_input")) is not None:
            if not record.history_complete:
                raise _Refused(1007, INVALID_ARGUMENT_REASON)
            if (text := realtime.get("text")) is not None:
                record.texts.append(text)
                player.texts += 1
                player.interrupt()  # a typed turn, like speech, interrupts what is being generated
            if (audio := realtime.get("audio")) is not None:
                pcm = decode_audio(audio["data"])
                mime_type = pick(audio, "mime_type")
                record.audio.extend(pcm)
                record.audio_mime_types.append(mime_type)
                player.audio_bytes += len(pcm)
                player.hear(pcm, _rate(mime_type))
            if (video := realtime.get("video")) is not None:
                record.video.append(decode_audio(video["data"]))  # the same URL-safe base64 as audio
                record.video_mime_types.append(pick(video, "mime_type"))
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

    def _take_content(self, content: dict[str, Any], record: RecordedConnection, player: ScriptPlayer) -> None:
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
            # "turn_complete=true unconditionally interrupts active model generation" (3.x migration notes).
            player.interrupt()

    async def _notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()


def _rate(mime_type: str | None) -> int:
    match = re.search(r"rate=(\d+)", mime_type or "")
    return int(match[1]) if match else 16_000


@pytest.fixture
async def gemini_live_server(live_tls: LiveTLS) -> AsyncIterator[FakeGeminiLiveServer]:
    """A running fake Gemini Live that accepts `FAKE_LIVE_KEY`; fails the test if the fake itself broke."""
    async with FakeGeminiLiveServer(live_tls) as server:
        yield server
    assert not server.errors, f"the fake Gemini Live server failed: {server.errors!r}"
