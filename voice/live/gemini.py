"""`LiveConnection` over Gemini Live, through `google-genai`. With `gemini_setup` (the setup frame) and
`gemini_grounding` (the web sources), the only modules that see its live types.

Wire facts this module relies on (google-genai 3.x, `google/genai/live.py`):

- `client.aio.live.connect()` opens `wss://…/ws/google.ai.generativelanguage.{version}.GenerativeService.
  BidiGenerateContent` with the key in `x-goog-api-key`, sends one `setup` frame and waits for the first
  server frame, which must be `setupComplete`. A close during that wait surfaces as `APIError(close code)`.
- The service refuses a wrong key by accepting the WebSocket, then closing it with code 1007 and the
  reason "API key not valid. Please pass a valid API key."; a missing key closes with 1008 ("Method
  doesn't allow unregistered callers ...") (close reasons as reported by projects that logged them).
  A stale resumption handle is reported to be refused with 1007 too. A model the service does not know,
  or one that does not do Live, closes with 1008 "models/X is not found for API version v1, or is not
  supported for bidiGenerateContent. Call ..." (`gemini_wire.refusal` says which setting to change).
- The REST models call (`GET /{version}/models/{name}`, `client.aio.models.get`) says whether a model
  exists and lists its `supportedGenerationMethods` (`Model.supported_actions`): `bidiGenerateContent` for
  a Live model, `generateContent` for a text model; a name it does not know is a 404.
- `session.receive()` yields one model turn and stops at `turnComplete`: `events()` loops over it once per
  turn. Any close, clean or not, surfaces from `receive()` as an `APIError` whose code is the close code
  (1006 when the connection dropped without a close frame).
- History: with `HistoryConfig(initial_history_in_client_content=True)` the service, after
  `setupComplete`, takes `client_content` frames as history until one says `turn_complete: true`; that
  history does not make the model answer. So the history goes in ONE frame with `turn_complete=True`
  (with `False` the service would keep waiting for more history and ignore the microphone). Gemini 3.x
  live models accept `client_content` only for this seeding: everything later goes as realtime input.
- Typed text: a `client_content` turn with `turn_complete=True` is what the 2.x native audio models
  answer (the SDK's `send_client_content`); Gemini 3.x live models take `client_content` only for the
  history and want text as realtime input (`send_realtime_input(text=...)`). `gemini_wire.text_route`
  picks by name.
- A resumed session (setup carrying a handle) already holds its history: seeding it again would double
  every turn, so a resumed connection sends no history and no `history_config`.
- A picture (the screen, on request) goes as realtime video input: `send_realtime_input(video=Blob(jpeg,
  "image/jpeg"))`, one frame; the Live API takes JPEG frames (it samples video at about one frame a second)
  and reads them with the turn or tool response that follows.
- Function declarations use `parameters` (an OpenAPI subset): Live models ignore
  `parameters_json_schema` and call tools with empty arguments (googleapis/python-genai#1147). They say
  `behavior: BLOCKING`: Gemini 3.8 Live otherwise calls functions asynchronously and talks on meanwhile.
- Web search is the built-in `Tool(google_search=GoogleSearch())`, declared beside the functions; the service
  runs it itself (no `toolCall`) and sends the pages it used as `serverContent.groundingMetadata`
  (`groundingChunks[].web.{uri,title}`, beside `groundingSupports` and `webSearchQueries`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from ssl import SSLContext
from typing import Any

from google import genai
from google.genai import errors as genai_errors
from google.genai import live as genai_live
from google.genai import types
from websockets import exceptions as ws_exceptions

from voice.audio.chunks import AudioChunk
from voice.errors import LiveConnectionError
from voice.live.connection import (
    GoAway,
    Interrupted,
    LiveConfig,
    LiveConnectionLost,
    LiveConnectionRefused,
    LiveEvent,
    ModelAudio,
    ModelTranscript,
    Picture,
    ResumptionHandle,
    ToolCall,
    ToolCallsCancelled,
    TurnComplete,
    UserTranscript,
    WebSources,
)
from voice.live.gemini_grounding import web_queries, web_sources
from voice.live.gemini_setup import build_connect_config, history_contents
from voice.live.gemini_wire import TextRoute, audio_format_of, parse_duration_ms, refusal, text_route

log = logging.getLogger(__name__)

DEFAULT_OPEN_TIMEOUT_S = 15.0
"""Connecting, setup and history seeding together; the SDK itself would wait for `setupComplete` forever."""

# -- pure translation: our config to the SDK's, the SDK's messages to our events ---------------------


class EventTranslator:
    """Turns server messages into our events; keeps the running position of the model's audio."""

    def __init__(self) -> None:
        self._audio_ms = 0.0

    def translate(self, message: types.LiveServerMessage) -> list[LiveEvent]:
        events: list[LiveEvent] = []
        content = message.server_content
        if content is not None:
            # One message may carry several of these; the user's words come before the model's answer.
            heard = content.input_transcription
            if heard is not None and (heard.text or heard.finished):
                events.append(UserTranscript(heard.text or "", final=bool(heard.finished)))
            events.extend(self._audio(content.model_turn))
            said = content.output_transcription
            if said is not None and (said.text or said.finished):
                events.append(ModelTranscript(said.text or "", final=bool(said.finished)))
            sources, queries = web_sources(content.grounding_metadata), web_queries(content.grounding_metadata)
            if sources or queries:
                events.append(WebSources(sources, queries))
            if content.interrupted:
                events.append(Interrupted())
            if content.turn_complete:
                events.append(TurnComplete())
        if message.tool_call is not None:
            for call in message.tool_call.function_calls or ():
                events.append(ToolCall(id=call.id or "", name=call.name or "", args=dict(call.args or {})))
        if message.tool_call_cancellation is not None and message.tool_call_cancellation.ids:
            events.append(ToolCallsCancelled(tuple(message.tool_call_cancellation.ids)))
        if message.go_away is not None:
            events.append(GoAway(parse_duration_ms(message.go_away.time_left)))
        update = message.session_resumption_update
        # A non-resumable update (mid generation or tool call) carries no handle: keep the previous one.
        if update is not None and update.resumable and update.new_handle:
            events.append(ResumptionHandle(update.new_handle))
        return events

    def _audio(self, turn: types.Content | None) -> list[LiveEvent]:
        events: list[LiveEvent] = []
        for part in (turn.parts or ()) if turn is not None else ():
            blob = part.inline_data
            # Text parts of an audio session are the model's thoughts: not for the user.
            if blob is None or not blob.data or not (blob.mime_type or "").startswith("audio/"):
                continue
            chunk = AudioChunk(format=audio_format_of(blob.mime_type), pcm=blob.data, start_ms=self._audio_ms)
            self._audio_ms = chunk.end_ms
            events.append(ModelAudio(chunk))
        return events


