"""`mcp.json`, the file other desktop assistants use too: which MCP servers Parley may start or reach, and
which of them and of their tools are switched off. Read only; a wrong file is one `McpConfigError` line.

    {"mcpServers": {
        "notes": {"command": "uvx", "args": ["notes-mcp"], "env": {"NOTES_TOKEN": "keyring:notes"},
                  "disabledTools": ["delete_all"]},
        "search": {"url": "https://example.org/mcp", "headers": {"Authorization": "keyring:search"},
                   "disabled": true}}}

A value `"keyring:NAME"` in `env` or `headers` is read from the OS keyring (service `parley`, entry NAME)
when the server starts, so no secret has to be written in the file."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.config.secrets import read_entry

MCP_FILE = "mcp.json"
KEYRING_PREFIX = "keyring:"


class McpConfigError(Exception):
    """`mcp.json` cannot be used as written; the message says where and what to do."""


@dataclass(frozen=True, slots=True)
class StdioServer:
    """A server Parley starts as a child process and talks to over its stdin and stdout."""

    command: str
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    """Set for the server beside a few safe variables of Parley's own (PATH, HOME...); values may be
    `keyring:NAME`."""


@dataclass(frozen=True, slots=True)
class RemoteServer:
    """A server reached over streamable HTTP."""

    url: str
    headers: Mapping[str, str] = field(default_factory=dict)
    """Sent with every request; values may be `keyring:NAME`."""


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """One entry of `mcpServers`."""

    name: str
    transport: StdioServer | RemoteServer
    disabled: bool = False
    """`"disabled": true`: never started, its tools never declared."""
    disabled_tools: frozenset[str] = frozenset()
    """`"disabledTools": [...]`: the server's own names of tools the model must not see."""


def mcp_file(config_file: Path) -> Path:
    """Where `mcp.json` lives: beside the config file."""
    return config_file.parent / MCP_FILE


def read_servers(path: Path) -> tuple[ServerConfig, ...]:
    """The servers `path` names, in its order; none when there is no file."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ()
    except (OSError, UnicodeDecodeError) as exc:
        raise McpConfigError(f"{path}: cannot be read ({type(exc).__name__})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise McpConfigError(f"{path}: not valid JSON (line {exc.lineno}): fix it or remove the file") from None
    return parse_servers(data, str(path))


def parse_servers(data: Any, where: str) -> tuple[ServerConfig, ...]:
    """The servers of a parsed `mcp.json` (`where` names the file in messages)."""
    servers = data.get("mcpServers", {}) if isinstance(data, dict) else None
    if not isinstance(servers, dict):
        raise McpConfigError(f'{where}: expected {{"mcpServers": {{"name": {{...}}}}}}')
    return tuple(_server(str(name), entry, f"{where}: server '{name}'") for name, entry in servers.items())


def _server(name: str, entry: Any, where: str) -> ServerConfig:
    if not isinstance(entry, dict):
        raise McpConfigError(f"{where}: expected an object with 'command' or 'url'")
    transport: StdioServer | RemoteServer
    if isinstance(entry.get("command"), str) and entry["command"]:
        args = entry.get("args", [])
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            raise McpConfigError(f"{where}: 'args' must be a list of strings")
        transport = StdioServer(entry["command"], tuple(args), _strings(entry.get("env", {}), "env", where))
    elif isinstance(entry.get("url"), str) and entry["url"].startswith(("http://", "https://")):
        transport = RemoteServer(entry["url"], _strings(entry.get("headers", {}), "headers", where))
    else:
        raise McpConfigError(f"{where}: needs a 'command' to run or an http(s) 'url'")
    disabled, tools = entry.get("disabled", False), entry.get("disabledTools", [])
    if not isinstance(disabled, bool):
        raise McpConfigError(f"{where}: 'disabled' must be true or false")
    if not isinstance(tools, list) or not all(isinstance(t, str) for t in tools):
        raise McpConfigError(f"{where}: 'disabledTools' must be a list of tool names")
    return ServerConfig(name, transport, disabled, frozenset(tools))


def _strings(values: Any, key: str, where: str) -> dict[str, str]:
    if not isinstance(values, dict) or not all(isinstance(v, str) for v in values.values()):
        raise McpConfigError(f"{where}: '{key}' must be an object of strings")
    return {str(k): v for k, v in values.items()}


def resolved(values: Mapping[str, str], server: str) -> dict[str, str]:
    """`values` with each `keyring:NAME` read from the OS keyring; `McpConfigError` when an entry is missing
    (the message names the entry, never a value)."""
    out: dict[str, str] = {}
    for key, value in values.items():
        if not value.startswith(KEYRING_PREFIX):
            out[key] = value
            continue
        entry = value.removeprefix(KEYRING_PREFIX)
        secret = read_entry(entry)
        if secret is None:
            raise McpConfigError(
                f"server '{server}': no keyring entry '{entry}' for {key}: store it with `keyring set parley {entry}`"
            )
        out[key] = secret
    return out
