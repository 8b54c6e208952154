"""A voice conversation bound to a chat: the composition of the voice session and the chats services.

The session sees the chat's `assistant_history` (never `full_history`) plus turns journaled but not yet
delivered; every finished turn is journaled the moment it ends; on idle, on a switch and on shutdown
the journal is delivered to the store and the chat is maintained (compaction, titles) in the
background; what the store cannot take is retried until it can (`app.outbox`), and while it cannot be
reached a conversation goes on from the chat as last loaded (`app.chat_so_far`). What was said since the
chat was loaded is held once, by the journal. A chat switch ends one session and opens the next in the other
chat at once.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING
from uuid import UUID, uuid4

from app.chat_in_conversation import ChatInConversation
from app.chat_so_far import ChatSoFar
from app.core.events import TurnSpoken
from app.core.toolkit import HearsTheUser, ToolKit, tool_reply
from app.outbox import Outbox
from app.tools.chat_tools import NEW_CHAT, SWITCH_CHAT, TOOLS, ChatTools
from app.tools.memory_tools import MEMORY_TOOLS, MemoryCallContext, MemoryTools
from app.tools.prompt import system_prompt
from app.tools.recall_tools import RECALL_CONVERSATIONS, UPDATE_WORKING_MEMORY, RecallTools, working_memory_block
from app.wiring import ChatServices
from chats.errors import ChatNotFound, StoreUnavailable
from chats.journal import TurnJournal
from chats.maintenance import MaintenanceWorker
from chats.memory.grounding import asked_to_remember
from chats.models import AssistantContext, Source, Turn, utc_now
from chats.storable_text import storable_text
from voice.audio.chunks import AudioSink
from voice.audio.earcon import earcon
from voice.live.connection import HistoryTurn, LiveConfig, LiveConnectionFactory, ToolCall, ToolDeclaration
from voice.session import VoiceSession
from voice.session_events import EndReason, Microphone, SessionEvent, SpokenTurn, ToolReply, ToolUsed
from voice.state import AssistantState, StateMachine
from voice.typed import TypedText

# The echo canceller (livekit's, 0.1 s to import) loads where the barge-in detector is made: not for `parley ask`.
if TYPE_CHECKING:
    from voice.echo.barge_in import SpeechOverPlaybackFactory

log = logging.getLogger(__name__)

END_CONVERSATION = ToolDeclaration(
    "end_conversation",
    "End the conversation and go back to sleep. Use it when the user says goodbye, thanks you and is "
    "done, or asks you to stop listening. Say a short goodbye first.",
    {"type": "object", "properties": {}, "additionalProperties": False},
)


MEMORY_OFF = (
    "Long-term memory is off in this chat, so nothing is saved or looked up: tell the user, who can switch "
    "it on for this chat in Parley's window or with `parley chats memory CHAT on`."
)


@dataclass(frozen=True, slots=True)
class Saved:
    chat_id: UUID
    turns: int
    """Turns the store received in this delivery."""


@dataclass(frozen=True, slots=True)
class Maintained:
    """Maintenance wrote the chat's title or summary, after its turns were `Saved` (or in a backfill)."""

    chat_id: UUID


@dataclass(frozen=True, slots=True)
class ChatSwitched:
    chat_id: UUID


ConversationEvent = SessionEvent | Saved | Maintained | ChatSwitched | TurnSpoken


@dataclass(frozen=True, slots=True)
class VoiceSettings:
    live_model: str
    idle_after_s: float = 10.0
    voice: str | None = None
    language: str = "en"
    """The language the user speaks (a supported code, or "auto"): the system prompt says it."""
    language_code: str | None = None
    """What Gemini Live is asked to speak (`LiveConfig.language_code`); None for "auto"."""
    web_search: bool = False
    """The model may search the web (`LiveConfig.web_search`)."""


def turn_sources(turn: SpokenTurn) -> tuple[Source, ...]:
    """The web pages a spoken turn draws on, as the chat keeps them."""
    return tuple(Source(title=source.title, uri=source.uri) for source in turn.sources)