# -- errors ----------------------------------------------------------------------------------------


def _close_reason(error: genai_errors.APIError) -> str:
    # The SDK passes a close frame's reason string as the error's details; an error frame as a dict.
    return error.details if isinstance(error.details, str) else (error.message or "")


def _closed_code(error: ws_exceptions.ConnectionClosed) -> tuple[int, str]:
    if error.rcvd is None:
        return 1006, ""
    return error.rcvd.code, error.rcvd.reason


# -- the connection --------------------------------------------------------------------------------


class GeminiLiveConnection:
    """A `LiveConnection` on an open, seeded `google-genai` live session. Made by `connect()`."""

    def __init__(
        self, session: genai_live.AsyncSession, *, resumption_handle: str | None, text_route: TextRoute
    ) -> None:
        self._session = session
        self._handle = resumption_handle
        self._text_route = text_route
        self._translator = EventTranslator()
        self._closing = False

    @property
    def resumption_handle(self) -> str | None:
        return self._handle

    async def send_audio(self, chunk: AudioChunk) -> None:
        if chunk.format.channels != 1 or chunk.format.width != 2:
            raise ValueError(f"Gemini Live takes mono 16-bit PCM, not {chunk.format}")
        blob = types.Blob(data=chunk.pcm, mime_type=f"audio/pcm;rate={chunk.format.rate}")
        try:
            await self._session.send_realtime_input(audio=blob)
        except ws_exceptions.ConnectionClosed as error:
            raise self._ended(*_closed_code(error)) from error

    async def send_text(self, text: str) -> None:
        try:
            if self._text_route == "client_content":
                turn = types.Content(role="user", parts=[types.Part(text=text)])
                await self._session.send_client_content(turns=turn, turn_complete=True)
            else:
                await self._session.send_realtime_input(text=text)
        except ws_exceptions.ConnectionClosed as error:
            raise self._ended(*_closed_code(error)) from error

    async def send_tool_result(self, call_id: str, name: str, result: Mapping[str, Any]) -> None:
        response = types.FunctionResponse(id=call_id, name=name, response=dict(result))
        try:
            await self._session.send_tool_response(function_responses=[response])
        except ws_exceptions.ConnectionClosed as error:
            raise self._ended(*_closed_code(error)) from error

    async def send_picture(self, picture: Picture) -> None:
        try:
            await self._session.send_realtime_input(video=types.Blob(data=picture.jpeg, mime_type="image/jpeg"))
        except ws_exceptions.ConnectionClosed as error:
            raise self._ended(*_closed_code(error)) from error

    async def events(self) -> AsyncGenerator[LiveEvent, None]:
        while not self._closing:
            try:
                async for message in self._session.receive():
                    for event in self._translator.translate(message):
                        if isinstance(event, ResumptionHandle):
                            self._handle = event.handle
                        yield event
            except genai_errors.APIError as error:
                if self._closing:
                    return
                raise self._ended(error.code, _close_reason(error)) from error
            except ValueError as error:  # a frame that is not JSON
                raise self._ended(None, "unreadable frame") from error

    async def aclose(self) -> None:
        self._closing = True
        await self._session.close()

    def _ended(self, code: int | None, reason: str) -> LiveConnectionError:
        if self._closing:
            return LiveConnectionError("the Gemini Live connection is closed")
        log.info("Gemini Live connection ended (close code %s)", code)
        # The reason is the service's own text (no key ever travels back); keep it out of the message.
        return LiveConnectionLost(
            f"the Gemini Live connection ended (close code {code})", code=code, resumption_handle=self._handle
        )


