"""What a voice session tells its owner, and what it asks of it: how the conversation ended, each turn as it
is finished, the tools it used, a failure to connect; the tool handler it calls, and the microphone stream
it reads. `voice.session` uses these and re-exports them."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, Literal, Protocol

from voice.audio.chunks import AudioChunk
from voice.live.connection import HistoryTurn, Picture, ToolCall, WebSource

Microphone = AsyncIterator[AudioChunk]
"""Microphone chunks in order, until the recording (or the microphone) ends; a `voice.audio.preroll.StreamCursor`.
A session reads it from one uplink task per connection, each cancelled when its connection ends: a
cancelled `__anext__` must lose no chunk, so that the next connection sends on where the last one stopped."""


class EndReason(Enum):
    IDLE = "idle"
    """Nobody spoke for the idle time after the model's last turn."""
    ENDED_BY_TOOL = "ended_by_tool"
    """A tool asked to end the conversation (a chat switch, a goodbye)."""
    CONNECTION_FAILED = "connection_failed"
    """The model could not be reached (again)."""


@dataclass(frozen=True, slots=True)
class SpokenTurn:
    """One finished turn, its transcript fragments merged; or a message the user typed (`typed`)."""

    role: Literal["user", "model"]
    text: str
    interrupted: bool = False
    """A model turn the user cut short: `text` is what was played of it before the barge-in."""
    typed: bool = False
    """A user turn typed in the window rather than spoken: `text` is exactly what was sent to the model."""
    sources: tuple[WebSource, ...] = ()
    """The web pages a model turn draws on (the model searched the web), in the order the service named them."""
    searches: tuple[str, ...] = ()
    """What the model searched the web for in this turn."""


@dataclass(frozen=True, slots=True)
class ToolReply:
    result: Mapping[str, Any]
    """The answer the model receives."""
    end_conversation: bool = False
    """End this session once the model has finished its turn (a chat switch, a goodbye)."""
    picture: Picture | None = None
    """Shown to the model (`LiveConnection.send_picture`) just before `result` is sent: the screen it asked for."""
    unshown: Mapping[str, Any] | None = None
    """The answer the model receives instead of `result` when `picture` could not be sent."""
    note: str = ""
    """What the chat keeps of this call, as a line of text (when the screen was looked at, and its size), never
    the picture itself; "" for none."""


@dataclass(frozen=True, slots=True)
class ToolUsed:
    call: ToolCall
    reply: ToolReply


@dataclass(frozen=True, slots=True)
class ToolStarted:
    """A tool call is being answered (a `ToolUsed` with the same call follows): "Saving to memory..."."""

    call: ToolCall


@dataclass(frozen=True, slots=True)
class ConnectionFailed:
    """The live model could not be reached, or refused the session: the conversation ends here."""

    message: str
    """One line for the user, never a key: "Gemini Live refused the API key (1008: ...)"."""


SessionEvent = SpokenTurn | ToolStarted | ToolUsed | ConnectionFailed


class ToolHandler(Protocol):
    async def __call__(self, call: ToolCall) -> ToolReply:
        """Answer a tool call; never raise for bad arguments: answer with an error object."""
        ...


class ConversationHistory(Protocol):
    """What was said in the conversation, as its owner keeps it (Parley: the chat as loaded, and the turn
    journal since)."""

    def __call__(self) -> Sequence[HistoryTurn]:
        """Every turn the conversation holds now: the history the session was opened with and each turn
        finished since, in order. Seeded into a new server-side session when the old one cannot be resumed."""
        ...
