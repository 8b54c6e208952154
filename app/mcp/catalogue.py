"""Every configured server started once, asked for its tools and stopped: what `parley tools list` prints
and `parley doctor` checks."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass

from app.mcp.config import ServerConfig
from app.mcp.names import declared_names
from app.mcp.safety import needs_confirmation
from app.mcp.server_tools import McpServerError, McpTool

LIST_TIMEOUT_S = 20.0
"""How long a command waits for a server to start and list its tools: longer than a conversation does
(`START_TIMEOUT_S`), so that `parley tools list` sees an `npx` server through its first install."""


@dataclass(frozen=True, slots=True)
class ListedTool:
    """A tool as the model would see it."""

    declared: str
    """The name the model calls it by (`server__tool`); empty for a tool switched off."""
    tool: McpTool
    enabled: bool
    asks_first: bool
    """It waits for the user's yes before it runs."""


@dataclass(frozen=True, slots=True)
class ServerReport:
    """One server: its tools, or why it has none."""

    server: ServerConfig
    tools: tuple[ListedTool, ...] = ()
    error: str | None = None
    """Why it could not be started or listed; None when it was, or is switched off."""
    start_ms: float | None = None
    """From starting it to its tool list (milliseconds)."""


async def catalogue(
    servers: Sequence[ServerConfig], start_timeout_s: float = LIST_TIMEOUT_S
) -> tuple[ServerReport, ...]:
    """Each server's report, in `servers` order (switched-off ones are not started); all start at once."""
    # A task group, not `gather`: cancelled (Ctrl-C), it waits for every server to stop; `gather` ends with
    # the first child cancelled, and the loop's end would then cut the others' shutdown short.
    async with asyncio.TaskGroup() as group:
        tasks = [group.create_task(_listed(server, start_timeout_s)) for server in servers]
    listed = [task.result() for task in tasks]
    enabled = [
        tool
        for server, (tools, _, _) in zip(servers, listed, strict=True)
        for tool in tools
        if tool.name not in server.disabled_tools
    ]
    names = {origin: name for name, origin in declared_names((t.server, t.name) for t in enabled).items()}
    reports = []
    for server, (tools, error, start_ms) in zip(servers, listed, strict=True):
        rows = tuple(
            ListedTool(
                declared=names.get((tool.server, tool.name), ""),
                tool=tool,
                enabled=tool.name not in server.disabled_tools,
                asks_first=needs_confirmation(tool.read_only, tool.destructive),
            )
            for tool in tools
        )
        reports.append(ServerReport(server, rows, error, start_ms))
    return tuple(reports)


async def _listed(server: ServerConfig, start_timeout_s: float) -> tuple[tuple[McpTool, ...], str | None, float | None]:
    if server.disabled:
        return (), None, None
    from app.mcp.connection import ServerConnection  # the SDK, imported when needed

    connection = ServerConnection(server, start_timeout_s=start_timeout_s)
    started = time.perf_counter()
    try:
        tools = await connection.start()
    except McpServerError as exc:
        return (), str(exc), None
    start_ms = (time.perf_counter() - started) * 1000
    await connection.aclose()
    return tools, None, start_ms
