"""One MCP server, started (or reached) and spoken to through the official `mcp` SDK's `ClientSession`.

The SDK's transports are anyio task groups that must be left by the task that entered them, and a
conversation's tools are called from other tasks than the one that closes the voice loop: so each server
lives in a task of its own, which opens the transport and the session, lists the tools, waits for `aclose`,
and closes them itself. Calls go through the session from any task on the same event loop.

Failures, as the SDK shows them (mcp 2.3): a command that does not exist raises `OSError` at start; a
server that exits closes the session, and a request waiting on it fails with `MCPError("Connection
closed")`; a server that does not answer fails with `MCPError("... timed out")` after the read timeout;
lines that are not JSON-RPC are handed to the session as errors and the request they should have answered
times out."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import tempfile
from collections.abc import Mapping
from contextlib import AsyncExitStack
from typing import Any, TextIO

import mcp.client.stdio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.types import CallToolResult, PaginatedRequestParams, Tool

from app.mcp.config import McpConfigError, RemoteServer, ServerConfig, resolved
from app.mcp.server_tools import CALL_TIMEOUT_S, CLOSE_TIMEOUT_S, MAX_TEXT, START_TIMEOUT_S, McpServerError, McpTool
from voice.races import unless

log = logging.getLogger(__name__)
# The SDK logs a server's bad output and lost connections with tracebacks; Parley says one line itself.
logging.getLogger("mcp").setLevel(logging.CRITICAL)

STOP_GRACE_S = 0.3
"""How long a server has to exit once its stdin closes, then again once terminated, before it is killed. The
SDK's 2 s each (and 2 s more to see it die) kept a Ctrl-C waiting 6 s on a server that ignores both; a
server that does not ignore them exits in milliseconds."""
mcp.client.stdio.PROCESS_TERMINATION_TIMEOUT = STOP_GRACE_S
mcp.client.stdio.FORCE_KILL_TIMEOUT = STOP_GRACE_S
SAID_LINES = 5
"""The last lines of a server's error output shown when it fails to start (`parley tools list`, doctor)."""


class ServerConnection:
    """One server for as long as it runs. `start` once, `call` any number of times, `aclose` at the end."""

    def __init__(self, config: ServerConfig, *, start_timeout_s: float = START_TIMEOUT_S) -> None:
        self.config = config
        self._start_timeout_s = start_timeout_s
        self._session: ClientSession | None = None
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._errlog: TextIO | None = None
        """The server's standard error (a stdio one's), while it runs."""
        self.failure: str | None = None
        """Why the server stopped answering, once it has."""

    @property
    def running(self) -> bool:
        return self._session is not None and self.failure is None and self._task is not None and not self._task.done()

    async def start(self) -> tuple[McpTool, ...]:
        """Start the server and list its tools; `McpServerError` when it cannot (missing, exits, hangs)."""
        ready: asyncio.Future[tuple[McpTool, ...]] = asyncio.get_running_loop().create_future()
        self._task = asyncio.create_task(self._run(ready), name=f"mcp-{self.config.name}")
        try:
            async with asyncio.timeout(self._start_timeout_s):
                return await asyncio.shield(ready)
        except TimeoutError:
            ready.cancel()
            reason = f"did not answer within {self._start_timeout_s:g} s of starting"
            error = McpServerError(_with_output(reason, self._errlog), reason)
            await self.aclose()
            raise error from None
        except (McpServerError, asyncio.CancelledError):  # cancelled: whoever waited gave up (Ctrl-C, a closing
            # page): the server is stopped here, by this task, not cut short when the loop ends
            await self.aclose()
            raise
        finally:
            if not ready.done():  # cancelled: no one will read what the server task would put there
                ready.cancel()

    async def call(self, tool: str, args: Mapping[str, Any], timeout_s: float = CALL_TIMEOUT_S) -> dict[str, Any]:
        """The tool's answer for the model: its text as `result` (`structured` too when it returns data),
        `error` when the tool says it failed. `McpServerError` when the server does not answer."""
        if self._session is None or not self.running:
            raise McpServerError(self.failure or "is not running")
        try:
            result = await self._session.call_tool(tool, dict(args), read_timeout_seconds=timeout_s)
        except Exception as exc:  # the SDK's MCPError, a closed stream, a validation error
            reason = _reason(exc, timeout_s)
            if "stopped" in reason:
                self.failure = reason
            known = reason.startswith(("did not answer", "stopped"))
            raise McpServerError(reason, None if known else f"refused the call ({type(exc).__name__})") from None
        if not isinstance(result, CallToolResult):  # input-required or extension results: not for a voice
            raise McpServerError("answered with a kind of result Parley does not handle")
        return answer_for_model(result)

    async def aclose(self) -> None:
        """Stop the server (its process too, for a stdio one); nothing happens when it never started."""
        self._stop.set()
        if self._task is None:
            return
        try:
            async with asyncio.timeout(CLOSE_TIMEOUT_S):
                await asyncio.gather(self._task, return_exceptions=True)
        except TimeoutError:  # the last resort: a cancelled SDK transport may leave the process behind
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        self._session = None

    async def _run(self, ready: asyncio.Future[tuple[McpTool, ...]]) -> None:
        # A file, not a pipe: the SDK hands it to the process as is, and a pipe nobody reads would block the
        # server once full. Its last lines say why a server failed; the rest is its own chatter (and may hold
        # what the user asked): not Parley's terminal or log.
        with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as errlog:
            self._errlog = errlog
            try:
                await self._serve(ready, errlog)
            finally:
                self._errlog = None

    async def _serve(self, ready: asyncio.Future[tuple[McpTool, ...]], errlog: TextIO) -> None:
        try:
            async with AsyncExitStack() as stack:
                read, write = await stack.enter_async_context(_transport(self.config, errlog))
                session = await stack.enter_async_context(ClientSession(read, write))
                # Asked in a task of its own, raced with `aclose`: a server silent at start is then left by
                # this task closing the transport itself. Cancelling this task instead would cut the SDK's
                # shutdown short (it shields it from anyio's cancellation, not asyncio's), and could leave
                # the server's process running.
                tools = await unless(_listed_tools(session, self.config.name), self._stop.wait())  # or its failure
                if tools is None:  # stopped while starting: `start` has given up waiting
                    ready.cancel()
                    return
                self._session = session
                ready.set_result(tools)
                await self._stop.wait()
        except McpConfigError as exc:
            self._fail(ready, str(exc))
        except OSError as exc:
            self._fail(ready, f"cannot be started ({exc.strerror or type(exc).__name__})")
        except Exception as exc:  # anything the SDK or the server throws; cancellation goes through
            self._fail(ready, _reason(exc, self._start_timeout_s), errlog)
        finally:
            self._session = None

    def _fail(self, ready: asyncio.Future[tuple[McpTool, ...]], reason: str, errlog: TextIO | None = None) -> None:
        if not ready.done():
            ready.set_exception(McpServerError(_with_output(reason, errlog), reason))
        elif self.failure is None and not ready.cancelled():  # cancelled: stopped while starting, on purpose
            self.failure = reason
            log.warning("MCP server %s %s", self.config.name, reason)


