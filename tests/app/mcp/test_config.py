"""`mcp.json` read: the format other desktop assistants use, and one line for each way it can be wrong."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.mcp.config import McpConfigError, RemoteServer, StdioServer, mcp_file, read_servers, resolved
from tests.app import MemoryKeyring


def write(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_servers_are_read_in_order_with_their_switches(tmp_path: Path) -> None:
    path = write(
        tmp_path / "mcp.json",
        {
            "mcpServers": {
                "notes": {"command": "uvx", "args": ["notes-mcp"], "env": {"T": "x"}, "disabledTools": ["wipe"]},
                "search": {"url": "https://example.org/mcp", "headers": {"A": "b"}, "disabled": True},
            }
        },
    )
    notes, search = read_servers(path)
    assert (notes.name, notes.transport, notes.disabled, notes.disabled_tools) == (
        "notes",
        StdioServer("uvx", ("notes-mcp",), {"T": "x"}),
        False,
        frozenset({"wipe"}),
    )
    assert (search.name, search.transport, search.disabled) == (
        "search",
        RemoteServer("https://example.org/mcp", {"A": "b"}),
        True,
    )


def test_the_file_lives_beside_the_config_file(tmp_path: Path) -> None:
    assert mcp_file(tmp_path / "config.toml") == tmp_path / "mcp.json"
    assert read_servers(tmp_path / "mcp.json") == ()  # none yet: no servers, no error


@pytest.mark.parametrize(
    ("data", "said"),
    [
        ([1, 2], "expected"),
        ({"mcpServers": {"a": {"args": []}}}, "server 'a': needs a 'command' to run or an http"),
        ({"mcpServers": {"a": {"url": "ftp://x"}}}, "needs a 'command'"),
        ({"mcpServers": {"a": {"command": "x", "args": "y"}}}, "'args' must be a list of strings"),
        ({"mcpServers": {"a": {"command": "x", "env": {"K": 1}}}}, "'env' must be an object of strings"),
        ({"mcpServers": {"a": {"command": "x", "disabled": "yes"}}}, "'disabled' must be true or false"),
        ({"mcpServers": {"a": {"command": "x", "disabledTools": "all"}}}, "'disabledTools' must be a list"),
    ],
)
def test_a_wrong_entry_is_one_line_naming_it(tmp_path: Path, data: object, said: str) -> None:
    with pytest.raises(McpConfigError, match=said) as raised:
        read_servers(write(tmp_path / "mcp.json", data))
    assert "\n" not in str(raised.value) and str(tmp_path / "mcp.json") in str(raised.value)


def test_a_file_that_is_not_json_says_which_line(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text('{\n  "mcpServers": {,\n}', encoding="utf-8")
    with pytest.raises(McpConfigError, match=r"not valid JSON \(line 2\)"):
        read_servers(path)


def test_keyring_values_are_read_when_needed_and_a_missing_one_is_named(memory_keyring: MemoryKeyring) -> None:
    memory_keyring.set_password("parley", "notes", "s3cret")
    assert resolved({"TOKEN": "keyring:notes", "MODE": "fast"}, "notes") == {"TOKEN": "s3cret", "MODE": "fast"}
    with pytest.raises(McpConfigError, match="no keyring entry 'other' for TOKEN: store it with") as raised:
        resolved({"TOKEN": "keyring:other"}, "notes")
    assert "s3cret" not in str(raised.value)
