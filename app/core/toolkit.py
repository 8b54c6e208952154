"""Tools beyond the chat's own (timers, the user's MCP servers): a `ToolKit` declares its tools to the model
and answers their calls, and lives as long as the voice loop that holds it (an async context: servers
started, schedulers running, all of it closed with the loop)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable
from uuid import UUID

from voice.audio.preroll import StreamCursor
from voice.live.connection import LiveConnectionFactory, ToolDeclaration
from voice.offline.heard import Heard
from voice.session_events import ToolReply

Overhear = Callable[[], StreamCursor | None]
"""The microphone from now on, read beside the wake word (None: no microphone, or the loop not listening)."""


class ToolKit(AbstractAsyncContextManager["ToolKit"], Protocol):
    """A set of tools the voice loop declares beside its own. Entered once when the loop starts, exited when
    it stops; `declarations` is asked again for every conversation, so a kit may offer different tools as
    its servers come and go."""

    async def declarations(self) -> tuple[ToolDeclaration, ...]:
        """The tools to declare to the model in the next conversation."""
        ...

    def handles(self, name: str) -> bool:
        """Whether a call of `name` is this kit's."""
        ...

    async def call(self, name: str, args: Mapping[str, Any], chat_id: UUID) -> dict[str, Any] | ToolReply:
        """The answer for the model (a JSON object; failures are answered, never raised: a bad call must not
        end a conversation), or a whole `ToolReply` (a picture to show the model first, a note for the chat).
        `chat_id`: the chat in conversation, where a tool's effect may be noted."""
        ...


def tool_reply(answer: Mapping[str, Any] | ToolReply) -> ToolReply:
    """What a kit's `call` answered, as the session takes it."""
    return answer if isinstance(answer, ToolReply) else ToolReply(answer)


@runtime_checkable
class HearsTheUser(Protocol):
    """A kit that must know when the user has spoken (a tool that waits for the user's yes, say)."""

    def heard(self, text: str) -> None:
        """The user finished a turn (spoken or typed): its words, told before the tools it leads to run."""
        ...


@runtime_checkable
class ListensByItself(Protocol):
    """A kit that listens to the microphone now and then without the wake word (a ringing timer, for "stop")."""

    def listen_through(self, overhear: Overhear) -> None:
        """Told once, by the voice loop that holds the kit, how to open the microphone."""
        ...


Asker = Callable[[str, str, Mapping[str, Any]], Awaitable[bool | None]]
"""Whoever typed the question a tool call serves, asked whether to run a tool that asks first (server, tool,
arguments): True runs it, False refuses it, None leaves it to the conversation's user (a spoken yes, a click)."""


@runtime_checkable
class AsksTheAsker(Protocol):
    """A kit whose tools may ask first, which can put that question to whoever typed the question (`parley
    ask`, which has no second turn to answer in)."""

    def ask_with(self, asker: Asker | None) -> None:
        """From now on, ask `asker` first (None: the conversation's user only)."""
        ...


Transcribe = Callable[[bytes, str, str], Awaitable[Heard]]
"""16 kHz mono PCM16, a prompt (text as if said before) and the language's code -> what was said."""


@dataclass(frozen=True, slots=True)
class ConversationVoice:
    """What the voice loop's conversations speak and hear with, lent to kits that speak or listen by themselves
    (a ringing timer)."""

    connected: Callable[[], bool]
    """Whether a conversation's session is open now."""
    gemini: LiveConnectionFactory | None = None
    """Opens a Gemini Live session (None: the offline voice answers)."""
    live_model: str = ""
    language_code: str | None = None
    """The speech language Gemini is told (None: it finds it)."""
    transcribe: Transcribe | None = None
    """The offline voice's Whisper, already loaded (None: Gemini answers)."""


@runtime_checkable
class SpeaksByItself(Protocol):
    """A kit that speaks or listens outside the conversation (a ringing timer), in the conversation's voice."""

    def speak_with(self, voice: ConversationVoice) -> None:
        """Told once, by the voice loop that holds the kit, once its voice is loaded."""
        ...
