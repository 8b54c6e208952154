"""Switching chats by voice as the switching tests drive it (`test_switching_over_time`,
`test_degraded_switching`): chats made and maintained, one Live session per request, and each request typed
with its switch waited for."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from uuid import UUID

from app.conversation import ChatSwitched
from chats.models import Turn
from tests.app.voice_harness import Running
from tests.fakes.gemini_live_scenario import (
    AfterText,
    AfterToolResponse,
    Call,
    CallTools,
    CompleteTurn,
    ConnectionScript,
    OutputTranscript,
    script,
)
from voice.session_events import ToolUsed


async def maintained_chats(running: Running, chats: Mapping[str, Sequence[Turn]]) -> dict[str, UUID]:
    """Each chat made with its turns and maintained (titled, its topic and vectors written), by name."""
    ids: dict[str, UUID] = {}
    for name, turns in chats.items():
        chat = await running.store.create(turns=list(turns))
        await running.services.maintainer.maintain(chat.id)
        ids[name] = chat.id
    return ids


def switch_sessions(requests: Sequence[str]) -> list[ConnectionScript]:
    """One connection per session: each hears one request, calls switch_chat with its words and says so; then
    the session the last switch opened."""
    sessions = [
        script(
            (AfterText(), (CallTools((Call(f"s-{i}", "switch_chat", {"query": words}),)),)),
            (AfterToolResponse(f"s-{i}"), (OutputTranscript("Here it is."), CompleteTurn())),
        )
        for i, words in enumerate(requests)
    ]
    return [*sessions, script()]


async def switch_by_each(running: Running, requests: Sequence[str]) -> tuple[list[UUID], list[ToolUsed]]:
    """Each request typed in turn, its switch waited for; the chats switched to and the tools used, in order."""

    def switches() -> int:
        return sum(isinstance(e, ChatSwitched) for e in running.watcher.of("conversation"))

    for i, words in enumerate(requests):
        await running.loop.send_text(words)

        def switched(count: int = i + 1) -> bool:
            return switches() == count

        await running.watcher.until(switched)
    told = running.watcher.of("conversation")
    return [e.chat_id for e in told if isinstance(e, ChatSwitched)], [e for e in told if isinstance(e, ToolUsed)]
