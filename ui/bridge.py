"""The chat bridge between the window (GUI thread) and the core (the runtime thread's asyncio loop): the
chat list, folders, search and the selected chat, on `ServicesBridge`'s plumbing (a widget calls a
method, which returns at once; the answer arrives as a signal on the GUI thread).

`post` is the way in for the voice loop and the store's news (`app.core.events`): it may be called
from any thread; it emits the one private signal `_posted`, which Qt queues to the bound slot
`_on_posted` on the GUI thread, where each event becomes its public signal. So every public signal is
emitted on the GUI thread, whoever posted.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Literal, assert_never
from uuid import UUID

from PySide6.QtCore import QObject, Signal, Slot

from app.account.supabase_reachability import report_reachability
from app.controller import ChatController
from app.core import events
from app.runtime import Runtime
from app.wiring import ChatServices
from chats.models import Chat, ChatInfo, Folder, FolderFilter, Turn
from ui.services_bridge import ServicesBridge
from ui.tool_chips import ToolChip, chip_chat, chip_text, running_chip_text

SearchOutcome = Literal["switch", "ask", "none"]
UNSHOWN_KEPT = 200
"""Turns kept per chat spoken while another chat was shown: a conversation's worth, whatever runs long."""


@dataclass(frozen=True, slots=True)
class ChatPage:
    """One page of the chat list, most recent activity first."""

    request: int
    """The number `ChatBridge.load_page` returned for this page."""
    folder: FolderFilter
    """Which chats the page is of: all (None), one folder's, or those in no folder."""
    offset: int
    """Rows before this page."""
    limit: int
    """Rows asked for; a shorter page is the last one."""
    chats: tuple[ChatInfo, ...]


@dataclass(frozen=True, slots=True)
class SearchHit:
    chat_id: UUID
    title: str | None


@dataclass(frozen=True, slots=True)
class SearchResult:
    """What `find_chats` (the voice tool's search) made of a query typed in the window."""

    query: str
    outcome: SearchOutcome
    """`switch`: one clear match; `ask`: several close ones, best first; `none`: nothing fits."""
    hits: tuple[SearchHit, ...]


