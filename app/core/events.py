"""What the voice loop (and the store's reachability) tells a front end, one frozen event per kind of news.

They are posted from the runtime thread (`VoicePresenter`) or wherever the news happens; a front end's
`Post` carries each to its own thread (the window's bridge queues it to the GUI thread, where one slot
dispatches it). Nothing here says how a front end shows it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal
from uuid import UUID

from app.core.status import VoiceStatus
from app.core.timer import Timer
from chats.models import Turn


@dataclass(frozen=True, slots=True)
class StatusChanged:
    status: VoiceStatus


@dataclass(frozen=True, slots=True)
class MutedChanged:
    muted: bool
    """True: the microphone is muted (no level comes until it is unmuted)."""


@dataclass(frozen=True, slots=True)
class LevelHeard:
    dbfs: float
    """The microphone's peak over the last ~100 ms in dBFS, from -96 (silence) to 0 (full scale); about ten
    a second while it is heard."""


@dataclass(frozen=True, slots=True)
class TurnSpoken:
    """A turn of the running conversation ended, as the conversation journaled it (`app.conversation`): its
    id, its time and the chat it went to, which after a switch by voice is the chat switched to (the model's
    "here is your kitchen chat"). The store may not have it yet. A front end shows this record as it is."""

    chat_id: UUID
    turn: Turn
    typed: bool = False
    """A user turn typed rather than spoken (`voice.session_events.SpokenTurn.typed`)."""


@dataclass(frozen=True, slots=True)
class ToolActivity:
    """A tool call in a conversation: once as it starts (`result` None), once with its answer."""

    chat_id: UUID
    """The chat the conversation is in when the call is made."""
    call_id: str
    """The call the answer belongs to: it replaces what was shown while it ran."""
    name: str
    args: Mapping[str, Any]
    result: Mapping[str, Any] | None = None
    """What the tool answered the model; None while it runs."""


@dataclass(frozen=True, slots=True)
class MemoriesChanged:
    """A conversation saved or forgot a memory."""


@dataclass(frozen=True, slots=True)
class ChatSaved:
    """Turns reached the store in `chat_id`: lists and transcripts of it are stale."""

    chat_id: UUID


@dataclass(frozen=True, slots=True)
class VoiceInChat:
    """The voice conversation is in `chat_id`, or the next one continues it (a switch; the loop is ready)."""

    chat_id: UUID


@dataclass(frozen=True, slots=True)
class DefaultChat:
    """The chat to show at start, unless the user has chosen one meanwhile."""

    chat_id: UUID


@dataclass(frozen=True, slots=True)
class DeviceLost:
    """The microphone or the speaker failed (or could not be opened): the voice goes on without it."""

    device: Literal["microphone", "speaker"]
    problem: str
    """One line: what failed."""


@dataclass(frozen=True, slots=True)
class DeviceBack:
    """A device that failed works again (Settings opened it again): the voice uses it."""

    device: Literal["microphone", "speaker"]


@dataclass(frozen=True, slots=True)
class Problem:
    message: str
    """One line for the user, never a key."""


@dataclass(frozen=True, slots=True)
class ProblemResolved:
    message: str
    """A `Problem`'s message, said earlier, that no longer holds."""


@dataclass(frozen=True, slots=True)
class Notice:
    message: str
    """Something the user should know that is not a problem (the offline voice is a small model)."""


@dataclass(frozen=True, slots=True)
class TimersChanged:
    """The timers and reminders still to ring, soonest first (one was set, cancelled, rang or was missed)."""

    timers: tuple[Timer, ...]


@dataclass(frozen=True, slots=True)
class TimerRinging:
    """A timer rings (a desktop notification, and a way to stop it) until `TimerStopped`."""

    timer: Timer
    message: str
    """What is said, in the user's language ("Your pasta timer is up.")."""


@dataclass(frozen=True, slots=True)
class TimerStopped:
    timer_id: str


@dataclass(frozen=True, slots=True)
class TimersMissed:
    """Timers due while Parley was not running: said once, at the next start."""

    message: str
    timer_ids: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ConfirmationAsked:
    """A call of one of the user's MCP tools waits for the user's yes: spoken, or Allow in a front end."""

    confirmation: str
    """The held call's id, to answer it with."""
    server: str
    tool: str
    """The server's own name of the tool."""
    args: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class ConfirmationSettled:
    """A held call was answered (allowed, refused, or used up): nothing is left to ask."""

    confirmation: str


FrontEvent = (
    StatusChanged
    | MutedChanged
    | LevelHeard
    | TurnSpoken
    | ToolActivity
    | MemoriesChanged
    | ChatSaved
    | VoiceInChat
    | DefaultChat
    | DeviceLost
    | DeviceBack
    | Problem
    | ProblemResolved
    | Notice
    | TimersChanged
    | TimerRinging
    | TimerStopped
    | TimersMissed
    | ConfirmationAsked
    | ConfirmationSettled
)

Post = Callable[[FrontEvent], None]
"""Hands an event to the front end; callable from any thread."""
