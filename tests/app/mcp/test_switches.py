"""Switching servers and tools off and on in `mcp.json`: only the two keys change, atomically and privately."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from app.mcp.config import McpConfigError, read_servers
from app.mcp.switches import Switches, save_switches

WRITTEN = {
    "comment": "mine",
    "mcpServers": {
        "notes": {
            "command": "uvx",
            "args": ["notes-mcp"],
            "env": {"NOTES_TOKEN": "keyring:notes", "MODE": "fast"},
            "disabledTools": ["delete_all"],
        },
        "search": {"url": "https://example.org/mcp", "headers": {"Authorization": "keyring:search"}, "disabled": True},
        "plain": {"command": "plain-mcp"},
    },
}


def test_only_the_switches_change_and_keyring_references_stay(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps(WRITTEN), encoding="utf-8")
    path.chmod(0o644)
    save_switches(
        path,
        {
            "notes": Switches(disabled=True, disabled_tools=frozenset({"rename", "delete_all"})),
            "search": Switches(disabled=False, disabled_tools=frozenset()),
            "plain": Switches(disabled=False, disabled_tools=frozenset()),
            "gone": Switches(disabled=True, disabled_tools=frozenset()),
        },
    )
    saved = json.loads(path.read_text(encoding="utf-8"))
    expected = json.loads(json.dumps(WRITTEN))
    expected["mcpServers"]["notes"] |= {"disabled": True, "disabledTools": ["delete_all", "rename"]}
    expected["mcpServers"]["search"]["disabled"] = False
    assert saved == expected  # "plain" gains no key; "gone", not in the file, is not added
    assert list(saved) == ["comment", "mcpServers"]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    notes, search, plain = read_servers(path)
    assert notes.disabled and notes.disabled_tools == {"delete_all", "rename"}
    assert not search.disabled and not plain.disabled
    assert [p.name for p in tmp_path.iterdir()] == ["mcp.json"]  # no temporary file left


def test_a_file_parley_cannot_use_is_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text('{"mcpServers": {"bad": {"args": []}}}', encoding="utf-8")
    with pytest.raises(McpConfigError, match="needs a 'command' to run"):
        save_switches(path, {"bad": Switches(disabled=True, disabled_tools=frozenset())})
    assert path.read_text(encoding="utf-8") == '{"mcpServers": {"bad": {"args": []}}}'
    path.write_text("{oops", encoding="utf-8")
    with pytest.raises(McpConfigError, match=r"cannot be read \(JSONDecodeError\): nothing was saved"):
        save_switches(path, {})
