"""Keeping chats in shape after new turns: compaction, the topic vector, titles, and turn vectors.

Runs off the caller's path (`MaintenanceWorker`), and applies compaction with compare-and-swap so that
turns appended while a summary was being written are never lost. Every turn of `full_history` gets a
vector for recall over past messages (`chats.recall`): the new turns of a maintained chat, and, on
request, every chat that has turns without one (a backfill after an import or a change of model).
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from contextlib import suppress
from dataclasses import dataclass
from datetime import datetime
from types import TracebackType
from uuid import UUID

import numpy as np

from chats.compaction import apply_plan, plan_compaction, summary_turn
from chats.degrade import part_of
from chats.embedders.embedding import Embedder, embed_one
from chats.errors import ChatNotFound, ChatsError, EmbeddingError, StoreUnavailable, VersionConflict
from chats.models import AssistantContext, EmbeddedText, Turn, utc_now
from chats.store import ChatStore, EmbeddingKind, TurnVector
from chats.text.text_budget import cut_at_sentence
from chats.text.text_model import TextModel

log = logging.getLogger(__name__)

FOCUS_KEPT_SIMILARITY = 0.6
"""A new summary at least this similar to the previous one keeps the chat's title."""
TOPIC_MAX_CHARS = 6000
"""The topic text of a young chat: what it says, its first twenty pieces of `chats.embedders.embedding.PIECE_CHARS`."""
CAS_ATTEMPTS = 5
TURN_BATCH = 32
"""Turns embedded per call. all-MiniLM-L6-v2 batches texts of like length (chats.embedders.minilm), so a batch
costs about as much as its turns one by one (7 ms each on a quiet 2-core CPU) in far fewer store
round trips, and stays short enough that a maintenance request waits at most a fraction of a second."""


@dataclass(frozen=True, slots=True)
class MaintenanceReport:
    compactions: int = 0
    titled: bool = False
    topic_refreshed: bool = False
    turns_embedded: int = 0
    """Turns that got their recall vector."""


@dataclass(frozen=True, slots=True)
class Owed:
    """What a chat maintained while a remote part was degraded lacks from it."""

    text: bool = False
    """Its title (and summary) came from the offline twin."""
    vectors: bool = False
    """Its summary or topic vector came from the local twin, and its turns have no vectors of the model."""

    def __or__(self, other: Owed) -> Owed:
        return Owed(self.text or other.text, self.vectors or other.vectors)


