"""The user's MCP servers as a `ToolKit`: started together at the first conversation (which waits a few
seconds at most: a slower server comes with the next one), their tools declared under `server__tool` names,
read-only ones called at once, others held for the user's yes (`app.mcp.safety`), or first put to whoever
typed the question (`ask_with`: `parley ask`, which has no second turn). A server that cannot start
is left out, with one warning, until Parley restarts (or it is switched off and on); one that stops
mid-conversation is started again for the next conversation. A failing call gives the model a short error
and the conversation goes on. `mcp.json` is read again as each conversation opens: a server or tool switched
off or on (the window's Settings write the file) applies from the next conversation, with no message passed."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any
from uuid import UUID

from app.core.events import ConfirmationAsked, ConfirmationSettled, Post
from app.core.toolkit import Asker
from app.mcp.config import McpConfigError, ServerConfig, mcp_file, read_servers
from app.mcp.names import declared_names
from app.mcp.safety import CONFIRM_ACTION, Confirmations, needs_confirmation
from app.mcp.server_tools import CALL_TIMEOUT_S, DECLARE_WAIT_S, START_TIMEOUT_S, McpServerError, McpTool
from voice.live.connection import ToolDeclaration

if TYPE_CHECKING:
    from app.config.settings import Settings
    from app.mcp.connection import ServerConnection

log = logging.getLogger(__name__)

ASKER_REFUSED = "the user refused it: the action was not run"


class McpToolKit:
    """The tools of the enabled servers in `servers`, for one voice loop; with a `source`, the servers that
    `mcp.json` names when each conversation opens (while it cannot be read: those it named last)."""

    def __init__(
        self,
        servers: Sequence[ServerConfig],
        *,
        source: Path | None = None,
        post: Post | None = None,
        start_timeout_s: float = START_TIMEOUT_S,
        call_timeout_s: float = CALL_TIMEOUT_S,
        declare_wait_s: float | None = DECLARE_WAIT_S,
    ) -> None:
        self._servers = _enabled(servers)
        self._source = source
        self._post = post
        """Told of each call held for the user's yes, and when it is settled (a front end shows Allow/Deny)."""
        self._file_problem: str | None = None
        """Why `source` could not be read last time (said once)."""
        self._start_timeout_s = start_timeout_s
        self._call_timeout_s = call_timeout_s
        self._declare_wait_s = declare_wait_s
        self._connections: dict[str, ServerConnection] = {}
        self._starting: dict[str, asyncio.Task[None]] = {}
        self._late: set[str] = set()
        """Servers a conversation went without because they were still starting (said once each)."""
        self._given_up: dict[str, ServerConfig] = {}
        """Servers that could not start, as configured then: tried again only once their entry changes."""
        self._tool_lists: dict[str, tuple[McpTool, ...]] = {}
        """Each running server's tools, as it listed them when it started."""
        self._tools: dict[str, McpTool] = {}
        """The tools declared in this conversation, by declared name."""
        self._confirmations = Confirmations()
        self._asker: Asker | None = None

    def ask_with(self, asker: Asker | None) -> None:
        """Ask `asker` first whether a tool that asks first may run (`parley ask`: the one who typed it)."""
        self._asker = asker

    async def __aenter__(self) -> McpToolKit:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        for task in self._starting.values():
            task.cancel()
        await asyncio.gather(*self._starting.values(), return_exceptions=True)
        await asyncio.gather(*(connection.aclose() for connection in self._connections.values()))
        self._starting.clear()
        self._connections.clear()

    async def declarations(self) -> tuple[ToolDeclaration, ...]:
        await self._start_servers()
        listed = [
            tool
            for connection in self._connections.values()
            for tool in self._tool_lists.get(connection.config.name, ())
            if tool.name not in self._servers[connection.config.name].disabled_tools
        ]
        names = declared_names((tool.server, tool.name) for tool in listed)
        by_origin = {(tool.server, tool.name): tool for tool in listed}
        self._tools = {name: by_origin[origin] for name, origin in names.items()}
        declarations = tuple(
            ToolDeclaration(name, f"{tool.description} (the user's tool, from {tool.server})", tool.input_schema)
            for name, tool in self._tools.items()
        )
        if any(needs_confirmation(tool.read_only, tool.destructive) for tool in self._tools.values()):
            declarations += (CONFIRM_ACTION,)
        return declarations

    def handles(self, name: str) -> bool:
        return name in self._tools or (name == CONFIRM_ACTION.name and bool(self._tools))

    def heard(self, text: str) -> None:
        """The user finished a turn: what a held call waits for."""
        self._confirmations.heard(text)

    async def call(self, name: str, args: Mapping[str, Any], chat_id: UUID) -> dict[str, Any]:
        if name == CONFIRM_ACTION.name:
            confirmation = str(args.get("confirmation", ""))
            released = self._confirmations.release(confirmation)
            if self._post is not None and not self._confirmations.holds(confirmation):
                self._post(ConfirmationSettled(confirmation))
            if isinstance(released, str):
                return {"success": False, "error": released}
            return await self._run(released.name, released.args)
        tool = self._tools[name]
        if needs_confirmation(tool.read_only, tool.destructive):
            allowed = None if self._asker is None else await self._asker(tool.server, tool.name, dict(args))
            if allowed is not None:
                return await self._run(name, args) if allowed else {"success": False, "error": ASKER_REFUSED}
            confirmation = self._confirmations.hold(name, dict(args))
            if self._post is not None:
                self._post(ConfirmationAsked(confirmation, tool.server, tool.name, dict(args)))
            arguments = json.dumps(dict(args), ensure_ascii=False)
            return {
                "needs_confirmation": (
                    f"{tool.name} ({tool.server}) may change things. Ask the user whether to run it with "
                    f"{arguments}; call confirm_action with this confirmation only after they say yes."
                ),
                "confirmation": confirmation,
            }
        return await self._run(name, args)

    def decide(self, confirmation: str, allowed: bool) -> str | None:
        """The user allowed or refused a held call in a front end: what to tell the model as the user's words
        (no yes word in them: they approve this call only), or None when no such call waits."""
        held = self._confirmations.decide(confirmation, allowed)
        if held is None:
            return None
        if self._post is not None:
            self._post(ConfirmationSettled(confirmation))
        tool = self._tools.get(held.name)
        named = tool.name if tool else held.name
        if allowed:
            return f"Allowed in the window: run {named} now (call confirm_action with confirmation {confirmation})."
        return f"Denied in the window: do not run {named} (confirmation {confirmation})."

    async def _run(self, name: str, args: Mapping[str, Any]) -> dict[str, Any]:
        tool = self._tools.get(name)
        connection = self._connections.get(tool.server) if tool else None
        if tool is None or connection is None:
            return {"success": False, "error": "this tool is no longer available"}
        try:
            return await connection.call(tool.name, args, self._call_timeout_s)
        except McpServerError as exc:
            log.warning("MCP server %s, tool %s: %s", tool.server, tool.name, exc.logged)
            return {"success": False, "error": f"the {tool.server} server {exc}"}

    async def _start_servers(self) -> None:
        """Start the servers not running (a stopped one again; one that never started, never again), and wait
        `declare_wait_s` at most for those starting: a slower one comes with the next conversation. Servers
        switched off (or changed) in the file since are stopped first."""
        self._read_source()
        for name, connection in list(self._connections.items()):
            if not connection.running or not self._wanted(connection.config):
                await connection.aclose()
                del self._connections[name]
        for name, task in list(self._starting.items()):
            if name not in self._servers:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
                del self._starting[name]
        for name, config in list(self._given_up.items()):
            if not self._wanted(config):
                del self._given_up[name]
        for server in self._servers.values():
            if server.name not in (*self._connections, *self._given_up, *self._starting):
                self._starting[server.name] = asyncio.create_task(self._start(server), name=f"mcp-start-{server.name}")
        if self._starting:
            await asyncio.wait(self._starting.values(), timeout=self._declare_wait_s)
        for name, task in list(self._starting.items()):
            if task.done():
                del self._starting[name]
            elif name not in self._late:
                self._late.add(name)
                log.warning("MCP server %s is still starting: its tools come with the next conversation", name)

    async def _start(self, server: ServerConfig) -> None:
        from app.mcp.connection import ServerConnection  # the SDK, imported when first needed

        connection = ServerConnection(server, start_timeout_s=self._start_timeout_s)
        try:
            self._tool_lists[server.name] = await connection.start()
        except McpServerError as exc:
            log.warning("MCP server %s %s: its tools are left out until Parley restarts", server.name, exc.logged)
            self._given_up[server.name] = server
            return
        self._connections[server.name] = connection

    def _wanted(self, config: ServerConfig) -> bool:
        """Whether a server started (or tried) with `config` is still the one the file asks for."""
        current = self._servers.get(config.name)
        return current is not None and current.transport == config.transport

    def _read_source(self) -> None:
        if self._source is None:
            return
        try:
            self._servers = _enabled(read_servers(self._source))
        except McpConfigError as exc:
            if str(exc) != self._file_problem:
                log.warning("%s; going on with the MCP servers it named before", exc)
            self._file_problem = str(exc)
            return
        self._file_problem = None


def _enabled(servers: Sequence[ServerConfig]) -> dict[str, ServerConfig]:
    return {server.name: server for server in servers if not server.disabled}


def mcp_toolkits(
    settings: Settings, post: Post | None = None, *, declare_wait_s: float | None = DECLARE_WAIT_S
) -> tuple[McpToolKit, ...]:
    """The toolkit of the servers in the `mcp.json` beside the config file (read again at each conversation):
    none without the file, none for the offline voice (its intents call Parley's own tools only: a server
    started for it would only cost its start), and none, after one warning line, when the file is wrong at
    start. `declare_wait_s`: how long a conversation waits for servers still starting (None: until each has
    started or given up, for `parley ask`, which has no next conversation)."""
    if settings.effective_voice_model == "offline":
        return ()
    path = mcp_file(settings.config_file)
    try:
        servers = read_servers(path)
    except McpConfigError as exc:
        log.warning("%s; going on without the MCP servers", exc)
        return ()
    return (McpToolKit(servers, source=path, post=post, declare_wait_s=declare_wait_s),) if path.exists() else ()
