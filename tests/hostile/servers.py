"""Tool servers (MCP) that misbehave, as scripts, and the `mcp.json` that names them."""

from __future__ import annotations

import json
import sys
from pathlib import Path

COMPLAINS = """\
import sys
for number in range(1, 8):
    print(f"line {number}", file=sys.stderr)
print("bad \\x1b[2Jtoken", file=sys.stderr)
sys.exit(3)
"""
BIG_PAGE = """\
from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

server = MCPServer("big")


@server.tool(description="A long page.", annotations=ToolAnnotations(read_only_hint=True))
def page() -> str:
    return "x" * 5_000_000


server.run()
"""


def write_servers(folder: Path, **scripts: str) -> None:
    """Each script saved in `folder` and named in the `mcp.json` there, its one argument a file beside it."""
    servers = {}
    for name, text in scripts.items():
        (folder / f"{name}.py").write_text(text, encoding="utf-8")
        servers[name] = {"command": sys.executable, "args": [str(folder / f"{name}.py"), str(folder / name)]}
    (folder / "mcp.json").write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
