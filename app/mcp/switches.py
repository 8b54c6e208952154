"""Switching servers and tools off and on in `mcp.json`, as the window's Settings do: only `disabled` and
`disabledTools` change; every other key and value stays as written (a `keyring:NAME` reference too: no
secret is ever read here, nor written)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.config.config_file import SettingsError
from app.config.config_writer import replace_file
from app.mcp.config import McpConfigError, parse_servers


@dataclass(frozen=True, slots=True)
class Switches:
    """What is switched off of one server."""

    disabled: bool
    """The whole server is off."""
    disabled_tools: frozenset[str]
    """The server's own names of the tools that are off."""


def save_switches(path: Path, switches: Mapping[str, Switches]) -> None:
    """Write each named server's switches into `path`, atomically (a crash leaves the old file whole) and
    private (0600). A server `path` no longer names is left out. `McpConfigError` when the file cannot be
    read as a valid `mcp.json` or cannot be written; the file is then untouched."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise McpConfigError(f"{path}: cannot be read ({type(exc).__name__}): nothing was saved") from None
    parse_servers(data, str(path))  # refuses a file Parley could not use, before anything is written
    servers: dict[str, Any] = data.get("mcpServers", {})
    for name, switch in switches.items():
        if name in servers:
            _apply(servers[name], switch)
    try:
        replace_file(path, (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
    except SettingsError as exc:
        raise McpConfigError(str(exc)) from None


def _apply(entry: dict[str, Any], switch: Switches) -> None:
    """Set the two keys, adding one only when it says something (off, or tools off)."""
    if switch.disabled or "disabled" in entry:
        entry["disabled"] = switch.disabled
    if switch.disabled_tools or "disabledTools" in entry:
        entry["disabledTools"] = sorted(switch.disabled_tools)
