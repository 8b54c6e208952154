"""The running Parley's end of `parley ask` and of the commands' searches: a Unix socket in the data folder,
served on the voice loop's event loop for as long as the loop holds the folder's listening lock. A search is
answered with the loop's services (their models loaded already: `app.asks.searches`). A question that comes
over it is typed to the loop (`send_text`, as the window's text box does: queued while a conversation runs), and its
answer goes back once the loop has recorded it; the conversation, its chat and its journal are the running
Parley's. Only questions and searches are taken (`app.asks.wire`); the socket is this user's alone (its
mode, and the connecting process's user where the system tells it). A tool that asks
first, called for a question from the socket, is asked about over that socket (`parley ask` asks its user on
the terminal, or refuses): the one who typed the question decides, as when no Parley runs; a call for the
window's user or the voice waits for their own yes, as ever."""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import struct
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Protocol
from uuid import UUID

from app.asks.answer import Answer
from app.asks.searches import found
from app.asks.wire import (
    MAX_REQUEST_BYTES,
    BadRequest,
    Question,
    Search,
    allowed,
    consent_request,
    line,
    request_of,
    socket_path,
)
from app.core.toolkit import AsksTheAsker
from chats.errors import ChatsError
from voice.state import AssistantState, StateChanged

if TYPE_CHECKING:
    from app.conversation import ConversationEvent
    from app.wiring import ChatServices

log = logging.getLogger(__name__)

REQUEST_WAIT_S = 5.0
"""How long a connection may take to send its question (a client sends it at once)."""
CLOSE_WAIT_S = 2.0
"""How long the questions still waiting get, once the loop stops, to be told so."""
CONSENT_WAIT_S = 300.0
"""How long a tool that asks first waits for the asker's y or n (a person at a terminal)."""
STOPPED = "Parley stopped before answering; the question stays in chat {chat_id} if it was sent"


class AskTarget(Protocol):
    """The voice loop, as the server sees it."""

    @property
    def chat_id(self) -> UUID: ...

    async def send_text(self, text: str) -> None: ...

    async def switch_to(self, chat_id: UUID) -> None:
        """The next conversation continues `chat_id`, and the loop's observer is told (the window shows it)."""
        ...


