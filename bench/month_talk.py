"""One conversation of the month, as `bench.month` plays it.

- `voice_conversation`: typed turns through the voice loop and the real google-genai client against the fake
  Gemini Live server, which answers as scripted and calls the memory tools where a fact is said, as a model
  would (`save_memory` with the fact in the third person).
- `switch_conversation`: the user asks for an older chat by description. The fake model calls `switch_chat`
  with the user's words; its script follows what the tool will answer, which the bench reads beforehand
  from the same decision (`ChatFinder.find_chats` with `current=`, on the same store): a switch, a choice
  (the user names the right option back by its title, or says none of them), or none. Where the voice
  does not land in the right chat, the user picks it in the window and the rest of the conversation goes
  straight to the store.
- `store_conversation`: the turns appended to the store, then maintained by a `MaintenanceWorker`, as
  the voice loop does after a conversation; the cheap path for what the voice does not decide.

Every turn said or answered is counted in the `Ledger`: what the store must hold, once each.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from uuid import UUID, uuid4

from app.conversation import ChatSwitched
from bench.month_app import RunningApp
from chats.models import Turn, utc_now
from tests.fakes.gemini_live_scenario import (
    AfterText,
    AfterToolResponse,
    Call,
    CallTools,
    CompleteTurn,
    OutputTranscript,
    script,
)
from tests.fakes.gemini_live_server import FakeGeminiLiveServer
from voice.session_events import ToolUsed
from voice.state import AssistantState


def said(text: str) -> str:
    return " ".join(text.split())


@dataclass
class Ledger:
    """What the user and the model said that the store must hold, by (role, text)."""

    expected: Counter[tuple[str, str]] = field(default_factory=Counter)

    def add(self, role: str, text: str) -> None:
        self.expected[(role, said(text))] += 1


@dataclass(frozen=True, slots=True)
class Exchange:
    user: str
    model: str
    call: tuple[str, Mapping[str, Any]] | None = None
    """A tool the model calls on hearing `user` before it answers `model`: (name, arguments)."""


@dataclass(frozen=True, slots=True)
class SwitchOutcome:
    tool: str
    """What `switch_chat` answered first: switched, ask, none, already_here."""
    landed: UUID | None
    """The chat the voice ended in, when it switched."""
    predicted: str
    options: tuple[str, ...] = ()
    """The titles of the options read out, when the tool asked which chat."""


Steps = list[tuple[Any, tuple[Any, ...]]]


def exchange_steps(exchanges: Sequence[Exchange], prefix: str) -> Steps:
    steps: Steps = []
    for i, exchange in enumerate(exchanges):
        answer = (OutputTranscript(exchange.model), CompleteTurn())
        if exchange.call is None:
            steps.append((AfterText(), answer))
            continue
        name, args = exchange.call
        call_id = f"{prefix}-{i}"
        steps += [(AfterText(), (CallTools((Call(call_id, name, dict(args)),)),)), (AfterToolResponse(call_id), answer)]
    return steps


async def _say(app: RunningApp, texts: Sequence[str], ledger: Ledger) -> None:
    """Each text typed once the previous one was answered."""
    for text in texts:
        answered = app.observer.model_turns() + 1
        await app.loop.send_text(text)
        ledger.add("user", text)

        def answered_now(wanted: int = answered) -> bool:
            return app.observer.model_turns() >= wanted

        await app.observer.until(answered_now)


async def _until_asleep(app: RunningApp) -> None:
    await app.observer.until(lambda: bool(app.observer.states) and app.observer.states[-1] is AssistantState.SLEEPING)


async def voice_conversation(
    app: RunningApp, server: FakeGeminiLiveServer, chat_id: UUID, exchanges: Sequence[Exchange], ledger: Ledger
) -> tuple[list[dict[str, Any]], str]:
    """The conversation in `chat_id`; the memory tools' answers, and the system prompt the model was given."""
    app.observer.clear()
    marks = dict(app.maintainer.started)
    app.loop.continue_in(chat_id)
    server.script(script(*exchange_steps(exchanges, "m")))
    connections = len(server.connections)
    await _say(app, [e.user for e in exchanges], ledger)
    for exchange in exchanges:
        ledger.add("model", exchange.model)
    await _until_asleep(app)
    await app.settle(app.observer.saved_chats(), marks)
    results = [dict(e.reply.result) for e in app.observer.events if isinstance(e, ToolUsed)]
    prompt = server.connections[connections].system_text if len(server.connections) > connections else ""
    return results, prompt


