"""The chat bridge between the window (GUI thread) and the core (the runtime thread's asyncio loop): the
chat list, folders, search and the selected chat, on `ServicesBridge`'s plumbing (a widget calls a
method, which returns at once; the answer arrives as a signal on the GUI thread).

The `post_*` methods are the voice loop's way in: they may be called from any thread; they emit a
private signal that Qt queues to the bridge's bound slot on the GUI thread, so every public signal is
emitted on the GUI thread, whoever posted.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Literal
from uuid import UUID

from PySide6.QtCore import QObject, Signal, Slot

from app.account.supabase_reachability import report_reachability
from app.controller import ChatController
from app.runtime import Runtime
from app.wiring import ChatServices
from chats.models import Chat, ChatInfo, Folder, FolderFilter, Role, Turn, utc_now
from ui.services_bridge import ServicesBridge
from ui.tool_chips import ToolChip

SearchOutcome = Literal["switch", "ask", "none"]


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


@dataclass(frozen=True, slots=True)
class LiveTurn:
    """A turn just spoken in a running conversation, before the store has it."""

    chat_id: UUID
    turn: Turn


class ChatBridge(ServicesBridge):
    """Lives on the GUI thread. Create it there, after `runtime.start()`, then call `open()`."""

    chats_changed = Signal()
    """The chat list changed (a chat was added, renamed, deleted or got new turns): reload it."""
    page_loaded = Signal(object)
    """A `ChatPage`."""
    chat_loaded = Signal(object)
    """The current chat (`Chat`), with its full history."""
    current_chat_changed = Signal(object)
    """The `UUID` of the chat the next conversation continues."""
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
    state_changed = Signal(str)
    """The assistant's state: sleeping, connecting, listening, responding, reconnecting, stopped, error."""
    muted_changed = Signal(bool)
    """The microphone was muted (True) or unmuted."""
    level_changed = Signal(float)
    """The microphone's level in dBFS (0 is full scale), about ten times a second while not muted."""
    memories_changed = Signal()
    """A conversation saved or forgot a memory: the Memory page reloads."""
    notice = Signal(str)
    """Something the user should know that is not an error (the offline voice is a small model)."""
    error_resolved = Signal(str)
    """An error said earlier (its message as `error` had it) no longer holds."""

    _chat_saved = Signal(object)
    _chat_switched = Signal(object)
    _turn_spoken = Signal(object)
    _tool_used = Signal(object, object)
    _default_chat = Signal(object)
    _state = Signal(str)
    _muted = Signal(bool)
    _level = Signal(float)
    _error = Signal(str)
    _memories_changed = Signal()
    _notice = Signal(str)
    _error_resolved = Signal(str)

    def __init__(
        self,
        runtime: Runtime,
        open_services: Callable[[], AbstractAsyncContextManager[ChatServices]],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(runtime, open_services, parent)
        self._current: UUID | None = None
        self._requests = 0
        self._latest_search = 0
        self._chat_saved.connect(self._on_chat_saved)
        self._chat_switched.connect(self._on_chat_switched)
        self._turn_spoken.connect(self._on_turn_spoken)
        self._default_chat.connect(self._on_default_chat)
        # Private to public, signal to signal: the bridge is the receiver, so these too are queued to the
        # GUI thread.
        self._tool_used.connect(self.tool_used)
        self._state.connect(self.state_changed)
        self._muted.connect(self.muted_changed)
        self._level.connect(self.level_changed)
        self._error.connect(self.error)
        self._error_resolved.connect(self.error_resolved)
        self._notice.connect(self.notice)
        self._memories_changed.connect(self.memories_changed)

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

    def select_chat(self, chat_id: UUID) -> None:
        """Make `chat_id` the chat the next conversation continues, and load its transcript."""
        if chat_id != self._current:
            self._current = chat_id
            self.current_chat_changed.emit(chat_id)
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

    def post_state(self, state: str) -> None:
        """Any thread: the assistant's state changed."""
        self._state.emit(state)

    def post_muted(self, muted: bool) -> None:
        """Any thread: the microphone was muted or unmuted."""
        self._muted.emit(muted)

    def post_level(self, dbfs: float) -> None:
        """Any thread: the microphone's level."""
        self._level.emit(dbfs)

    def post_memories_changed(self) -> None:
        """Any thread: a conversation saved or forgot a memory."""
        self._memories_changed.emit()

    def post_notice(self, message: str) -> None:
        """Any thread: something the user should know that is not an error."""
        self._notice.emit(message)

    def post_error(self, message: str) -> None:
        """Any thread: a one-line message for the user."""
        self._error.emit(message)

    def post_error_resolved(self, message: str) -> None:
        """Any thread: the error `message` said earlier no longer holds."""
        self._error_resolved.emit(message)

    def post_turn(self, chat_id: UUID, role: Role, text: str) -> None:
        """Any thread: a turn of the running conversation ended; the transcript shows it at once."""
        self._turn_spoken.emit(LiveTurn(chat_id, Turn(role=role, text=text, at=utc_now())))

    def post_chat_saved(self, chat_id: UUID) -> None:
        """Any thread: turns were saved to `chat_id`; the list and, if shown, the transcript reload."""
        self._chat_saved.emit(chat_id)

    def post_chat_switched(self, chat_id: UUID) -> None:
        """Any thread: the voice conversation switched to `chat_id`; the window selects it."""
        self._chat_switched.emit(chat_id)

    def post_default_chat(self, chat_id: UUID) -> None:
        """Any thread: the chat to show at start; selected unless the user chose one meanwhile."""
        self._default_chat.emit(chat_id)

    def post_tool(self, chat_id: UUID, chip: ToolChip) -> None:
        """Any thread: a tool answered in a conversation in (or switching to) `chat_id`."""
        self._tool_used.emit(chat_id, chip)

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
            services.store, error=self.post_error, resolved=self.post_error_resolved, notice=self.post_notice
        )
        super()._on_opened(services)

    def _on_folders_changed(self, _done: None) -> None:
        self.folders_changed.emit()
        self.chats_changed.emit()

    def _on_chat_loaded(self, chat: Chat) -> None:
        if chat.id == self._current:  # a slower answer for a chat no longer selected is dropped
            self.chat_loaded.emit(chat)

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
    def _on_chat_saved(self, chat_id: UUID) -> None:
        self.chats_changed.emit()
        if chat_id == self._current:
            self.select_chat(chat_id)

    @Slot(object)
    def _on_turn_spoken(self, live: LiveTurn) -> None:
        if live.chat_id == self._current:
            self.turn_spoken.emit(live.turn)

    @Slot(object)
    def _on_chat_switched(self, chat_id: UUID) -> None:
        self.select_chat(chat_id)

    @Slot(object)
    def _on_default_chat(self, chat_id: UUID) -> None:
        if self._current is None:
            self.select_chat(chat_id)
