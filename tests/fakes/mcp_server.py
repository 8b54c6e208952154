"""A small MCP server over stdio, written with the official SDK, for the tests of Parley's MCP client: run it
as `python -m tests.fakes.mcp_server [--die-at-start] [--hang-at-start]`.

Its tools: `add` (read-only, structured result), `delete_note` (destructive: writes a line to the file
named by FAKE_MCP_LOG, so a test can see whether it ran), `crash` (the process exits mid-call), `hang`
(never answers) and `echo_secret` (says whether FAKE_MCP_SECRET reached it, never its value)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

# The failures at start come before the SDK's import (seconds on a busy machine), so they come at once.
if "--die-at-start" in sys.argv:
    sys.exit(2)
if "--hang-at-start" in sys.argv:
    time.sleep(3600)
if "--garbage" in sys.argv:
    print("this is not JSON-RPC", flush=True)
    time.sleep(3600)

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

server = MCPServer("fake")


@server.tool(description="Add two numbers.", annotations=ToolAnnotations(read_only_hint=True))
def add(a: float, b: float) -> dict[str, float]:
    return {"sum": a + b}


@server.tool(description="Delete a note by its title.", annotations=ToolAnnotations(destructive_hint=True))
def delete_note(title: str) -> str:
    log = os.environ.get("FAKE_MCP_LOG")
    if log:
        with Path(log).open("a", encoding="utf-8") as file:
            file.write(f"deleted {title}\n")
    return f"Deleted the note {title}."


@server.tool(description="Fail badly.", annotations=ToolAnnotations(read_only_hint=True))
def crash() -> str:
    os._exit(3)  # the process dies without answering


@server.tool(description="Never answer.", annotations=ToolAnnotations(read_only_hint=True))
def hang() -> str:
    time.sleep(3600)  # blocks the server, as a stuck tool does
    return "late"


@server.tool(description="Whether the secret arrived.", annotations=ToolAnnotations(read_only_hint=True))
def echo_secret() -> str:
    return "present" if os.environ.get("FAKE_MCP_SECRET") == "s3cret" else "absent"


if __name__ == "__main__":
    server.run("stdio")