async def switch_conversation(
    app: RunningApp,
    server: FakeGeminiLiveServer,
    *,
    words: str,
    wanted: set[UUID],
    target: UUID,
    exchanges: Sequence[Exchange],
    ledger: Ledger,
    append_ms: list[float],
    at: datetime,
    current: UUID,
) -> SwitchOutcome:
    """Ask for an older chat by `words`; then the rest of the conversation in it (`target` when the voice
    did not land in a `wanted` chat). `current`: the chat the request is said in."""
    app.observer.clear()
    marks = dict(app.maintainer.started)
    app.loop.continue_in(current)
    # The tool's own decision, read beforehand on the same store, with the clock the tool reads.
    match = await app.services.finder.find_chats(words, now=utc_now(), current=current)
    right = next((o for o in match.options if o.chat_id in wanted), None)
    steps: Steps = [(AfterText(), (CallTools((Call("s-1", "switch_chat", {"query": words}),)),))]
    texts = [words]
    replies: list[str] = []
    landed: UUID | None = None
    if match.outcome == "switch":
        replies.append("Here is that chat.")
        steps.append((AfterToolResponse("s-1"), (OutputTranscript(replies[-1]), CompleteTurn())))
        landed = match.options[0].chat_id
    elif match.outcome == "ask":
        replies.append("Which one do you mean?")
        steps.append((AfterToolResponse("s-1"), (OutputTranscript(replies[-1]), CompleteTurn())))
        if right is not None:
            texts.append(f"The one called {right.title}" if right.title else "The first one")
            replies.append("Here it is.")
            call = Call("s-2", "switch_chat", {"chat_id": str(right.chat_id)})
            steps += [
                (AfterText(), (CallTools((call,)),)),
                (AfterToolResponse("s-2"), (OutputTranscript(replies[-1]), CompleteTurn())),
            ]
            landed = right.chat_id
        else:
            texts.append("None of those.")
            replies.append("Alright, never mind.")
            steps.append((AfterText(), (OutputTranscript(replies[-1]), CompleteTurn())))
    else:
        replies.append("I can't find that chat.")
        steps.append((AfterToolResponse("s-1"), (OutputTranscript(replies[-1]), CompleteTurn())))
    in_right = landed is not None and landed in wanted
    server.script(script(*steps))
    if landed is not None:
        # The session opened in the chat switched to: the rest of the conversation, if it is the right one.
        server.script(script(*exchange_steps(exchanges if in_right else (), "a")))
    await _say(app, texts, ledger)
    for reply in replies:
        ledger.add("model", reply)
    if landed is not None:
        await app.observer.until(lambda: any(isinstance(e, ChatSwitched) for e in app.observer.events))
    if in_right:
        await _say(app, [e.user for e in exchanges], ledger)
        for exchange in exchanges:
            ledger.add("model", exchange.model)
    await _until_asleep(app)
    await app.settle(app.observer.saved_chats(), marks)
    used = [e for e in app.observer.events if isinstance(e, ToolUsed) and e.call.name == "switch_chat"]
    first = dict(used[0].reply.result) if used else {}
    if not in_right:
        app.loop.continue_in(target)  # the user picks the chat in the window
        await store_conversation(app, target, exchanges, ledger, append_ms=append_ms, at=at)
    return SwitchOutcome(
        tool=str(first.get("outcome", "error")),
        landed=landed,
        predicted=match.outcome,
        options=tuple(str(option.get("title")) for option in first.get("options", [])),
    )


async def store_conversation(
    app: RunningApp,
    chat_id: UUID,
    exchanges: Sequence[Exchange],
    ledger: Ledger,
    *,
    append_ms: list[float],
    at: datetime,
) -> None:
    turns = []
    for exchange in exchanges:
        turns += [
            Turn(role="user", text=exchange.user, at=at, id=uuid4()),
            Turn(role="model", text=exchange.model, at=at),
        ]
        ledger.add("user", exchange.user)
        ledger.add("model", exchange.model)
    started = time.perf_counter()
    await app.services.store.append(chat_id, turns)
    append_ms.append((time.perf_counter() - started) * 1000)
    app.worker.request(chat_id)
    await app.worker.idle()
