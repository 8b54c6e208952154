"""The live speech model as the rest of Parley sees it: a `LiveConnection` protocol, the `LiveConfig` that
opens one, the `LiveEvent`s it produces and the errors it raises. No SDK type crosses this module;
`voice.live.gemini` translates Gemini Live to and from these values.

Life of a connection, and what the session does at each step:

- Open: `factory(config)` is an async context manager that yields an open, seeded connection or raises
  `LiveConnectionRefused` (the service said no: wrong key, unknown model, stale resumption handle) or
  `LiveConnectionError` (unreachable: no network, refused port, TLS failure, timeout).
- Converse: `send_audio` streams microphone chunks up; `send_text` sends what the user typed as a user
  turn, which the model answers like speech; `send_picture` shows the model a still image (the screen, on
  request); `events()` yields what the model says and does; each `ToolCall` is answered with
  `send_tool_result` using the call's id.
- Rotate: a connection lasts about ten minutes. `GoAway` warns about a minute ahead; the session closes
  the connection at a calm moment and opens a new one with `config.resumed(connection.resumption_handle)`.
- Drop: when the service closes or the network drops, `events()` and the send methods raise
  `LiveConnectionLost`, which carries the last resumable handle. Reconnect with it; if the new connection
  is refused (handles live two hours), start fresh with the chat history instead.
- Close: `aclose()` (or leaving the context manager) ends `events()` quietly.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from voice.audio.chunks import AudioChunk
from voice.errors import LiveConnectionError

# -- configuration ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HistoryTurn:
    """One past turn of the conversation, seeded into a new connection so the model knows the chat."""

    role: Literal["user", "model"]
    text: str


@dataclass(frozen=True, slots=True)
class ToolDeclaration:
    """A function the model may call, in a neutral form."""

    name: str
    description: str
    parameters: Mapping[str, Any] = field(default_factory=dict)
    """JSON Schema of the arguments object (`{"type": "object", "properties": {...}}`); empty for none."""


@dataclass(frozen=True, slots=True)
class LiveConfig:
    """Everything needed to open one live connection."""

    model: str
    """The live model's name (they change often, so it comes from settings)."""
    system_prompt: str
    tools: tuple[ToolDeclaration, ...] = ()
    history: tuple[HistoryTurn, ...] = ()
    """The chat's assistant history. Seeded only into a fresh session: a resumed one already holds it."""
    resumption_handle: str | None = None
    """Resume the server-side session this handle names (valid about two hours) instead of starting one."""
    voice: str | None = None
    """A prebuilt voice name; None lets the service choose."""
    language_code: str | None = None
    """The BCP-47 code the service speaks in ("it-IT"); None lets it choose. Native-audio models take the
    language from the system prompt instead, which says it too."""
    web_search: bool = False
    """Let the model search the web (Gemini: its Google Search tool) beside `tools`; its answers then
    come with `WebSources`."""

    def resumed(self, handle: str | None) -> LiveConfig:
        """The config to reconnect with: same model, prompt and tools, resuming `handle` (None: fresh)."""
        return dataclasses.replace(self, resumption_handle=handle)


@dataclass(frozen=True, slots=True)
class Picture:
    """A still image for the model to see (a screenshot), as the live model takes it."""

    jpeg: bytes
    """The image, JPEG-encoded."""
    width: int
    """Pixels."""
    height: int
    """Pixels."""


# -- events ----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class UserTranscript:
    """A fragment of the service's transcription of the user's speech."""

    text: str
    """The new text, to append to what came before in this turn (fragments carry their own spaces)."""
    final: bool = False
    """The service marked the transcription finished. It often never does: `TurnComplete` ends it too."""


@dataclass(frozen=True, slots=True)
class ModelTranscript:
    """A fragment of the transcription of what the model says aloud."""

    text: str
    """The new text, to append to what came before in this turn."""
    final: bool = False


@dataclass(frozen=True, slots=True)
class ModelAudio:
    """A piece of the model's voice, to play in order."""

    chunk: AudioChunk
    """PCM in the rate the service declared (24 kHz mono for native audio models); `start_ms` counts from
    the first model audio of this connection."""