@asynccontextmanager
async def connect(
    config: LiveConfig,
    *,
    api_key: str,
    base_url: str | None = None,
    ssl_context: SSLContext | None = None,
    api_version: str | None = None,
    open_timeout_s: float = DEFAULT_OPEN_TIMEOUT_S,
) -> AsyncIterator[GeminiLiveConnection]:
    """Open a Gemini Live session for `config`, seed its history, and yield it; close it on exit.

    `base_url` None is Google's endpoint (the SDK makes any URL `wss://`); `ssl_context` replaces the
    trusted CAs (a test CA); `api_version` None is the SDK's default. Raises `LiveConnectionRefused` when
    the service says no, `LiveConnectionError` when it cannot be reached or does not answer in time."""
    if not api_key.strip():
        raise LiveConnectionRefused("no Gemini API key is set", code=None)
    client = make_client(api_key, base_url, ssl_context, api_version)
    async with AsyncExitStack() as stack:
        stack.push_async_callback(client.aio.aclose)
        session = await _open(stack, client, config, api_key, open_timeout_s)
        connection = GeminiLiveConnection(
            session, resumption_handle=config.resumption_handle, text_route=text_route(config.model)
        )
        stack.push_async_callback(connection.aclose)
        yield connection


async def model_methods(
    names: Sequence[str],
    *,
    api_key: str,
    base_url: str | None = None,
    ssl_context: SSLContext | None = None,
    api_version: str | None = None,
    timeout_s: float = DEFAULT_OPEN_TIMEOUT_S,
) -> dict[str, frozenset[str] | None]:
    """What the Gemini endpoint lists for each model name: its generation methods ("bidiGenerateContent",
    "generateContent", ...), or None for a name it does not know. Raises `LiveConnectionRefused` when the key
    is refused, `LiveConnectionError` when the endpoint cannot be asked."""
    client = make_client(api_key, base_url, ssl_context, api_version)
    found: dict[str, frozenset[str] | None] = {}
    try:
        async with asyncio.timeout(timeout_s):
            for name in dict.fromkeys(names):
                try:
                    model = await client.aio.models.get(model=name)
                except genai_errors.ClientError as error:
                    if error.code != 404:
                        raise
                    found[name] = None
                else:
                    found[name] = frozenset(model.supported_actions or ())
    except TimeoutError as error:
        raise LiveConnectionError(f"Gemini did not list its models within {timeout_s:g} s") from error
    except genai_errors.APIError as error:
        raise refusal(error.code, error.message or "", api_key) from error
    except Exception as error:  # the HTTP stack's own errors (httpx): unreachable, TLS, a broken answer
        raise LiveConnectionError(f"cannot ask Gemini for its models ({type(error).__name__})") from error
    finally:
        await client.aio.aclose()
    return found