class AskServer:
    """Serves questions from other processes while entered; feed it the loop's `state` and `conversation`
    events, from which it gathers each question's answer."""

    def __init__(
        self, data_dir: Path, target: AskTarget, services: ChatServices, toolkits: Sequence[object] = ()
    ) -> None:
        """`services`: the loop's (its store, and what searches use); `toolkits`: the loop's, those whose tools
        may ask first ask the question's asker while one is answered."""
        self._path = socket_path(data_dir)
        self._consenting = [kit for kit in toolkits if isinstance(kit, AsksTheAsker)]
        self._target = target
        self._services = services
        self._store = services.store
        self._asleep = asyncio.Event()
        """No conversation runs: the loop starts asleep."""
        self._asleep.set()
        self._server: asyncio.Server | None = None
        self._waiting: list[Answer] = []
        """Questions sent to the loop and not answered yet, oldest first."""
        self._askers: dict[int, tuple[asyncio.StreamReader, asyncio.StreamWriter]] = {}
        """The connection each waiting question came on, by the `id` of its answer."""
        self._handlers: set[asyncio.Task[None]] = set()

    async def __aenter__(self) -> AskServer:
        # Left by a Parley that ended without closing it (killed): this process holds the lock now.
        self._path.unlink(missing_ok=True)
        try:
            self._server = await asyncio.start_unix_server(self._serve, path=str(self._path), limit=MAX_REQUEST_BYTES)
        except OSError as error:  # a data folder whose path is too long for a socket, say
            log.warning("`parley ask` cannot reach this Parley: no socket in the data folder (%s)", error)
            return self
        self._path.chmod(0o600)  # the data folder is private already (`keep_private`): this user only, twice
        for kit in self._consenting:
            kit.ask_with(self._ask_the_asker)
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if self._server is None:
            return
        for kit in self._consenting:
            kit.ask_with(None)
        self._server.close()
        for answer in self._waiting:
            answer.failure = STOPPED.format(chat_id=answer.chat_id)
            answer.over.set()
        if self._handlers:
            _, late = await asyncio.wait(self._handlers, timeout=CLOSE_WAIT_S)
            for handler in late:
                handler.cancel()
            await asyncio.gather(*late, return_exceptions=True)
        await self._server.wait_closed()
        self._path.unlink(missing_ok=True)

    # The loop's events.

    def state(self, change: StateChanged) -> None:
        if change.new is AssistantState.SLEEPING:
            self._asleep.set()
        else:
            self._asleep.clear()
        for answer in self._waiting:
            answer.state(change)

    async def conversation(self, event: ConversationEvent) -> None:
        for answer in list(self._waiting):
            asked = bool(answer.user)
            await answer.conversation(event)
            if not asked and answer.user:
                answer.chat_id = self._target.chat_id  # where it was said (the loop may have changed chats)
                break  # a turn is one question's: the same words asked twice are two turns

    async def _forget(self, chat_id: UUID, *, back_to: UUID) -> None:
        """A chat opened for a question that never reached it: deleted, and the loop back where it was."""
        if self._target.chat_id == chat_id:
            await self._target.switch_to(back_to)
        await self._store.delete(chat_id)

    # One connection: one question, or one search.

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        handler = asyncio.current_task()
        assert handler is not None
        self._handlers.add(handler)
        try:
            if not _same_user(writer):
                return
            async with asyncio.timeout(REQUEST_WAIT_S):
                request = await reader.readline()
            if not request:  # a client that only looked whether Parley runs
                return
            asked = request_of(request)
            if isinstance(asked, Search):
                writer.write(line({"found": await found(self._services, asked)}))
            else:
                writer.write(line(await self._answer(asked, reader, writer)))
            await writer.drain()
        except (BadRequest, ChatsError) as bad:  # a chat it does not hold, a store out of reach
            writer.write(line({"error": str(bad)}))
        except (TimeoutError, ValueError, ConnectionError):
            pass  # a client that said nothing in time, too much, or left: nobody to tell
        finally:
            self._handlers.discard(handler)
            writer.close()

    async def _answer(
        self, question: Question, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> dict[str, object]:
        left = self._target.chat_id
        opened = (await self._store.create()).id if question.new_chat else None
        answer = Answer(left, question=question.text)
        self._askers[id(answer)] = (reader, writer)
        try:
            chat = opened or question.chat
            if chat is not None and chat != left:
                if opened is None:
                    await self._store.load_assistant_context(chat)  # `ChatNotFound` for a chat it does not hold
                # The conversation under way goes on in its own chat: the question opens the next one.
                while not self._asleep.is_set():
                    await self._asleep.wait()
                await self._target.switch_to(chat)
            answer.chat_id = self._target.chat_id
            self._waiting.append(answer)
            await self._target.send_text(question.text)
            await answer.over.wait()
        finally:
            if answer in self._waiting:
                self._waiting.remove(answer)
            del self._askers[id(answer)]
            if opened is not None and not answer.user:  # nothing was said in the new chat: it goes
                await self._forget(opened, back_to=left)
        if answer.failure is not None:
            return {"error": answer.failure}
        if not answer.model:
            return {"error": f"the conversation ended without an answer; the question is in chat {answer.chat_id}"}
        return {"answer": answer.as_json()}

    async def _ask_the_asker(self, server: str, tool: str, args: Mapping[str, Any]) -> bool | None:
        """Whether the one who typed the question under way allows the tool (False: they left, or did not
        answer in time); None when the conversation is not answering a question from the socket."""
        answering = next((answer for answer in self._waiting if answer.user and not answer.model), None)
        if answering is None:
            return None
        reader, writer = self._askers[id(answering)]
        try:
            writer.write(consent_request(server, tool, args))
            await writer.drain()
            async with asyncio.timeout(CONSENT_WAIT_S):
                return allowed(await reader.readline())
        except (TimeoutError, ValueError, ConnectionError):
            log.warning("`parley ask` gave no answer for %s on %s: refused", tool, server)
            return False


def _same_user(writer: asyncio.StreamWriter) -> bool:
    """Whether the connecting process runs as this user, where the system says (Linux's `SO_PEERCRED`); the
    socket's mode keeps others out already, except in the moment between its making and its `chmod`."""
    connection = writer.get_extra_info("socket")
    if not hasattr(socket, "SO_PEERCRED") or connection is None:
        return True
    credentials = connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", credentials)
    if uid != os.getuid():
        log.warning("refused a connection to the socket from another user (uid %d)", uid)
        return False
    return True
