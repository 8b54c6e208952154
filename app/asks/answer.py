"""What one typed question got: gathered from the voice loop's events, in the process that runs it."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from uuid import UUID

from app.core.events import TurnSpoken
from voice.session_events import ConnectionFailed, ToolUsed
from voice.state import AssistantState, StateChanged

if TYPE_CHECKING:  # the conversation's module is imported with the voice loop, not with `parley ask`'s options
    from app.conversation import ConversationEvent
    from voice.wake.protocol import WakeEvent


@dataclass
class Answer:
    """What one `ask` said and did; also an observer of the loop, which gathers it."""

    chat_id: UUID
    question: str | None = None
    """The typed message this answer is to, when the loop hears others too (a running Parley, whose user
    may talk or type meanwhile): only the typed turn with exactly these words starts it. None: the loop hears
    nothing else, and its first user turn is the question."""
    user: str = ""
    """The user's turn as recorded ("" until it is)."""
    model: str = ""
    """The model's answer ("" until it comes)."""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    sources: list[dict[str, str]] = field(default_factory=list)
    """The web pages the answer drew on (`{"title", "uri"}`), when the model searched the web."""
    failure: str | None = None
    """Why the model could not be reached, in one line."""
    opening: asyncio.Event = field(default_factory=asyncio.Event)
    """Set once a conversation opens (its models load): what the answer needs next may be prepared."""
    over: asyncio.Event = field(default_factory=asyncio.Event)
    """Set once there is nothing more to wait for: the answer came, the model could not be reached, or the
    conversation ended."""

    def as_json(self) -> dict[str, Any]:
        return {
            "chat_id": str(self.chat_id),
            "user": self.user,
            "model": self.model,
            "tool_calls": self.tool_calls,
            "sources": self.sources,
        }

    @classmethod
    def of_json(cls, data: dict[str, Any]) -> Answer:
        """The answer `as_json` wrote (in another process)."""
        return cls(
            UUID(data["chat_id"]),
            user=data["user"],
            model=data["model"],
            tool_calls=list(data["tool_calls"]),
            sources=list(data["sources"]),
        )

    # The voice loop's observer: only the conversation matters here.

    def ready(self, wake_word: str, chat_id: UUID) -> None:
        return None

    def muted(self, muted: bool) -> None:
        return None

    def level(self, dbfs: float) -> None:
        return None

    async def wake(self, wake: WakeEvent) -> None:
        return None

    def state(self, change: StateChanged) -> None:
        if change.new is AssistantState.CONNECTING:
            self.opening.set()
        # The conversation ended without an answer (the answer would have ended it first). A question waiting
        # its turn in a running Parley goes out in the next conversation: that one's end says nothing yet.
        if change.new is AssistantState.SLEEPING and (self.question is None or self.user):
            self.over.set()

    async def conversation(self, event: ConversationEvent) -> None:
        if isinstance(event, TurnSpoken) and event.turn.role == "user" and not self.user and self._asks(event):
            self.user = event.turn.text
        elif isinstance(event, TurnSpoken) and event.turn.role == "model" and not event.turn.note and self.user:
            self.model = event.turn.text
            self.sources = [source.to_json() for source in event.turn.sources]
            self.over.set()  # recorded (journaled) before it is told: the loop can stop here
        elif isinstance(event, ToolUsed) and self.user:
            call = event.call
            self.tool_calls.append({"name": call.name, "args": dict(call.args), "result": dict(event.reply.result)})
        elif isinstance(event, ConnectionFailed):
            # Typed messages no connection could take are dropped (`voice.assistant`): this one too.
            self.failure = event.message
            self.over.set()

    def _asks(self, spoken: TurnSpoken) -> bool:
        return self.question is None or (spoken.typed and spoken.turn.text == self.question)