class ChatConversation:
    def __init__(
        self,
        *,
        services: ChatServices,
        journal: TurnJournal,
        outbox: Outbox,
        maintenance: MaintenanceWorker,
        connect: LiveConnectionFactory,
        sink: AudioSink,
        settings: VoiceSettings,
        chat: ChatInConversation,
        on_event: Callable[[ConversationEvent], Awaitable[None]],
        clock: Callable[[], datetime] = utc_now,
        barge_in: SpeechOverPlaybackFactory | None = None,
        toolkits: Sequence[ToolKit] = (),
    ) -> None:
        """`chat`: which chat the conversation is in, its one owner (a new chat the store does not hold yet
        is created with its first saved turn, or when a tool first needs it, so a conversation that never got
        a word in leaves no empty chat behind). `barge_in`: the detector that stops the voice when the user
        speaks over it (see `VoiceSession`). `toolkits`: tools beyond the chat's own, declared in every
        conversation."""
        self._s = services
        self._toolkits = tuple(toolkits)
        self._journal = journal
        self._outbox = outbox
        self._loaded = ChatSoFar(journal)
        """The chat in conversation as the store last gave it; the journal holds what was said since."""
        self._maintenance = maintenance
        self._connect = connect
        self._sink = sink
        self._settings = settings
        self._chat = chat
        self._on_event = on_event
        self._clock = clock
        self._barge_in = barge_in
        self._tools = ChatTools(services, clock=clock)
        self._memory_tools = MemoryTools(services.memory)
        self._recall_tools = RecallTools(services.recaller, services.working_memory)
        self._project_id: str | None = None
        """The folder of the chat in conversation: its pool of project memories."""
        self._memory_on = True
        """Long-term memory is on in the chat in conversation (its tools are declared)."""

    @property
    def chat_id(self) -> UUID:
        """The chat in conversation (`ChatInConversation.chat_id`)."""
        return self._chat.chat_id

    @property
    def settings(self) -> VoiceSettings:
        """What the next session reads as it opens (one in progress keeps what it read)."""
        return self._settings

    @settings.setter
    def settings(self, settings: VoiceSettings) -> None:
        self._settings = settings

    async def converse(self, microphone: Microphone, typed: TypedText, states: StateMachine) -> EndReason:
        self._chat.begin()
        try:
            await self._sink.write(earcon(self._sink.format))  # heard while the session opens
            while True:
                reason = await self._session(microphone, typed, states)
                await self.save()
                switched = self._chat.session_ended()
                if switched is None:
                    return reason
                await self._on_event(ChatSwitched(switched))
                states.move(AssistantState.RECONNECTING)
        finally:
            self._chat.over()

    async def _session(self, microphone: Microphone, typed: TypedText, states: StateMachine) -> EndReason:
        """One session with the live model in the chat in conversation, until it ends."""
        session = VoiceSession(
            config=await self._config(),
            connect=self._connect,
            sink=self._sink,
            tools=self._call_tool,
            states=states,
            on_event=self._session_event,
            idle_after_s=self._settings.idle_after_s,
            barge_in=self._barge_in,
            history=self._history_now,
        )
        return await session.run(microphone, typed)

    async def save(self) -> None:
        """Deliver the journal to the store and have the chats maintained off this path."""
        delivery = await self._outbox.deliver()
        self._chat.delivered(chat for chat, _ in delivery.to_chats)
        if delivery.delivered:
            self._maintenance.request(self.chat_id)
        await self._on_event(Saved(self.chat_id, delivery.delivered))

    async def _config(self) -> LiveConfig:
        """The configuration from the store; while it is unreachable, the one it gave last (same chat)."""
        try:
            config, user_said = await self._config_from_store()
        except StoreUnavailable as error:
            log.warning("the chat store is unreachable (%s): going on in chat %s as last loaded", error, self.chat_id)
            return self._loaded.config(self.chat_id, error)
        self._loaded.loaded(self.chat_id, config, user_said)
        return config

    def _history_now(self) -> tuple[HistoryTurn, ...]:
        """What the chat in conversation holds now: for a live session that must start over."""
        return self._loaded.history(self.chat_id)

    async def _context(self) -> AssistantContext:
        try:
            return await self._s.store.load_assistant_context(self.chat_id)
        except ChatNotFound:
            if not self._chat.opening:
                raise
            return AssistantContext(self.chat_id, None, None, True, (), None, None, 0)  # as the store makes it

    async def _opened(self) -> None:
        """The new chat in conversation is in the store from here on: its tools act on a chat that exists."""
        if not self._chat.opening:
            return
        await self._outbox.deliver()
        try:
            await self._s.store.load_assistant_context(self.chat_id)
        except ChatNotFound:  # nothing said in it yet
            await self._s.store.create(chat_id=self.chat_id)
        self._chat.created()

    async def _config_from_store(self) -> tuple[LiveConfig, list[str]]:
        """The configuration, and the user's own words in the history it seeds (summaries aside)."""
        context = await self._context()
        undelivered = [e.turn for e in await self._journal.pending() if e.chat_id == self.chat_id]
        turns = (*context.assistant_history, *undelivered)
        history = tuple(HistoryTurn(t.role, t.text) for t in turns)
        self._project_id = context.project_id
        user_said = [t.text for t in turns if t.role == "user" and not t.summary]
        self._memory_on = context.memory_enabled
        memories = (await self._s.memory.store.preload()).text if context.memory_enabled else None
        # A chat still opening has no notes: only a tool writes them, and a tool opens the chat first.
        notes = "" if self._chat.opening else working_memory_block(await self._s.working_memory.get(self.chat_id))
        long_term = (*MEMORY_TOOLS, RECALL_CONVERSATIONS) if context.memory_enabled else ()
        kits = [declaration for kit in self._toolkits for declaration in await kit.declarations()]
        tools = (*TOOLS, *long_term, UPDATE_WORKING_MEMORY, END_CONVERSATION, *kits)
        prompt = system_prompt(
            tools=tools,
            chat_title=context.title,
            now=self._clock(),
            memories=memories,
            notes=notes,
            language=self._settings.language,
        )
        config = LiveConfig(
            model=self._settings.live_model,
            system_prompt=prompt,
            tools=tools,
            history=history,
            voice=self._settings.voice,
            language_code=self._settings.language_code,
            web_search=self._settings.web_search,
        )
        return config, user_said

    async def _call_tool(self, call: ToolCall) -> ToolReply:
        if call.name == END_CONVERSATION.name:
            return ToolReply({"outcome": "ending"}, end_conversation=True)
        long_term = self._memory_tools.handles(call.name) or call.name == RECALL_CONVERSATIONS.name
        if long_term and not self._memory_on:  # not declared, yet called: a model may remember earlier tools
            return ToolReply({"success": False, "error": MEMORY_OFF})
        if call.name in (SWITCH_CHAT.name, NEW_CHAT.name):
            return await self._switch(call)
        for kit in self._toolkits:
            if kit.handles(call.name):
                return tool_reply(await kit.call(call.name, call.args, self.chat_id))
        if long_term or call.name == UPDATE_WORKING_MEMORY.name:
            await self._opened()  # these act on the chat in conversation: it must exist
        if call.name in (UPDATE_WORKING_MEMORY.name, RECALL_CONVERSATIONS.name):
            return ToolReply(await self._recall_tools.call(call.name, call.args, self.chat_id))
        if self._memory_tools.handles(call.name):
            user_said = self._loaded.user_said(self.chat_id)
            context = MemoryCallContext(
                chat_id=self.chat_id,
                project_id=self._project_id,
                user_said=user_said,
                explicit_request=bool(user_said) and asked_to_remember(user_said[-1]),
            )
            return ToolReply(await self._memory_tools.call(call.name, call.args, context))
        return ToolReply((await self._tools.call(call.name, call.args, self.chat_id)).result)  # only switches move

    async def _switch(self, call: ToolCall) -> ToolReply:
        """`switch_chat` or `new_chat`. The turns of the request (the words that asked for it; when the model
        had to ask which chat, the question and the answer; the model's reply) are navigation turns
        (`Turn.navigation`): they stay in the history, never in what the chat is about, so they never make a
        chat a candidate the next time the user asks in those words. On a switch they go to the chat switched
        to, as do the turns after it: the chat they were said in keeps none of them."""
        request = self._chat.request()
        outcome = await self._tools.call(call.name, call.args, self.chat_id)
        for turn_id in request:
            await self._journal.mark_navigation(turn_id, outcome.switch_to or self.chat_id)
        self._chat.decided(outcome.switch_to, asking=outcome.result.get("outcome") == "ask", request=request)
        return ToolReply(outcome.result, end_conversation=outcome.switch_to is not None)

    async def _session_event(self, event: SessionEvent) -> None:
        if isinstance(event, SpokenTurn):
            # A transcript can carry half of a surrogate pair (an emoji split between two messages):
            # repaired where it enters, so that the journal, the store and every observer can write it.
            event = replace(event, text=storable_text(event.text))
            place = self._chat.place(event.role)
            turn = Turn(
                role=event.role,
                text=event.text,
                at=self._clock(),
                interrupted=event.interrupted,
                id=uuid4(),
                navigation=place.navigation,
                sources=turn_sources(event),
                searches=event.searches,
            )
            await self._journal.record(place.chat_id, turn, opens_chat=place.opens_chat)
            assert turn.id is not None
            self._chat.recorded(turn.id, event.role)
            if event.role == "user":
                for kit in self._toolkits:
                    if isinstance(kit, HearsTheUser):
                        kit.heard(event.text)
            await self._on_event(TurnSpoken(place.chat_id, turn, typed=event.typed))  # told once, as journaled
            return
        if isinstance(event, ToolUsed):
            log.info("tool %s answered", event.call.name)
            if event.reply.note:
                await self._note(event.reply.note)
        await self._on_event(event)

    async def _note(self, text: str) -> None:
        """Journal what a tool did as a note (`Turn.note`) in the chat in conversation, and tell it as a turn:
        not one of the dialogue's turns, so the switch request in progress (if any) does not count it."""
        place = self._chat.place("model")
        turn = Turn(role="model", text=text, at=self._clock(), id=uuid4(), note=True)
        await self._journal.record(place.chat_id, turn, opens_chat=place.opens_chat)
        await self._on_event(TurnSpoken(place.chat_id, turn))