@dataclass(frozen=True, slots=True)
class ToolCall:
    """The model asks to run a tool; answer with `send_tool_result(id, name, result)`."""

    id: str
    name: str
    args: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class ToolCallsCancelled:
    """The user interrupted: the model no longer wants these calls answered; undo side effects if any."""

    ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class WebSource:
    """A web page the model's answer draws on."""

    title: str
    """The page's name as the service gives it (often the site's domain); the link when it gave none."""
    uri: str
    """An http(s) address, to open in the browser."""


@dataclass(frozen=True, slots=True)
class WebSources:
    """The model's answer in this turn draws on web pages (it searched the web): show them with the answer.
    May come more than once in a turn, each time with the pages found so far."""

    sources: tuple[WebSource, ...]
    queries: tuple[str, ...] = ()
    """What the model searched for. Google's terms for grounded answers ask that these be shown with the
    answer, each leading to its Google results page."""


@dataclass(frozen=True, slots=True)
class TurnComplete:
    """The model finished its turn (or, after `Interrupted`, gave it up) and waits for the user."""


@dataclass(frozen=True, slots=True)
class Interrupted:
    """The user spoke over the model: stop playback at once and drop the queued audio (barge-in)."""


@dataclass(frozen=True, slots=True)
class GoAway:
    """The service will close this connection soon: reconnect with the latest resumption handle."""

    time_left_ms: int | None
    """Time before the service closes the connection (milliseconds); None if it did not say."""


@dataclass(frozen=True, slots=True)
class ResumptionHandle:
    """A new handle from which the session can be resumed on a new connection."""

    handle: str


LiveEvent = (
    UserTranscript
    | ModelTranscript
    | ModelAudio
    | ToolCall
    | ToolCallsCancelled
    | WebSources
    | TurnComplete
    | Interrupted
    | GoAway
    | ResumptionHandle
)


# -- errors ----------------------------------------------------------------------------------------


class LiveConnectionRefused(LiveConnectionError):
    """The service was reached and refused the session: a wrong key, an unknown model, a stale
    resumption handle. Retrying unchanged fails again; without a handle, tell the user."""

    def __init__(self, message: str, *, code: int | None) -> None:
        super().__init__(message)
        self.code = code
        """The WebSocket close code (1007 and 1008 are what the service uses), or None."""


class LiveConnectionLost(LiveConnectionError):
    """An open connection ended without our asking: the service closed it (after `GoAway`, or on an
    error) or the network dropped. Reconnect with `config.resumed(error.resumption_handle)`."""

    def __init__(self, message: str, *, code: int | None, resumption_handle: str | None) -> None:
        super().__init__(message)
        self.code = code
        """The WebSocket close code; 1006 when the connection dropped without a close frame."""
        self.resumption_handle = resumption_handle
        """The latest resumable handle this connection knew (the config's own if none came), or None."""


# -- the connection --------------------------------------------------------------------------------


class LiveConnection(Protocol):
    """One open connection to a live speech model. Send from one task, read `events()` from another."""

    @property
    def resumption_handle(self) -> str | None:
        """The latest resumable handle: the last `ResumptionHandle` event's, else the config's."""
        ...

    async def send_audio(self, chunk: AudioChunk) -> None:
        """Stream microphone audio (mono PCM16; 16 kHz is what the model takes natively).
        Raises `LiveConnectionLost` once the connection has ended."""
        ...

    async def send_text(self, text: str) -> None:
        """Send what the user typed as one complete user turn: the model answers it (aloud, like speech).
        Raises `LiveConnectionLost` once the connection has ended."""
        ...

    async def send_tool_result(self, call_id: str, name: str, result: Mapping[str, Any]) -> None:
        """Answer the `ToolCall` with id `call_id`. Raises `LiveConnectionLost` once the connection ended."""
        ...

    async def send_picture(self, picture: Picture) -> None:
        """Show the model a still image, which it reads with what it is asked next (or the tool answer that
        follows). Raises `LiveConnectionLost` once the connection has ended, `LiveConnectionError` where the
        model takes no images (the offline voice)."""
        ...

    def events(self) -> AsyncIterator[LiveEvent]:
        """What the model says and does, in order, across turns, until `aclose()` (then it just ends).
        Raises `LiveConnectionLost` when the connection ends otherwise. Iterate it from one task only."""
        ...

    async def aclose(self) -> None:
        """Close the connection; idempotent."""
        ...


LiveConnectionFactory = Callable[[LiveConfig], AbstractAsyncContextManager[LiveConnection]]
"""Opens a connection for a config: `voice.live.gemini.connect` with its endpoint and key bound."""