class TurnIndexer:
    """Gives each turn of `full_history` its vector for recall, in batches."""

    def __init__(self, store: ChatStore, embedder: Embedder, *, batch: int = TURN_BATCH) -> None:
        self._store = store
        self._embedder = embedder
        self._batch = batch

    async def embed_chat(self, chat_id: UUID) -> int:
        """Embed the chat's turns that have no vector of this embedder's model; return how many."""
        embedded = 0
        while pending := await self._store.turns_without_vectors(chat_id, self._embedder.model_name, limit=self._batch):
            # The turn's own text is embedded: on LoCoMo, prefixing the turn before it scored lower
            # than ranking each turn with its neighbours' scores (chats.recall).
            matrix = await self._embedder.embed([turn.text for turn in pending])
            await self._store.set_turn_vectors(
                [
                    TurnVector(turn.chat_id, turn.index, EmbeddedText(turn.text, vector, self._embedder.model_name))
                    for turn, vector in zip(pending, matrix, strict=True)
                ]
            )
            embedded += len(pending)
        return embedded

    async def chats_to_backfill(self) -> list[UUID]:
        """The user's chats with turns that have no vector of this embedder's model, most recent first."""
        return await self._store.chats_without_turn_vectors(self._embedder.model_name)

    async def backfill(self) -> int:
        """Embed every chat's missing turn vectors, one chat at a time; return how many turns."""
        embedded = 0
        for chat_id in await self.chats_to_backfill():
            with suppress(ChatNotFound):  # deleted meanwhile
                embedded += await self.embed_chat(chat_id)
        return embedded


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
        self._turns = TurnIndexer(store, embedder)
        self._embedding_part = part_of(embedder)
        self._text_part = part_of(text_model)
        self._owed: dict[UUID, Owed] = {}
        """Chats maintained while a remote part was degraded, caught up once when it answers again."""

    @property
    def turns(self) -> TurnIndexer:
        return self._turns

    async def maintain(self, chat_id: UUID, *, embed_turns: bool = True) -> MaintenanceReport:
        """Compact while the window is exceeded, refresh the topic and title as needed, then give the
        chat's new turns their recall vectors (unless `embed_turns` is False: an import leaves them to
        the backfill, so that its cost follows what the model sees, not the chat's length)."""
        compactions = 0
        while await self._compact_once(chat_id):
            compactions += 1
        context = await self._store.load_assistant_context(chat_id)
        topic_refreshed = titled = False
        if context.summary is None:
            topic_refreshed = await self._refresh_topic(context)
            titled = await self._title_young_chat(context)
        turns_embedded = await self._embed_turns(chat_id) if embed_turns else 0
        owed = Owed(
            text=self._text_part is not None and self._text_part.health.degraded,
            vectors=self._embedding_part is not None and self._embedding_part.health.degraded,
        )
        if owed.text or owed.vectors:
            self._owed[chat_id] = owed | self._owed.get(chat_id, Owed())
        elif self._owed:
            await self._catch_up()
        return MaintenanceReport(compactions, titled, topic_refreshed, turns_embedded)

    async def title(self, chat_id: UUID) -> bool:
        """Give a chat its first title after its first exchange, and nothing else: `parley ask` leaves the
        rest (the topic, the turns' vectors: seconds of embedding model) to the next backfill, not its title,
        which the offline model writes in milliseconds and every list shows."""
        return await self._title_young_chat(await self._store.load_assistant_context(chat_id))

    async def _embed_turns(self, chat_id: UUID) -> int:
        try:
            return await self._turns.embed_chat(chat_id)
        except EmbeddingError as error:
            if self._embedding_part is None or not error.outage:
                raise
            return 0  # the part said once that it degraded; the turns wait for the catch-up

    async def _catch_up(self) -> None:
        """Once the remote parts answer again, give each chat maintained without them what they would have
        made: its automatic title written again, its summary or topic vector and its turns' vectors made by
        the embedder's own model. Each chat once: one that fails again waits for its next maintenance."""
        owed, self._owed = self._owed, {}
        for chat_id, what in owed.items():
            try:
                await self._catch_up_chat(chat_id, what)
            except ChatNotFound:
                pass  # deleted meanwhile
            except ChatsError as error:
                log.warning("catching up chat %s after the outage failed: %s", chat_id, error)

    async def _catch_up_chat(self, chat_id: UUID, owed: Owed) -> None:
        context = await self._store.load_assistant_context(chat_id)
        model = self._embedder.model_name
        if owed.vectors:
            vectors: tuple[tuple[EmbeddingKind, EmbeddedText | None], ...] = (
                ("summary", context.summary),
                ("topic", context.topic),
            )
            for kind, value in vectors:
                if value is not None and value.model != model:
                    await self._store.set_embedding(
                        chat_id, kind, await embed_one(self._embedder, value.text, fall_back=False)
                    )
            await self._turns.embed_chat(chat_id)
        if owed.text and context.title is not None:
            about = (
                context.summary.text
                if context.summary is not None
                else transcript(about_the_chat(context.assistant_history))
            )
            await self._retitle(chat_id, about)
        log.info("chat %s caught up after the outage", chat_id)

    async def _compact_once(self, chat_id: UUID) -> bool:
        context = await self._store.load_assistant_context(chat_id)
        plan = plan_compaction(context.assistant_history)
        if plan is None:
            return False
        text = cut_at_sentence(
            await self._text.summarize(about_the_chat(plan.replaced), plan.max_summary_chars), plan.max_summary_chars
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
        # Titled after its first exchange, so that no chat in the list stays "New chat"; a compaction
        # that moves the chat's focus titles it again (`_compact_once`).
        subject = about_the_chat(context.assistant_history)
        if context.title is not None or not exchanged(subject):
            return False
        return await self._retitle(context.chat_id, transcript(subject))

    async def _retitle(self, chat_id: UUID, text: str) -> bool:
        title = (await self._text.title(text)).strip()
        return bool(title) and await self._store.rename(chat_id, title, automatic=True)


def about_the_chat(turns: tuple[Turn, ...]) -> tuple[Turn, ...]:
    """The turns that say what a chat is about: a request to go to another chat (`Turn.navigation`) does not,
    so its words give the chat no title, summary or topic."""
    return tuple(turn for turn in turns if not turn.navigation)


def topic_text(history: tuple[Turn, ...]) -> str:
    """What a young chat is about, in its own words: the user's and the assistant's (the assistant names what
    the user only hints at; the user's words alone did no better on the paraphrase set, bench/paraphrase.py)."""
    words = " ".join(turn.text.strip() for turn in about_the_chat(history) if not turn.summary)
    return words[:TOPIC_MAX_CHARS].strip()


def exchanged(history: tuple[Turn, ...]) -> bool:
    """A first exchange is over: the user has spoken, and has been answered or spoken again."""
    return len(history) >= 2 and any(turn.role == "user" for turn in history)


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

    `request_backfill` maintains every chat whose turns lack recall vectors, one chat at a time and only
    while no chat waits for maintenance, so the chats just spoken in come first: their turns get their
    vectors, and a chat never maintained (imported, or spoken in by `parley ask`, which only titles it) its
    topic, title and summary too. A backfill is never waited for: leaving the worker finishes the requested
    chats and drops the rest of it, and a store that is unavailable or an embedder that fails stops it (the
    next start plans it again). `on_changed` hears of each chat whose title or summary maintenance wrote: a
    list loaded before shows neither.
    """

    def __init__(
        self,
        maintainer: ChatMaintainer,
        *,
        finish: bool = True,
        on_changed: Callable[[UUID], Awaitable[None]] | None = None,
    ) -> None:
        """`finish` False (`parley ask`: one message, and gone): requested chats are not maintained here but left
        to the next backfill, not even begun: the work would be dropped at the exit, and an embedding under way
        (tenths of a second) would hold the exit up."""
        self._maintainer = maintainer
        self._finish = finish
        self._on_changed = on_changed
        self._pending: dict[UUID, None] = {}
        self._backfill_requested = False
        self._backfill: deque[UUID] = deque()
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
        try:
            if kind is None and self._finish:
                self._stop_backfill()
                await self.idle()
        finally:
            # Also when the wait above is cancelled (the window closes while the last chats are maintained):
            # a task left running would go on after its owner, into a store closed under it.
            if self._task is not None:
                self._task.cancel()
                await asyncio.gather(self._task, return_exceptions=True)

    def request(self, chat_id: UUID) -> None:
        if not self._finish:
            return
        self._pending[chat_id] = None
        self._idle.clear()
        self._wake.set()

    def request_backfill(self) -> None:
        """Maintain every chat whose turns lack recall vectors, in the background, after requested chats."""
        self._backfill_requested = True
        self._idle.clear()
        self._wake.set()

    async def idle(self) -> None:
        await self._idle.wait()

    async def _run(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._pending or self._backfill_requested or self._backfill:
                if self._pending:
                    chat_id = next(iter(self._pending))
                    del self._pending[chat_id]
                    await self._step(chat_id)
                elif self._backfill_requested:
                    self._backfill_requested = False
                    await self._plan_backfill()
                else:
                    await self._step(self._backfill.popleft())
            self._idle.set()

    async def _step(self, chat_id: UUID) -> None:
        try:
            report = await self._maintainer.maintain(chat_id)
        except ChatNotFound:
            pass  # deleted meanwhile
        except (EmbeddingError, StoreUnavailable) as error:
            # Every other chat would fail alike: stop the backfill until it is requested again.
            self._stop_backfill()
            log.warning("maintenance of chat %s failed: %s", chat_id, error)
        except ChatsError as error:
            log.warning("maintenance of chat %s failed: %s", chat_id, error)
        else:
            if (report.titled or report.compactions) and self._on_changed is not None:
                await self._on_changed(chat_id)

    def _stop_backfill(self) -> None:
        self._backfill_requested = False
        self._backfill.clear()

    async def _plan_backfill(self) -> None:
        try:
            chats = await self._maintainer.turns.chats_to_backfill()
        except ChatsError as error:
            log.warning("cannot list the chats whose turns need recall vectors: %s", error)
            return
        queued = set(self._backfill)
        self._backfill.extend(chat_id for chat_id in chats if chat_id not in queued)
