"""`parley tools list [--json]`: the user's MCP servers (`mcp.json` beside the config file), each started
once to list its tools: the names the model calls them by, which ones wait for the user's yes, which are
switched off."""

from __future__ import annotations

import argparse
import asyncio
import json
from typing import TYPE_CHECKING, Any

from app.cli.command_runner import UsageError
from app.config.settings import Settings

if TYPE_CHECKING:
    from app.mcp.catalogue import ServerReport


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    tools = commands.add_parser("tools", help="the tools of your MCP servers (mcp.json)")
    actions = tools.add_subparsers(dest="action", required=True)
    listing = actions.add_parser("list", help="start each server once and list its tools")
    listing.add_argument("--json", action="store_true", help="print JSON instead of text")
    listing.set_defaults(handler=run)


def run(settings: Settings, args: argparse.Namespace) -> int:
    # Imported when the command runs (the MCP SDK): `parley --help` builds this command's parser too.
    from app.mcp.catalogue import catalogue
    from app.mcp.config import McpConfigError, mcp_file, read_servers

    path = mcp_file(settings.config_file)
    try:
        servers = read_servers(path)
    except McpConfigError as exc:
        raise UsageError(str(exc)) from None
    reports = asyncio.run(catalogue(servers))
    if args.json:
        print(json.dumps({"file": str(path), "servers": [_as_json(report) for report in reports]}, indent=2))
        return 1 if any(report.error for report in reports) else 0
    if not reports:
        print(f"No MCP servers: add them to {path} (see docs/guide/tools.md).")
    for report in reports:
        print(_heading(report))
        for row in report.tools:
            state = "off" if not row.enabled else "asks first" if row.asks_first else "runs at once"
            print(f"  {row.declared or row.tool.name:40} {state:12} {row.tool.description.splitlines()[0][:60]}")
    return 1 if any(report.error for report in reports) else 0


def _heading(report: ServerReport) -> str:
    server = report.server
    if server.disabled:
        return f"{server.name}: switched off"
    if report.error:
        return f"{server.name}: PROBLEM: {report.error}"
    return f"{server.name}: {len(report.tools)} tool(s), started in {report.start_ms or 0:.0f} ms"


def _as_json(report: ServerReport) -> dict[str, Any]:
    from app.mcp.config import RemoteServer  # loaded with the servers already

    server = report.server
    return {
        "name": server.name,
        "transport": "http" if isinstance(server.transport, RemoteServer) else "stdio",
        "enabled": not server.disabled,
        "error": report.error,
        "tools": [
            {
                "name": row.declared,
                "tool": row.tool.name,
                "enabled": row.enabled,
                "asks_first": row.asks_first,
                "description": row.tool.description,
            }
            for row in report.tools
        ],
    }
