"""The names the model calls MCP tools by: the server's name and the tool's, joined and made valid for
Gemini (letters, digits and underscores, starting with a letter, at most 64 characters) and unique."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

MAX_NAME = 64
"""Gemini refuses longer function names."""
_INVALID = re.compile(r"[^A-Za-z0-9_]+")


def declared_names(tools: Iterable[tuple[str, str]]) -> dict[str, tuple[str, str]]:
    """Each (server, tool) under its declared name, `server__tool` sanitised; a clash (two names equal after
    sanitising) gets a short hash of the original names, so the same config always gives the same names."""
    names: dict[str, tuple[str, str]] = {}
    for server, tool in tools:
        name = _fit(f"{_part(server)}__{_part(tool)}", "")
        if name in names:
            name = _fit(name, "_" + hashlib.sha1(f"{server}\0{tool}".encode()).hexdigest()[:6])
        names[name] = (server, tool)
    return names


def _part(text: str) -> str:
    return _INVALID.sub("_", text).strip("_") or "x"


def _fit(name: str, suffix: str) -> str:
    if not name[0].isalpha():
        name = "mcp_" + name
    return name[: MAX_NAME - len(suffix)] + suffix