class ChatBridge(ServicesBridge):
    """Lives on the GUI thread. Create it there, after `runtime.start()`, then call `open()`."""

    chats_changed = Signal()
    """The chat list changed (a chat was added, renamed, deleted or got new turns): reload it."""
    page_loaded = Signal(object)
    """A `ChatPage`."""
    chat_loaded = Signal(object)
    """The current chat (`Chat`), with its full history."""
    current_chat_changed = Signal(object)
    """The `UUID` of the chat shown (None: none is), whoever chose it."""
    chat_chosen = Signal(object)
    """The `UUID` of a chat the user chose in the window: the next conversation continues it (a chat the
    voice moved to is not chosen again: the conversation is there already)."""
    chat_created = Signal(object)
    """A new `Chat`."""
    folders_changed = Signal()
    """A folder was added, renamed or deleted, or a chat moved between folders: reload the folders."""
    folders_loaded = Signal(object)
    """The user's folders, a `tuple[Folder, ...]` by name."""
    search_finished = Signal(object)
    """A `SearchResult` for the latest query."""
    turn_spoken = Signal(object)
    """A `Turn` just spoken in the current chat, not saved yet."""
    tool_used = Signal(object, object)
    """(chat `UUID`, `ToolChip`): what a tool did in a conversation, for that chat's transcript."""
    state_changed = Signal(object)
    """The voice's `app.core.status.VoiceStatus`: the assistant's state, or off, or error."""
    muted_changed = Signal(bool)
    """The microphone was muted (True) or unmuted."""
    level_changed = Signal(float)
    """The microphone's level in dBFS (0 is full scale), about ten times a second while not muted."""
    memories_changed = Signal()
    """A conversation saved or forgot a memory: the Memory page reloads."""
    notice = Signal(str)
    """Something the user should know that is not an error (the offline voice is a small model)."""
    device_lost = Signal(str, str)
    """("microphone" or "speaker", what failed): the voice goes on without that device."""
    device_back = Signal(str)
    """"microphone" or "speaker": the device that failed works again."""
    error_resolved = Signal(str)
    """An error said earlier (its message as `error` had it) no longer holds."""

    timers_changed = Signal(object)
    """The running timers (`tuple[Timer, ...]`, soonest first)."""
    timer_ringing = Signal(object)
    """`events.TimerRinging`: a timer rings until `timer_stopped`."""
    timer_stopped = Signal(str)
    timers_missed = Signal(str)
    """What was missed while Parley was not running, said once."""
    confirmation_asked = Signal(object)
    """`events.ConfirmationAsked`: a tool call waits for the user's yes until `confirmation_settled`."""
    confirmation_settled = Signal(str)
    _posted = Signal(object)
    """An `app.core.events.FrontEvent`, from any thread, queued to `_on_posted`."""

    def __init__(
        self,
        runtime: Runtime,
        open_services: Callable[[], AbstractAsyncContextManager[ChatServices]],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(runtime, open_services, parent)
        self._current: UUID | None = None
        self._shown: UUID | None = None
        """The chat whose transcript the window holds (`chat_loaded`): until the chat selected loads, it is
        still the one before."""
        self._unshown: defaultdict[UUID, list[Turn]] = defaultdict(list)
        """Turns spoken in a chat whose transcript is not on screen: after a switch by voice the reply is
        journaled in the chat switched to before the window has loaded it; it is shown there when that chat
        loads, unless the store already holds it."""
        self._requests = 0
        self._latest_search = 0
        # The bridge lives on the GUI thread: an emission from another thread is queued to it there.
        self._posted.connect(self._on_posted)

    @property
    def current_chat_id(self) -> UUID | None:
        return self._current

    def load_page(self, offset: int, limit: int, folder: FolderFilter = None) -> int:
        """Ask for a page of the chat list; `page_loaded` answers with the returned request number."""
        request = self._next_request()
        self._call(self._load_page(request, offset, limit, folder), self.page_loaded.emit)
        return request

    def load_folders(self) -> None:
        """Ask for the folders; `folders_loaded` answers."""
        self._call(self._folders(), self.folders_loaded.emit)

    def create_folder(self, name: str, *, move: UUID | None = None) -> None:
        """Add a folder, and put the chat `move` in it if given."""
        self._call(self._create_folder(name, move), self._on_folders_changed)

    def rename_folder(self, folder_id: str, name: str) -> None:
        self._call(self._rename_folder(folder_id, name), self._on_folders_changed)

    def delete_folder(self, folder_id: str) -> None:
        """Delete the folder; its chats stay, in no folder."""
        self._call(self._delete_folder(folder_id), self._on_folders_changed)

    def move_chat(self, chat_id: UUID, folder_id: str | None) -> None:
        """Put the chat in the folder, or with None in none."""
        self._call(self._move_chat(chat_id, folder_id), self._on_folders_changed)

    def select_chat(self, chat_id: UUID, *, by_user: bool = True) -> None:
        """Show `chat_id` and load its transcript; `by_user`: the user chose it, and the next conversation
        continues it (else the voice is in it already, and said so)."""
        if chat_id != self._current:
            self._current = chat_id
            self.current_chat_changed.emit(chat_id)
            if by_user:
                self.chat_chosen.emit(chat_id)
        self._call(self._show(chat_id), self._on_chat_loaded)

    def search(self, query: str) -> None:
        """Find chats by meaning, as the voice tool does; only the latest query is answered."""
        self._latest_search = self._next_request()
        self._call(self._search(self._latest_search, query), self._on_search_finished)

    def new_chat(self, folder_id: str | None = None) -> None:
        """Start an empty chat, in the folder `folder_id` if given."""
        self._call(self._new_chat(folder_id), self._on_chat_created)

    def rename(self, chat_id: UUID, title: str) -> None:
        self._call(self._rename(chat_id, title), self._on_renamed)

    def delete(self, chat_id: UUID) -> None:
        self._call(self._delete(chat_id), self._on_deleted)

    def post(self, event: events.FrontEvent) -> None:
        """Any thread: news from the voice loop or the store, shown on the GUI thread."""
        self._posted.emit(event)

    # The coroutines below run on the runtime's loop.

    async def _controller(self) -> ChatController:
        return ChatController(await self._opened())

    async def _load_page(self, request: int, offset: int, limit: int, folder: FolderFilter) -> ChatPage:
        chats = await (await self._controller()).list_chats(limit=limit, offset=offset, folder=folder)
        return ChatPage(request, folder, offset, limit, tuple(chats))

    async def _folders(self) -> tuple[Folder, ...]:
        return tuple(await (await self._controller()).folders())

    async def _create_folder(self, name: str, move: UUID | None) -> None:
        controller = await self._controller()
        folder = await controller.create_folder(name)
        if move is not None:
            await controller.move_chat(move, folder.id)

    async def _rename_folder(self, folder_id: str, name: str) -> None:
        await (await self._controller()).rename_folder(folder_id, name)

    async def _delete_folder(self, folder_id: str) -> None:
        await (await self._controller()).delete_folder(folder_id)

    async def _move_chat(self, chat_id: UUID, folder_id: str | None) -> None:
        await (await self._controller()).move_chat(chat_id, folder_id)

    async def _show(self, chat_id: UUID) -> Chat:
        return await (await self._controller()).show(chat_id)

    async def _search(self, request: int, query: str) -> tuple[int, SearchResult]:
        match = await (await self._controller()).find(query)
        hits = tuple(SearchHit(option.chat_id, option.title) for option in match.options)
        # A search typed in the window is said in no chat: "here" (the chat it was said in) cannot come.
        outcome = "switch" if match.outcome == "here" else match.outcome
        return request, SearchResult(query, outcome, hits)

    async def _new_chat(self, folder_id: str | None) -> Chat:
        return await (await self._controller()).new_chat(folder_id=folder_id)

    async def _rename(self, chat_id: UUID, title: str) -> UUID:
        await (await self._controller()).rename(chat_id, title)
        return chat_id

    async def _delete(self, chat_id: UUID) -> UUID:
        await (await self._controller()).delete(chat_id)
        return chat_id

    def _next_request(self) -> int:
        self._requests += 1
        return self._requests

    def _on_opened(self, services: ChatServices) -> None:
        # Supabase's outage banner, and the news when it is back.
        report_reachability(
            services.store,
            error=lambda message: self.post(events.Problem(message)),
            resolved=lambda message: self.post(events.ProblemResolved(message)),
            notice=lambda message: self.post(events.Notice(message)),
        )
        super()._on_opened(services)

    def _on_folders_changed(self, _done: None) -> None:
        self.folders_changed.emit()
        self.chats_changed.emit()

    def _on_chat_loaded(self, chat: Chat) -> None:
        if chat.id == self._current:  # a slower answer for a chat no longer selected is dropped
            self._shown = chat.id
            self.chat_loaded.emit(chat)
            stored = {turn.id for turn in chat.full_history}
            for turn in self._unshown.pop(chat.id, []):
                if turn.id not in stored:  # now live in the transcript, which keeps it until the store has it
                    self.turn_spoken.emit(turn)

    def _on_search_finished(self, answer: tuple[int, SearchResult]) -> None:
        request, result = answer
        if request == self._latest_search:
            self.search_finished.emit(result)

    def _on_chat_created(self, chat: Chat) -> None:
        self.chat_created.emit(chat)
        self.chats_changed.emit()

    def _on_renamed(self, chat_id: UUID) -> None:
        self.chats_changed.emit()
        if chat_id == self._current:  # the transcript shows the title too
            self.select_chat(chat_id)

    def _on_deleted(self, chat_id: UUID) -> None:
        if chat_id == self._current:
            self._current = None
            self.current_chat_changed.emit(None)
        self.chats_changed.emit()

    @Slot(object)
    def _on_posted(self, event: events.FrontEvent) -> None:  # noqa: PLR0912, PLR0915 (one case per kind of event: a table reads best whole)
        """The one way in from other threads: each event as the signals (or the selection) it stands for."""
        match event:
            case events.StatusChanged(status):
                self.state_changed.emit(status)
            case events.MutedChanged(muted):
                self.muted_changed.emit(muted)
            case events.LevelHeard(dbfs):
                self.level_changed.emit(dbfs)
            case events.TurnSpoken(chat_id, turn):
                if chat_id == self._current == self._shown:  # else kept until its chat's transcript loads
                    self.turn_spoken.emit(turn)
                elif turn.id is not None:
                    unshown = self._unshown[chat_id]
                    unshown[:] = [*unshown[-UNSHOWN_KEPT + 1 :], turn]
            case events.ToolActivity():
                self._show_tool(event)
            case events.MemoriesChanged():
                self.memories_changed.emit()
            case events.ChatSaved(chat_id):
                self.chats_changed.emit()
                if chat_id == self._current:
                    self.select_chat(chat_id)
            case events.VoiceInChat(chat_id):
                self.select_chat(chat_id, by_user=False)
            case events.DefaultChat(chat_id):
                if self._current is None:
                    self.select_chat(chat_id)
            case events.DeviceLost(device, problem):
                self.device_lost.emit(device, problem)
            case events.DeviceBack(device):
                self.device_back.emit(device)
            case events.Problem(message):
                self.error.emit(message)
            case events.ProblemResolved(message):
                self.error_resolved.emit(message)
            case events.Notice(message):
                self.notice.emit(message)
            case events.TimersChanged(timers):
                self.timers_changed.emit(timers)
            case events.TimerRinging():
                self.timer_ringing.emit(event)
            case events.TimerStopped(timer_id):
                self.timer_stopped.emit(timer_id)
            case events.TimersMissed(message, _):
                self.timers_missed.emit(message)
            case events.ConfirmationAsked():
                self.confirmation_asked.emit(event)
            case events.ConfirmationSettled(confirmation):
                self.confirmation_settled.emit(confirmation)
            case _:
                assert_never(event)

    def _show_tool(self, activity: events.ToolActivity) -> None:
        """A chip while a slow tool runs, then the chip of its answer, in the chat it belongs to."""
        if activity.result is None:
            running = running_chip_text(activity.name)
            if running is not None:
                self.tool_used.emit(activity.chat_id, ToolChip(running, call_id=activity.call_id, running=True))
            return
        words = chip_text(activity.name, activity.args, activity.result)
        if words is not None:
            text, failed = words
            chat_id = chip_chat(activity.name, activity.result, activity.chat_id)
            self.tool_used.emit(chat_id, ToolChip(text, failed, activity.call_id))