def answer_for_model(result: CallToolResult) -> dict[str, Any]:
    """A tool's result as the model gets it: text parts joined (other parts named), structured content as
    it came; a tool error under `error`."""
    parts = [getattr(block, "text", None) or f"[{block.type} omitted]" for block in result.content]
    text = _cut("\n".join(parts))
    if result.is_error:
        return {"success": False, "error": text or "the tool failed"}
    answer: dict[str, Any] = {"result": text}
    structured = result.structured_content
    if structured is not None and len(json.dumps(structured, ensure_ascii=False)) <= MAX_TEXT:
        answer["structured"] = structured
    elif structured is not None:
        answer["result"] += f" [its structured data ({len(json.dumps(structured)):,} characters) was left out]"
    return answer


def _cut(text: str) -> str:
    """`text`, or its first `MAX_TEXT` characters with a note that the rest was cut."""
    if len(text) <= MAX_TEXT:
        return text
    return f"{text[:MAX_TEXT]}\n[cut: the answer was {len(text):,} characters; the first {MAX_TEXT:,} are above]"


def _transport(config: ServerConfig, errlog: TextIO) -> Any:
    transport = config.transport
    if isinstance(transport, RemoteServer):
        client = create_mcp_http_client(headers=resolved(transport.headers, config.name))
        return streamable_http_client(transport.url, http_client=client)
    params = StdioServerParameters(
        command=transport.command, args=list(transport.args), env=resolved(transport.env, config.name)
    )
    return stdio_client(params, errlog=errlog)


def _with_output(reason: str, errlog: TextIO | None) -> str:
    """`reason`, then the server's last lines of error output (indented), when it wrote any."""
    if errlog is None:
        return reason
    # Read through the descriptor from where the file ends: the server may still be writing to it, and it
    # shares the file's position with it (left at the end again, where it writes next).
    descriptor = errlog.fileno()
    end = os.lseek(descriptor, 0, os.SEEK_END)
    os.lseek(descriptor, max(0, end - 4_000), os.SEEK_SET)
    tail = os.read(descriptor, 4_000).decode("utf-8", "replace")
    lines = [line.rstrip()[:300] for line in tail.splitlines() if line.strip()][-SAID_LINES:]
    return "".join((reason, *(f"\n  | {line}" for line in lines)))


async def _listed_tools(session: ClientSession, server: str) -> tuple[McpTool, ...]:
    """Initialise the session and list every tool (all pages)."""
    await session.initialize()
    page = await session.list_tools()
    tools = list(page.tools)
    while page.next_cursor:
        page = await session.list_tools(params=PaginatedRequestParams(cursor=page.next_cursor))
        tools.extend(page.tools)
    return tuple(_tool(server, tool) for tool in tools)


def _tool(server: str, tool: Tool) -> McpTool:
    hints = tool.annotations
    return McpTool(
        server=server,
        name=tool.name,
        description=tool.description or tool.title or tool.name,
        input_schema=tool.input_schema,
        read_only=hints.read_only_hint if hints else None,
        destructive=hints.destructive_hint if hints else None,
    )


def _reason(exc: BaseException, timeout_s: float) -> str:
    """One line from an SDK failure (no arguments or results in it: those may be private)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:  # the transports' task groups wrap failures
        exc = exc.exceptions[0]
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if "timed out" in text:
        return f"did not answer within {timeout_s:g} s"
    if "closed" in text.lower():
        return "stopped (its connection closed)"
    return text[:200]
