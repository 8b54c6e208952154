"""Tests of the user's MCP servers: their file, names, safety rule, and the real client on a real server."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from app.mcp.config import ServerConfig, StdioServer
from app.mcp.server_tools import CALL_TIMEOUT_S
from app.mcp.toolkit import McpToolKit

FAKE_SERVER = Path(__file__).resolve().parents[2] / "fakes" / "mcp_server.py"


def fake_server(name: str = "fake", *flags: str, env: dict[str, str] | None = None, **options: object) -> ServerConfig:
    """The fake MCP server (tests/fakes/mcp_server.py) as `mcp.json` would name it."""
    transport = StdioServer(sys.executable, (str(FAKE_SERVER), *flags), env or {})
    return ServerConfig(name, transport, **options)  # type: ignore[arg-type]


def patient_kit(
    servers: list[ServerConfig],
    *,
    source: Path | None = None,
    start_timeout_s: float = 120.0,
    call_timeout_s: float = CALL_TIMEOUT_S,
) -> McpToolKit:
    """A toolkit whose conversations wait for its servers to start: a Python server takes seconds to import
    the SDK on a busy test machine, more than a conversation waits (`DECLARE_WAIT_S`)."""
    return McpToolKit(
        servers, source=source, start_timeout_s=start_timeout_s, call_timeout_s=call_timeout_s, declare_wait_s=120.0
    )


def write_mcp_json(path: Path, servers: list[ServerConfig], **extra: object) -> Path:
    """`servers` (stdio ones) written as `mcp.json` at `path`, with `extra` keys beside `mcpServers`."""
    entries: dict[str, dict[str, object]] = {}
    for server in servers:
        assert isinstance(server.transport, StdioServer)
        entry: dict[str, object] = {"command": server.transport.command, "args": list(server.transport.args)}
        if server.transport.env:
            entry["env"] = dict(server.transport.env)
        if server.disabled:
            entry["disabled"] = True
        if server.disabled_tools:
            entry["disabledTools"] = sorted(server.disabled_tools)
        entries[server.name] = entry
    path.write_text(json.dumps({**extra, "mcpServers": entries}, indent=2), encoding="utf-8")
    return path
