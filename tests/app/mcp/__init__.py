"""Tests of the user's MCP servers: their file, names, safety rule, and the real client on a real server."""

from __future__ import annotations

import sys
from pathlib import Path

from app.mcp.config import ServerConfig, StdioServer
from app.mcp.toolkit import McpToolKit

FAKE_SERVER = Path(__file__).resolve().parents[2] / "fakes" / "mcp_server.py"


def fake_server(name: str = "fake", *flags: str, env: dict[str, str] | None = None, **options: object) -> ServerConfig:
    """The fake MCP server (tests/fakes/mcp_server.py) as `mcp.json` would name it."""
    transport = StdioServer(sys.executable, (str(FAKE_SERVER), *flags), env or {})
    return ServerConfig(name, transport, **options)  # type: ignore[arg-type]


def patient_kit(servers: list[ServerConfig], **options: float) -> McpToolKit:
    """A toolkit whose conversations wait for its servers to start: a Python server takes seconds to import
    the SDK on a busy test machine, more than a conversation waits (`DECLARE_WAIT_S`)."""
    return McpToolKit(servers, **({"declare_wait_s": 120.0} | options))
