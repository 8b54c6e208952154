"""Keeping chats in shape after new turns: compaction, the topic vector, and titles.

Runs off the caller's path (`MaintenanceWorker`), and applies compaction with compare-and-swap so that
turns appended while a summary was being written are never lost.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from types import TracebackType
from uuid import UUID

import numpy as np

from chats.compaction import apply_plan, plan_compaction, summary_turn
from chats.embedding import Embedder, embed_one
from chats.errors import ChatNotFound, ChatsError, VersionConflict
from chats.models import AssistantContext, EmbeddedText, Turn, utc_now
from chats.store import ChatStore
from chats.text_budget import cut_at_sentence
from chats.text_model import TextModel

log = logging.getLogger(__name__)

FOCUS_KEPT_SIMILARITY = 0.6
"""A new summary at least this similar to the previous one keeps the chat's title."""
TITLE_AFTER_USER_TURNS = 2
"""A young chat is titled once the user has spoken this many times: by then its topic is clear."""
TOPIC_MAX_CHARS = 1000
"""The topic text of a young chat: the user's words, as many as the embedding model reads."""
CAS_ATTEMPTS = 5


@dataclass(frozen=True, slots=True)
class MaintenanceReport:
    compactions: int = 0
    titled: bool = False
    topic_refreshed: bool = False


class ChatMaintainer:
    def __init__(
        self,
        store: ChatStore,
        embedder: Embedder,
        text_model: TextModel,
        *,
        clock: Callable[[], datetime] = utc_now,
    ) -> None:
        self._store = store
        self._embedder = embedder
        self._text = text_model
        self._clock = clock

    async def maintain(self, chat_id: UUID) -> MaintenanceReport:
        """Compact while the window is exceeded, then refresh the topic and title as needed."""
        compactions = 0
        while await self._compact_once(chat_id):
            compactions += 1
        context = await self._store.load_assistant_context(chat_id)
        topic_refreshed = titled = False
        if context.summary is None:
            topic_refreshed = await self._refresh_topic(context)
            titled = await self._title_young_chat(context)
        return MaintenanceReport(compactions, titled, topic_refreshed)

    async def _compact_once(self, chat_id: UUID) -> bool:
        context = await self._store.load_assistant_context(chat_id)
        plan = plan_compaction(context.assistant_history)
        if plan is None:
            return False
        text = cut_at_sentence(
            await self._text.summarize(plan.replaced, plan.max_summary_chars), plan.max_summary_chars
        )
        summary = await embed_one(self._embedder, text)
        turn = summary_turn(text, self._clock())
        previous = context.summary or context.topic
        for _ in range(CAS_ATTEMPTS):
            history = apply_plan(plan, context.assistant_history, turn)
            if history is None:
                return True  # compacted by someone else meanwhile: look again
            try:
                await self._store.replace_assistant_history(
                    chat_id, expected_version=context.version, assistant_history=history, summary=summary
                )
            except VersionConflict:
                context = await self._store.load_assistant_context(chat_id)
                continue
            log.info("compacted chat %s: %d turns into one summary", chat_id, len(plan.replaced))
            if _focus_moved(previous, summary):
                await self._retitle(chat_id, text)
            return True
        log.warning("chat %s kept changing; compaction will be retried after the next append", chat_id)
        return False

    async def _refresh_topic(self, context: AssistantContext) -> bool:
        text = topic_text(context.assistant_history)
        if not text or (
            context.topic is not None
            and context.topic.text == text
            and context.topic.model == self._embedder.model_name
        ):
            return False
        await self._store.set_embedding(context.chat_id, "topic", await embed_one(self._embedder, text))
        return True

    async def _title_young_chat(self, context: AssistantContext) -> bool:
        user_turns = sum(1 for turn in context.assistant_history if turn.role == "user")
        if context.title is not None or user_turns < TITLE_AFTER_USER_TURNS:
            return False
        return await self._retitle(context.chat_id, transcript(context.assistant_history))

    async def _retitle(self, chat_id: UUID, text: str) -> bool:
        title = (await self._text.title(text)).strip()
        return bool(title) and await self._store.rename(chat_id, title, automatic=True)


def topic_text(history: tuple[Turn, ...]) -> str:
    """What a young chat is about, in the user's own words."""
    words = " ".join(turn.text.strip() for turn in history if turn.role == "user" and not turn.summary)
    return words[:TOPIC_MAX_CHARS].strip()


def transcript(history: tuple[Turn, ...]) -> str:
    return "\n".join(f"{'User' if t.role == 'user' else 'Assistant'}: {t.text}" for t in history)


def _focus_moved(previous: EmbeddedText | None, current: EmbeddedText) -> bool:
    if previous is None or previous.model != current.model:
        return True
    return float(np.dot(previous.vector, current.vector)) < FOCUS_KEPT_SIMILARITY


class MaintenanceWorker:
    """Runs `ChatMaintainer.maintain` in one owned background task, one chat at a time.

    `request` never waits; `idle` waits until every requested chat has been maintained. Failures are
    logged (ids only) and the chat is maintained again on its next request: nothing is lost, since
    compaction only ever rewrites `assistant_history` from turns the store already holds.
    """

    def __init__(self, maintainer: ChatMaintainer) -> None:
        self._maintainer = maintainer
        self._pending: dict[UUID, None] = {}
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()
        self._idle.set()
        self._task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> MaintenanceWorker:
        self._task = asyncio.create_task(self._run(), name="chat-maintenance")
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if kind is None:
            await self.idle()
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    def request(self, chat_id: UUID) -> None:
        self._pending[chat_id] = None
        self._idle.clear()
        self._wake.set()

    async def idle(self) -> None:
        await self._idle.wait()

    async def _run(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._pending:
                chat_id = next(iter(self._pending))
                del self._pending[chat_id]
                try:
                    await self._maintainer.maintain(chat_id)
                except ChatNotFound:
                    pass  # deleted meanwhile
                except ChatsError as error:
                    log.warning("maintenance of chat %s failed: %s", chat_id, error)
            self._idle.set()