def make_client(
    api_key: str, base_url: str | None, ssl_context: SSLContext | None, api_version: str | None
) -> genai.Client:
    """A Gemini API client (not yet connected) for the key and endpoint."""
    try:
        return genai.Client(
            api_key=api_key,
            # Explicit, so that GOOGLE_GENAI_USE_VERTEXAI in the environment cannot reroute the key.
            vertexai=False,
            http_options=types.HttpOptions(
                base_url=base_url,
                api_version=api_version,
                # "ssl" for the WebSocket (websockets), "verify" for REST (httpx): the SDK passes each its own.
                async_client_args={"ssl": ssl_context, "verify": ssl_context} if ssl_context is not None else None,
            ),
        )
    except ValueError as error:
        raise LiveConnectionError("the Gemini Live client could not be configured") from error


async def _open(
    stack: AsyncExitStack, client: genai.Client, config: LiveConfig, api_key: str, timeout_s: float
) -> genai_live.AsyncSession:
    live_config = build_connect_config(config)
    history = history_contents(config)
    try:
        async with asyncio.timeout(timeout_s):
            session = await stack.enter_async_context(client.aio.live.connect(model=config.model, config=live_config))
            if session.setup_complete is None:
                raise LiveConnectionError("Gemini Live did not confirm the session setup")
            await _seed(session, history)
    except LiveConnectionError:
        raise
    except TimeoutError as error:
        raise LiveConnectionError(f"Gemini Live did not answer within {timeout_s:g} s") from error
    except genai_errors.APIError as error:
        raise refusal(error.code, _close_reason(error), api_key, config.model) from error
    except ws_exceptions.ConnectionClosed as error:  # the setup frame itself met a closed connection
        raise refusal(*_closed_code(error), api_key, config.model) from error
    except ws_exceptions.InvalidStatus as error:  # an HTTP answer instead of the WebSocket upgrade
        raise refusal(error.response.status_code, "", api_key, config.model) from error
    except (OSError, ws_exceptions.WebSocketException) as error:
        raise LiveConnectionError(
            f"cannot reach Gemini Live ({type(error).__name__}): check the network, or PARLEY_GEMINI_BASE_URL if set"
        ) from error
    except ValueError as error:  # not JSON, or a config the SDK rejects
        raise LiveConnectionError(f"Gemini Live could not be set up ({type(error).__name__})") from error
    return session


async def _seed(session: genai_live.AsyncSession, turns: Sequence[types.Content]) -> None:
    if turns:
        # One frame, turn_complete=True: it closes the history phase without asking for an answer.
        await session.send_client_content(turns=list(turns), turn_complete=True)
